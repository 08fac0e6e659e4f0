// CLI: one definition per option (a CLI11 option) that feeds parsing, --help and the man page.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "args.hpp"

namespace CLI {  // NOLINT(readability-identifier-naming): CLI11's own namespace
class App;
class Option;
}  // namespace CLI

namespace planlayout::cli {

/// One row of an option table. names: comma-separated spellings, the first is canonical
/// ("--tp,--tensor-model-parallel-size"); the help lists them in this order. metavar empty → a
/// flag without a value. "--help,-h" becomes the command's help flag.
struct OptionDef {
    const char* names;
    const char* metavar;
    const char* help;
};

/// How many positional arguments a command takes, and what it says when the count is off:
/// "expected <expected>, got N; <hint>" (max 0: "unexpected argument 'X'; <hint>").
struct PositionalRule {
    std::size_t min = 0;
    std::size_t max = 0;
    std::string expected;
    std::string hint;
};

/// A subcommand: its CLI11 App, the texts around the options, and the options in help order.
struct CommandSpec {
    struct Row {
        std::string names;  // as the help shows them
        CLI::Option* option = nullptr;
    };
    std::string name;
    std::string summary;
    std::string usage;
    std::string description;
    std::vector<std::string> examples;
    PositionalRule positionals;
    CLI::App* app = nullptr;         // owned by its parent App (or by the caller, standalone)
    CLI::Option* rest = nullptr;     // every positional argument
    std::vector<Row> options;
};

/// A command named NAME under parent (a CLI11 subcommand) with a positional catch-all.
[[nodiscard]] CommandSpec new_command(CLI::App& parent, const std::string& name, const std::string& summary);

/// The same on a standalone App (no parent), e.g. for flags read from a launch script.
[[nodiscard]] CommandSpec standalone_command(CLI::App& app, const std::string& name);

/// The definitions of every command (src/cli/commands.json, compiled in): texts, option rows
/// with their checks, option sets ("@parallel", "@hardware"), needs/excludes, examples.
[[nodiscard]] nlohmann::json command_definitions();

/// Fills spec from its entry in defs["commands"]: usage, description, positionals, options with
/// their validators, needs and excludes, examples.
void define_command(CommandSpec& spec, const nlohmann::json& def, const nlohmann::json& defs);

/// Adds option rows: [names, metavar, help] or [names, metavar, help, {checks}], or "@SET" for
/// defs["sets"][SET]. Checks: choices+kind, int [min, max], number [min, max], parser (view,
/// collective, transport), list (several values, "2 4" or "2,4").
void define_options(CommandSpec& spec, const nlohmann::json& rows, const nlohmann::json& defs);

/// Adds the rows to the command's App, in order; returns the last option added.
CLI::Option* add_options(CommandSpec& spec, const std::vector<OptionDef>& defs);

/// The CLI11 option of a canonical name ("--format"); throws std::logic_error when absent.
[[nodiscard]] CLI::Option* option_of(const CommandSpec& spec, const std::string& canonical);

/// Attaches a CLI11 validator: the value must be one of values, else unknown_choice(KIND).
void check_choice(const CommandSpec& spec, const std::string& canonical, const std::string& kind,
                  const std::vector<std::string>& values);

/// A validator from a parser: accepts(value) false → unknown_choice(KIND) with CHOICES.
void check_parsed(const CommandSpec& spec, const std::string& canonical, const std::string& kind,
                  const std::string& choices, bool (*accepts)(const std::string&));

/// Integer / real validators: the value must lie in [min, max] (the messages of ParsedArgs).
void check_int(const CommandSpec& spec, const std::string& canonical, std::int64_t min, std::int64_t max);
void check_number(const CommandSpec& spec, const std::string& canonical, double min, double max);

/// CLI11 needs: a given without b is refused.
void needs(const CommandSpec& spec, const std::string& a, const std::string& b);

/// CLI11 excludes both ways between a and b (presence; values do not matter).
void excludes(const CommandSpec& spec, const std::string& a, const std::string& b);

/// Parses words with root (an App that holds spec.app as a subcommand, or spec.app itself) and
/// returns the values of spec's options. Flags may be spelled with '_' for '-' (Megatron does).
/// Every CLI11 error becomes a usage Error (exit 2): unknown flags name the nearest known one.
/// `--help` gives a ParsedArgs where has("--help") and nothing else is checked.
[[nodiscard]] ParsedArgs parse_command(CLI::App& root, const CommandSpec& spec, std::vector<std::string> words);

/// `--help` text: usage, description, every option with its metavar, the examples.
[[nodiscard]] std::string render_help(const CommandSpec& spec);

}  // namespace planlayout::cli
