// Emit: what the three diagram views share — the canvas (a styled dot::Graph), the legend, the
// aggregation units and the text helpers. Private to emit/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "diagram_common.hpp"
#include "dot_graph.hpp"
#include "planlayout/emit/diagram.hpp"
#include "planlayout/report.hpp"
#include "planlayout/topology/topology.hpp"

namespace planlayout::diagram {

using dot::Attrs;
using Sub = dot::Graph::SubgraphId;
using NodeRef = dot::Graph::NodeId;

/// "1.5" for 1.50, "2" for 2.00: pen widths and sizes as Graphviz attributes.
[[nodiscard]] std::string num(double v);

/// "1.2 GB" (powers of 1000).
[[nodiscard]] std::string bytes_text(double b);

[[nodiscard]] std::string lower(std::string s);

[[nodiscard]] Attrs line_attrs(const LineStyle& l, double width_scale = 1.0);

/// "plan-layout: <layout file name> - <what>".
[[nodiscard]] std::string title_of(const Report& report, const std::string& what);


/// The graph being drawn, and its look: boxes (clusters), rank rows, devices, lines.
class Canvas {
public:
    Canvas(const std::string& title, const DiagramStyle& style, const char* rankdir);

    [[nodiscard]] static Sub root() { return dot::Graph::kRoot; }

    [[nodiscard]] const DiagramStyle& style() const { return style_; }

    /// A cluster box (subgraph named cluster_<name>).
    Sub box(Sub parent, const std::string& name, const std::string& label);

    /// A plain subgraph (rank constraints).
    Sub sub(Sub parent, const std::string& name, const Attrs& attrs);

    NodeRef node(Sub where, const std::string& name, const Attrs& attrs);

    /// A node drawn as the style's device of that kind ("gpu", "nic", "leaf", ...).
    NodeRef device(Sub where, const std::string& name, const std::string& kind, const std::string& label);

    void set(NodeRef node, const Attrs& attrs) { graph_.set_node(node, attrs); }

    [[nodiscard]] std::optional<NodeRef> find(const std::string& name) const { return graph_.find_node(name); }

    void edge(NodeRef a, NodeRef b, const Attrs& attrs) { graph_.edge(a, b, attrs); }

    /// Graph attributes of the whole drawing (spacing).
    void graph_attrs(const Attrs& attrs) { graph_.set(dot::Graph::kRoot, attrs); }

    /// `node`, declared elsewhere, also in `where` (a rank row over several boxes).
    void member(Sub where, NodeRef node) { graph_.add_member(where, node); }

    [[nodiscard]] std::string dot() const { return graph_.write(); }

private:
    const DiagramStyle& style_;
    dot::Graph graph_;
};

struct LegendLine {
    std::string text;
    LineStyle line;
};

struct LegendSwatch {
    std::string text;
    std::string fill;
    std::string style;
    std::string border;
    double penwidth = 1.0;
};

/// The legend box: sample lines drawn with the very styles they explain, swatches, notes.
void add_legend(Canvas& c,
                const std::vector<LegendLine>& lines,
                const std::vector<LegendSwatch>& swatches,
                const std::vector<std::string>& notes,
                bool left_to_right);

/// How a diagram aggregates: the unit of each node (itself, or its block / scalable unit).
struct Units {
    bool aggregated = false;
    std::int64_t block = 1;  // nodes per unit
    std::string word;        // "node", "scalable unit", "block"

    [[nodiscard]] std::int64_t of(std::int64_t node) const { return node / block; }
};

[[nodiscard]] Units units_for(const Report& report, const DiagramStyle& style);

/// "node3", or "su1: node32 - node63 (32 nodes)".
[[nodiscard]] std::string unit_label(const Report& report, const Units& u, std::int64_t unit);

/// The DOT name of a unit's box.
[[nodiscard]] std::string unit_id(const Report& report, const Units& u, std::int64_t unit);

/// A topology link's label: "NV18", "PCIe5 x16", "SMP" (diagram_node.cpp).
[[nodiscard]] std::string link_label(const Link& l);

/// The node --host names (an index into the cluster's nodes), the first when empty; throws
/// Error (BadInput) naming the nodes when no node has that name (diagram_node.cpp).
[[nodiscard]] std::int64_t node_index(const Cluster& cl, const std::string& host);

// The three views (diagram_node.cpp, diagram_groups.cpp, diagram_fabric.cpp).
void node_view(Canvas& c, const Report& report, const DiagramOptions& options);
void groups_view(Canvas& c, const Report& report, const DiagramOptions& options, const Units& units);
void fabric_view(Canvas& c, const Report& report, const DiagramOptions& options, const Units& units);

}  // namespace planlayout::diagram
