// CLI: the parallel-spec flags shared by `groups`, `analyze` and `search` (Megatron aliases included).
#pragma once

#include <vector>

#include "args.hpp"
#include "context.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

namespace planlayout::cli {

/// The option rows for the spec flags (sizes, order, Megatron aliases, --megatron-args).
[[nodiscard]] std::vector<OptionSpec> parallel_flag_options();

/// Joins the values that follow --hierarchical-context-parallel-sizes ("2 4" → "2,4"), as
/// Megatron's nargs='+' flag takes them.
[[nodiscard]] std::vector<std::string> join_list_flags(const std::vector<std::string>& args);

/// Parses args; merges `--megatron-args FILE|-` (unknown flags there are ignored; the command
/// line wins over the file).
[[nodiscard]] ParsedArgs parse_with_megatron_args(const std::vector<std::string>& args,
                                                  const CommandHelp& help,
                                                  Context& ctx);

/// The spec from parsed flags. world comes from --world or --nodes × --gpus-per-node (when
/// require_world; otherwise 0 if neither is given).
[[nodiscard]] ParallelSpec parallel_spec_from_args(const ParsedArgs& args, bool require_world);

}  // namespace planlayout::cli
