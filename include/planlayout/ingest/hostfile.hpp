// Ingest: MPI/DeepSpeed hostfiles ("host slots=8", "host:8" or "host" per line, # comments).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace planlayout {

/// Parses hostfile text into (host, slots) pairs; slots 0 when not given. Throws Error
/// (BadInput) naming where:LINE for a bad slot count.
[[nodiscard]] std::vector<std::pair<std::string, int>> parse_hostfile(const std::string& text, const std::string& where);

}  // namespace planlayout
