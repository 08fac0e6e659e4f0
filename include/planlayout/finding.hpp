// Findings: what lint and verify report — one type, one severity scale, one JSON form.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace planlayout {

enum class Severity { Error, Warning, Info };  // ordered most to least severe

/// "error", "warning", "info".
[[nodiscard]] std::string_view to_string(Severity s);

/// One problem or fact. code is stable, kebab-case (scripts match on it: "gpu-nic-cross-numa",
/// "wrong-nic"); message names the devices; fix says what to do. rank/channel locate a verify
/// finding in an NCCL log (-1: about the whole input).
struct Finding {
    Severity severity = Severity::Warning;
    std::string code;
    std::string message;
    std::string fix;
    int rank = -1;
    int channel = -1;
};

/// {"severity","code","message","fix"} plus "rank"/"channel" when they are set.
[[nodiscard]] nlohmann::json to_json(const Finding& f);

}  // namespace planlayout
