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

/// The file name without its folders ("runs/tcp-1.csv" → "tcp-1.csv"): what outputs record.
[[nodiscard]] std::string base_name(const std::string& path);

/// Reads a named input: "-" is standard input, anything else a file (through ingest).
[[nodiscard]] std::string read_input(const std::string& path, Context& ctx);

/// A plan request for a layout file ("-" = standard input, named "<stdin>"), with relative
/// paths in it resolved against the file's folder.
[[nodiscard]] PlanRequest layout_request(const std::string& path, Context& ctx);

/// Writes a result to `-o FILE` atomically when given, else to ctx.out.
void write_output(const ParsedArgs& args, const std::string& content, Context& ctx);

}  // namespace planlayout::cli
