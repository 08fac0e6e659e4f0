// Emit: an A/B report (plan-layout ab) as text and JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "planlayout/verify/ab.hpp"

namespace planlayout::verify {

/// "predicted -30.00% (band -35.00% .. -25.00%, source)", or "" when none is attached.
[[nodiscard]] std::string prediction_text(const AbComparison& comparison);

[[nodiscard]] std::string render_text(const AbReport& report);

[[nodiscard]] nlohmann::json to_json(const AbReport& report);

}  // namespace planlayout::verify
