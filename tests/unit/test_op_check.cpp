// The compute model checked op by op (calibrate --ops): the micro-benchmark reader, the single-op
// timing the layer model shares, run merging and the per-kind summary.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "planlayout/analysis/op_check.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/bench_ops_json.hpp"
#include "planlayout/model/compute_model.hpp"

using namespace planlayout;

namespace {

GpuSpec h200() {
    GpuSpec g;
    g.name = "H200";
    g.bf16_tflops = 989;
    g.fp8_tflops = 1979;
    g.hbm_gbyte_s = 4800;
    g.source = "test";
    return g;
}

// Rows as tests/gpu/harness.py ops writes them (tests/gpu/data/h200-ops/ops-h200.json, trimmed).
const char* kRun = R"json({"device": "NVIDIA H200", "ops": [
 {"kind": "reference", "name": "square-4096", "shape": "4096x4096x4096", "dtype": "bf16", "flops": 137438953472.0, "bytes": 100663296.0, "us": 179.58},
 {"kind": "reference", "name": "copy", "shape": "1073741824", "dtype": "bf16", "flops": 0.0, "bytes": 4294967296.0, "us": 1011.2},
 {"kind": "gemm", "name": "h1024-tp8-proj-fwd", "shape": "M512 N1024 K128", "dtype": "bf16", "flops": 134217728.0, "bytes": 1.0, "us": 3.9},
 {"kind": "gemm-fp8", "name": "fp8-4096", "shape": "M4096 N4096 K4096", "dtype": "fp8e4m3", "flops": 137438953472.0, "bytes": 1.0, "us": 126.5},
 {"kind": "moe-bmm", "name": "h1024-f2048-e8-t256-up", "shape": "E8 x (M256 N2048 K1024)", "dtype": "bf16", "flops": 8589934592.0, "bytes": 1.0, "us": 15.5},
 {"kind": "attn-fwd", "name": "s512-h8-d128-b32", "shape": "B32 H8 S512 D128", "dtype": "bf16", "flops": 17179869184.0, "bytes": 1.0, "us": 125.3},
 {"kind": "attn-bwd", "name": "s512-h8-d128-b32", "shape": "B32 H8 S512 D128", "dtype": "bf16", "flops": 42949672960.0, "bytes": 1.0, "us": 476.1},
 {"kind": "bw", "name": "layernorm-t16384-h4096", "shape": "16384x4096", "dtype": "bf16", "flops": 1.0, "bytes": 268435456.0, "us": 107.3},
 {"kind": "gemm", "name": "failed-one", "shape": "M1 N1 K1", "dtype": "bf16", "flops": 2.0, "bytes": 1.0, "us": null}
]})json";

}  // namespace

TEST_CASE("bench ops: each kind's shape is read as the model times it - failed ops are left out") {
    const BenchRun run = bench_run_from_json(kRun, "ops.json");
    CHECK(run.device == "NVIDIA H200");
    REQUIRE(run.ops.size() == 8);
    CHECK(run.ops[0].op.kind == ModelOpKind::Gemm);
    CHECK(run.ops[0].op.m == 4096);
    CHECK(run.ops[1].op.kind == ModelOpKind::Memory);
    CHECK(run.ops[1].op.bytes == 4294967296.0);
    CHECK(run.ops[2].op.k == 128);
    CHECK(run.ops[3].op.fp8);
    CHECK(run.ops[4].op.count == 8);
    CHECK(run.ops[4].op.m == 256);
    CHECK(run.ops[5].op.kind == ModelOpKind::AttentionForward);
    CHECK(run.ops[6].op.kind == ModelOpKind::AttentionBackward);
    CHECK(run.ops[6].op.seq == 512);
    CHECK(run.ops[7].op.kind == ModelOpKind::Memory);
    CHECK(run.ops[2].seconds == doctest::Approx(3.9e-6));
}

TEST_CASE("bench ops: a shape the model cannot time, or no op at all, is refused with its place") {
    const std::string bad = R"({"ops": [{"kind": "attn-fwd", "name": "x", "shape": "B32 H8 D128", "us": 5}]})";
    try {
        (void)bench_run_from_json(bad, "ops.json");
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("ops.json (/ops/0/shape)") != std::string::npos);
        CHECK(std::string(e.what()).find("B, H, S or D") != std::string::npos);
    }
    CHECK_THROWS_AS((void)bench_run_from_json(R"({"ops": []})", "ops.json"), Error);
    // A negative time is refused, not read as a failed op (null or 0 is a failed op).
    CHECK_THROWS_WITH_AS((void)bench_run_from_json(
                             R"({"ops": [{"kind": "gemm", "name": "x", "shape": "M512 N1024 K128", "us": -0.5}]})", "ops.json"),
                         doctest::Contains("ops.json (/ops/0/us)"), Error);
    CHECK_THROWS_AS((void)bench_run_from_json(R"({"fits": []})", "ops.json"), Error);
}

TEST_CASE("op_seconds: the layer model's GEMM, attention and memory timing, with the kernel floor") {
    const GpuSpec g = h200();
    ModelOp gemm;
    gemm.m = gemm.n = gemm.k = 8192;
    const double flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
    CHECK(op_seconds(gemm, g) == doctest::Approx(flops / (989e12 * gemm_efficiency(8192, 8192, 8192))));
    CHECK(op_seconds(gemm, g, 0.5) == doctest::Approx(2.0 * op_seconds(gemm, g)));
    ModelOp tiny;
    tiny.m = tiny.n = tiny.k = 16;
    CHECK(op_seconds(tiny, g) == doctest::Approx(numbers::kKernelFloorSeconds.value));
    ModelOp attn;
    attn.kind = ModelOpKind::AttentionForward;
    attn.batch = 2;
    attn.heads = 32;
    attn.seq = 8192;
    attn.head_dim = 128;
    const double fwd = op_seconds(attn, g);
    CHECK(fwd == doctest::Approx(2.0 * 2 * 32 * 8192.0 * 8192.0 * 128 / (989e12 * attention_efficiency(8192))));
    attn.kind = ModelOpKind::AttentionBackward;
    CHECK(op_seconds(attn, g) == doctest::Approx(numbers::kAttentionBackwardFactor.value * fwd));
    ModelOp mem;
    mem.kind = ModelOpKind::Memory;
    mem.bytes = 4.8e9;
    CHECK(op_seconds(mem, g) == doctest::Approx(1e-3));
}

TEST_CASE("op check: runs merge to each op's median - ratios per kind - the largest errors first") {
    BenchRun a = bench_run_from_json(kRun, "a.json");
    BenchRun b = a;
    BenchRun c = a;
    b.ops[2].seconds = 5e-6;
    c.ops[2].seconds = 100e-6;  // an outlier run: the median keeps 5 us
    const auto merged = merge_bench_runs({a.ops, b.ops, c.ops});
    REQUIRE(merged.size() == a.ops.size());
    CHECK(merged[2].seconds == doctest::Approx(5e-6));
    CHECK(merged[2].runs == 3);
    CHECK(merged[2].spread == doctest::Approx((100e-6 - 3.9e-6) / 5e-6));
    const OpCheck check = check_ops(merged, h200(), 1.0, 3);
    CHECK(check.rows.size() == 8);
    REQUIRE(check.kinds.size() == 7);  // reference, gemm, gemm-fp8, moe-bmm, attn-fwd, attn-bwd, bw
    CHECK(check.kinds[0].kind == "reference");
    CHECK(check.kinds[0].count == 2);
    for (const auto& r : check.rows) {
        CHECK(r.ratio == doctest::Approx(r.predicted_s / r.op.seconds));
    }
    REQUIRE(check.largest_errors.size() == 3);
    const auto dist = [](double r) { return r > 1 ? r : 1 / r; };
    CHECK(dist(check.largest_errors[0].ratio) >= dist(check.largest_errors[1].ratio));
    CHECK(dist(check.largest_errors[1].ratio) >= dist(check.largest_errors[2].ratio));
}
