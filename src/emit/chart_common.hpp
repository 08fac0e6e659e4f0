// Emit: what the charts share (chart_score.cpp, chart_busbw.cpp): text width estimates, the CSS,
// fill patterns. Private to emit/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "planlayout/emit/diagram.hpp"
#include "svg_writer.hpp"

namespace planlayout::chart {

/// Estimated width in px of text at the charts' 11 px sans-serif (0.6 em per character): used
/// to decide whether a label fits inside a bar and to flow the legend.
[[nodiscard]] double text_width(std::string_view s, double font_px = 11);

/// Items joined by ", ", wrapped into lines of at most
/// `max_px` at `font_px`.
[[nodiscard]] std::vector<std::string> wrap(const std::vector<std::string>& items, double max_px, double font_px = 11);

/// The charts' CSS (the style's font; classes plc-title, plc-muted, plc-small, ...), scoped to the
/// group `plc` it opens around everything drawn after it (str() closes it).
void common_style(svg::Document& d, const DiagramStyle& style);

/// <pattern> of diagonal lines in `color` on white, for hidden communication.
[[nodiscard]] std::string hatch_pattern(const std::string& id, const std::string& color);

/// <pattern> of dots in `dot` on `fill`, for the pipeline bubble.
[[nodiscard]] std::string dots_pattern(const std::string& id, const std::string& fill, const std::string& dot);

/// True when black text would read badly on `fill` ("#RRGGBB" of low luminance).
[[nodiscard]] bool dark_fill(const std::string& fill);

/// "stroke-dasharray" for a style's line style ("dashed", "dotted"); empty for solid.
[[nodiscard]] std::string dash_of(const std::string& line_style);

}  // namespace planlayout::chart
