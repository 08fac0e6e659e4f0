// Emit: design-review diagrams of a Report — DOT (our own writer, emit/dot_graph.hpp) and SVG
// (that DOT laid out and rendered by gvc's "dot" engine). Three views: one node's inside, a group kind's groups
// and the pairs its collective uses, and the rail / leaf / spine fabric. Colours, dashes and pen
// widths come from a DiagramStyle (viz/style.json, compiled in). Deterministic: same Report, same
// options, same style → byte-identical DOT.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "planlayout/report.hpp"

namespace planlayout {

/// Node, Groups and Fabric are graphs (DOT, laid out by Graphviz for SVG); Score (the step-time
/// bar chart of emit/charts.hpp), Matrix and Load are charts for clusters of any size, drawn by
/// our SVG writer (SVG only).
enum class DiagramView { Node, Groups, Fabric, Score, Matrix, Load };

/// "node", "groups", "fabric", "score", "matrix", "load"; nullopt otherwise.
[[nodiscard]] std::optional<DiagramView> parse_diagram_view(std::string_view s);

[[nodiscard]] std::string_view to_string(DiagramView v);

/// How one kind of line is drawn. color may be a Graphviz colour list ("#CC79A7:invis:#CC79A7"
/// draws a double line).
struct LineStyle {
    std::string color = "#000000";
    std::string style = "solid";
    double penwidth = 1.0;
    std::string meaning;  // legend text
};

struct DeviceStyle {
    std::string shape = "box";
    std::string fillcolor = "#FFFFFF";
    std::string margin;  // Graphviz node margin ("0.2,0.1" inches); empty: Graphviz's default
};

/// The charts' look (viz/style.json "charts"): score bars and busbw curves (emit/charts.hpp).
struct ChartStyle {
    std::string compute = "#D9D9D9";
    std::string bubble = "#FFFFFF";
    std::map<std::string, std::string> kinds;          // group kind -> colour
    std::vector<std::string> other{"#999999"};         // kinds not listed, in turn
    std::map<std::string, LineStyle> transports;       // transport name -> curve colour and dash
    std::vector<std::string> series{"#0072B2", "#D55E00"};  // curves when transports repeat, in turn

    /// The colour of a kind: its own, else other[index % size] (index: its place among the
    /// unlisted kinds of one chart).
    [[nodiscard]] std::string kind_color(const std::string& kind, std::size_t index) const;
};

/// Everything a diagram's look depends on; read from viz/style.json.
struct DiagramStyle {
    std::string font = "Helvetica";
    double fontsize = 11;
    std::string background = "white";
    std::string ink = "#000000";
    std::string muted = "#7f7f7f";
    LineStyle highlight;                                   // a GPU whose NIC is SYS away
    std::array<LineStyle, kPathClassCount> classes{};       // by PathClass (Loc unused)
    std::map<std::string, LineStyle> links;                // nvlink, pcie, smp, network, gpu_nic
    std::map<std::string, DeviceStyle> devices;            // gpu, nic, tcp, pcie_switch, cpu, ...
    std::vector<std::string> groups;                       // fill colour per group (cycled)
    std::vector<std::string> group_styles;                 // node style per palette round
    std::vector<std::string> rails;                        // line colour per rail (cycled)
    std::vector<std::string> rail_styles;                  // line style per palette round
    LineStyle cluster;                                     // boxes around nodes / NUMA nodes
    std::string cluster_fill = "#FAFAFA";
    int full_max_nodes = 16;       // above this many nodes ...
    std::int64_t full_max_gpus = 256;  // ... or GPUs, diagrams aggregate
    int node_boxes_max = 128;      // aggregated: one box per node up to here, else per block
    int block_nodes = 32;          // block size when the fabric has no scalable units
    ChartStyle charts;             // score and busbw charts
    int nodes_per_row = 8;         // groups view: node boxes per row of its grid (a scalable unit starts a row)

    [[nodiscard]] const LineStyle& of(PathClass c) const { return classes[static_cast<std::size_t>(c)]; }

    [[nodiscard]] const LineStyle& link(const std::string& name) const;

    [[nodiscard]] DeviceStyle device(const std::string& name) const;
};

/// Parses a style document (viz/style.json's format). Throws Error (BadInput) naming the file
/// and the JSON pointer.
[[nodiscard]] DiagramStyle diagram_style_from_json(const std::string& text, const std::string& where);

/// The compiled-in viz/style.json.
[[nodiscard]] const DiagramStyle& default_diagram_style();

struct DiagramOptions {
    DiagramView view = DiagramView::Groups;
    std::string kind = "ep";  // groups and matrix views: the kind whose groups and pairs are drawn
    std::string host;         // node view: the node ("node0"); empty: the first node
    /// Fabric view: traffic per rail (bytes per training step). Empty: taken from the report's
    /// score (rail_traffic()); still empty: the diagram says that no score is available.
    std::map<int, double> rail_bytes;
};

/// The traffic hook: rail → bytes per step. Given directly by the layout's "score" section
/// ("rail_bytes": an array indexed by rail, or {"0": bytes, ...}), else estimated from the
/// computed score (each cross-node kind's bytes per rank × its share of cross-node pairs, summed
/// over the ranks of node-spanning groups on each rail). Empty when there is no score.
[[nodiscard]] std::map<int, double> rail_traffic(const Report& report);

/// True when the view draws one box per node / block instead of every GPU.
[[nodiscard]] bool diagram_aggregated(const Report& report, const DiagramStyle& style);

/// The diagram as DOT text from our own writer (no Graphviz state involved): no layout positions, stable
/// names ("node0/gpu3") and creation order. Throws Error (BadInput) for an unknown kind or host,
/// and for the matrix and load views (charts, not graphs: they have no DOT).
[[nodiscard]] std::string diagram_dot(const Report& report,
                                      const DiagramOptions& options,
                                      const DiagramStyle& style = default_diagram_style());

/// The same graph laid out with the "dot" engine and rendered to SVG by gvc; the matrix and load
/// views drawn by our SVG writer, within 2,000 x 2,000 px at any cluster size.
[[nodiscard]] std::string diagram_svg(const Report& report,
                                      const DiagramOptions& options,
                                      const DiagramStyle& style = default_diagram_style());

}  // namespace planlayout
