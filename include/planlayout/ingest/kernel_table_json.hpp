// Ingest: measured kernel tables (layouts/kernels/*.json, compiled in by cmake/planlayout_embed.cmake;
// tests/gpu/kernel_table.py writes them from the GPU runs under tests/gpu/data/).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/topology/kernel_table.hpp"

namespace planlayout {

/// Reads one table. Throws Error (BadInput) naming "file (/pointer)".
[[nodiscard]] KernelTable kernel_table_from_json(const nlohmann::json& j, const std::string& file);

/// The tables compiled in from layouts/kernels/, in file-name order.
[[nodiscard]] std::vector<std::shared_ptr<const KernelTable>> builtin_kernel_tables();

}  // namespace planlayout
