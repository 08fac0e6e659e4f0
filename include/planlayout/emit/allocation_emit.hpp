// Emit: the allocation section of analyze (text and JSON): which groups straddle leaf groups,
// spine pods or NVLink domains, and the step against a compact allocation of the same size.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "planlayout/report.hpp"

namespace planlayout {

/// The text block (empty when the report has no allocation).
[[nodiscard]] std::string allocation_text(const Report& report);

/// The JSON object (schema/analyze.schema.json, "allocation").
[[nodiscard]] nlohmann::json allocation_json(const Report& report);

}  // namespace planlayout
