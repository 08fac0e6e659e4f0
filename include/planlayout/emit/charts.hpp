// Emit: charts as SVG (our own writer, emit/svg_writer.hpp): the step time per arm of a Score as
// stacked bars, and busbw over message size (predicted curves, measured points). Numbers are
// taken as the analysis computed them; nothing is recomputed here. Colours and dashes come from
// the style's "charts" section (viz/style.json). Same input, same bytes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "planlayout/emit/diagram.hpp"
#include "planlayout/model/score.hpp"
#include "planlayout/report.hpp"

namespace planlayout {

/// Whether a chart is a standalone SVG file (XML declaration first) or an <svg> element to inline
/// into HTML.
enum class SvgForm { Document, Inline };

/// One part of a step bar.
struct StepSegment {
    std::string key;    // "compute", "bubble" or the group kind ("ep")
    std::string label;  // "compute", "pipeline bubble", "ep all_to_all"
    double seconds = 0;
};

/// One arm's step: compute, bubble and each kind's exposed communication (these sum to step_s),
/// and each kind's communication hidden under compute (time − exposed), drawn hatched.
struct StepBar {
    std::string arm;  // "tcp", "gdrdma", ...
    double step_s = 0;
    std::vector<StepSegment> exposed;  // compute first, the bubble when there is one, then kinds
    std::vector<StepSegment> hidden;   // kinds with communication hidden under compute
};

/// The bars of a score, baseline first (one bar when both arms are the same); empty when the
/// score has no model (its factors were given). Kinds in the score's order (largest change first).
[[nodiscard]] std::vector<StepBar> step_bars(const Score& score);

/// Round tick values from 0 to at least `max` (1, 2, 2.5 or 5 × 10^k apart), at most about
/// `target` + 1 of them; {0, 1} when max <= 0.
[[nodiscard]] std::vector<double> nice_ticks(double max, int target = 5);

/// The step-time chart of a report's score (analyze --format svg --view score, the HTML report's
/// score_chart_svg slot). Without a score, or with given factors only, a small chart that says so.
[[nodiscard]] std::string score_chart_svg(const Report& report, const DiagramStyle& style = default_diagram_style(),
                                          SvgForm form = SvgForm::Document);

/// The same from a Score and a title.
[[nodiscard]] std::string score_chart_svg(const Score& score, const std::string& title,
                                          const DiagramStyle& style = default_diagram_style(),
                                          SvgForm form = SvgForm::Document);

/// One predicted curve and the measured points beside it.
struct BusbwCurve {
    std::string transport;   // picks colour and dash ("tcp", "gdrdma", ...)
    std::string collective;  // picks the marker shape ("all_reduce", ...)
    std::string label;       // legend: "tcp all_reduce: fit tcp all_reduce NV (tcp.json)"
    std::vector<std::pair<double, double>> predicted;  // (size in bytes, busbw in GB/s), ascending sizes
    std::vector<std::pair<double, double>> measured;   // markers; may be empty
    std::string measured_label;  // legend: "measured: sweep-all_reduce-g2-tcp-r2.txt"
};

struct BusbwChart {
    std::string title;
    std::string subtitle;
    std::vector<BusbwCurve> curves;
};

/// Message sizes for a predicted curve: `per_doubling` points per factor of two from lo to hi,
/// both included.
[[nodiscard]] std::vector<double> curve_sizes(double lo, double hi, int per_doubling = 8);

/// Log2 exponents of the size axis' ticks (2^e bytes): 1, 2, 5 or 10 doublings apart, covering
/// [lo, hi], at most about 10 of them.
[[nodiscard]] std::vector<int> size_tick_exponents(double lo, double hi);

/// "1 KiB", "256 MiB", "512 B" for 2^e bytes.
[[nodiscard]] std::string size_tick_text(int e);

/// busbw over message size: log-size x axis, linear GB/s y axis, one line per curve, hollow
/// markers for measured points, a legend per curve.
[[nodiscard]] std::string busbw_chart_svg(const BusbwChart& chart, const DiagramStyle& style = default_diagram_style(),
                                          SvgForm form = SvgForm::Document);

}  // namespace planlayout
