// CLI: the subcommands. Each cmd_<name>.cpp defines its options (define_<name>: one CLI11 option
// per row, which feeds parsing, --help and the man page) and runs on the parsed values.
#pragma once

#include <string>
#include <vector>

#include "command_spec.hpp"
#include "context.hpp"

namespace planlayout::cli {

struct Command {
    const char* name;
    const char* summary;
    void (*define)(CommandSpec& spec);
    int (*run)(const ParsedArgs& args, Context& ctx);
};

/// Every subcommand, in the order `plan-layout --help` lists them.
[[nodiscard]] const std::vector<Command>& commands();

/// Every command as a subcommand of app (same order as commands()).
[[nodiscard]] std::vector<CommandSpec> define_commands(CLI::App& app);

/// The main `--help` text (lists the commands).
[[nodiscard]] std::string main_help(const std::vector<CommandSpec>& specs);

/// The man page plan-layout.1 (groff man), from the same definitions as --help.
[[nodiscard]] std::string man_page(const std::vector<CommandSpec>& specs);

#define PLANLAYOUT_COMMAND(name)            \
    void define_##name(CommandSpec& spec);  \
    int run_##name(const ParsedArgs& args, Context& ctx);
PLANLAYOUT_COMMAND(groups)
PLANLAYOUT_COMMAND(analyze)
PLANLAYOUT_COMMAND(import)
PLANLAYOUT_COMMAND(discover)
PLANLAYOUT_COMMAND(lint)
PLANLAYOUT_COMMAND(collective)
PLANLAYOUT_COMMAND(calibrate)
PLANLAYOUT_COMMAND(verify)
PLANLAYOUT_COMMAND(ab)
PLANLAYOUT_COMMAND(search)
PLANLAYOUT_COMMAND(compare)
#undef PLANLAYOUT_COMMAND

}  // namespace planlayout::cli
