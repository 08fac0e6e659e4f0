// Emit: DOT text → SVG through Graphviz (cgraph's parser, gvc's "dot" layout and SVG renderer).
#pragma once

#include <string>

namespace planlayout {

/// Lays out `dot_text` with the dot engine and renders SVG in memory. Each call parses and frees
/// its own graph; the Graphviz context is one per process (svg_render.cpp says why). Not
/// thread-safe (Graphviz is not). Throws Error (Internal) when Graphviz fails.
[[nodiscard]] std::string render_svg(const std::string& dot_text);

}  // namespace planlayout
