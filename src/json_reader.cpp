// The one JSON reader (typed, range-checked fields with JSON-pointer errors).
#include "planlayout/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "planlayout/error.hpp"

namespace planlayout {

bool is_comment_key(std::string_view key) { return key == "//" || (!key.empty() && key.front() == '_'); }

std::string number_text(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
        return std::to_string(static_cast<std::int64_t>(v));
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

namespace {

// The unit a key's name carries, for messages: "speed_gbit_s" → " Gbit/s", "alpha_us" → " us";
// empty when the name carries none.
std::string unit_of_key(const std::string& key) {
    struct Suffix {
        const char* suffix;
        const char* unit;
    };
    // Matched at the end of the name; the first match wins.
    static const Suffix kUnits[] = {{"gbyte_s_per_link", " GB/s per link"}, {"gbit_s", " Gbit/s"}, {"gbyte_s", " GB/s"},
                                    {"_tflops", " TFLOP/s"},                {"_us", " us"},         {"_ms", " ms"},
                                    {"_time_s", " s"},                      {"_bytes", " bytes"},   {"_gib", " GiB"},
                                    {"_mib", " MiB"}};
    for (const auto& u : kUnits) {
        const std::string s = u.suffix;
        if (key.size() >= s.size() && key.compare(key.size() - s.size(), s.size(), s) == 0) {
            return u.unit;
        }
    }
    return {};
}

// "tp = 18446744073709551615 is larger than 2147483648": the value as written, the bound with its unit.
Error out_of_range(const std::string& where, const std::string& key, const std::string& written, bool above,
                   const std::string& min, const std::string& max) {
    const std::string unit = unit_of_key(key);
    return input_error(where,
                       key + " = " + written + unit + " is " + (above ? "larger than " + max : "smaller than " + min) + unit,
                       above ? "give a value of at most " + max + unit : "give a value of at least " + min + unit);
}

}  // namespace

JsonReader::JsonReader(const nlohmann::json& j, std::string file, std::string pointer)
    : j_(j), file_(std::move(file)), pointer_(std::move(pointer)) {
    if (!j_.is_object()) {
        throw input_error(where(), std::string("expected an object, got ") + j_.type_name(),
                          "write a JSON object {...} here");
    }
}

std::string JsonReader::where(const std::string& key) const {
    std::string p = pointer_;
    if (!key.empty()) {
        p += "/" + key;
    }
    return file_ + " (" + (p.empty() ? "/" : p) + ")";
}

bool JsonReader::has(const std::string& key) const { return j_.contains(key) && !j_.at(key).is_null(); }

void JsonReader::check_keys(const std::vector<std::string>& known) const {
    for (const auto& [key, value] : j_.items()) {
        if (is_comment_key(key) || std::find(known.begin(), known.end(), key) != known.end()) {
            continue;
        }
        std::string list;
        for (const auto& k : known) {
            list += (list.empty() ? "" : ", ") + k;
        }
        const std::string near = nearest_match(key, known);
        throw input_error(where(key), "unknown key \"" + key + "\"",
                          (near.empty() ? std::string() : "did you mean \"" + near + "\"? ") + "known keys here: " + list +
                              " (keys starting with _ are comments)");
    }
}

std::optional<std::int64_t> JsonReader::get_integer(const std::string& key, std::int64_t min, std::int64_t max) const {
    if (!has(key)) {
        return std::nullopt;
    }
    const auto& v = j_.at(key);
    if (!v.is_number_integer()) {
        throw input_error(where(key), key + " must be a whole number, got " + (v.is_number() ? v.dump() : v.type_name()),
                          "write e.g. \"" + key + "\": " + std::to_string(std::max<std::int64_t>(min, 1)));
    }
    // Beyond int64 (an unsigned literal): out of range whatever the range is; shown as given.
    const bool huge = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX);
    const std::int64_t x = huge ? INT64_MAX : v.get<std::int64_t>();
    if (huge || x < min || x > max) {
        throw out_of_range(where(key), key, v.dump(), huge || x > max, std::to_string(min), std::to_string(max));
    }
    return x;
}

std::optional<double> JsonReader::get_real(const std::string& key, double min, double max) const {
    if (!has(key)) {
        return std::nullopt;
    }
    const auto& v = j_.at(key);
    if (!v.is_number()) {
        throw input_error(where(key), key + " must be a number, got " + std::string(v.type_name()),
                          "write e.g. \"" + key + "\": " + number_text(std::max(min, std::min(max, 1.0))));
    }
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < min || x > max) {
        throw out_of_range(where(key), key, v.dump(), !(x < min), number_text(min), number_text(max));
    }
    return x;
}

std::optional<double> JsonReader::get_rate(const std::string& key, double min, double max) const {
    const auto v = get_real(key, 0, max);
    if (v && *v != 0 && *v < min) {
        const std::string unit = unit_of_key(key);
        throw input_error(where(key), key + " = " + j_.at(key).dump() + unit + " is smaller than " + number_text(min) + unit,
                          "give a value from " + number_text(min) + " to " + number_text(max) + unit + ", or 0 when unknown");
    }
    return v;
}

std::optional<bool> JsonReader::get_bool(const std::string& key) const {
    if (!has(key)) {
        return std::nullopt;
    }
    const auto& v = j_.at(key);
    if (!v.is_boolean()) {
        throw input_error(where(key), key + " must be true or false, got " + std::string(v.type_name()),
                          "write \"" + key + "\": true or false");
    }
    return v.get<bool>();
}

std::optional<std::string> JsonReader::get_string(const std::string& key) const {
    if (!has(key)) {
        return std::nullopt;
    }
    const auto& v = j_.at(key);
    if (!v.is_string()) {
        throw input_error(where(key), key + " must be a string, got " + std::string(v.type_name()),
                          "write \"" + key + "\": \"...\"");
    }
    return v.get<std::string>();
}

std::optional<JsonReader> JsonReader::get_object(const std::string& key) const {
    if (!has(key)) {
        return std::nullopt;
    }
    return JsonReader(j_.at(key), file_, pointer_ + "/" + key);
}

const nlohmann::json* JsonReader::get_array(const std::string& key) const {
    if (!has(key)) {
        return nullptr;
    }
    const auto& v = j_.at(key);
    if (!v.is_array()) {
        throw input_error(where(key), key + " must be an array, got " + std::string(v.type_name()),
                          "write \"" + key + "\": [...]");
    }
    return &v;
}

JsonReader JsonReader::element(const std::string& key, std::size_t i) const {
    return {j_.at(key).at(i), file_, pointer_ + "/" + key + "/" + std::to_string(i)};
}

std::optional<std::vector<std::string>> JsonReader::get_strings(const std::string& key, bool non_empty) const {
    const nlohmann::json* a = get_array(key);
    if (a == nullptr) {
        return std::nullopt;
    }
    if (non_empty && a->empty()) {
        throw input_error(where(key), key + " is empty", "give at least one string");
    }
    std::vector<std::string> out;
    out.reserve(a->size());
    for (std::size_t i = 0; i < a->size(); ++i) {
        if (!(*a)[i].is_string()) {
            throw input_error(where(key + "/" + std::to_string(i)), "expected a string, got " + std::string((*a)[i].type_name()),
                              "write \"...\"");
        }
        out.push_back((*a)[i].get<std::string>());
    }
    return out;
}

void JsonReader::throw_unknown_value(const std::string& key, const std::string& value, const std::string& choices) const {
    throw input_error(where(key), "unknown " + key + " \"" + value + "\"", "use " + choices);
}

}  // namespace planlayout
