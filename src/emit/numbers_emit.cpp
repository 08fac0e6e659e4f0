// Emit: the registry of the performance model's numbers as text, JSON and Markdown.
#include "planlayout/emit/numbers_emit.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string_view>
#include <vector>

#include "planlayout/text_format.hpp"

namespace planlayout {
namespace {

constexpr std::array kClasses = {NumberClass::Measured, NumberClass::Spec, NumberClass::Derived, NumberClass::Assumed};

// The shortest fixed-point text that reads back as the same double: 14, 0.45, 0.000001.
std::string shortest(double v) {
    constexpr int kMaxDecimals = 20;  // past any registry value's precision
    std::array<char, 352> buffer{};   // a double's widest "%f" integer part (309 digits) and then some
    int decimals = 0;
    for (; decimals < kMaxDecimals; ++decimals) {
        std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, v);
        if (std::strtod(buffer.data(), nullptr) == v) {
            break;
        }
    }
    return buffer.data();
}

bool has_range(const Number& n) { return n.low < n.high; }

// `text` after `label`, its words wrapped before kTextWrap columns under the label's end.
void wrapped(std::ostream& out, std::string_view label, std::string_view text) {
    std::vector<std::string> words;
    for (std::size_t start = 0; start < text.size();) {
        std::size_t end = text.find(' ', start);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        words.emplace_back(text.substr(start, end - start));
        start = end + 1;
    }
    out << wrapped_text(words, label, std::string(label.size(), ' '), " ") << "\n";
}

// A Markdown table cell: the pipes of the text escaped, line breaks as spaces.
std::string cell(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '|') {
            out += "\\|";
        } else {
            out += (c == '\n' ? ' ' : c);
        }
    }
    return out;
}

nlohmann::json counts_json(const NumberCounts& c) {
    return {{"measured", c.measured}, {"spec", c.spec}, {"derived", c.derived}, {"assumed", c.assumed}};
}

}  // namespace

NumberCounts count_by_class(const std::vector<const Number*>& numbers) {
    NumberCounts c;
    for (const Number* n : numbers) {
        switch (n->cls) {
            case NumberClass::Measured:
                ++c.measured;
                break;
            case NumberClass::Spec:
                ++c.spec;
                break;
            case NumberClass::Derived:
                ++c.derived;
                break;
            case NumberClass::Assumed:
                ++c.assumed;
                break;
        }
    }
    return c;
}

std::string number_value_text(const Number& n) {
    std::string out = shortest(n.value) + " " + std::string(n.unit);
    if (has_range(n)) {
        out += " (" + shortest(n.low) + ".." + shortest(n.high) + ")";
    }
    return out;
}

std::string counts_text(const NumberCounts& c) {
    const int total = c.measured + c.spec + c.derived + c.assumed;
    return std::to_string(total) + (total == 1 ? " number: " : " numbers: ") + std::to_string(c.measured) +
           " measured, " + std::to_string(c.spec) + " spec, " + std::to_string(c.derived) + " derived, " +
           std::to_string(c.assumed) + " assumed";
}

std::string numbers_text(const std::vector<const Number*>& numbers) {
    std::ostringstream out;
    out << counts_text(count_by_class(numbers)) << "\n";
    for (const Number* n : numbers) {
        out << "\n" << n->id << "  [" << to_string(n->cls) << "]\n";
        wrapped(out, "    value: ", number_value_text(*n));
        wrapped(out, "    source: ", n->source);
        wrapped(out, "    used in: ", n->used_in);
    }
    return out.str();
}

nlohmann::json numbers_json(const std::vector<const Number*>& numbers) {
    nlohmann::json list = nlohmann::json::array();
    for (const Number* n : numbers) {
        list.push_back({{"id", n->id},
                        {"value", n->value},
                        {"unit", n->unit},
                        {"class", to_string(n->cls)},
                        {"source", n->source},
                        {"used_in", n->used_in},
                        {"low", n->low},
                        {"high", n->high}});
    }
    return {{"schema_version", 1}, {"counts", counts_json(count_by_class(numbers))}, {"numbers", list}};
}

nlohmann::json model_numbers_json() {
    const std::vector<const Number*> numbers = all_numbers();
    nlohmann::json assumed = nlohmann::json::array();
    for (const Number* n : numbers) {
        if (n->cls == NumberClass::Assumed) {
            assumed.push_back({{"id", n->id}, {"value", n->value}, {"unit", n->unit}, {"low", n->low}, {"high", n->high}});
        }
    }
    return {{"counts", counts_json(count_by_class(numbers))}, {"assumed", assumed}};
}

std::string numbers_markdown(const std::vector<const Number*>& numbers) {
    std::ostringstream out;
    out << counts_text(count_by_class(numbers)) << ".\n";
    for (const NumberClass cls : kClasses) {
        bool first = true;
        for (const Number* n : numbers) {
            if (n->cls != cls) {
                continue;
            }
            if (first) {
                out << "\n**" << to_string(cls) << "**\n\n| id | value | range | source | used in |\n|---|---|---|---|---|\n";
                first = false;
            }
            out << "| `" << n->id << "` | " << shortest(n->value) << " " << cell(n->unit) << " | "
                << (has_range(*n) ? shortest(n->low) + ".." + shortest(n->high) : std::string("-")) << " | "
                << cell(n->source) << " | " << cell(n->used_in) << " |\n";
        }
    }
    return out.str();
}

}  // namespace planlayout
