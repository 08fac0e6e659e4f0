// The registry's compute numbers (compute and kernel pricing) by name, numbers::kName, from numbers/compute.def. Include
// only the families a source reads, so a change to one .def rebuilds only its readers;
// planlayout/model/numbers.hpp includes them all.
#pragma once

#include "planlayout/model/number.hpp"

namespace planlayout::numbers {
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): the .def file's lines as named constants
#define PLANLAYOUT_NUMBER PLANLAYOUT_NUMBER_CONSTANT
#include "planlayout/model/numbers/compute.def"
#undef PLANLAYOUT_NUMBER
}  // namespace planlayout::numbers
