// CLI: `analyze --format scheduler|hostfile|launch` — the plan as a scheduler or launcher reads it.
#pragma once

#include <string>

#include "context.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {

/// True for the formats run_launch_format handles.
[[nodiscard]] bool is_launch_format(const std::string& format);

/// Throws Error (BadInput) for --launcher without --format launch and --hostfile-style without
/// --format hostfile.
void require_format_flags(const ParsedArgs& parsed, const std::string& format);

/// Plans the layout analyze was given and writes it in `format`; returns the exit code.
int run_launch_format(const ParsedArgs& parsed, const std::string& format, Context& ctx);

/// The memory flags of analyze (--gpu-memory, --memory-headroom) applied to the request.
void apply_memory_flags(const ParsedArgs& parsed, PlanRequest& request);

/// With --require-fit: 1 (ExitCode::CheckFailed) when the layout does not fit its memory budget,
/// else 0; throws Error (BadInput) when there is nothing to check (no model, unknown budget).
[[nodiscard]] int require_fit_code(const ParsedArgs& parsed, const Report& report);

}  // namespace planlayout::cli
