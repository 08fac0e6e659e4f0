// CLI: a small, strict option parser shared by every subcommand (help text from the same table).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace planlayout::cli {

/// One option. names: comma-separated spellings, the first is canonical
/// ("--tp,--tensor-model-parallel-size"). metavar empty → a flag without a value.
struct OptionSpec {
    std::string names;
    std::string metavar;
    std::string help;
};

struct CommandHelp {
    std::string name;         // "groups"
    std::string usage;        // "plan-layout groups --world N [options]"
    std::string description;  // a paragraph
    std::vector<OptionSpec> options;
    std::vector<std::string> examples;  // full command lines
};

/// The parsed command line: values keyed by canonical name, plus positionals.
class ParsedArgs {
public:
    [[nodiscard]] bool has(const std::string& name) const { return values_.count(name) > 0; }

    /// The last value given for name (later flags override earlier ones, as shells expect).
    [[nodiscard]] std::optional<std::string> get(const std::string& name) const;

    [[nodiscard]] std::vector<std::string> get_all(const std::string& name) const;

    [[nodiscard]] std::string get_or(const std::string& name, const std::string& fallback) const;

    /// An integer value in [min, max]; throws a usage Error naming the flag otherwise.
    [[nodiscard]] std::optional<std::int64_t> get_int(const std::string& name,
                                                      std::int64_t min,
                                                      std::int64_t max) const;

    /// A real value in [min, max]; throws a usage Error naming the flag otherwise.
    [[nodiscard]] std::optional<double> get_double(const std::string& name,
                                                   double min,
                                                   double max) const;

    [[nodiscard]] const std::vector<std::string>& positionals() const { return positionals_; }

    /// The spelling the user typed for a canonical name (for messages): "--tensor-model-parallel-size".
    [[nodiscard]] std::string spelling(const std::string& name) const;

    void add(const std::string& name, const std::string& spelled, std::string value);

    void add_positional(std::string value) { positionals_.push_back(std::move(value)); }

    /// Takes every option of `base` that this one does not set (command line over file).
    void fill_from(const ParsedArgs& base);

private:
    std::map<std::string, std::vector<std::string>> values_;
    std::map<std::string, std::string> spelled_;
    std::vector<std::string> positionals_;
};

/// Parses args (without the program and subcommand names). Unknown flags throw a usage Error
/// that suggests the nearest known flag. With ignore_unknown, unknown flags (and a value that
/// follows them) are skipped: used for Megatron launch lines.
[[nodiscard]] ParsedArgs parse_args(const std::vector<std::string>& args,
                                    const CommandHelp& help,
                                    bool ignore_unknown = false);

/// `--help` text: usage, description, every option with its metavar, the examples.
[[nodiscard]] std::string render_help(const CommandHelp& help);

/// "a,b,,c" → {"a", "b", "c"} (empty items dropped).
[[nodiscard]] std::vector<std::string> split_csv(const std::string& text);

/// Splits text into shell-like words: whitespace, single/double quotes, backslash-newline
/// continuations and `#` comments at the start of a word.
/// where names the text in errors (an unterminated quote: "where:LINE").
[[nodiscard]] std::vector<std::string> split_shell_words(const std::string& text, const std::string& where = "arguments");

}  // namespace planlayout::cli
