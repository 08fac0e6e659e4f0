// Test support: the tolerance file of the validation checks (tests/tolerances.json; docs/testing.md,
// "Validation held out"), read at test time from the source tree. A test that compares a prediction
// with end-to-end data takes its tolerance, or its baseline's bound, from here, never a literal.
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace planlayout::testing {

inline std::string tolerance_file_path() { return std::string(PLANLAYOUT_SOURCE_DIR) + "/tests/tolerances.json"; }

inline const nlohmann::json& tolerance_file() {
    static const nlohmann::json doc = [] {
        std::ifstream in(tolerance_file_path());
        if (!in) {
            throw std::runtime_error("cannot read " + tolerance_file_path());
        }
        return nlohmann::json::parse(in);
    }();
    return doc;
}

/// The tolerance called name (its "tolerance" value: a number or an object).
inline const nlohmann::json& tolerance_value(const std::string& name) {
    const auto& t = tolerance_file().at("tolerances");
    if (!t.contains(name)) {
        throw std::runtime_error(tolerance_file_path() + ": no tolerance '" + name + "'");
    }
    return t.at(name).at("tolerance");
}

inline double tolerance(const std::string& name) { return tolerance_value(name).get<double>(); }

/// The most a metric of a baseline may reach (worse "higher"): its recorded value plus its slack.
inline double baseline_bound(const std::string& set, const std::string& metric, const std::string& half = "all") {
    const auto& b = tolerance_file().at("baselines");
    if (!b.contains(set) || !b.at(set).at("metrics").contains(metric)) {
        throw std::runtime_error(tolerance_file_path() + ": no baseline '" + set + "' / '" + metric + "'");
    }
    const auto& m = b.at(set).at("metrics").at(metric);
    if (m.at("worse") != "higher" || m.at(half).is_null()) {
        throw std::runtime_error(tolerance_file_path() + ": baseline '" + set + "' / '" + metric +
                                 "' has no upper bound for '" + half + "'");
    }
    return m.at(half).get<double>() + m.at("slack").get<double>();
}

}  // namespace planlayout::testing
