// Analysis: a measured collective sweep (what nccl-tests prints, read by ingest/nccl_tests.hpp),
// the input of the calibration fits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/model/collective_op.hpp"

namespace planlayout {

/// One data row. Bandwidths are recomputed from size and time (GB = 10^9 bytes); the printed
/// ones are kept beside them for comparison.
struct NcclTestsRow {
    std::size_t line = 0;      // 1-based line in the input
    double size_bytes = 0;     // the "size" column (nccl-tests' S)
    std::int64_t count = 0;
    std::string type;          // float, bfloat16, ...
    std::string redop;         // empty for non-reducing collectives
    int root = -1;             // -1: not applicable or not printed
    double time_us = 0;        // out-of-place average time
    double algbw_gbyte_s = 0;  // size / time
    double busbw_gbyte_s = 0;  // algbw × bus_factor(op, ranks)
    double printed_algbw_gbyte_s = 0;
    double printed_busbw_gbyte_s = 0;
    std::optional<double> in_place_time_us;
};

struct NcclTestsRun {
    CollectiveOp op = CollectiveOp::AllReduce;
    std::string op_source;  // how op was decided: "option", "header", "command line", "size/count"
    int ranks = 0;          // n; 0 = unknown
    std::string ranks_source;
    std::string version;    // "2.18.3" when printed
    std::vector<NcclTestsRow> rows;
    std::vector<std::string> warnings;
};

}  // namespace planlayout
