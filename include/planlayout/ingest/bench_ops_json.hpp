// Ingest: a compute micro-benchmark run (tests/gpu/harness.py ops writes it: {"device": ...,
// "ops": [{"kind", "name", "shape", "dtype", "flops", "bytes", "us", ...}]}) → BenchOps.
#pragma once

#include <string>
#include <vector>

#include "planlayout/analysis/op_check.hpp"

namespace planlayout {

struct BenchRun {
    std::string device;  // "NVIDIA H200" (the run's own name for its GPU), "" when not given
    std::vector<BenchOp> ops;
};

/// Reads one run from its JSON text. Shapes by kind: GEMMs "M512 N3072 K1024", expert GEMMs
/// "E8 x (M16 N2048 K1024)", attention "B32 H8 S512 D128" (attn-fwd, attn-bwd), square
/// references "4096x4096x4096"; bandwidth-bound ops (kind bw, and the copy reference) use the
/// run's "bytes". Ops without a time (failed in the run) are left out. Throws Error (BadInput)
/// naming file and JSON pointer.
[[nodiscard]] BenchRun bench_run_from_json(const std::string& text, const std::string& file);

}  // namespace planlayout
