// Emit: diagram styles (viz/style.json's format) and view names.
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/emit/diagram.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout_embedded_style.hpp"

namespace planlayout {
namespace {

LineStyle line_from(const nlohmann::json& j, const std::string& where, const LineStyle& fallback) {
    LineStyle l = fallback;
    if (!j.is_object()) {
        throw input_error(where, "expected an object {\"color\", \"style\", \"penwidth\"}");
    }
    try {
        if (j.contains("color")) {
            l.color = j.at("color").get<std::string>();
        }
        if (j.contains("style")) {
            l.style = j.at("style").get<std::string>();
        }
        if (j.contains("penwidth")) {
            l.penwidth = j.at("penwidth").get<double>();
        }
        if (j.contains("meaning")) {
            l.meaning = j.at("meaning").get<std::string>();
        }
    } catch (const nlohmann::json::exception& e) {
        throw input_error(where, std::string("wrong type: ") + e.what(), "color/style/meaning are strings, penwidth a number");
    }
    if (l.penwidth <= 0 || l.penwidth > 20) {
        throw input_error(where + "/penwidth", "pen width out of range", "use a number in (0, 20]");
    }
    return l;
}

std::vector<std::string> strings_from(const nlohmann::json& j, const std::string& where) {
    if (!j.is_array() || j.empty()) {
        throw input_error(where, "expected a non-empty array of strings");
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
        if (!j[i].is_string()) {
            throw input_error(where + "/" + std::to_string(i), "expected a string (a colour or style)");
        }
        out.push_back(j[i].get<std::string>());
    }
    return out;
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
    const nlohmann::json j = parse_json_text(text, where);
    if (!j.is_object()) {
        throw input_error(where, "a style file is a JSON object", "start from viz/style.json");
    }
    DiagramStyle s;
    const std::set<std::string> known{"//",     "font",   "fontsize",     "background", "ink",   "muted",      "highlight",
                                      "classes", "links", "devices",      "groups",     "group_styles", "rails",
                                      "rail_styles", "cluster", "thresholds"};
    for (const auto& [k, v] : j.items()) {
        if (known.count(k) == 0) {
            throw input_error(where + " (/" + k + ")", "unknown key", "see viz/style.json for the keys");
        }
    }
    auto str = [&](const char* key, std::string& out) {
        if (j.contains(key)) {
            if (!j.at(key).is_string()) {
                throw input_error(where + " (/" + key + ")", "expected a string");
            }
            out = j.at(key).get<std::string>();
        }
    };
    str("font", s.font);
    str("background", s.background);
    str("ink", s.ink);
    str("muted", s.muted);
    if (j.contains("fontsize")) {
        if (!j.at("fontsize").is_number() || j.at("fontsize").get<double>() < 4 || j.at("fontsize").get<double>() > 72) {
            throw input_error(where + " (/fontsize)", "expected a number in [4, 72]");
        }
        s.fontsize = j.at("fontsize").get<double>();
    }
    if (j.contains("highlight")) {
        s.highlight = line_from(j.at("highlight"), where + " (/highlight)", s.highlight);
    }
    if (j.contains("classes")) {
        const auto& cls = j.at("classes");
        if (!cls.is_object()) {
            throw input_error(where + " (/classes)", "expected an object keyed by path class (NV, PIX, ..., XPOD)");
        }
        for (const auto& [k, v] : cls.items()) {
            const auto pc = parse_path_class(k);
            if (!pc) {
                throw input_error(where + " (/classes/" + k + ")", "unknown path class",
                                  "use NV, PIX, PXB, PHB, NODE, SYS, RAIL, PXN, XRAIL or XPOD");
            }
            s.classes[static_cast<std::size_t>(*pc)] = line_from(v, where + " (/classes/" + k + ")", {});
        }
    }
    if (j.contains("links")) {
        for (const auto& [k, v] : j.at("links").items()) {
            s.links[k] = line_from(v, where + " (/links/" + k + ")", {});
        }
    }
    if (j.contains("devices")) {
        for (const auto& [k, v] : j.at("devices").items()) {
            DeviceStyle d;
            if (!v.is_object()) {
                throw input_error(where + " (/devices/" + k + ")", "expected {\"shape\", \"fillcolor\"}");
            }
            d.shape = v.value("shape", d.shape);
            d.fillcolor = v.value("fillcolor", d.fillcolor);
            s.devices[k] = d;
        }
    }
    if (j.contains("groups")) {
        s.groups = strings_from(j.at("groups"), where + " (/groups)");
    }
    if (j.contains("group_styles")) {
        s.group_styles = strings_from(j.at("group_styles"), where + " (/group_styles)");
    }
    if (j.contains("rails")) {
        s.rails = strings_from(j.at("rails"), where + " (/rails)");
    }
    if (j.contains("rail_styles")) {
        s.rail_styles = strings_from(j.at("rail_styles"), where + " (/rail_styles)");
    }
    if (j.contains("cluster")) {
        s.cluster = line_from(j.at("cluster"), where + " (/cluster)", s.cluster);
        s.cluster_fill = j.at("cluster").value("fillcolor", s.cluster_fill);
    }
    if (j.contains("thresholds")) {
        const auto& t = j.at("thresholds");
        auto get = [&](const char* key, auto& out, std::int64_t lo, std::int64_t hi) {
            if (t.contains(key)) {
                if (!t.at(key).is_number_integer() || t.at(key).get<std::int64_t>() < lo || t.at(key).get<std::int64_t>() > hi) {
                    throw input_error(where + " (/thresholds/" + key + ")",
                                      "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
                }
                out = static_cast<std::remove_reference_t<decltype(out)>>(t.at(key).get<std::int64_t>());
            }
        };
        get("full_max_nodes", s.full_max_nodes, 1, 4096);
        get("full_max_gpus", s.full_max_gpus, 1, 1 << 20);
        get("node_boxes_max", s.node_boxes_max, 1, 100000);
        get("block_nodes", s.block_nodes, 1, 1 << 20);
    }
    return s;
}

const DiagramStyle& default_diagram_style() {
    static const DiagramStyle kStyle = diagram_style_from_json(kEmbeddedStyle, kEmbeddedStyleName);
    return kStyle;
}

}  // namespace planlayout
