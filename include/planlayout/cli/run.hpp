// CLI: the in-process entry point used by main() and by the golden tests.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace planlayout {

/// Runs `plan-layout ARGS...` (args[0] is the program name). Writes results to out, messages
/// to err, reads `-` inputs from in. Catches every Error and returns its ExitCode.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, std::istream& in);

/// Same, with standard input empty.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace planlayout
