// Ingest: MPI/DeepSpeed hostfiles ("host slots=8", "host:8" or "host" per line, # comments).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace planlayout {

/// Parses hostfile text into (host, slots) pairs; slots 0 when not given. Throws Error
/// (BadInput) naming where:LINE for a bad slot count (not 1..4096: "host:abc", "slots=0") and
/// any other word than slots=N or max_slots=N ("a slots = 8": a launcher would read no slots).
[[nodiscard]] std::vector<std::pair<std::string, int>> parse_hostfile(const std::string& text, const std::string& where);

/// A note when hosts' slots differ from the ranks the plan puts on each node (one per GPU):
/// "hosts.txt gives node0 and 1 more slots=4, but the plan puts 8 ranks on each node ...".
/// Empty when every given slot count agrees, none is given, or ranks_per_node is 0 (unknown).
[[nodiscard]] std::string hostfile_slots_note(const std::vector<std::pair<std::string, int>>& hosts,
                                              std::int64_t ranks_per_node, const std::string& where);

}  // namespace planlayout
