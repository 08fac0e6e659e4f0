// CLI: the in-process entry point used by main() and by the golden tests.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace planlayout {

/// The message of exit 4 when memory runs out (std::bad_alloc), from run_cli's catch or, when the
/// exception meets a noexcept frame (a destructor that allocates), from main's terminate handler.
inline constexpr std::string_view kOutOfMemoryMessage =
    "plan-layout: error: plan-layout: out of memory; reduce the world size or the input, or raise "
    "the memory limit (ulimit -v)\n";

/// Runs `plan-layout ARGS...` (args[0] is the program name). Writes results to out, messages
/// to err, reads `-` inputs from in. Catches every Error and returns its ExitCode.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, std::istream& in);

/// Same, with standard input empty.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace planlayout
