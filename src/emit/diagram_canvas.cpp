// Emit: the diagram canvas, legend, aggregation units and text helpers shared by the views.
#include "diagram_canvas.hpp"
#include "planlayout/text_format.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "planlayout/error.hpp"
#include "svg_writer.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

namespace planlayout::diagram {

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;
    while (!s.empty() && s.back() == '0') {
        s.pop_back();
    }
    if (!s.empty() && s.back() == '.') {
        s.pop_back();
    }
    return s;
}

// One unit convention in every picture and text report: binary prefixes (KiB, MiB, GiB), one
// decimal (human_bytes); docs/diagrams.md "Units".
std::string bytes_text(double b) { return human_bytes(b); }

namespace {

// The first colour of a Graphviz colour list ("#CC79A7:invis:#CC79A7").
std::string first_colour(const std::string& colour_list) { return colour_list.substr(0, colour_list.find(':')); }

}  // namespace

Attrs line_attrs(const LineStyle& l, double width_scale) {
    return {{"color", l.color}, {"style", l.style}, {"penwidth", num(l.penwidth * width_scale)}};
}

Canvas::Canvas(const std::string& title, const DiagramStyle& style, const char* rankdir)
    : style_(style), graph_("plan_layout") {
    // Graphviz writes fontname unescaped into SVG's font-family="...": only css_value's characters
    // reach it (the style file's font is checked where it is read, too).
    const std::string font = svg::css_value(style.font);
    graph_.set_graph_default("fontname", font);
    graph_.set_graph_default("fontsize", num(style.fontsize + 3));
    graph_.set_graph_default("bgcolor", style.background);
    graph_.set_graph_default("rankdir", rankdir);
    graph_.set_graph_default("newrank", "true");
    graph_.set_graph_default("labelloc", "t");
    graph_.set_graph_default("label", title);
    graph_.set_node_default("fontname", font);
    graph_.set_node_default("fontsize", num(style.fontsize));
    graph_.set_node_default("shape", "box");
    graph_.set_node_default("style", "filled");
    graph_.set_node_default("fillcolor", "#FFFFFF");
    graph_.set_node_default("color", style.ink);
    graph_.set_edge_default("fontname", font);
    graph_.set_edge_default("fontsize", num(style.fontsize - 1));
    graph_.set_edge_default("color", style.ink);
}

Sub Canvas::box(Sub parent, const std::string& name, const std::string& label) {
    const Sub s = graph_.subgraph(parent, "cluster_" + name);
    graph_.set(s, {{"label", label},
                   {"color", style_.cluster.color},
                   {"style", style_.cluster.style + ",filled"},
                   {"fillcolor", style_.cluster_fill}});
    return s;
}

Sub Canvas::sub(Sub parent, const std::string& name, const Attrs& attrs) {
    const Sub s = graph_.subgraph(parent, name);
    graph_.set(s, attrs);
    return s;
}

NodeRef Canvas::node(Sub where, const std::string& name, const Attrs& attrs) {
    const NodeRef n = graph_.node(where, name);
    graph_.set_node(n, attrs);
    return n;
}

NodeRef Canvas::device(Sub where, const std::string& name, const std::string& kind, const std::string& label) {
    const DeviceStyle d = style_.device(kind);
    Attrs a{{"shape", d.shape}, {"fillcolor", d.fillcolor}, {"label", label}};
    if (!d.margin.empty()) {
        a.emplace_back("margin", d.margin);
    }
    return node(where, name, a);
}

void add_legend(Canvas& c,
                const std::vector<LegendLine>& lines,
                const std::vector<LegendSwatch>& swatches,
                const std::vector<std::string>& notes,
                bool left_to_right) {
    Sub box = c.box(Canvas::root(), "legend", "Legend");
    std::vector<NodeRef> column;  // top to bottom, chained for top-to-bottom layouts
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string id = "legend/line" + std::to_string(i);
        Sub row = left_to_right ? box : c.sub(box, "legend_row" + std::to_string(i), {{"rank", "same"}});
        NodeRef text = c.node(row, id, {{"shape", "plaintext"}, {"style", "solid"}, {"label", lines[i].text}});
        NodeRef end = c.node(row, id + "/end",
                               {{"shape", "point"}, {"width", "0.06"}, {"label", ""}, {"color", first_colour(lines[i].line.color)}});
        Attrs a = line_attrs(lines[i].line);
        a.emplace_back("minlen", "2");
        c.edge(text, end, a);
        column.push_back(text);
    }
    for (std::size_t i = 0; i < swatches.size(); ++i) {
        const auto& s = swatches[i];
        column.push_back(c.node(box, "legend/swatch" + std::to_string(i),
                                {{"shape", "box"},
                                 {"style", s.style},
                                 {"fillcolor", s.fill},
                                 {"color", s.border.empty() ? c.style().ink : s.border},
                                 {"penwidth", num(s.penwidth)},
                                 {"label", s.text}}));
    }
    if (!notes.empty()) {
        // Notes wrap at about 64 characters (continuations indented), so the legend stays narrow
        // beside the drawing.
        constexpr std::size_t kWrap = 64;
        std::string text;
        for (const auto& n : notes) {
            std::string rest = n;
            std::string indent;
            while (rest.size() > kWrap) {
                std::size_t cut = rest.rfind(' ', kWrap);
                if (cut == std::string::npos || cut < kWrap / 2) {
                    break;
                }
                text += indent + rest.substr(0, cut) + "\\l";
                rest = rest.substr(cut + 1);
                indent = "\u00a0\u00a0\u00a0\u00a0";  // Graphviz drops leading plain spaces
            }
            text += indent + rest + "\\l";
        }
        column.push_back(c.node(box, "legend/notes", {{"shape", "plaintext"}, {"style", "solid"}, {"label", text}}));
    }
    if (!left_to_right) {
        for (std::size_t i = 0; i + 1 < column.size(); ++i) {
            c.edge(column[i], column[i + 1], {{"style", "invis"}});
        }
    }
}
namespace {

std::string base_name(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string title_of(const Report& report, const std::string& what) {
    return "plan-layout: " + base_name(report.layout_name) + " - " + what;
}

const GroupKind& drawn_kind(const Report& report, const std::string& kind) {
    if (const GroupKind* k = report.groups.find(kind)) {
        return *k;
    }
    std::string kinds;
    for (const auto& k : report.groups.kinds) {
        kinds += (kinds.empty() ? "" : ", ") + k.name;
    }
    throw input_error("--kind " + kind, "unknown or not created kind", "this spec creates: " + kinds);
}

std::string spec_line(const Report& report) {
    std::vector<std::pair<std::int64_t, std::int64_t>> uses;  // (template, nodes), first use first
    for (const auto& n : report.cluster.nodes) {
        auto it = std::find_if(uses.begin(), uses.end(), [&](const auto& u) { return u.first == n.template_index; });
        if (it == uses.end()) {
            uses.emplace_back(n.template_index, 0);
            it = uses.end() - 1;
        }
        ++it->second;
    }
    std::string nodes;
    for (const auto& [t, count] : uses) {
        nodes += (nodes.empty() ? "" : " + ") + std::to_string(count) + " \u00d7 " +
                 report.cluster.templates[static_cast<std::size_t>(t)].name;
    }
    return compact_sizes_text(report.groups.spec) + " | " + nodes;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return s;
}

Units units_for(const Report& report, const DiagramStyle& style) {
    Units u;
    const std::int64_t nodes = report.cluster.node_count();
    u.aggregated = nodes > style.full_max_nodes || report.cluster.total_gpus() > style.full_max_gpus;
    u.word = "node";
    if (u.aggregated && nodes > style.node_boxes_max) {
        const std::int64_t su = report.cluster.regular_su_size();
        u.block = su > 0 ? su : std::max(1, style.block_nodes);
        u.word = su > 0 ? "scalable unit" : "block";
        // At most node_boxes_max boxes: Graphviz's layout grows faster than linearly in them
        // (16,384 nodes in 512 blocks took 20 s, 262,144 nodes minutes). Larger blocks then.
        const std::int64_t boxes = (nodes + u.block - 1) / u.block;
        if (boxes > style.node_boxes_max) {
            u.block *= (boxes + style.node_boxes_max - 1) / style.node_boxes_max;
            u.word = "block";
        }
    }
    return u;
}

std::string unit_label(const Report& report, const Units& u, std::int64_t unit) {
    const std::int64_t nodes = report.cluster.node_count();
    const std::int64_t first = unit * u.block;
    const std::int64_t last = std::min(nodes, first + u.block) - 1;
    if (first == last) {
        return report.cluster.nodes[static_cast<std::size_t>(first)].host;
    }
    const std::string prefix = u.word == "scalable unit" ? "su" : "block";
    return prefix + std::to_string(unit) + ": " + report.cluster.nodes[static_cast<std::size_t>(first)].host + " - " +
           report.cluster.nodes[static_cast<std::size_t>(last)].host + " (" + std::to_string(last - first + 1) + " nodes)";
}

std::string unit_id(const Report& report, const Units& u, std::int64_t unit) {
    return u.block == 1 ? report.cluster.nodes[static_cast<std::size_t>(unit)].host : "unit" + std::to_string(unit);
}
}  // namespace planlayout::diagram
