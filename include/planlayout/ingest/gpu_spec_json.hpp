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
/// objects; callers that evaluate many layouts read them once), each with its kernel table
/// (attach_kernel_tables over the tables compiled in from layouts/kernels/).
[[nodiscard]] std::vector<GpuSpec> builtin_gpu_specs();

/// Gives each spec the table measured on it (matched by the table's gpu), else the first table,
/// marked derived (the compute model scales it by the datasheets' ratio).
void attach_kernel_tables(std::vector<GpuSpec>& specs, const std::vector<std::shared_ptr<const KernelTable>>& tables);

}  // namespace planlayout
