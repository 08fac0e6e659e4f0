// CLI: what every subcommand receives, and the helpers they share for input and output.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "args.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {

struct Context {
    std::istream& in;
    std::ostream& out;
    std::ostream& err;
    bool err_is_terminal = false;  // progress bars only when a person watches
};

using CommandFn = int (*)(const std::vector<std::string>& args, Context& ctx);

struct Command {
    const char* name;
    const char* summary;
    CommandFn run;
};

/// Every subcommand, in the order `plan-layout --help` lists them.
[[nodiscard]] const std::vector<Command>& commands();

/// Reads a named input: "-" is standard input, anything else a file (through ingest).
[[nodiscard]] std::string read_input(const std::string& path, Context& ctx);

/// A plan request for a layout file ("-" = standard input, named "<stdin>"), with relative
/// paths in it resolved against the file's folder.
[[nodiscard]] PlanRequest layout_request(const std::string& path, Context& ctx);

/// Writes a result to `-o FILE` atomically when given, else to ctx.out.
void write_output(const ParsedArgs& args, const std::string& content, Context& ctx);

/// Prints help and returns true when --help was given.
bool handle_help(const ParsedArgs& args, const CommandHelp& help, Context& ctx);

}  // namespace planlayout::cli
