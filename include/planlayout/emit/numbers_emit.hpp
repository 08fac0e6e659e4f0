// Emit: the registry of the performance model's numbers (`plan-layout numbers`, the generated
// table of docs/cost-model.md, the assumed line of a report) as text, JSON and Markdown.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/model/number.hpp"

namespace planlayout {

/// How many of `numbers` each class holds.
struct NumberCounts {
    int measured = 0;
    int spec = 0;
    int derived = 0;
    int assumed = 0;
};
[[nodiscard]] NumberCounts count_by_class(const std::vector<const Number*>& numbers);

/// "0.4 fraction of the interface's line rate (0.2..0.6)": the value, its unit, and the range
/// when it is one (low < high).
[[nodiscard]] std::string number_value_text(const Number& n);

/// "10 numbers: 1 measured, 2 spec, 3 derived, 4 assumed".
[[nodiscard]] std::string counts_text(const NumberCounts& c);

/// One block per number: "id  [class]", then its value (with unit and range), source and use,
/// wrapped before 100 columns; the counts first.
[[nodiscard]] std::string numbers_text(const std::vector<const Number*>& numbers);

/// {"schema_version":1,"counts":{"measured","spec","derived","assumed"},
///  "numbers":[{"id","value","unit","class","source","used_in","low","high"}, ...]}.
[[nodiscard]] nlohmann::json numbers_json(const std::vector<const Number*>& numbers);

/// {"counts":{...},"assumed":[{"id","value","unit","low","high"}, ...]}: the whole registry's counts
/// and its assumed entries, as a report's JSON carries them (`plan-layout numbers` lists every field).
[[nodiscard]] nlohmann::json model_numbers_json();

/// A Markdown table per class (measured, spec, derived, assumed): id, value, range, source, use.
[[nodiscard]] std::string numbers_markdown(const std::vector<const Number*>& numbers);

}  // namespace planlayout
