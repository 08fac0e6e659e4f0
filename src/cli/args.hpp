// CLI: the values of a parsed command line, by canonical flag name, and the typed reads of them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace planlayout::cli {

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

    /// An integer whose range the option's validator checked at parse time.
    [[nodiscard]] std::optional<std::int64_t> get_int(const std::string& name) const;

    /// A real number whose range the option's validator checked at parse time.
    [[nodiscard]] std::optional<double> get_double(const std::string& name) const;

    /// A real value in [min, max]; throws a usage Error naming the flag otherwise.
    [[nodiscard]] std::optional<double> get_double(const std::string& name,
                                                   double min,
                                                   double max) const;

    [[nodiscard]] const std::vector<std::string>& positionals() const { return positionals_; }

    /// The spelling the user typed for a canonical name (for messages): "--tensor-model-parallel-size".
    [[nodiscard]] std::string spelling(const std::string& name) const;

    void add(const std::string& name, const std::string& spelled, std::string value);

    /// Records how the user spelled a flag (for messages), without a value.
    void set_spelling(const std::string& name, const std::string& spelled) { spelled_[name] = spelled; }

    void add_positional(std::string value) { positionals_.push_back(std::move(value)); }

    /// Takes every option of `base` that this one does not set (command line over file).
    void fill_from(const ParsedArgs& base);

private:
    std::map<std::string, std::vector<std::string>> values_;
    std::map<std::string, std::string> spelled_;
    std::vector<std::string> positionals_;
};

/// TEXT as an integer in [min, max]; throws a usage Error naming FLAG otherwise.
[[nodiscard]] std::int64_t int_in_range(const std::string& flag, const std::string& text, std::int64_t min,
                                        std::int64_t max);

/// TEXT as a real number in [min, max]; throws a usage Error naming FLAG otherwise.
[[nodiscard]] double number_in_range(const std::string& flag, const std::string& text, double min, double max);

/// "a,b,,c" → {"a", "b", "c"} (empty items dropped, unless keep_empty: {"a", "b", "", "c"}).
[[nodiscard]] std::vector<std::string> split_csv(const std::string& text, bool keep_empty = false);

}  // namespace planlayout::cli
