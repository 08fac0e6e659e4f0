// CLI: flags shared by `collective` and `calibrate` (hardware numbers, sizes, transports), and
// the memory flags of `analyze` and `search`.
#pragma once

#include <string>
#include <vector>

#include "args.hpp"
#include "command_spec.hpp"
#include "context.hpp"
#include "planlayout/model/cost.hpp"
#include "planlayout/model/memory.hpp"

namespace planlayout::cli {

/// The collectives, as messages list them.
inline constexpr const char* kCollectiveOps = "all_reduce, all_gather, reduce_scatter, all_to_all, broadcast or sendrecv";

/// NodeHardware from the hardware flags (defaults: H100/H200 HGX, 400G rail NICs, 100G TCP).
[[nodiscard]] NodeHardware hardware_from(const ParsedArgs& args);

/// PlacedGroup for every GPU of --nodes × --gpus-per-node, with --tree-gain applied.
/// --layout FILE|- (with --kind) reads through the CLI (stdin allowed), like every other command.
[[nodiscard]] PlacedGroup shape_from(const ParsedArgs& args, const std::string& command, Context& ctx);

/// "256MiB", "1G", "4096", "1.5GB" → bytes (K/M/G/T and KiB/MiB/GiB/TiB binary, KB/MB/GB/TB
/// decimal). Throws a usage Error naming flag.
[[nodiscard]] double parse_size_bytes(const std::string& text, const std::string& flag);

/// --gpu-memory SIZE and --memory-headroom SIZE (0 allowed: no headroom); unset when not given.
[[nodiscard]] MemoryLimits memory_limits_of(const ParsedArgs& args);

/// --transport, required to be one of tcp|rdma|gdrdma.
[[nodiscard]] Transport transport_from(const ParsedArgs& args, const std::string& fallback);

/// --socket-inside-node (only with --transport tcp: a usage Error otherwise).
[[nodiscard]] bool socket_inside_node(const ParsedArgs& args, Transport transport);


}  // namespace planlayout::cli
