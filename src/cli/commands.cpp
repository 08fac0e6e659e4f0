// CLI: the table of subcommands (one entry per command; each lives in its own cmd_*.cpp).
#include "commands.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <stdexcept>

namespace planlayout::cli {

RunFn command_runner(const std::string& name) {
    struct Entry {
        const char* name;
        RunFn run;
    };
    static constexpr Entry kRunners[] = {
        {"groups", run_groups},         {"analyze", run_analyze}, {"import", run_import},   {"discover", run_discover},
        {"lint", run_lint},             {"collective", run_collective}, {"calibrate", run_calibrate},
        {"verify", run_verify},         {"ab", run_ab},           {"search", run_search},   {"compare", run_compare},
        {"report", run_report},         {"numbers", run_numbers},
    };
    for (const auto& e : kRunners) {
        if (name == e.name) {
            return e.run;
        }
    }
    throw std::logic_error("commands.json names a command without a run function: " + name);
}

std::vector<CommandSpec> define_commands(CLI::App& app) {
    app.set_help_flag();
    app.require_subcommand(1);  // a word naming another command later on is a positional, not a command
    const nlohmann::json defs = command_definitions();
    std::vector<CommandSpec> specs;
    for (const auto& def : defs.at("commands")) {
        specs.push_back(new_command(app, def.at("name").get<std::string>(), def.at("summary").get<std::string>()));
        define_command(specs.back(), def, defs);
    }
    return specs;
}

}  // namespace planlayout::cli
