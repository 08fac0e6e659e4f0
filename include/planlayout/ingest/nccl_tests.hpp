// Ingest: nccl-tests output (all_reduce_perf, alltoall_perf, ...), every layout docs/commands/calibrate.md lists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/analysis/collective_op.hpp"

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

struct NcclTestsOptions {
    std::optional<CollectiveOp> op;  // overrides what the file says (must agree with size/count)
    int ranks = 0;                   // e.g. nodes × GPUs per node; 0 = from the file
};

/// Parses nccl-tests text. Foreign lines (MPI noise, NCCL INFO, prompts, prefixes such as
/// "[1,0]<stdout>:", header lines that lost their '#') are skipped; a line that starts like a
/// data row (size, count, type) but breaks the grammar is an Error naming "where:line".
/// Throws Error when no row is found, or when the collective or rank count cannot be told.
[[nodiscard]] NcclTestsRun parse_nccl_tests(const std::string& text, const std::string& where,
                                            const NcclTestsOptions& options = {});

/// Bytes per element of an nccl-tests type name (float → 4); 0 if unknown.
[[nodiscard]] int nccl_type_bytes(const std::string& type);

}  // namespace planlayout
