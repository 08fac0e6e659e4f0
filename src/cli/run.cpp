// CLI: subcommand dispatch and the single place where errors become messages and exit codes.
#include "planlayout/cli/run.hpp"

#include <unistd.h>

#include <array>
#include <iostream>
#include <sstream>

#include "context.hpp"
#include "planlayout/emit/atomic_write.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/version.hpp"

namespace planlayout {
namespace cli {

std::string read_input(const std::string& path, Context& ctx) {
    if (path == "-") {
        // Standard input has no size to check up front: read in chunks, stop at the limit.
        std::string text;
        std::array<char, 65536> buf{};
        while (ctx.in) {
            ctx.in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
            text.append(buf.data(), static_cast<std::size_t>(ctx.in.gcount()));
            if (text.size() > kMaxInputBytes) {
                throw input_error("<stdin>", "input is over the limit of " + std::to_string(kMaxInputBytes) + " bytes",
                                  "pass a smaller input or cut it to the relevant part");
            }
        }
        return text;
    }
    return read_text_file(path);
}

PlanRequest layout_request(const std::string& path, Context& ctx) {
    PlanRequest request;
    request.layout_text = read_input(path, ctx);
    request.layout_name = path == "-" ? "<stdin>" : path;
    request.base_dir = path == "-" ? "." : parent_dir(path);
    return request;
}

void write_output(const ParsedArgs& args, const std::string& content, Context& ctx) {
    const auto path = args.get("-o");
    if (path && *path != "-") {
        write_file_atomically(*path, content);
    } else {
        ctx.out << content;
    }
}

bool handle_help(const ParsedArgs& args, const CommandHelp& help, Context& ctx) {
    if (!args.has("--help")) {
        return false;
    }
    ctx.out << render_help(help);
    return true;
}

namespace {

std::string main_help() {
    std::ostringstream out;
    out << "plan-layout " << kVersion
        << " — rank layout and communication-group topology analyzer for distributed training\n\n"
           "Usage: plan-layout COMMAND [options]\n"
           "       plan-layout COMMAND --help     (every command explains its options)\n\n"
           "Commands:\n";
    for (const auto& c : commands()) {
        std::string name = c.name;
        name.resize(12, ' ');
        out << "  " << name << c.summary << "\n";
    }
    out << "\nExit codes: 0 success; 1 a check found problems (lint, verify); 2 bad input or usage\n"
           "(nothing written); 3 a file could not be read or written; 4 internal error.\n\n"
           "Example:\n"
           "  plan-layout groups --nodes 2 --gpus-per-node 8 --ep 16      # the seed's layout A\n";
    return out.str();
}

}  // namespace
}  // namespace cli

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, std::istream& in) {
    cli::Context ctx{in, out, err, false};
    ctx.err_is_terminal = (&err == &std::cerr) && ::isatty(STDERR_FILENO) != 0;
    try {
        if (args.size() < 2 || args[1] == "--help" || args[1] == "-h" || args[1] == "help") {
            out << cli::main_help();
            return args.size() < 2 ? static_cast<int>(ExitCode::BadInput) : 0;
        }
        if (args[1] == "--version") {
            out << "plan-layout " << kVersion << "\n";
            return 0;
        }
        for (const auto& c : cli::commands()) {
            if (args[1] == c.name) {
                const std::vector<std::string> rest(args.begin() + 2, args.end());
                return c.run(rest, ctx);
            }
        }
        std::string names;
        for (const auto& c : cli::commands()) {
            names += (names.empty() ? "" : ", ") + std::string(c.name);
        }
        throw input_error("plan-layout", "unknown command '" + args[1] + "'",
                          "use one of: " + names);
    } catch (const Error& e) {
        err << "plan-layout: error: " << e.what() << "\n";
        return static_cast<int>(e.code());
    } catch (const std::bad_alloc&) {
        err << "plan-layout: error: out of memory; reduce the world size or the input\n";
        return static_cast<int>(ExitCode::Internal);
    } catch (const std::exception& e) {
        err << "plan-layout: internal error: " << e.what()
            << "; please report this with the command line that caused it\n";
        return static_cast<int>(ExitCode::Internal);
    }
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    std::istringstream empty;
    return run_cli(args, out, err, empty);
}

}  // namespace planlayout
