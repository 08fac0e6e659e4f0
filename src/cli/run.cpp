// CLI: subcommand dispatch and the single place where errors become messages and exit codes.
#include "planlayout/cli/run.hpp"

#include <unistd.h>

#include <array>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "messages.hpp"
#include "planlayout/emit/atomic_write.hpp"
#include "planlayout/error.hpp"
#include "planlayout/names.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/version.hpp"

namespace planlayout {
namespace cli {

std::string base_name(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

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

}  // namespace cli

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, std::istream& in) {
    cli::Context ctx{in, out, err, false};
    ctx.err_is_terminal = (&err == &std::cerr) && ::isatty(STDERR_FILENO) != 0;
    try {
        CLI::App app("plan-layout");
        const auto specs = cli::define_commands(app);
        if (args.size() < 2 || args[1] == "--help" || args[1] == "-h" || args[1] == "help") {
            const bool man = args.size() == 3 && args[1] == "help" && args[2] == "--man";
            out << (man ? cli::man_page(specs) : cli::main_help(specs));
            return args.size() < 2 ? static_cast<int>(ExitCode::BadInput) : 0;
        }
        if (args[1] == "--version") {
            out << "plan-layout " << kVersion << "\n";
            return 0;
        }
        std::vector<std::string> names;
        for (const auto& spec : specs) {
            if (args[1] == spec.name) {
                const cli::ParsedArgs parsed = cli::parse_command(app, spec, {args.begin() + 1, args.end()});
                if (parsed.has("--help")) {
                    out << cli::render_help(spec);
                    return 0;
                }
                return cli::command_runner(spec.name)(parsed, ctx);
            }
            names.push_back(spec.name);
        }
        throw input_error("plan-layout", "unknown command '" + args[1] + "'", "use one of: " + cli::join(names, ", "));
    } catch (const Error& e) {
        err << "plan-layout: error: " << terminal_safe(e.what()) << "\n";
        return static_cast<int>(e.code());
    } catch (const std::bad_alloc&) {
        err << "plan-layout: error: out of memory; reduce the world size or the input\n";
        return static_cast<int>(ExitCode::Internal);
    } catch (const std::exception& e) {
        err << "plan-layout: internal error: " << terminal_safe(e.what())
            << "; please report this with the command line that caused it\n";
        return static_cast<int>(ExitCode::Internal);
    }
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    std::istringstream empty;
    return run_cli(args, out, err, empty);
}

}  // namespace planlayout
