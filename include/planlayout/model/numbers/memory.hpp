// The registry's memory numbers (memory per GPU) by name, numbers::kName, from numbers/memory.def. Include
// only the families a source reads, so a change to one .def rebuilds only its readers;
// planlayout/model/numbers.hpp includes them all.
#pragma once

#include "planlayout/model/number.hpp"

namespace planlayout::numbers {
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): the .def file's lines as named constants
#define PLANLAYOUT_NUMBER PLANLAYOUT_NUMBER_CONSTANT
#include "planlayout/model/numbers/memory.def"
#undef PLANLAYOUT_NUMBER
}  // namespace planlayout::numbers
