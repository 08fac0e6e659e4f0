// Emit: a calibration as its file (JSON, what `plan-layout calibrate -o` writes) and as text.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/calibrate.hpp"

namespace planlayout {

/// The calibration file: {"schema_version":1,"kind":"plan-layout calibration", transport,
/// class, op, nodes, gpus_per_node, alpha_us, efficiency, line_gbyte_s, busbw_gbps, rows, ...}.
/// ingest/calibration_file.hpp reads it back.
[[nodiscard]] nlohmann::json to_json(const Calibration& c);

/// The fit and per-row residuals as text.
[[nodiscard]] std::string render_text(const Calibration& c);

}  // namespace planlayout
