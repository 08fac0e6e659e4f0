// CLI: one function per subcommand; each is defined in src/cli/cmd_<name>.cpp.
#pragma once

#include "context.hpp"

namespace planlayout::cli {

int cmd_analyze(const std::vector<std::string>& args, Context& ctx);
int cmd_groups(const std::vector<std::string>& args, Context& ctx);

// cost and calibration
int cmd_collective(const std::vector<std::string>& raw, Context& ctx);
int cmd_calibrate(const std::vector<std::string>& raw, Context& ctx);

// acceptance
int cmd_verify(const std::vector<std::string>& args, Context& ctx);
int cmd_ab(const std::vector<std::string>& args, Context& ctx);

// -- ingest commands --
int cmd_import(const std::vector<std::string>& args, Context& ctx);
int cmd_discover(const std::vector<std::string>& args, Context& ctx);
int cmd_lint(const std::vector<std::string>& args, Context& ctx);

// -- search and compare --
int cmd_search(const std::vector<std::string>& args, Context& ctx);
int cmd_compare(const std::vector<std::string>& args, Context& ctx);

}  // namespace planlayout::cli
