// Ingest: typed JSON field access with JSON-pointer errors.
#include "planlayout/ingest/json_fields.hpp"

#include <cmath>
#include <sstream>

#include "planlayout/error.hpp"

namespace planlayout {

JsonObject::JsonObject(const nlohmann::json& j, std::string file, std::string pointer)
    : j_(j), file_(std::move(file)), pointer_(std::move(pointer)) {
    if (!j_.is_object()) {
        throw input_error(where(), std::string("expected an object, got ") + j_.type_name(),
                          "write a JSON object {...} here");
    }
}

std::string JsonObject::where(const std::string& key) const {
    std::string p = pointer_;
    if (!key.empty()) {
        p += "/" + key;
    }
    return file_ + " (" + (p.empty() ? "/" : p) + ")";
}

void JsonObject::check_keys(const std::set<std::string>& known) const {
    for (const auto& [key, value] : j_.items()) {
        if (known.count(key) == 0) {
            std::string list;
            for (const auto& k : known) {
                list += (list.empty() ? "" : ", ") + k;
            }
            throw input_error(where(key), "unknown key \"" + key + "\"", "known keys here: " + list);
        }
    }
}

std::optional<std::int64_t> JsonObject::get_int(const std::string& key, std::int64_t min, std::int64_t max) const {
    if (!j_.contains(key) || j_.at(key).is_null()) {
        return std::nullopt;
    }
    const auto& v = j_.at(key);
    if (!v.is_number_integer()) {
        throw input_error(where(key), key + " must be a whole number, got " + std::string(v.type_name()),
                          "write e.g. \"" + key + "\": " + std::to_string(std::max<std::int64_t>(min, 1)));
    }
    const auto x = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)
                       ? INT64_MAX
                       : v.get<std::int64_t>();
    if (x < min || x > max) {
        throw input_error(where(key), key + " = " + std::to_string(x) + " is out of range",
                          "give a value from " + std::to_string(min) + " to " + std::to_string(max));
    }
    return x;
}

std::optional<double> JsonObject::get_double(const std::string& key, double min, double max) const {
    if (!j_.contains(key) || j_.at(key).is_null()) {
        return std::nullopt;
    }
    const auto& v = j_.at(key);
    if (!v.is_number()) {
        throw input_error(where(key), key + " must be a number, got " + std::string(v.type_name()),
                          "write e.g. \"" + key + "\": 1.0");
    }
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < min || x > max) {
        std::ostringstream range;
        range << min << " to " << max;
        throw input_error(where(key), key + " = " + v.dump() + " is out of range", "give a value from " + range.str());
    }
    return x;
}

std::optional<bool> JsonObject::get_bool(const std::string& key) const {
    if (!j_.contains(key) || j_.at(key).is_null()) {
        return std::nullopt;
    }
    const auto& v = j_.at(key);
    if (!v.is_boolean()) {
        throw input_error(where(key), key + " must be true or false, got " + std::string(v.type_name()),
                          "write \"" + key + "\": true or false");
    }
    return v.get<bool>();
}

std::optional<std::string> JsonObject::get_string(const std::string& key) const {
    if (!j_.contains(key) || j_.at(key).is_null()) {
        return std::nullopt;
    }
    const auto& v = j_.at(key);
    if (!v.is_string()) {
        throw input_error(where(key), key + " must be a string, got " + std::string(v.type_name()),
                          "write \"" + key + "\": \"...\"");
    }
    return v.get<std::string>();
}

std::optional<JsonObject> JsonObject::get_object(const std::string& key) const {
    if (!j_.contains(key) || j_.at(key).is_null()) {
        return std::nullopt;
    }
    return JsonObject(j_.at(key), file_, pointer_ + "/" + key);
}

}  // namespace planlayout
