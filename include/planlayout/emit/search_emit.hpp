// Emit: search results as a ranked table and as versioned JSON.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planlayout/analysis/search.hpp"

namespace planlayout {

/// What the emitters print besides the result: where things came from and how it was sorted.
struct SearchHeader {
    std::string cluster_source;  // the CLUSTER argument
    std::string model_source;    // the --model argument
    std::string sort;            // "tcp", "gdrdma", "benefit"
    std::int64_t top = 0;        // layouts shown (0: all)
    std::optional<SearchExplanation> explain;  // --explain: the named layout against #1
    std::vector<std::string> warnings;         // what the input readers warned about (a config.json's keys not read)
};

/// The ranked table: per layout sizes, order, memory, step time per transport, benefit,
/// cross-node share and the worst class of ep, dp, tp, pp, cp. Then the counts.
[[nodiscard]] std::string search_text(const SearchResult& r, const Cluster& cluster, const SearchHeader& h);

/// {"schema_version":1,"command":"search",...,"counts":{...},"layouts":[...]}.
[[nodiscard]] std::string search_json(const SearchResult& r, const Cluster& cluster, const SearchHeader& h);

}  // namespace planlayout
