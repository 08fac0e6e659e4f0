// Emit: diagrams of a Report. The views build a dot::Graph (diagram_node/groups/fabric.cpp); DOT is
// our own writer's text, SVG is that text laid out and rendered by Graphviz (svg_render.cpp).
#include "planlayout/emit/diagram.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "diagram_canvas.hpp"
#include "planlayout/emit/charts.hpp"
#include "planlayout/error.hpp"
#include "diagram_chart.hpp"
#include "diagram_groups.hpp"
#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/error.hpp"
#include "svg_render.hpp"

namespace planlayout {

// Estimated bytes per step each rail carries, from the score: every cross-node kind's bytes per
// rank, times the share of its used pairs that cross nodes, summed over the ranks of its
// node-spanning groups on each rail.
std::map<int, double> rail_traffic_from_score(const Report& report) {
    std::map<int, double> out;
    const PairClassifier classifier(report.cluster, report.placement);
    for (const auto& kb : report.score->by_kind) {
        if (!kb.cross_node || kb.bytes_per_step <= 0) {
            continue;
        }
        const GroupKind* kind = report.groups.find(kb.kind);
        const KindEdges* edges = nullptr;
        for (const auto& k : report.kinds) {
            if (k.kind == kb.kind) {
                edges = &k;
            }
        }
        if (kind == nullptr || edges == nullptr || edges->total_pairs() == 0) {
            continue;
        }
        const double cross_share = static_cast<double>(edges->cross_pairs()) / static_cast<double>(edges->total_pairs());
        for (std::int64_t g = 0; g < kind->group_count(); ++g) {
            const auto ranks = kind->group(g);
            const auto first = report.placement.node[static_cast<std::size_t>(ranks.front())];
            const bool spans = std::any_of(ranks.begin(), ranks.end(), [&](std::int64_t r) {
                return report.placement.node[static_cast<std::size_t>(r)] != first;
            });
            if (!spans) {
                continue;
            }
            for (const auto r : ranks) {
                const int rail = classifier.rail_of(r);
                if (rail >= 0) {
                    out[rail] += kb.bytes_per_step * cross_share;
                }
            }
        }
    }
    return out;
}

std::map<int, double> rail_traffic(const Report& report) {
    std::map<int, double> out;
    if (!report.sections.is_object() || !report.sections.contains("score")) {
        return report.score ? rail_traffic_from_score(report) : out;
    }
    const auto& score = report.sections.at("score");
    if (!score.is_object() || !score.contains("rail_bytes")) {
        return report.score ? rail_traffic_from_score(report) : out;
    }
    const auto& rb = score.at("rail_bytes");
    if (rb.is_array()) {
        for (std::size_t i = 0; i < rb.size(); ++i) {
            if (rb[i].is_number()) {
                out[static_cast<int>(i)] = rb[i].get<double>();
            }
        }
    } else if (rb.is_object()) {
        for (const auto& [k, v] : rb.items()) {
            if (v.is_number() && !k.empty() && std::all_of(k.begin(), k.end(), [](unsigned char ch) { return std::isdigit(ch); })) {
                out[std::stoi(k)] = v.get<double>();
            }
        }
    }
    return out;
}

bool diagram_aggregated(const Report& report, const DiagramStyle& style) {
    return diagram::units_for(report, style).aggregated;
}

namespace {

std::string build_diagram_dot(const Report& report, const DiagramOptions& options, const DiagramStyle& style) {
    const diagram::Units units = diagram::units_for(report, style);
    std::string what;
    switch (options.view) {
        case DiagramView::Node:
            what = "node " + (options.host.empty() ? report.cluster.nodes.front().host : options.host);
            break;
        case DiagramView::Groups:
            what = options.kind + " groups and the pairs their collective uses\n" + diagram::spec_line(report);
            break;
        case DiagramView::Fabric:
            what = "fabric (nodes, rails, leaves, spines)";
            break;
        case DiagramView::Score:
            throw input_error("--view score", "the step-time chart is not a graph: it has no DOT form",
                              "use --format svg with --view score");
        case DiagramView::Matrix:
        case DiagramView::Load:
            throw input_error("--view " + std::string(to_string(options.view)), "is a chart, not a graph: it has no DOT",
                              "use --format svg");
    }
    // Top to bottom where GPUs are drawn in index order down their node (full groups view).
    const bool top_down = options.view == DiagramView::Fabric || (options.view == DiagramView::Groups && !units.aggregated);
    diagram::Canvas canvas(diagram::title_of(report, what), style, top_down ? "TB" : "LR");
    switch (options.view) {
        case DiagramView::Node:
            diagram::node_view(canvas, report, options);
            break;
        case DiagramView::Groups:
            diagram::groups_view(canvas, report, options, units);
            break;
        case DiagramView::Fabric:
            diagram::fabric_view(canvas, report, options, units);
            break;
        case DiagramView::Score:
        case DiagramView::Matrix:
        case DiagramView::Load:
            break;  // refused above
    }
    return canvas.dot();
}

}  // namespace

std::string diagram_dot(const Report& report, const DiagramOptions& options, const DiagramStyle& style) {
    return build_diagram_dot(report, options, style);
}

std::string diagram_svg(const Report& report, const DiagramOptions& options, const DiagramStyle& style) {
    if (options.view == DiagramView::Score) {
        return score_chart_svg(report, style);
    }
    if (options.view == DiagramView::Matrix) {
        return diagram::matrix_svg(report, options, style);
    }
    if (options.view == DiagramView::Load) {
        return diagram::load_svg(report, options, style);
    }
    if (options.view == DiagramView::Node) {
        // Graphviz drew the GPUs out of order and the NVLink curves across the NUMA boxes.
        return diagram::node_svg(report, options, style);
    }
    if (options.view == DiagramView::Groups && diagram_aggregated(report, style)) {
        // Graphviz lays the unit boxes out as one tangled row (2,900 px wide at 1,024 nodes).
        return diagram::groups_units_svg(report, options, style, diagram::units_for(report, style));
    }
    if (options.view == DiagramView::Fabric && diagram_aggregated(report, style)) {
        // Graphviz draws the aggregated fabric as one row of boxes (10,000 px at 1,024 nodes).
        return diagram::fabric_tiers_svg(report, options, style);
    }
    return render_svg(build_diagram_dot(report, options, style));
}

}  // namespace planlayout

