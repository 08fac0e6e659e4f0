// The registry's list: every PLANLAYOUT_NUMBER of planlayout/model/numbers/*.def, checked at
// compile time for what tests/lint/model_numbers.py checks in the text (a class, a source, a
// unit, an id; an assumed value inside its range).
#include "planlayout/model/numbers.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

namespace planlayout {
namespace {

// NOLINTBEGIN(cppcoreguidelines-macro-usage): the .def files listed once more, as addresses
#define PLANLAYOUT_NUMBER(name, id, value, unit, cls, source, used_in, low, high) &numbers::name,
constexpr std::array kAll = {
#include "planlayout/model/numbers/network.def"
#include "planlayout/model/numbers/compute.def"
#include "planlayout/model/numbers/memory.def"
#include "planlayout/model/numbers/hardware.def"
#include "planlayout/model/numbers/gpu.def"
#include "planlayout/model/numbers/training.def"
};
#undef PLANLAYOUT_NUMBER
// NOLINTEND(cppcoreguidelines-macro-usage)

constexpr bool well_formed(const Number& n) {
    const bool text = !n.id.empty() && !n.unit.empty() && !n.source.empty() && !n.used_in.empty();
    const bool range = n.low <= n.value && n.value <= n.high;
    const bool assumed_range = n.cls != NumberClass::Assumed || n.low < n.high;
    return text && range && assumed_range;
}

constexpr bool all_well_formed() {
    for (const Number* n : kAll) {
        if (!well_formed(*n)) {
            return false;
        }
    }
    return true;
}

constexpr bool ids_unique() {
    for (std::size_t i = 0; i < kAll.size(); ++i) {
        for (std::size_t j = i + 1; j < kAll.size(); ++j) {
            if (kAll[i]->id == kAll[j]->id) {
                return false;
            }
        }
    }
    return true;
}

static_assert(all_well_formed(), "a registry entry lacks an id, unit, source or use, or its value lies outside its range");
static_assert(ids_unique(), "two registry entries share an id");

}  // namespace

std::string_view to_string(NumberClass c) {
    switch (c) {
        case NumberClass::Measured:
            return "measured";
        case NumberClass::Spec:
            return "spec";
        case NumberClass::Derived:
            return "derived";
        case NumberClass::Assumed:
            return "assumed";
    }
    return "assumed";
}

std::vector<const Number*> all_numbers() {
    std::vector<const Number*> out(kAll.begin(), kAll.end());
    std::sort(out.begin(), out.end(), [](const Number* a, const Number* b) { return a->id < b->id; });
    return out;
}

const Number* find_number(std::string_view id) {
    const auto* const it = std::find_if(kAll.begin(), kAll.end(), [&](const Number* n) { return n->id == id; });
    return it == kAll.end() ? nullptr : *it;
}

}  // namespace planlayout
