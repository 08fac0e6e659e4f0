// CLI: `analyze --format scheduler|hostfile|launch` — the plan as a scheduler or launcher reads it.
#pragma once

#include <string>

#include "context.hpp"

namespace planlayout::cli {

/// True for the formats run_launch_format handles.
[[nodiscard]] bool is_launch_format(const std::string& format);

/// Plans the layout analyze was given and writes it in `format`; returns the exit code.
int run_launch_format(const ParsedArgs& parsed, const std::string& format, Context& ctx);

}  // namespace planlayout::cli
