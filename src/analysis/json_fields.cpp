// Analysis inputs: strict JSON section reading.
#include "json_fields.hpp"

#include <cmath>
#include <sstream>

#include "planlayout/error.hpp"

namespace planlayout::detail {
namespace {

std::string range_text(double min, double max) {
    std::ostringstream s;
    s << "[" << min << ", " << max << "]";
    return s.str();
}

}  // namespace

JsonFields::JsonFields(const nlohmann::json& j, std::string where, std::string pointer)
    : j_(j), where_(std::move(where)), pointer_(std::move(pointer)) {
    if (!j_.is_object()) {
        throw input_error(where_ + " (" + pointer_ + ")", "expected an object, found " +
                              std::string(j_.type_name()),
                          "write it as { \"key\": value, ... }");
    }
}

std::string JsonFields::at(const std::string& key) const {
    return where_ + " (" + pointer_ + "/" + key + ")";
}

bool JsonFields::has(const std::string& key) {
    seen_.insert(key);
    return j_.contains(key) && !j_.at(key).is_null();
}

const nlohmann::json* JsonFields::raw(const std::string& key) {
    if (!has(key)) {
        return nullptr;
    }
    return &j_.at(key);
}

std::optional<double> JsonFields::number(const std::string& key, double min, double max) {
    const auto* v = raw(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (!v->is_number()) {
        throw input_error(at(key), "expected a number, found " + std::string(v->type_name()),
                          "give a number in " + range_text(min, max));
    }
    const double x = v->get<double>();
    if (!std::isfinite(x) || x < min || x > max) {
        std::ostringstream s;
        s << x;
        throw input_error(at(key), "value " + s.str() + " is out of range " + range_text(min, max),
                          "give a number in that range");
    }
    return x;
}

std::optional<int> JsonFields::integer(const std::string& key, int min, int max) {
    const auto* v = raw(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (!v->is_number_integer()) {
        throw input_error(at(key), "expected an integer, found " + v->dump(),
                          "give a whole number in " + range_text(min, max));
    }
    const auto x = v->get<long long>();
    if (x < min || x > max) {
        throw input_error(at(key),
                          "value " + std::to_string(x) + " is out of range " + range_text(min, max),
                          "give a whole number in that range");
    }
    return static_cast<int>(x);
}

std::optional<bool> JsonFields::boolean(const std::string& key) {
    const auto* v = raw(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (!v->is_boolean()) {
        throw input_error(at(key), "expected true or false, found " + v->dump(),
                          "write true or false");
    }
    return v->get<bool>();
}

std::optional<std::string> JsonFields::string(const std::string& key) {
    const auto* v = raw(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (!v->is_string()) {
        throw input_error(at(key), "expected a string, found " + v->dump(), "quote the value");
    }
    return v->get<std::string>();
}

std::optional<JsonFields> JsonFields::object(const std::string& key) {
    const auto* v = raw(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    return JsonFields(*v, where_, pointer_ + "/" + key);
}

void JsonFields::finish() const {
    std::string known;
    for (const auto& k : seen_) {
        known += (known.empty() ? "" : ", ") + k;
    }
    for (const auto& item : j_.items()) {
        if (!item.key().empty() && item.key()[0] == '_') {
            continue;
        }
        if (seen_.count(item.key()) == 0) {
            throw input_error(at(item.key()), "unknown key '" + item.key() + "'",
                              "known keys here: " + known);
        }
    }
}

}  // namespace planlayout::detail
