// The registry of the performance model's numbers: every number that sets a predicted time or
// memory, with its unit, its class and its source (docs/cost-model.md, "The registry").
//
// The numbers themselves are defined once, in the .def files of planlayout/model/numbers/, and read
// by name through planlayout/model/numbers.hpp. `make lint` (tests/lint/model_numbers.py) fails on a
// numeric literal in a model source outside them, and on an entry without a class or a source.
#pragma once

#include <string_view>
#include <vector>

namespace planlayout {

/// Where a number comes from.
///   Measured  a kernel or collective measurement made here: the script, the device, the data file
///   Spec      a vendor's document (a datasheet, a standard)
///   Derived   a framework's or library's code at a commit, or arithmetic over other entries
///   Assumed   none of those: why this value, and the range it plausibly lies in; shown as
///             assumed in every output that uses it
enum class NumberClass { Measured, Spec, Derived, Assumed };

[[nodiscard]] std::string_view to_string(NumberClass c);

/// One number of the model. `low`..`high` is the plausible range (required for Assumed; for the
/// other classes the spread of the measurement or both equal to `value`).
struct Number {
    std::string_view id;       // dotted, "network.tcp.efficiency": what docs and JSON call it
    double value;
    std::string_view unit;     // "fraction of line rate", "us", "bytes per parameter"
    NumberClass cls;
    std::string_view source;   // Measured: script, device, data file; Spec: the document; Derived:
                               // file at commit or the formula; Assumed: why this value
    std::string_view used_in;  // what it prices (the model's function or the layout key it defaults)
    double low;
    double high;

    /// The value where the code reads it: `numbers::kTcpEfficiency * line_rate`.
    constexpr operator double() const { return value; }  // NOLINT(google-explicit-constructor): a number reads as its value
    /// An integer entry (a count) as an int.
    [[nodiscard]] constexpr int count() const { return static_cast<int>(value); }
};

/// Every entry of the registry, ordered by id.
[[nodiscard]] std::vector<const Number*> all_numbers();

/// The entry with this id, or nullptr.
[[nodiscard]] const Number* find_number(std::string_view id);

}  // namespace planlayout

// How a family header (planlayout/model/numbers/<family>.hpp) turns each PLANLAYOUT_NUMBER line of
// its .def file into a named constant, numbers::kName.
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): one definition per number, read by name and by the registry's list
#define PLANLAYOUT_NUMBER_CONSTANT(name, id, value, unit, cls, source, used_in, low, high) \
    inline constexpr ::planlayout::Number name{id, value, unit, ::planlayout::NumberClass::cls, source, used_in, low, high};
