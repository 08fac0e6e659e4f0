// CLI: the recurring usage messages.
#include "messages.hpp"

#include <algorithm>
#include <cstddef>

namespace planlayout::cli {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
    std::string out;
    for (const auto& item : items) {
        out += (out.empty() ? "" : sep) + item;
    }
    return out;
}

std::string choice_list(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
    }
    return out;
}

Error usage_error(const std::string& command, std::string what, std::string hint) {
    return input_error("plan-layout " + command, std::move(what), std::move(hint));
}

Error unknown_choice(const std::string& flag, const std::string& value, const std::string& kind,
                     const std::string& choices) {
    return input_error(flag + " " + value, "unknown " + kind + " '" + value + "'", "use " + choices);
}

Error unknown_kind(const std::string& list, const std::string& kind, std::string hint) {
    return input_error("--kinds " + list, "unknown or not created kind '" + kind + "'", std::move(hint));
}

Error missing_option(const std::string& command, const std::string& flag, std::string hint) {
    return usage_error(command, "missing " + flag, std::move(hint));
}

Error unknown_option(const std::string& command, const std::string& spelled, const std::vector<std::string>& known) {
    std::string best;
    std::size_t best_d = std::max<std::size_t>(4, spelled.size() / 3);
    for (const auto& n : known) {
        const std::size_t d = edit_distance(spelled, n);
        if (d < best_d) {
            best_d = d;
            best = n;
        }
    }
    const std::string help = "'plan-layout " + command + " --help'";
    return usage_error(command, "unknown option '" + spelled + "'",
                       best.empty() ? "run " + help + " for the options"
                                    : "did you mean '" + best + "'? (" + help + " lists every option)");
}

Error unexpected_argument(const std::string& command, const std::string& arg, std::string hint) {
    return usage_error(command, "unexpected argument '" + arg + "'", std::move(hint));
}

Error not_an_integer(const std::string& flag, const std::string& text, long long example) {
    return input_error(flag + " " + text, "'" + text + "' is not an integer",
                       "give a whole number, e.g. " + flag + " " + std::to_string(example));
}

Error out_of_range(const std::string& flag, const std::string& text, bool below, long long min, long long max) {
    return input_error(flag + " " + text,
                       text + " is " + (below ? "smaller than " + std::to_string(min) : "larger than " + std::to_string(max)),
                       below ? "give a value of at least " + std::to_string(min) : "give a value of at most " + std::to_string(max));
}

}  // namespace planlayout::cli
