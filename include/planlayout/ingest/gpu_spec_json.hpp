// Ingest: GPU spec files (layouts/gpus/*.json, compiled in by cmake/planlayout_embed.cmake).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/topology/gpu_spec.hpp"

namespace planlayout {

/// Reads one GPU spec. Throws Error (BadInput) naming "file (/pointer)".
[[nodiscard]] GpuSpec gpu_spec_from_json(const nlohmann::json& j, const std::string& file);

/// The specs compiled in from layouts/gpus/, in file-name order (parsed on each call: six small
/// objects; callers that evaluate many layouts read them once).
[[nodiscard]] std::vector<GpuSpec> builtin_gpu_specs();

}  // namespace planlayout
