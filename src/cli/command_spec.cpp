// CLI: commands as CLI11 Apps; CLI11's parse errors become the one-line usage Errors.
#include "command_spec.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>

#include "cost_options.hpp"
#include "messages.hpp"
#include "planlayout/emit/diagram.hpp"
#include "planlayout/model/collective_op.hpp"
#include "planlayout/model/model_spec.hpp"
#include "planlayout_cli_commands.hpp"

namespace planlayout::cli {
namespace {

std::vector<std::string> split_names(const std::string& names) {
    return split_csv(names);
}

// "--tensor_model_parallel_size=2" → "--tensor-model-parallel-size=2": Megatron writes either.
std::string dashed_key(const std::string& word) {
    if (word.rfind("--", 0) != 0 || word.size() <= 2) {
        return word;
    }
    const auto eq = std::min(word.find('='), word.size());
    std::string out = word;
    std::replace(out.begin() + 2, out.begin() + static_cast<std::ptrdiff_t>(eq), '_', '-');
    return out;
}

const CommandSpec::Row* row_named(const CommandSpec& spec, const std::string& spelled) {
    for (const auto& row : spec.options) {
        if (row.option->check_name(spelled)) {
            return &row;
        }
    }
    return nullptr;
}

std::string canonical(const CommandSpec::Row& row) {
    return split_names(row.names).front();
}

// The flag each option was last spelled as on this command line ("--tensor_model_parallel_size").
std::map<std::string, std::string> spellings(const CommandSpec& spec, const std::vector<std::string>& words) {
    std::map<std::string, std::string> out;
    for (const auto& w : words) {
        if (w == "--") {
            break;
        }
        const std::string key = w.rfind("--", 0) == 0 ? w.substr(0, w.find('=')) : w;
        if (key.size() > 1 && key[0] == '-') {
            if (const auto* row = row_named(spec, dashed_key(key))) {
                out[canonical(*row)] = key;
            }
        }
    }
    return out;
}

std::string spelled_or(const std::map<std::string, std::string>& spelled, const CommandSpec& spec,
                       const std::string& cli11_name) {
    const auto* row = row_named(spec, cli11_name);
    for (const char* dashes : {"--", "-"}) {  // a flag override names the flag without its dashes
        row = row != nullptr ? row : row_named(spec, dashes + cli11_name);
    }
    if (row == nullptr) {
        return cli11_name;
    }
    const auto it = spelled.find(canonical(*row));
    return it == spelled.end() ? canonical(*row) : it->second;
}

// "A requires B" / "A excludes B" / "A: 1 required TEXT missing" → A, B spelled as typed.
std::pair<std::string, std::string> two_names(const std::string& message, const std::string& verb) {
    const auto at = message.find(verb);
    return at == std::string::npos ? std::pair{message, std::string()}
                                   : std::pair{message.substr(0, at), message.substr(at + verb.size())};
}

Error to_error(const CLI::ParseError& e, const CommandSpec& spec, const std::map<std::string, std::string>& spelled) {
    const std::string message = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
        const auto extras = spec.app->remaining();
        const std::string first = extras.empty() ? message : extras.front();
        if (first.size() < 2 || first[0] != '-') {
            return unexpected_argument(spec.name, first, "see 'plan-layout " + spec.name + " --help'");
        }
        std::vector<std::string> known;
        for (const auto& row : spec.options) {
            const auto names = split_names(row.names);
            known.insert(known.end(), names.begin(), names.end());
        }
        return unknown_option(spec.name, first.substr(0, first.find('=')), known);
    }
    if (dynamic_cast<const CLI::RequiresError*>(&e) != nullptr) {
        const auto [a, b] = two_names(message, " requires ");
        const std::string x = spelled_or(spelled, spec, a);
        return usage_error(spec.name, x + " needs " + spelled_or(spelled, spec, b),
                           "give both, or drop " + x);
    }
    if (dynamic_cast<const CLI::ExcludesError*>(&e) != nullptr) {
        const auto [a, b] = two_names(message, " excludes ");
        return usage_error(spec.name, spelled_or(spelled, spec, a) + " conflicts with " + spelled_or(spelled, spec, b),
                           "give one of the two");
    }
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
        const bool override_given = message.find(" was given a disallowed flag override") != std::string::npos;
        const std::string x = spelled_or(spelled, spec, message.substr(0, message.find_first_of(": ")));
        return override_given ? usage_error(spec.name, "option '" + x + "' takes no value", "write it alone: " + x)
                              : usage_error(spec.name, "option '" + x + "' needs a value",
                                            "write " + x + " followed by its value");
    }
    return usage_error(spec.name, message, "see 'plan-layout " + spec.name + " --help'");
}

void check_positionals(const CommandSpec& spec, const std::vector<std::string>& given) {
    const PositionalRule& rule = spec.positionals;
    if (rule.max == 0 && !given.empty()) {
        throw unexpected_argument(spec.name, given.front(), rule.hint);
    }
    if (given.size() < rule.min || given.size() > rule.max) {
        throw usage_error(spec.name, "expected " + rule.expected + ", got " + std::to_string(given.size()), rule.hint);
    }
}

void attach(const CommandSpec& spec, const std::string& name, std::function<void(const std::string&)> check) {
    option_of(spec, name)->check(CLI::Validator(
        [check = std::move(check)](std::string& value) {
            check(value);  // throws a planlayout Error, which CLI11 lets through
            return std::string();
        },
        std::string()));
}

CommandSpec with_rest(CLI::App* app, const std::string& name, const std::string& summary) {
    CommandSpec spec;
    spec.name = name;
    spec.summary = summary;
    spec.app = app;
    app->set_help_flag();
    app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    spec.rest = app->add_option("ARGS")->expected(0, -1)->allow_extra_args();
    return spec;
}

// Values checked by a library parser rather than a fixed list.
struct ParsedChoice {
    const char* parser;
    const char* kind;
    const char* choices;
    bool (*accepts)(const std::string&);
};

constexpr ParsedChoice kParsedChoices[] = {
    {"view", "view", "node, groups, fabric, score, matrix or load", [](const std::string& s) { return parse_diagram_view(s).has_value(); }},
    {"collective", "collective", kCollectiveOps, [](const std::string& s) { return parse_collective_op(s).has_value(); }},
    {"transport", "transport", "tcp, rdma, gdrdma, p2p or shm", [](const std::string& s) { return parse_transport(s).has_value(); }},
};

// A text in the definitions: a string, or an array of lines.
std::string text_of(const nlohmann::json& j) {
    if (!j.is_array()) {
        return j.get<std::string>();
    }
    std::string out;
    for (const auto& line : j) {
        out += (out.empty() ? "" : "\n") + line.get<std::string>();
    }
    return out;
}

void apply_checks(const CommandSpec& spec, const std::string& name, const nlohmann::json& checks) {
    if (checks.contains("choices")) {
        check_choice(spec, name, checks.at("kind").get<std::string>(), checks.at("choices").get<std::vector<std::string>>());
    }
    if (checks.contains("int")) {
        check_int(spec, name, checks.at("int").at(0).get<std::int64_t>(), checks.at("int").at(1).get<std::int64_t>());
    }
    if (checks.contains("number")) {
        check_number(spec, name, checks.at("number").at(0).get<double>(), checks.at("number").at(1).get<double>());
    }
    if (checks.contains("parser")) {
        for (const auto& p : kParsedChoices) {
            if (checks.at("parser") == p.parser) {
                check_parsed(spec, name, p.kind, p.choices, p.accepts);
            }
        }
    }
    if (checks.value("list", false)) {  // Megatron's nargs='+'
        option_of(spec, name)->expected(1, -1)->allow_extra_args()->delimiter(',');
    }
}

void relate(const CommandSpec& spec, const nlohmann::json& pairs, void (*how)(const CommandSpec&, const std::string&,
                                                                              const std::string&)) {
    for (const auto& pair : pairs) {
        how(spec, pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
    }
}

}  // namespace

nlohmann::json command_definitions() {
    return nlohmann::json::parse(kCommandDefinitions);
}

void define_options(CommandSpec& spec, const nlohmann::json& rows, const nlohmann::json& defs) {
    for (const auto& row : rows) {
        if (row.is_string()) {  // "@set"
            const std::string set = row.get<std::string>().substr(1);
            define_options(spec, defs.at("sets").at(set), defs);
            relate(spec, defs.at("set_needs").value(set, nlohmann::json::array()), needs);
            continue;
        }
        const auto name = row.at(0).get<std::string>();
        const auto metavar = row.at(1).get<std::string>();
        const auto help = row.at(2).get<std::string>();
        add_options(spec, {{name.c_str(), metavar.c_str(), help.c_str()}});
        if (row.size() > 3) {
            apply_checks(spec, split_names(name).front(), row.at(3));
        }
    }
}

void define_command(CommandSpec& spec, const nlohmann::json& def, const nlohmann::json& defs) {
    spec.usage = text_of(def.at("usage"));
    spec.description = text_of(def.at("description"));
    const auto& pos = def.at("positionals");
    const auto max = pos.at("max").get<long long>();
    spec.positionals = {pos.at("min").get<std::size_t>(), max < 0 ? SIZE_MAX : static_cast<std::size_t>(max),
                        pos.at("expected").get<std::string>(), pos.at("hint").get<std::string>()};
    define_options(spec, def.at("options"), defs);
    relate(spec, def.value("needs", nlohmann::json::array()), needs);
    relate(spec, def.value("excludes", nlohmann::json::array()), excludes);
    spec.examples = def.at("examples").get<std::vector<std::string>>();
}

CommandSpec new_command(CLI::App& parent, const std::string& name, const std::string& summary) {
    return with_rest(parent.add_subcommand(name, summary), name, summary);
}

CommandSpec standalone_command(CLI::App& app, const std::string& name) {
    return with_rest(&app, name, std::string());
}

CLI::Option* add_options(CommandSpec& spec, const std::vector<OptionDef>& defs) {
    CLI::Option* last = nullptr;
    for (const auto& d : defs) {
        const std::string names = d.names;
        const std::string metavar = d.metavar;
        if (names.rfind("--help", 0) == 0) {
            last = spec.app->set_help_flag(names, d.help);
        } else if (metavar.empty()) {
            last = spec.app->add_flag(names, d.help)->disable_flag_override();
        } else {
            last = spec.app->add_option(names)->description(d.help)->type_name(metavar);
        }
        spec.options.push_back({names, last});
    }
    return last;
}

CLI::Option* option_of(const CommandSpec& spec, const std::string& canonical_name) {
    for (const auto& row : spec.options) {
        if (canonical(row) == canonical_name) {
            return row.option;
        }
    }
    throw std::logic_error("plan-layout " + spec.name + " defines no option " + canonical_name);
}

void check_choice(const CommandSpec& spec, const std::string& canonical_name, const std::string& kind,
                  const std::vector<std::string>& values) {
    attach(spec, canonical_name, [canonical_name, kind, values](const std::string& v) {
        if (std::find(values.begin(), values.end(), v) == values.end()) {
            throw unknown_choice(canonical_name, v, kind, choice_list(values));
        }
    });
}

void check_parsed(const CommandSpec& spec, const std::string& canonical_name, const std::string& kind,
                  const std::string& choices, bool (*accepts)(const std::string&)) {
    attach(spec, canonical_name, [canonical_name, kind, choices, accepts](const std::string& v) {
        if (!accepts(v)) {
            throw unknown_choice(canonical_name, v, kind, choices);
        }
    });
}

void check_int(const CommandSpec& spec, const std::string& canonical_name, std::int64_t min, std::int64_t max) {
    attach(spec, canonical_name, [canonical_name, min, max](const std::string& v) {
        (void)int_in_range(canonical_name, v, min, max);
    });
}

void check_number(const CommandSpec& spec, const std::string& canonical_name, double min, double max) {
    attach(spec, canonical_name, [canonical_name, min, max](const std::string& v) {
        (void)number_in_range(canonical_name, v, min, max);
    });
}

void needs(const CommandSpec& spec, const std::string& a, const std::string& b) {
    option_of(spec, a)->needs(option_of(spec, b));
}

void excludes(const CommandSpec& spec, const std::string& a, const std::string& b) {
    option_of(spec, a)->excludes(option_of(spec, b));
}

ParsedArgs parse_command(CLI::App& root, const CommandSpec& spec, std::vector<std::string> words) {
    const auto spelled = spellings(spec, words);
    bool literal = false;
    for (auto& w : words) {
        literal = literal || w == "--";
        w = literal ? w : dashed_key(w);
    }
    std::reverse(words.begin(), words.end());  // CLI11 takes them last first
    ParsedArgs parsed;
    try {
        root.parse(words);
    } catch (const CLI::CallForHelp&) {
        parsed.add("--help", "--help", "true");
        return parsed;
    } catch (const CLI::ParseError& e) {
        throw to_error(e, spec, spelled);
    }
    for (const auto& row : spec.options) {
        const std::string name = canonical(row);
        for (const auto& value : row.option->results()) {
            parsed.add(name, name, value);
        }
        if (const auto it = spelled.find(name); it != spelled.end() && parsed.has(name)) {
            parsed.set_spelling(name, it->second);
        }
    }
    for (const auto& value : spec.rest->results()) {
        parsed.add_positional(value);
    }
    check_positionals(spec, parsed.positionals());
    return parsed;
}

std::string render_help(const CommandSpec& spec) {
    std::ostringstream out;
    out << "Usage: " << spec.usage << "\n\n" << spec.description << "\n";
    if (!spec.options.empty()) {
        out << "\nOptions:\n";
        for (const auto& row : spec.options) {
            std::string left = "  ";
            const auto names = split_names(row.names);
            for (std::size_t i = 0; i < names.size(); ++i) {
                left += (i ? ", " : "") + names[i];
            }
            const std::string metavar = row.option->get_type_name();
            out << left << (metavar.empty() ? "" : " " + metavar) << "\n      " << row.option->get_description() << "\n";
        }
    }
    if (!spec.examples.empty()) {
        out << "\nExamples:\n";
        for (const auto& e : spec.examples) {
            out << "  " << e << "\n";
        }
    }
    return out.str();
}

}  // namespace planlayout::cli
