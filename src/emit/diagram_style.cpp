// Emit: diagram styles (viz/style.json's format) and view names.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/emit/diagram.hpp"
#include "planlayout/error.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout_embedded_style.hpp"

namespace planlayout {
namespace {

LineStyle line_from(const JsonReader& r, const LineStyle& fallback, bool fill = false) {
    std::vector<std::string> keys{"color", "style", "penwidth", "meaning"};
    if (fill) {
        keys.emplace_back("fillcolor");
    }
    r.check_keys(keys);
    LineStyle l = fallback;
    l.color = r.get<std::string>("color").value_or(l.color);
    l.style = r.get<std::string>("style").value_or(l.style);
    l.penwidth = r.get<double>("penwidth", 0.01, 20).value_or(l.penwidth);
    l.meaning = r.get<std::string>("meaning").value_or(l.meaning);
    return l;
}

}  // namespace

std::optional<DiagramView> parse_diagram_view(std::string_view s) {
    if (s == "node") {
        return DiagramView::Node;
    }
    if (s == "groups") {
        return DiagramView::Groups;
    }
    if (s == "fabric") {
        return DiagramView::Fabric;
    }
    if (s == "score") {
        return DiagramView::Score;
    }
    if (s == "matrix") {
        return DiagramView::Matrix;
    }
    if (s == "load") {
        return DiagramView::Load;
    }
    return std::nullopt;
}

std::string_view to_string(DiagramView v) {
    switch (v) {
        case DiagramView::Node:
            return "node";
        case DiagramView::Groups:
            return "groups";
        case DiagramView::Fabric:
            return "fabric";
        case DiagramView::Score:
            return "score";
        case DiagramView::Matrix:
            return "matrix";
        case DiagramView::Load:
            return "load";
    }
    return "";
}

const LineStyle& DiagramStyle::link(const std::string& name) const {
    static const LineStyle kFallback;
    const auto it = links.find(name);
    return it == links.end() ? kFallback : it->second;
}

DeviceStyle DiagramStyle::device(const std::string& name) const {
    const auto it = devices.find(name);
    return it == devices.end() ? DeviceStyle{} : it->second;
}

DiagramStyle diagram_style_from_json(const std::string& text, const std::string& where) {
    require_text_size(text, where, kMaxStyleBytes, "kMaxStyleBytes",
                      "a style file holds a few dozen keys: check that this is the right file");
    const nlohmann::json j = parse_json_text(text, where);
    const JsonReader r(j, where, "");
    r.check_keys({"font", "fontsize", "background", "ink", "muted", "highlight", "classes", "links", "devices", "groups",
                  "group_styles", "rails", "rail_styles", "cluster", "thresholds", "charts"});
    DiagramStyle s;
    s.font = r.get<std::string>("font").value_or(s.font);
    s.background = r.get<std::string>("background").value_or(s.background);
    s.ink = r.get<std::string>("ink").value_or(s.ink);
    s.muted = r.get<std::string>("muted").value_or(s.muted);
    s.fontsize = r.get<double>("fontsize", 4, 72).value_or(s.fontsize);
    if (const auto h = r.get_object("highlight")) {
        s.highlight = line_from(*h, s.highlight);
    }
    if (const auto classes = r.get_object("classes")) {
        for (const auto& [k, v] : classes->json().items()) {
            if (is_comment_key(k)) {
                continue;
            }
            const auto pc = parse_path_class(k);
            if (!pc) {
                throw input_error(classes->where(k), "unknown path class \"" + k + "\"",
                                  "use NV, PIX, PXB, PHB, NODE, SYS, RAIL, PXN, XRAIL or XPOD");
            }
            s.classes[static_cast<std::size_t>(*pc)] = line_from(*classes->get_object(k), {});
        }
    }
    if (const auto links = r.get_object("links")) {
        for (const auto& [k, v] : links->json().items()) {
            if (!is_comment_key(k)) {
                s.links[k] = line_from(*links->get_object(k), {});
            }
        }
    }
    if (const auto devices = r.get_object("devices")) {
        for (const auto& [k, v] : devices->json().items()) {
            if (is_comment_key(k)) {
                continue;
            }
            const JsonReader d = *devices->get_object(k);
            d.check_keys({"shape", "fillcolor", "margin"});
            DeviceStyle style;
            style.shape = d.get<std::string>("shape").value_or(style.shape);
            style.fillcolor = d.get<std::string>("fillcolor").value_or(style.fillcolor);
            style.margin = d.get<std::string>("margin").value_or(style.margin);
            s.devices[k] = style;
        }
    }
    s.groups = r.get_strings("groups", true).value_or(s.groups);
    s.group_styles = r.get_strings("group_styles", true).value_or(s.group_styles);
    s.rails = r.get_strings("rails", true).value_or(s.rails);
    s.rail_styles = r.get_strings("rail_styles", true).value_or(s.rail_styles);
    if (const auto c = r.get_object("cluster")) {
        s.cluster = line_from(*c, s.cluster, true);
        s.cluster_fill = c->get<std::string>("fillcolor").value_or(s.cluster_fill);
    }
    if (const auto t = r.get_object("thresholds")) {
        t->check_keys({"full_max_nodes", "full_max_gpus", "node_boxes_max", "block_nodes", "nodes_per_row"});
        s.full_max_nodes = t->get<int>("full_max_nodes", 1, 4096).value_or(s.full_max_nodes);
        s.full_max_gpus = t->get<std::int64_t>("full_max_gpus", 1, 1 << 20).value_or(s.full_max_gpus);
        s.node_boxes_max = t->get<int>("node_boxes_max", 1, 100000).value_or(s.node_boxes_max);
        s.block_nodes = t->get<int>("block_nodes", 1, 1 << 20).value_or(s.block_nodes);
        s.nodes_per_row = t->get<int>("nodes_per_row", 1, 4096).value_or(s.nodes_per_row);
    }
    if (const auto c = r.get_object("charts")) {
        c->check_keys({"compute", "bubble", "kinds", "other", "series", "transports"});
        s.charts.compute = c->get<std::string>("compute").value_or(s.charts.compute);
        s.charts.bubble = c->get<std::string>("bubble").value_or(s.charts.bubble);
        if (const auto kinds = c->get_object("kinds")) {
            for (const auto& [k, v] : kinds->json().items()) {
                if (!is_comment_key(k)) {
                    s.charts.kinds[k] = *kinds->get<std::string>(k);
                }
            }
        }
        s.charts.other = c->get_strings("other", true).value_or(s.charts.other);
        s.charts.series = c->get_strings("series", true).value_or(s.charts.series);
        if (const auto transports = c->get_object("transports")) {
            for (const auto& [k, v] : transports->json().items()) {
                if (!is_comment_key(k)) {
                    s.charts.transports[k] = line_from(*transports->get_object(k), {});
                }
            }
        }
    }
    return s;
}

std::string ChartStyle::kind_color(const std::string& kind, std::size_t index) const {
    const auto it = kinds.find(kind);
    if (it != kinds.end()) {
        return it->second;
    }
    return other.empty() ? std::string("#999999") : other[index % other.size()];
}

const DiagramStyle& default_diagram_style() {
    static const DiagramStyle kStyle = diagram_style_from_json(kEmbeddedStyle, kEmbeddedStyleName);
    return kStyle;
}

}  // namespace planlayout
