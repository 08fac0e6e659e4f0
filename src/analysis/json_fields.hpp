// Analysis inputs: a strict reader for one JSON object section, with JSON-pointer errors.
#pragma once

#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace planlayout::detail {

/// Reads typed fields of one object; every error names "where (pointer/key)". finish() refuses
/// keys nobody asked for (typos), except those starting with '_' (comments).
class JsonFields {
public:
    JsonFields(const nlohmann::json& j, std::string where, std::string pointer);

    [[nodiscard]] std::string at(const std::string& key) const;  // "where (pointer/key)"

    [[nodiscard]] bool has(const std::string& key);

    [[nodiscard]] std::optional<double> number(const std::string& key, double min, double max);

    [[nodiscard]] std::optional<int> integer(const std::string& key, int min, int max);

    [[nodiscard]] std::optional<bool> boolean(const std::string& key);

    [[nodiscard]] std::optional<std::string> string(const std::string& key);

    /// A nested object, or nullopt; the sub-reader's pointer is pointer/key.
    [[nodiscard]] std::optional<JsonFields> object(const std::string& key);

    [[nodiscard]] const nlohmann::json* raw(const std::string& key);

    void finish() const;

private:
    const nlohmann::json& j_;
    std::string where_;
    std::string pointer_;
    std::set<std::string> seen_;
};

}  // namespace planlayout::detail
