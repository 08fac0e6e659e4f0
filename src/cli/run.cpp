// CLI: subcommand dispatch and the single place where errors become messages and exit codes.
#include "planlayout/cli/run.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "messages.hpp"
#include "terminal_stream.hpp"
#include "planlayout/emit/output_file.hpp"
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

std::string read_input(const std::string& path, Context& ctx, std::size_t max_bytes) {
    if (path == "-") {
        // Standard input has no size to check up front: read in chunks, at most max_bytes + 1.
        std::string text;
        std::array<char, 65536> buf{};
        while (ctx.in) {
            ctx.in.read(buf.data(), static_cast<std::streamsize>(std::min(buf.size(), max_bytes + 1 - text.size())));
            text.append(buf.data(), static_cast<std::size_t>(ctx.in.gcount()));
            if (text.size() > max_bytes) {
                throw input_error("<stdin>", "input is over the limit of " + std::to_string(max_bytes) + " bytes",
                                  "pass a smaller input or cut it to the relevant part");
            }
        }
        return text;
    }
    return read_text_file(path, max_bytes);
}

PlanRequest layout_request(const std::string& path, Context& ctx) {
    PlanRequest request;
    request.layout_text = read_input(path, ctx, kMaxLayoutBytes);
    request.layout_name = path == "-" ? "<stdin>" : path;
    request.base_dir = path == "-" ? "." : parent_dir(path);
    request.files_anywhere = ctx.files_anywhere;
    return request;
}

std::vector<std::string> input_files(const std::string& command, const ParsedArgs& args) {
    std::vector<std::string> files;
    const auto& pos = args.positionals();
    for (std::size_t i = command == "import" ? 1 : 0; i < pos.size(); ++i) {  // import FORMAT FILE
        files.push_back(pos[i]);
    }
    for (const char* option : kInputFileOptions) {
        for (const auto& v : args.get_all(option)) {
            files.push_back(v);
        }
    }
    for (const auto& run : args.get_all("--run")) {  // ARM:ROUND=FILE
        if (const auto eq = run.find('='); eq != std::string::npos) {
            files.push_back(run.substr(eq + 1));
        }
    }
    return files;
}

void check_inputs_and_output(const std::string& command, const ParsedArgs& args, const std::vector<std::string>& inputs) {
    if (std::count(inputs.begin(), inputs.end(), "-") > 1) {
        throw usage_error(command, "standard input ('-') is given for more than one input",
                          "standard input can be read once: save all but one of those inputs to files");
    }
    if (const auto o = args.get("-o")) {
        if (o->empty()) {
            throw input_error("-o \"\"", "the output file name is empty", "give a file name, or - for standard output");
        }
        if (*o != "-") {
            refuse_output_onto_input(*o, inputs);
        }
    }
}

Output::Output(const ParsedArgs& args, Context& ctx, const std::vector<std::string>& more_inputs) : target_(&ctx.out) {
    const auto path = args.get("-o");
    if (path && *path != "-") {
        std::vector<std::string> inputs = ctx.inputs;
        inputs.insert(inputs.end(), more_inputs.begin(), more_inputs.end());
        file_ = std::make_unique<OutputFile>(*path, inputs);
        target_ = &file_->stream();
    }
    out_ = target_;
    // The human tables quote the inputs' names: no raw control byte of theirs reaches a terminal
    // (issue 41 item 7). Machine formats keep their bytes (JSON and YAML escape them; a launch
    // script's words reach bash as the user's script gave them).
    if (args.get_or("--format", "text") == "text") {
        safe_ = std::make_unique<TerminalSafeStream>(*target_);
        out_ = safe_.get();
    }
}

Output::~Output() = default;

std::ostream& Output::stream() {
    return *out_;
}

void Output::write(std::string_view text) {
    out_->write(text.data(), static_cast<std::streamsize>(text.size()));
}

void Output::commit() {
    if (safe_ && !safe_->flush()) {
        target_->setstate(std::ios::badbit);  // a short write of the filter is the target's failure
    }
    if (file_) {
        file_->commit();
    } else {
        check_standard_output(*target_);
    }
}

void write_output(const ParsedArgs& args, const std::string& content, Context& ctx,
                  const std::vector<std::string>& more_inputs) {
    Output out(args, ctx, more_inputs);
    out.write(content);
    out.commit();
}

void print_message(Context& ctx, const char* kind, const std::string& text) {
    ctx.err << "plan-layout: " << kind << ": " << terminal_safe(text) << "\n";
}

void check_standard_output(std::ostream& out) {
    out.flush();
    if (out) {
        return;
    }
    const auto* fd_out = dynamic_cast<const FdOStream*>(&out);
    const int err = fd_out != nullptr ? fd_out->error() : 0;
    throw io_error("standard output", std::string("write failed") + (err != 0 ? std::string(": ") + std::strerror(err) : ""),
                   "check the disk space, or the pipe or file standard output goes to");
}

}  // namespace cli

namespace {

int run_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, std::istream& in) {
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
                ctx.inputs = cli::input_files(spec.name, parsed);
                cli::check_inputs_and_output(spec.name, parsed, ctx.inputs);
                ctx.files_anywhere = parsed.has("--allow-outside-files");
                return cli::command_runner(spec.name)(parsed, ctx);
            }
            names.push_back(spec.name);
        }
        throw input_error("plan-layout", "unknown command '" + args[1] + "'", "use one of: " + cli::join(names, ", "));
    } catch (const Error& e) {
        err << "plan-layout: error: " << terminal_safe(e.what()) << "\n";
        return static_cast<int>(e.code());
    } catch (const std::bad_alloc&) {
        err << kOutOfMemoryMessage;
        return static_cast<int>(ExitCode::Internal);
    } catch (const std::exception& e) {
        err << "plan-layout: internal error: " << terminal_safe(e.what())
            << "; please report this with the command line that caused it\n";
        return static_cast<int>(ExitCode::Internal);
    }
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, std::istream& in) {
    const int code = run_command(args, out, err, in);
    // Whatever went to standard output (help, a result, a message-only run) must have arrived.
    try {
        cli::check_standard_output(out);
    } catch (const Error& e) {
        if (code == 0 || code == static_cast<int>(ExitCode::CheckFailed)) {
            err << "plan-layout: error: " << e.what() << "\n";
            return static_cast<int>(e.code());
        }
    }
    return code;
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    std::istringstream empty;
    return run_cli(args, out, err, empty);
}

}  // namespace planlayout
