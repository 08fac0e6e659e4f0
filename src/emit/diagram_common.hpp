// Emit: what the graph views (diagram_canvas.hpp) and the chart views (diagram_chart.hpp) both
// need, defined in diagram_canvas.cpp. Private to emit/.
#pragma once

#include <string>

#include "planlayout/report.hpp"

namespace planlayout::diagram {

/// The parallel sizes and the nodes: "tp8 pp2 ep8 dp2 | 4 × h100-hgx-8gpu-8nic" (templates in
/// order of first use, "2 × a + 2 × b" when mixed).
[[nodiscard]] std::string spec_line(const Report& report);

/// The group kind `--kind` names. Throws Error (BadInput) naming --kind and the kinds the spec
/// creates when it creates no such kind.
[[nodiscard]] const GroupKind& drawn_kind(const Report& report, const std::string& kind);

}  // namespace planlayout::diagram
