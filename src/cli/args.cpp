// CLI: option parsing and help rendering.
#include "args.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "planlayout/error.hpp"

namespace planlayout::cli {
namespace {

std::vector<std::string> split_names(const std::string& names) {
    std::vector<std::string> out;
    std::stringstream ss(names);
    std::string item;
    while (std::getline(ss, item, ',')) {
        out.push_back(item);
    }
    return out;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

Error usage_error(const std::string& command, const std::string& what, const std::string& hint) {
    return input_error("plan-layout " + command, what, hint);
}

}  // namespace

std::optional<std::string> ParsedArgs::get(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end() || it->second.empty()) {
        return std::nullopt;
    }
    return it->second.back();
}

std::vector<std::string> ParsedArgs::get_all(const std::string& name) const {
    const auto it = values_.find(name);
    return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::string ParsedArgs::get_or(const std::string& name, const std::string& fallback) const {
    auto v = get(name);
    return v ? *v : fallback;
}

std::string ParsedArgs::spelling(const std::string& name) const {
    const auto it = spelled_.find(name);
    return it == spelled_.end() ? name : it->second;
}

std::optional<std::int64_t> ParsedArgs::get_int(const std::string& name,
                                                std::int64_t min,
                                                std::int64_t max) const {
    const auto v = get(name);
    if (!v) {
        return std::nullopt;
    }
    const std::string& s = *v;
    errno = 0;
    char* end = nullptr;
    const long long parsed = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size() || (s[0] != '-' && !std::isdigit(static_cast<unsigned char>(s[0])))) {
        throw input_error(spelling(name) + " " + s, "'" + s + "' is not an integer",
                          "give a whole number, e.g. " + spelling(name) + " " + std::to_string(std::max<std::int64_t>(min, 1)));
    }
    if (errno == ERANGE || parsed < min || parsed > max) {
        throw input_error(spelling(name) + " " + s,
                          "value out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]",
                          "give a value from " + std::to_string(min) + " to " + std::to_string(max));
    }
    return static_cast<std::int64_t>(parsed);
}

std::optional<double> ParsedArgs::get_double(const std::string& name, double min, double max) const {
    const auto v = get(name);
    if (!v) {
        return std::nullopt;
    }
    const std::string& s = *v;
    char* end = nullptr;
    const double parsed = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !(parsed >= min && parsed <= max)) {
        std::ostringstream range;
        range << "[" << min << ", " << max << "]";
        throw input_error(spelling(name) + " " + s, "'" + s + "' is not a number in " + range.str(),
                          "give a number in that range");
    }
    return parsed;
}

void ParsedArgs::add(const std::string& name, const std::string& spelled, std::string value) {
    values_[name].push_back(std::move(value));
    spelled_[name] = spelled;
}

void ParsedArgs::fill_from(const ParsedArgs& base) {
    for (const auto& [name, values] : base.values_) {
        if (values_.count(name) == 0) {
            values_[name] = values;
            spelled_[name] = base.spelling(name);
        }
    }
}

ParsedArgs parse_args(const std::vector<std::string>& args, const CommandHelp& help, bool ignore_unknown) {
    // spelling → (canonical, takes value)
    std::map<std::string, std::pair<std::string, bool>> table;
    std::vector<std::string> all_names;
    for (const auto& opt : help.options) {
        const auto names = split_names(opt.names);
        for (const auto& n : names) {
            table[n] = {names.front(), !opt.metavar.empty()};
            all_names.push_back(n);
        }
    }
    ParsedArgs parsed;
    bool only_positionals = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (only_positionals || a == "-" || a.empty() || a[0] != '-') {
            parsed.add_positional(a);
            continue;
        }
        if (a == "--") {
            only_positionals = true;
            continue;
        }
        std::string key = a;
        std::optional<std::string> inline_value;
        if (const auto eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
            key = a.substr(0, eq);
            inline_value = a.substr(eq + 1);
        }
        // Megatron spells flags with underscores sometimes; accept both.
        std::string dashed = key;
        std::replace(dashed.begin() + (dashed.size() > 2 ? 2 : 0), dashed.end(), '_', '-');
        auto it = table.find(key);
        if (it == table.end()) {
            it = table.find(dashed);
        }
        if (it == table.end()) {
            if (ignore_unknown) {
                // Skip the value of an unknown flag too, when one follows.
                if (!inline_value && i + 1 < args.size() && (args[i + 1].empty() || args[i + 1][0] != '-')) {
                    ++i;
                }
                continue;
            }
            std::string best;
            std::size_t best_d = std::max<std::size_t>(4, key.size() / 3);
            for (const auto& n : all_names) {
                const std::size_t d = edit_distance(key, n);
                if (d < best_d) {
                    best_d = d;
                    best = n;
                }
            }
            throw usage_error(help.name, "unknown option '" + key + "'",
                              best.empty() ? "run 'plan-layout " + help.name + " --help' for the options"
                                           : "did you mean '" + best + "'? ('plan-layout " + help.name +
                                                 " --help' lists every option)");
        }
        const auto& [canonical, takes_value] = it->second;
        if (!takes_value) {
            if (inline_value) {
                throw usage_error(help.name, "option '" + key + "' takes no value", "write it alone: " + key);
            }
            parsed.add(canonical, key, "true");
            continue;
        }
        if (inline_value) {
            parsed.add(canonical, key, *inline_value);
        } else if (i + 1 < args.size()) {
            parsed.add(canonical, key, args[++i]);
        } else {
            throw usage_error(help.name, "option '" + key + "' needs a value",
                              "write " + key + " followed by its value");
        }
    }
    return parsed;
}

std::string render_help(const CommandHelp& help) {
    std::ostringstream out;
    out << "Usage: " << help.usage << "\n\n" << help.description << "\n";
    if (!help.options.empty()) {
        out << "\nOptions:\n";
        for (const auto& opt : help.options) {
            auto names = split_names(opt.names);
            std::string left = "  ";
            for (std::size_t i = 0; i < names.size(); ++i) {
                left += (i ? ", " : "") + names[i];
            }
            if (!opt.metavar.empty()) {
                left += " " + opt.metavar;
            }
            out << left << "\n      " << opt.help << "\n";
        }
    }
    if (!help.examples.empty()) {
        out << "\nExamples:\n";
        for (const auto& e : help.examples) {
            out << "  " << e << "\n";
        }
    }
    return out.str();
}

std::vector<std::string> split_csv(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');) {
        if (!item.empty()) {
            out.push_back(item);
        }
    }
    return out;
}

std::vector<std::string> split_shell_words(const std::string& text, const std::string& where) {
    std::vector<std::string> words;
    std::string cur;
    bool in_word = false;
    char quote = 0;
    std::size_t quote_at = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quote) {
            if (c == quote) {
                quote = 0;
            } else if (c == '\\' && quote == '"' && i + 1 < text.size()) {
                cur += text[++i];
            } else {
                cur += c;
            }
            continue;
        }
        if (c == '\\' && i + 1 < text.size()) {
            if (text[i + 1] == '\n') {
                ++i;
                continue;
            }
            cur += text[++i];
            in_word = true;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            quote_at = i;
            in_word = true;
            continue;
        }
        if (c == '#' && !in_word) {
            while (i < text.size() && text[i] != '\n') {
                ++i;
            }
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            if (in_word) {
                words.push_back(cur);
                cur.clear();
                in_word = false;
            }
            continue;
        }
        cur += c;
        in_word = true;
    }
    if (quote) {
        const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(quote_at), '\n');
        throw input_error(where + ":" + std::to_string(line),
                          std::string("unterminated ") + (quote == '"' ? "double" : "single") + " quote opened on this line",
                          std::string("close it with ") + quote + " as the shell would need");
    }
    if (in_word) {
        words.push_back(cur);
    }
    return words;
}

}  // namespace planlayout::cli
