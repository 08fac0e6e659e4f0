// CLI: parsed values and their typed reads.
#include "args.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "messages.hpp"
#include "planlayout/error.hpp"

namespace planlayout::cli {
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

std::int64_t int_in_range(const std::string& flag, const std::string& text, std::int64_t min, std::int64_t max) {
    errno = 0;
    char* end = nullptr;
    const long long parsed = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() ||
        (text[0] != '-' && !std::isdigit(static_cast<unsigned char>(text[0])))) {
        throw not_an_integer(flag, text, std::max<std::int64_t>(min, 1));
    }
    if (errno == ERANGE || parsed < min || parsed > max) {
        throw out_of_range(flag, text, errno == ERANGE ? text[0] == '-' : parsed < min, min, max);
    }
    return static_cast<std::int64_t>(parsed);
}

double number_in_range(const std::string& flag, const std::string& text, double min, double max) {
    char* end = nullptr;
    const double parsed = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !(parsed >= min && parsed <= max)) {
        std::ostringstream range;
        range << "[" << min << ", " << max << "]";
        throw input_error(flag + " " + text, "'" + text + "' is not a number in " + range.str(),
                          "give a number in that range");
    }
    return parsed;
}

std::optional<std::int64_t> ParsedArgs::get_int(const std::string& name, std::int64_t min, std::int64_t max) const {
    const auto v = get(name);
    return v ? std::optional<std::int64_t>(int_in_range(spelling(name), *v, min, max)) : std::nullopt;
}

std::optional<std::int64_t> ParsedArgs::get_int(const std::string& name) const {
    return get_int(name, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
}

std::optional<double> ParsedArgs::get_double(const std::string& name) const {
    return get_double(name, -std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
}

std::optional<double> ParsedArgs::get_double(const std::string& name, double min, double max) const {
    const auto v = get(name);
    return v ? std::optional<double>(number_in_range(spelling(name), *v, min, max)) : std::nullopt;
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

std::vector<std::string> split_csv(const std::string& text, bool keep_empty) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');) {
        if (keep_empty || !item.empty()) {
            out.push_back(item);
        }
    }
    return out;
}

}  // namespace planlayout::cli
