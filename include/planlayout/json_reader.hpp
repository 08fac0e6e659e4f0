// The one JSON reader: a base utility below every stage, like error.hpp (the readers of ingest/
// use it; the stages after ingest include nothing of ingest/). Every JSON input (layouts, cluster
// specs, node templates, calibrations, style files, model sections) is read through it, so every
// JSON error has the same form: "file (/json/pointer): what is wrong; how to fix it".
//
// Policy, the same everywhere: `//` and `/* */` comments are allowed (parse_json_text); keys
// that start with "_" and the key "//" are comments too and accepted in every object; any other
// key must be one the object knows, checked before any value is read, and an unknown key names
// the nearest known one. Numbers are range-checked with integers printed as integers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace planlayout {

/// True for keys every object accepts as comments: "_anything" and "//".
[[nodiscard]] bool is_comment_key(std::string_view key);

/// A JSON object being read, with its file and JSON pointer for messages. Holds a reference:
/// the document must outlive the reader.
class JsonReader {
public:
    /// Throws Error (BadInput) when j is not an object.
    JsonReader(const nlohmann::json& j, std::string file, std::string pointer);

    /// "file (/pointer/key)" ("file (/)" for the top).
    [[nodiscard]] std::string where(const std::string& key = {}) const;

    [[nodiscard]] const std::string& file() const { return file_; }

    [[nodiscard]] const std::string& pointer() const { return pointer_; }

    [[nodiscard]] const nlohmann::json& json() const { return j_; }

    /// Present and not null.
    [[nodiscard]] bool has(const std::string& key) const;

    [[nodiscard]] const nlohmann::json& at(const std::string& key) const { return j_.at(key); }

    /// Refuses a key that is neither in `known` nor a comment key, naming the nearest known key.
    void check_keys(const std::vector<std::string>& known) const;

    /// A number in [min, max] (T integral: a whole number). nullopt when absent or null.
    template <class T>
    [[nodiscard]] std::optional<T> get(const std::string& key, T min, T max) const {
        static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
        if constexpr (std::is_integral_v<T>) {
            const auto v = get_integer(key, static_cast<std::int64_t>(min), static_cast<std::int64_t>(max));
            return v ? std::optional<T>(static_cast<T>(*v)) : std::nullopt;
        } else {
            const auto v = get_real(key, static_cast<double>(min), static_cast<double>(max));
            return v ? std::optional<T>(static_cast<T>(*v)) : std::nullopt;
        }
    }

    /// A string or a boolean. nullopt when absent or null.
    template <class T>
    [[nodiscard]] std::optional<T> get(const std::string& key) const {
        static_assert(std::is_same_v<T, std::string> || std::is_same_v<T, bool>);
        if constexpr (std::is_same_v<T, bool>) {
            return get_bool(key);
        } else {
            return get_string(key);
        }
    }

    [[nodiscard]] std::optional<std::int64_t> get_int(const std::string& key, std::int64_t min, std::int64_t max) const {
        return get_integer(key, min, max);
    }

    [[nodiscard]] std::optional<double> get_double(const std::string& key, double min, double max) const {
        return get_real(key, min, max);
    }

    /// A rate or speed where 0 means unknown: 0, or a number in [min, max] (a positive value below
    /// min, such as 1e-308, would make every time computed from it infinite).
    [[nodiscard]] std::optional<double> get_rate(const std::string& key, double min, double max) const;

    [[nodiscard]] std::optional<bool> get_bool(const std::string& key) const;
    [[nodiscard]] std::optional<std::string> get_string(const std::string& key) const;

    /// A nested object (Error if present but not an object).
    [[nodiscard]] std::optional<JsonReader> get_object(const std::string& key) const;

    /// An array (Error if present but not an array); its elements via element().
    [[nodiscard]] const nlohmann::json* get_array(const std::string& key) const;

    /// Element i of array `key` as an object reader (Error if it is not an object).
    [[nodiscard]] JsonReader element(const std::string& key, std::size_t i) const;

    /// An array of strings; non_empty: at least one.
    [[nodiscard]] std::optional<std::vector<std::string>> get_strings(const std::string& key, bool non_empty = false) const;

    /// A string that `parse` maps to a value; `choices` lists the valid spellings for the hint.
    template <class E, class Parse>
    [[nodiscard]] std::optional<E> get_enum(const std::string& key, Parse parse, const std::string& choices) const {
        const auto s = get_string(key);
        if (!s) {
            return std::nullopt;
        }
        const std::optional<E> v = parse(*s);
        if (!v) {
            throw_unknown_value(key, *s, choices);
        }
        return v;
    }

private:
    [[nodiscard]] std::optional<std::int64_t> get_integer(const std::string& key, std::int64_t min, std::int64_t max) const;
    [[nodiscard]] std::optional<double> get_real(const std::string& key, double min, double max) const;
    [[noreturn]] void throw_unknown_value(const std::string& key, const std::string& value, const std::string& choices) const;

    const nlohmann::json& j_;
    std::string file_;
    std::string pointer_;
};

/// A number as a message prints it: integers as integers ("1073741824"), others compactly
/// ("0.5", "1e-06").
[[nodiscard]] std::string number_text(double v);

}  // namespace planlayout
