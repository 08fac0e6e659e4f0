// CLI: the parallel-spec flags shared by `groups`, `analyze` and `search` (Megatron aliases included).
#pragma once

#include <vector>

#include "args.hpp"
#include "command_spec.hpp"
#include "context.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

namespace planlayout::cli {

/// The spec flags of a launch line or script, split into words; every other flag there (and its
/// value) and every other word is ignored.
[[nodiscard]] ParsedArgs parse_megatron_words(const std::vector<std::string>& words);

/// Merges `--megatron-args FILE|-` into parsed (the command line wins over the file).
[[nodiscard]] ParsedArgs with_megatron_args(ParsedArgs parsed, Context& ctx);

/// The spec from parsed flags. world comes from --world or --nodes × --gpus-per-node (when
/// require_world; otherwise 0 if neither is given).
[[nodiscard]] ParallelSpec parallel_spec_from_args(const ParsedArgs& args, bool require_world);

}  // namespace planlayout::cli
