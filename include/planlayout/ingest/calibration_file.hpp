// Ingest: the calibration files a layout's or model's transport names (plan-layout calibrate -o).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planlayout/ingest/read_file.hpp"
#include <nlohmann/json.hpp>

#include "planlayout/analysis/calibrate.hpp"

namespace planlayout {

/// Reads a calibration file's JSON (emit/calibration_emit.hpp writes it): every fit of format 2
/// ("fits"), or the one fit of format 1. A top-level "compute" object is accepted (calibrate
/// --compute) and not read here. Throws Error naming "file (pointer)".
[[nodiscard]] std::vector<Calibration> calibrations_from_json(const nlohmann::json& j, const std::string& file);

/// calibrations_from_json for a file that holds exactly one fit.
[[nodiscard]] Calibration calibration_from_json(const nlohmann::json& j, const std::string& file);

/// Reads and parses each file, every fit in file order (Calibration::file = the name as given) (resolved within `scope`, see resolve_named_file; `where` names the
/// list in messages), in order; the resolved paths are appended to `paths` when given. Throws
/// Error naming the file: Io when it cannot be read, BadInput when it is not a calibration or lies
/// outside the scope.
/// The "compute" object of a calibration file (calibrate --compute), when it has one. Throws Error
/// naming "file (/compute/key)".
[[nodiscard]] std::optional<ComputeCalibration> compute_calibration_from_json(const nlohmann::json& j,
                                                                              const std::string& file);

/// compute: when given, receives the compute calibrations of the files, in order.
[[nodiscard]] std::vector<Calibration> read_calibration_files(const std::vector<std::string>& files,
                                                              const FileScope& scope, const std::string& where,
                                                              std::vector<std::string>* paths = nullptr,
                                                              std::vector<ComputeCalibration>* compute = nullptr);

}  // namespace planlayout
