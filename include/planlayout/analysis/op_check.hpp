// Analysis: the compute model checked op by op against measured kernels (`calibrate --ops`): each
// benchmarked op's predicted time (compute_model's op_seconds) beside its measured median, the
// ratio per op, and per benchmark kind the median, spread and worst ratio. Pure: no I/O.
#pragma once

#include <string>
#include <vector>

#include "planlayout/model/compute_model.hpp"
#include "planlayout/topology/gpu_spec.hpp"

namespace planlayout {

/// One measured op of a micro-benchmark run (tests/gpu/harness.py ops writes them).
struct BenchOp {
    std::string kind;   // the run's kind: gemm, gemm-fp8, moe-bmm, attn-fwd, bw, reference ...
    std::string name;   // "h1024-tp8-proj-fwd"
    std::string shape;  // "M512 N1024 K128"
    ModelOp op;         // the shape as the model reads it
    double flops = 0;   // as the run counted them
    double bytes = 0;
    double seconds = 0;  // measured (the median over the runs given)
    double spread = 0;   // (max − min) / median over the runs; 0 for one run
    int runs = 1;
};

/// Several runs of one benchmark → one op list: each op (kind, name, shape) of the first run
/// with the median of its times over the runs that have it.
[[nodiscard]] std::vector<BenchOp> merge_bench_runs(const std::vector<std::vector<BenchOp>>& runs);

struct OpCheckRow {
    BenchOp op;
    double predicted_s = 0;
    double ratio = 0;  // predicted / measured: < 1 the model is too fast
};

struct OpKindSummary {
    std::string kind;
    int count = 0;
    double median_ratio = 0;
    double p10_ratio = 0;
    double p90_ratio = 0;
    double min_ratio = 0;
    double max_ratio = 0;
    double median_abs_error = 0;  // median |ratio − 1|
    std::string worst;            // the op furthest from 1 (name and shape)
    double worst_ratio = 0;
};

struct OpCheck {
    std::string gpu;             // the spec's name
    std::string gpu_source;      // where the spec came from
    double compute_scale = 1;
    std::vector<OpCheckRow> rows;           // in the run's order
    std::vector<OpKindSummary> kinds;       // in order of first appearance
    std::vector<OpCheckRow> largest_errors; // the rows furthest from 1 in log ratio, worst first
    double median_abs_error = 0;            // over every row
};

/// Every op against the model on `gpu`; `largest` rows kept as the largest errors.
[[nodiscard]] OpCheck check_ops(const std::vector<BenchOp>& ops, const GpuSpec& gpu, double compute_scale,
                                int largest);

}  // namespace planlayout
