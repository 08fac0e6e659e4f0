// Emit: the groups of a spec as JSON (streamed, for millions of ranks) and as terminal text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planlayout/parallel/groups.hpp"

namespace planlayout {

/// {"schema_version":1,"spec":{...},"groups":{"<kind>":[[r,...],...],...}} with kinds in
/// creation order. `kinds` filters (empty: all). Deterministic; written without a DOM.
[[nodiscard]] std::string groups_json(const Groups& groups, const std::vector<std::string>& kinds);

/// Per kind: count × size and the first groups, readable in a terminal.
[[nodiscard]] std::string groups_text(const Groups& groups, const std::vector<std::string>& kinds);

/// One rank's coordinates and its group in every kind (text or JSON).
[[nodiscard]] std::string rank_text(const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds);
[[nodiscard]] std::string rank_json(const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds);

}  // namespace planlayout
