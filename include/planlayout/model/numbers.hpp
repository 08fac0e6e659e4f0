// The performance model's numbers by name: numbers::kTcpEfficiency and the rest, each defined once
// in a .def file of planlayout/model/numbers/ as
//
//     PLANLAYOUT_NUMBER(kName, "dotted.id", value, "unit", Class, "source", "used in", low, high)
//
// (planlayout/model/number.hpp says what each field means; `plan-layout numbers` lists them). A
// source that reads one family includes its header, planlayout/model/numbers/<family>.hpp.
#pragma once

#include "planlayout/model/numbers/network.hpp"
#include "planlayout/model/numbers/compute.hpp"
#include "planlayout/model/numbers/memory.hpp"
#include "planlayout/model/numbers/hardware.hpp"
#include "planlayout/model/numbers/gpu.hpp"
#include "planlayout/model/numbers/training.hpp"
