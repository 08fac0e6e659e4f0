// Analysis: every number the plan used, with where it came from — the "assumed" listing and the
// layout `--save-layout` writes (every value explicit).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/model/model_spec.hpp"

namespace planlayout {

/// One value the plan used. path: a JSON pointer into the layout ("/model/hidden"), or into
/// "/hardware/<template>/..." for what a node template gave. source: "<file>:<line>", a file,
/// "command line (--flag)", the layout's name, "derived" or "default".
struct Assumption {
    std::string path;
    nlohmann::json value;
    std::string source;
};

/// The source recorded for a pointer or its nearest ancestor; empty when none is recorded.
[[nodiscard]] std::string source_of(const std::map<std::string, std::string>& sources, std::string pointer);

/// Parallel pointers whose value, when the layout leaves it out, is computed from other values
/// ("derived") rather than a fixed default; the model's come from ModelSpec::fields().
[[nodiscard]] bool is_derived_value(const std::string& pointer);

/// Every value of `effective` (a layout with every value explicit) as an assumption: given in
/// `given` → its recorded source (or `layout_name` when none is recorded); else derived or
/// default. Scalar lists are one value; objects are walked.
[[nodiscard]] std::vector<Assumption> list_assumptions(const nlohmann::json& effective, const nlohmann::json& given,
                                                       const std::map<std::string, std::string>& sources,
                                                       const std::string& layout_name);

/// The transport section with every value explicit (priors as {value, low, high}).
[[nodiscard]] nlohmann::json to_json(const TransportSpec& t);

}  // namespace planlayout
