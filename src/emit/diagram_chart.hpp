// Emit: the at-scale views drawn as charts with our SVG writer (not graphs, no Graphviz): the
// traffic matrix (diagram_matrix.cpp) and the rail / leaf / spine load chart (diagram_load.cpp),
// and what they share. Private to emit/.
#pragma once

#include <cstdint>
#include <string>

#include "diagram_common.hpp"
#include "planlayout/emit/diagram.hpp"
#include "planlayout/report.hpp"
#include "svg_writer.hpp"

namespace planlayout::diagram {

/// Every chart fits this canvas (issue 17: one screen at 1,024 nodes) ...
inline constexpr double kChartMaxPx = 2000;
/// ... and writes no text smaller than this.
inline constexpr double kChartMinFontPx = 10;

/// The traffic matrix of options.kind. Throws Error (BadInput) for a kind the spec does not create.
[[nodiscard]] std::string matrix_svg(const Report& report, const DiagramOptions& options, const DiagramStyle& style);

/// The load chart: bytes per step per link tier, the bottleneck link marked and named.
[[nodiscard]] std::string load_svg(const Report& report, const DiagramOptions& options, const DiagramStyle& style);

/// The fabric view of an aggregated cluster (diagram_aggregated()): core, spines per pod, one box
/// per scalable unit or block with its leaves, busiest NIC and uplink bytes.
[[nodiscard]] std::string fabric_tiers_svg(const Report& report, const DiagramOptions& options, const DiagramStyle& style);

/// The node view as SVG (the DOT form stays the graph): a box per CPU and its PCIe tree, GPUs and
/// NICs on one row in index order, the NVSwitch a bar under them, a legend of a few lines.
/// Throws Error (BadInput) when no node has options.host.
[[nodiscard]] std::string node_svg(const Report& report, const DiagramOptions& options, const DiagramStyle& style);

/// Width in px of a text at a font size (Helvetica-like: 0.6 em per character, an upper bound
/// for the digits and lower-case letters these charts write).
[[nodiscard]] double text_px(const std::string& s, double font_px);

/// A colour of the style without Graphviz's colour-list syntax ("#CC79A7:invis:#CC79A7" → first).
[[nodiscard]] std::string plain_colour(const std::string& colour);

/// The CSS every chart starts with: font family and the text classes (title, label, small).
void chart_style(svg::Document& doc, const DiagramStyle& style);

}  // namespace planlayout::diagram
