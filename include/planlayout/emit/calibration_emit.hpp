// Emit: calibrations as their file (JSON, what `plan-layout calibrate -o` writes) and as text.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/analysis/op_check.hpp"

namespace planlayout {

/// How a fit's efficiency curve is read between and beyond its sizes (in the file and the text).
extern const char* const kCurveRule;

/// One fit: transport, class, op, shape, floor_us, alpha_us, efficiency, curve, rows, ...
[[nodiscard]] nlohmann::json to_json(const Calibration& c);

/// The calibration file, format 2: {"schema_version":2,"kind":"plan-layout calibration",
/// "curve_rule", "fits":[...]}. ingest/calibration_file.hpp reads it back (a top-level "compute"
/// object is reserved for calibrate --compute).
[[nodiscard]] nlohmann::json to_json(const std::vector<Calibration>& fits);

/// The fit, its curve and per-row residuals as text.
[[nodiscard]] std::string render_text(const Calibration& c);

/// Every fit, one block each, separated by an empty line.
[[nodiscard]] std::string render_text(const std::vector<Calibration>& fits);

/// A compute calibration as its file: format 2 with no collective fits and a "compute" object.
[[nodiscard]] nlohmann::json to_json(const ComputeCalibration& c);

/// A compute calibration as text: the fitted scale, what it was fitted on, how to use it.
[[nodiscard]] std::string render_text(const ComputeCalibration& c);

/// The compute model against measured kernels (calibrate --ops): per benchmark kind the ratio
/// predicted / measured (median, 10th and 90th percentile, range, worst op), then the largest errors.
[[nodiscard]] std::string render_text(const OpCheck& c);

/// The same with every op's row: {"gpu", "compute_scale", "median_abs_error", "kinds", "rows"}.
[[nodiscard]] nlohmann::json to_json(const OpCheck& c);

}  // namespace planlayout
