// Emit: the groups of a spec as JSON (streamed, for millions of ranks) and as terminal text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planlayout/limits.hpp"
#include "planlayout/parallel/groups.hpp"

namespace planlayout {

// kMaxGroupEntries (planlayout/limits.hpp): the most group entries (ranks summed over every
// listed group of every listed kind) a JSON listing materializes. Bigger listings are refused
// with a hint to pick kinds (--kinds) or one rank (--rank) instead of exhausting memory and disk.

/// Group entries groups_json would write for these kinds (empty: all).
[[nodiscard]] std::int64_t group_entry_count(const Groups& groups, const std::vector<std::string>& kinds);

/// {"schema_version":1,"spec":{...},"groups":{"<kind>":[[r,...],...],...}} with kinds in
/// creation order. `kinds` filters (empty: all). Deterministic; written without a DOM.
/// Throws Error (BadInput) when the listing holds more than kMaxGroupEntries entries.
[[nodiscard]] std::string groups_json(const Groups& groups, const std::vector<std::string>& kinds);

/// Per kind: count × size and the first groups, readable in a terminal.
[[nodiscard]] std::string groups_text(const Groups& groups, const std::vector<std::string>& kinds);

/// One rank's coordinates and its group in every kind (text or JSON).
[[nodiscard]] std::string rank_text(const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds);
[[nodiscard]] std::string rank_json(const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds);

}  // namespace planlayout
