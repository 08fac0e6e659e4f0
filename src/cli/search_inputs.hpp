// CLI: what `search` and `compare` (with search rank numbers) share: the cluster and model
// from the composed inputs, the search options, and a candidate turned back into a layout.
#pragma once

#include <string>
#include <vector>

#include "args.hpp"
#include "context.hpp"
#include "plan_inputs.hpp"
#include "planlayout/analysis/search.hpp"

namespace planlayout::cli {

/// The inputs of a search, composed (LAYOUT or CLUSTER positional, --model, and every input flag).
struct SearchInputs {
    ComposedInputs inputs;         // the layout (no parallel section: search enumerates it)
    Cluster cluster;
    SearchModel model;
    std::vector<std::string> files;  // every file read (inputs, refused as -o)
};

/// Reads the inputs. cluster_positional: the command's first positional names the cluster or a
/// layout (search); otherwise only the flags give them (compare with rank numbers).
[[nodiscard]] SearchInputs search_inputs(const ParsedArgs& args, Context& ctx, bool cluster_positional);

/// The options of `search` from its flags (defaults for compare).
[[nodiscard]] SearchOptions search_options(const ParsedArgs& args, const SearchModel& model, Context& ctx);

/// The plan request of the candidate ranked `rank` (1-based) of a search: the composed layout
/// with that candidate's parallel sizes and order. Throws Error when there is no such rank.
[[nodiscard]] PlanRequest candidate_request(const SearchInputs& in, const SearchResult& result, std::int64_t rank,
                                            const std::string& where);

}  // namespace planlayout::cli
