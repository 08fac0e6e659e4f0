// Ingest: nccl-tests output (all_reduce_perf, alltoall_perf, ...), every layout docs/commands/calibrate.md lists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/analysis/collective_measurement.hpp"
#include "planlayout/model/collective_op.hpp"

namespace planlayout {

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
