// Emit: the groups of a spec as JSON (streamed, for millions of ranks) and as terminal text.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "planlayout/limits.hpp"
#include "planlayout/parallel/framework_compare.hpp"
#include "planlayout/parallel/groups.hpp"

namespace planlayout {

// kMaxGroupEntries (planlayout/limits.hpp): the most group entries (ranks summed over every
// listed group of every listed kind) a JSON listing writes: 2^27 entries is about 1 GiB of JSON.
// The listing is streamed, so memory is not the concern; bigger listings are refused with a hint
// to pick kinds (--kinds) or one rank (--rank) instead of filling the disk with a file no tool reads.

/// Group entries groups_json would write for these kinds (empty: all).
[[nodiscard]] std::int64_t group_entry_count(const Groups& groups, const std::vector<std::string>& kinds);

/// Throws Error (BadInput) when a JSON listing of these kinds would hold more than
/// kMaxGroupEntries entries.
void check_group_entry_limit(const Groups& groups, const std::vector<std::string>& kinds);

/// {"schema_version":1,"spec":{...},"groups":{"<kind>":[[r,...],...],...}} with kinds in
/// creation order. `kinds` filters (empty: all). Deterministic; written to `os` in 64 KiB pieces
/// as the groups are computed (no DOM, no whole-listing string: memory stays flat).
/// Throws Error (BadInput) before writing anything when the listing holds more than
/// kMaxGroupEntries entries.
void write_groups_json(std::ostream& os, const Groups& groups, const std::vector<std::string>& kinds);

/// The same listing as a string (tests, small specs).
[[nodiscard]] std::string groups_json(const Groups& groups, const std::vector<std::string>& kinds);

/// Per kind: count × size and the first groups, readable in a terminal. Groups are never built
/// whole: the first members and the last are computed.
void write_groups_text(std::ostream& out, const Groups& groups, const std::vector<std::string>& kinds);
[[nodiscard]] std::string groups_text(const Groups& groups, const std::vector<std::string>& kinds);

/// groups --same-as: each kind of `groups` against `other`'s (compare_groups rows), as a table
/// with the first differing rank's two groups, or as JSON.
[[nodiscard]] std::string comparison_text(const Groups& groups, const Groups& other, const std::vector<KindComparison>& rows);
[[nodiscard]] std::string comparison_json(const Groups& groups, const Groups& other, const std::vector<KindComparison>& rows);

/// One rank's coordinates and its group in every kind (text or JSON).
[[nodiscard]] std::string rank_text(const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds);
[[nodiscard]] std::string rank_json(const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds);

/// Rank entries rank_json would list: the sizes of the rank's groups in these kinds (empty: all).
[[nodiscard]] std::int64_t rank_entry_count(const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds);

/// Throws Error (BadInput) when rank_json would list more than kMaxGroupEntries rank entries.
void check_rank_entry_limit(const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds);

/// rank_json written to `os` in 64 KiB pieces as the members are computed (memory stays flat).
/// Throws Error (BadInput) before writing anything when over kMaxGroupEntries entries.
void write_rank_json(std::ostream& os, const Groups& groups, std::int64_t rank, const std::vector<std::string>& kinds);

}  // namespace planlayout
