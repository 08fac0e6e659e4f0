// CLI: what every subcommand receives, and the helpers they share for input and output.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>

#include "planlayout/limits.hpp"
#include <string_view>
#include <vector>

#include "args.hpp"
#include "planlayout/plan.hpp"

namespace planlayout {
class OutputFile;
}  // namespace planlayout

namespace planlayout::cli {

struct Context {
    std::istream& in;
    std::ostream& out;
    std::ostream& err;
    bool err_is_terminal = false;  // progress bars only when a person watches
    bool files_anywhere = false;   // --allow-outside-files: layouts may name files outside their folder
    std::vector<std::string> inputs = {};  // the files the command line names as inputs (input_files)
};

/// The file name without its folders ("runs/tcp-1.csv" → "tcp-1.csv"): what outputs record.
[[nodiscard]] std::string base_name(const std::string& path);

/// Reads a named input: "-" is standard input, anything else a file (through ingest); refused
/// (exit 2) past max_bytes, having read at most max_bytes + 1 bytes (so /dev/zero stops there).
[[nodiscard]] std::string read_input(const std::string& path, Context& ctx, std::size_t max_bytes = kMaxInputBytes);

/// A plan request for a layout file ("-" = standard input, named "<stdin>"), with relative
/// paths in it resolved against the file's folder.
[[nodiscard]] PlanRequest layout_request(const std::string& path, Context& ctx);

/// The files a command line names as inputs: positionals (not import's FORMAT), the values of
/// the file options (kInputFileOptions) and the FILE of each `--run ARM:ROUND=FILE`; "-" is
/// standard input.
[[nodiscard]] std::vector<std::string> input_files(const std::string& command, const ParsedArgs& args);

/// Options whose value names a file the command reads (kept in step with commands.json by a test).
inline constexpr const char* kInputFileOptions[] = {"--megatron-args", "--cluster",     "--layout", "--style",
                                                    "--measured",      "--calibration", "--model",  "--hostfile",
                                                    "--model-config",  "--node",        "--verify", "--ab",
                                                    "--cluster-topology"};

/// The checks of the output policy made before any work (docs/hardening.md "Output files"):
/// `-o ""` is refused, `-o` naming one of the inputs is refused, and standard input may feed one
/// input only. Throws Error (exit 2).
void check_inputs_and_output(const std::string& command, const ParsedArgs& args, const std::vector<std::string>& inputs);

/// Where a command's result goes: `-o FILE` through an OutputFile (atomic, or written through to
/// a device), else ctx.out. Write the result as it is produced, then commit(); destroyed without
/// commit() (an error), a temporary file is removed and an existing file is left as it was.
/// more_inputs: files read besides the command line's (e.g. those a layout names), refused as -o.
class Output {
public:
    Output(const ParsedArgs& args, Context& ctx, const std::vector<std::string>& more_inputs = {});
    ~Output();

    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;
    Output(Output&&) = delete;
    Output& operator=(Output&&) = delete;

    [[nodiscard]] std::ostream& stream();
    void write(std::string_view text);
    /// Finishes the file, or flushes standard output; a failed write throws Error (Io, exit 3).
    void commit();

private:
    std::unique_ptr<OutputFile> file_;
    std::ostream* target_ = nullptr;             // the file's stream or ctx.out
    std::unique_ptr<std::ostream> safe_;         // --format text: control bytes as \xHH (terminal_stream.hpp)
    std::ostream* out_ = nullptr;                // what results are written to
};

/// "plan-layout: KIND: TEXT" on ctx.err, TEXT through terminal_safe (a note or warning may quote an
/// input's bytes: no raw control byte reaches the terminal, docs/hardening.md). KIND is "note" or
/// "warning".
void print_message(Context& ctx, const char* kind, const std::string& text);

/// Writes a whole result through an Output (`-o FILE` or ctx.out) and commits it.
void write_output(const ParsedArgs& args, const std::string& content, Context& ctx,
                  const std::vector<std::string>& more_inputs = {});

/// Flushes a stream that stands for standard output and throws Error (Io, exit 3) naming
/// standard output and the reason when a write failed.
void check_standard_output(std::ostream& out);

}  // namespace planlayout::cli
