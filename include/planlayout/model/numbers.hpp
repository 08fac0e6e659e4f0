// The performance model's numbers by name: numbers::kTcpEfficiency and the rest, each defined once
// in a .def file of planlayout/model/numbers/ as
//
//     PLANLAYOUT_NUMBER(kName, "dotted.id", value, "unit", Class, "source", "used in", low, high)
//
// (planlayout/model/number.hpp says what each field means; `plan-layout numbers` lists them).
#pragma once

#include "planlayout/model/number.hpp"

namespace planlayout::numbers {

// NOLINTBEGIN(cppcoreguidelines-macro-usage): one definition per number, read here and by the registry's list
#define PLANLAYOUT_NUMBER(name, id, value, unit, cls, source, used_in, low, high) \
    inline constexpr Number name{id, value, unit, NumberClass::cls, source, used_in, low, high};
#include "planlayout/model/numbers/network.def"
#include "planlayout/model/numbers/compute.def"
#include "planlayout/model/numbers/memory.def"
#include "planlayout/model/numbers/hardware.def"
#include "planlayout/model/numbers/gpu.def"
#include "planlayout/model/numbers/training.def"
#undef PLANLAYOUT_NUMBER
// NOLINTEND(cppcoreguidelines-macro-usage)

}  // namespace planlayout::numbers
