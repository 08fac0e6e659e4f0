// CLI: the parallel-spec flags shared by `groups`, `analyze` and `search` (Megatron aliases included).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "args.hpp"
#include "command_spec.hpp"
#include "context.hpp"
#include "planlayout/ingest/megatron_args.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

namespace planlayout::cli {

/// The parallel-spec flags (--nodes, --gpus-per-node, --tp, ...) of a launch's layout values, each
/// spelled as the launch wrote it (for messages).
[[nodiscard]] ParsedArgs parallel_args_from(const MegatronArgs& m);

/// The values of `--env NAME=VALUE` (repeatable), checked: what a launch script may read.
[[nodiscard]] std::map<std::string, std::string> env_of(const ParsedArgs& args);

/// Merges `--megatron-args FILE|-` (read with read_launch_script, its variables from the
/// repeatable `--env NAME=VALUE`) into parsed: the command line wins over the file.
[[nodiscard]] ParsedArgs with_megatron_args(ParsedArgs parsed, Context& ctx);

/// The spec from parsed flags. world comes from --world or --nodes × --gpus-per-node (when
/// require_world; otherwise 0 if neither is given).
[[nodiscard]] ParallelSpec parallel_spec_from_args(const ParsedArgs& args, bool require_world);

}  // namespace planlayout::cli
