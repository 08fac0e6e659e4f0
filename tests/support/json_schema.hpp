// Test support: a validator for the subset of JSON Schema (draft 2020-12) that schema/ uses:
// type, properties, required, items, enum, const, additionalProperties, minimum, maximum, anyOf and
// $ref to "#/$defs/NAME". Anything else in a schema is an error, so a schema cannot silently
// rely on a keyword this validator ignores.
#pragma once

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace planlayout::testing {

class SchemaValidator {
public:
    explicit SchemaValidator(nlohmann::json schema) : root_(std::move(schema)) {}

    /// Every violation as "<json pointer>: <what>"; empty when the instance is valid.
    [[nodiscard]] std::vector<std::string> validate(const nlohmann::json& instance) const {
        std::vector<std::string> errors;
        check(root_, instance, "", errors, 0);
        return errors;
    }

private:
    nlohmann::json root_;

    static bool has_type(const nlohmann::json& v, const std::string& type) {
        if (type == "object") return v.is_object();
        if (type == "array") return v.is_array();
        if (type == "string") return v.is_string();
        if (type == "integer") return v.is_number_integer() || (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
        if (type == "number") return v.is_number();
        if (type == "boolean") return v.is_boolean();
        if (type == "null") return v.is_null();
        return false;
    }

    void check(const nlohmann::json& s, const nlohmann::json& v, const std::string& at, std::vector<std::string>& errors,
               int depth) const {
        static const std::set<std::string> known = {"$schema", "$id", "$defs", "$ref", "title", "description", "type",
                                                    "properties", "required", "items", "enum", "const",
                                                    "additionalProperties", "minimum", "maximum", "anyOf", "$comment"};
        if (depth > 64) {
            errors.push_back(at + ": schema recursion too deep");
            return;
        }
        if (s.is_boolean()) {
            if (!s.get<bool>()) {
                errors.push_back(at + ": not allowed here");
            }
            return;
        }
        for (const auto& [k, unused] : s.items()) {
            if (known.count(k) == 0) {
                errors.push_back(at + ": the schema uses '" + k + "', which the test validator does not support");
            }
        }
        if (s.contains("$ref")) {
            const std::string ref = s["$ref"].get<std::string>();
            const std::string prefix = "#/$defs/";
            if (ref.rfind(prefix, 0) != 0 || !root_.contains("$defs") || !root_["$defs"].contains(ref.substr(prefix.size()))) {
                errors.push_back(at + ": unresolved $ref " + ref);
                return;
            }
            check(root_["$defs"][ref.substr(prefix.size())], v, at, errors, depth + 1);
        }
        if (s.contains("type")) {
            bool ok = false;
            if (s["type"].is_array()) {
                for (const auto& t : s["type"]) {
                    ok = ok || has_type(v, t.get<std::string>());
                }
            } else {
                ok = has_type(v, s["type"].get<std::string>());
            }
            if (!ok) {
                errors.push_back(at + ": expected type " + s["type"].dump() + ", got " + v.type_name());
                return;
            }
        }
        if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end()) {
            errors.push_back(at + ": " + v.dump() + " is not one of " + s["enum"].dump());
        }
        if (s.contains("const") && s["const"] != v) {
            errors.push_back(at + ": expected " + s["const"].dump());
        }
        if (s.contains("minimum") && v.is_number() && v.get<double>() < s["minimum"].get<double>()) {
            errors.push_back(at + ": " + v.dump() + " is below the minimum " + s["minimum"].dump());
        }
        if (s.contains("maximum") && v.is_number() && v.get<double>() > s["maximum"].get<double>()) {
            errors.push_back(at + ": " + v.dump() + " is above the maximum " + s["maximum"].dump());
        }
        if (s.contains("anyOf")) {
            bool any = false;
            for (const auto& option : s["anyOf"]) {
                std::vector<std::string> sub;
                check(option, v, at, sub, depth + 1);
                any = any || sub.empty();
            }
            if (!any) {
                errors.push_back(at + ": matches none of anyOf");
            }
        }
        if (v.is_object()) {
            if (s.contains("required")) {
                for (const auto& r : s["required"]) {
                    if (!v.contains(r.get<std::string>())) {
                        errors.push_back(at + ": missing required '" + r.get<std::string>() + "'");
                    }
                }
            }
            for (const auto& [k, value] : v.items()) {
                const std::string child = at + "/" + k;
                if (s.contains("properties") && s["properties"].contains(k)) {
                    check(s["properties"][k], value, child, errors, depth + 1);
                } else if (s.contains("additionalProperties")) {
                    check(s["additionalProperties"], value, child, errors, depth + 1);
                }
            }
        }
        if (v.is_array() && s.contains("items")) {
            for (std::size_t i = 0; i < v.size(); ++i) {
                check(s["items"], v[i], at + "/" + std::to_string(i), errors, depth + 1);
            }
        }
    }
};

}  // namespace planlayout::testing
