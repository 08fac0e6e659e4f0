// Ingest: typed access to JSON fields with errors that name the file, the JSON pointer and the fix.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace planlayout {

/// A JSON object being read: the file and the pointer of the object, for messages.
class JsonObject {
public:
    JsonObject(const nlohmann::json& j, std::string file, std::string pointer);

    /// "file (/pointer/key)".
    [[nodiscard]] std::string where(const std::string& key = {}) const;

    [[nodiscard]] const std::string& pointer() const { return pointer_; }

    [[nodiscard]] const std::string& file() const { return file_; }

    [[nodiscard]] bool has(const std::string& key) const { return j_.contains(key); }

    [[nodiscard]] const nlohmann::json& at(const std::string& key) const { return j_.at(key); }

    /// Throws when a key is not in `known`, listing the known keys.
    void check_keys(const std::set<std::string>& known) const;

    [[nodiscard]] std::optional<std::int64_t> get_int(const std::string& key, std::int64_t min, std::int64_t max) const;
    [[nodiscard]] std::optional<double> get_double(const std::string& key, double min, double max) const;
    [[nodiscard]] std::optional<bool> get_bool(const std::string& key) const;
    [[nodiscard]] std::optional<std::string> get_string(const std::string& key) const;

    /// A nested object (throws if present but not an object).
    [[nodiscard]] std::optional<JsonObject> get_object(const std::string& key) const;

    [[nodiscard]] const nlohmann::json& json() const { return j_; }

private:
    const nlohmann::json& j_;
    std::string file_;
    std::string pointer_;
};

}  // namespace planlayout
