// CLI: the subcommands. commands.json defines each one's options (a CLI11 option per row, which
// feeds parsing, --help and the man page); cmd_<name>.cpp runs it on the parsed values.
#pragma once

#include <string>
#include <vector>

#include "command_spec.hpp"
#include "context.hpp"

namespace planlayout::cli {

using RunFn = int (*)(const ParsedArgs& args, Context& ctx);

/// Every command as a subcommand of app, in the order commands.json (and `plan-layout --help`) lists them.
[[nodiscard]] std::vector<CommandSpec> define_commands(CLI::App& app);

/// The function that runs the command NAME.
[[nodiscard]] RunFn command_runner(const std::string& name);

/// The main `--help` text (lists the commands).
[[nodiscard]] std::string main_help(const std::vector<CommandSpec>& specs);

/// The man page plan-layout.1 (groff man), from the same definitions as --help.
[[nodiscard]] std::string man_page(const std::vector<CommandSpec>& specs);

#define PLANLAYOUT_COMMAND(name) int run_##name(const ParsedArgs& args, Context& ctx);
PLANLAYOUT_COMMAND(groups)
PLANLAYOUT_COMMAND(analyze)
PLANLAYOUT_COMMAND(report)
PLANLAYOUT_COMMAND(import)
PLANLAYOUT_COMMAND(discover)
PLANLAYOUT_COMMAND(lint)
PLANLAYOUT_COMMAND(collective)
PLANLAYOUT_COMMAND(calibrate)
PLANLAYOUT_COMMAND(verify)
PLANLAYOUT_COMMAND(ab)
PLANLAYOUT_COMMAND(search)
PLANLAYOUT_COMMAND(compare)
PLANLAYOUT_COMMAND(numbers)
#undef PLANLAYOUT_COMMAND

}  // namespace planlayout::cli
