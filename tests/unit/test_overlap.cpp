// Overlap windows (docs/cost-model.md §6): bucketed gradient reduce, prefetched gathers, pipeline
// and per-layer windows.
#include <doctest/doctest.h>

#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/model/overlap.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

/// 1 ms per call plus 1 s per GB: a per-call floor and a bandwidth term.
double linear_call(double bytes) { return 1e-3 + bytes / 1e9; }

TrafficItem grad_reduce(double bytes) {
    return {"dp", CollectiveOp::AllReduce, "grad reduce", bytes, 1, 0, OverlapKind::Backward};
}

ModelSpec model_bf16() {
    ModelSpec m;
    m.grad_bytes = 2;
    m.param_bytes = 2;
    return m;
}

OverlapCompute compute(double bwd_s, double micro) {
    OverlapCompute c;
    c.bwd_s = bwd_s;
    c.fwd_s = bwd_s / 2;
    c.comp_s = c.fwd_s + c.bwd_s;
    c.micro = micro;
    return c;
}

}  // namespace

TEST_CASE("bucket sizes: full buckets, then the remainder") {
    const auto s = bucket_sizes(10.0, 4.0);
    REQUIRE(s.size() == 3);
    CHECK(s[0] == 4.0);
    CHECK(s[1] == 4.0);
    CHECK(s[2] == doctest::Approx(2.0));
    CHECK(bucket_sizes(10.0, 0.0).size() == 1);   // no bucket size: one bucket
    CHECK(bucket_sizes(10.0, 20.0).size() == 1);  // larger than the total: one bucket
    CHECK(bucket_sizes(12.0, 4.0).size() == 3);   // no empty remainder
    CHECK(bucket_sizes(0.0, 4.0).empty());
}

TEST_CASE("one bucket is fully exposed, however long the backward") {
    const std::vector<double> one = {1e9};
    const WindowResult r = bucketed_reduce(one, 100.0, linear_call);
    CHECK(r.time_s == doctest::Approx(linear_call(1e9)));
    CHECK(r.exposed_s == doctest::Approx(r.time_s));
    CHECK(r.calls == 1.0);
}

TEST_CASE("many small buckets under a long backward: only the last bucket shows") {
    const std::vector<double> sizes = bucket_sizes(1e9, 1e8);  // 10 buckets of 0.1 s + 1 ms
    REQUIRE(sizes.size() == 10);
    const WindowResult r = bucketed_reduce(sizes, 100.0, linear_call);
    CHECK(r.time_s == doctest::Approx(10 * linear_call(1e8)));
    CHECK(r.exposed_s == doctest::Approx(linear_call(1e8)));
    CHECK(r.tail_s == doctest::Approx(r.exposed_s));
    CHECK(r.call_bytes == 1e8);
}

TEST_CASE("buckets faster than the backward makes them ready queue up behind each other") {
    // 10 buckets of 0.101 s each under a 0.5 s backward: the stream is busy from 0.05 s to
    // 0.05 + 1.01 s, so 0.56 s shows after the backward.
    const std::vector<double> sizes = bucket_sizes(1e9, 1e8);
    const WindowResult r = bucketed_reduce(sizes, 0.5, linear_call);
    CHECK(r.exposed_s == doctest::Approx(0.05 + 10 * linear_call(1e8) - 0.5));
    // No backward to hide under: every bucket shows.
    CHECK(bucketed_reduce(sizes, 0.0, linear_call).exposed_s == doctest::Approx(r.time_s));
}

TEST_CASE("exposed time grows as buckets grow (fewer buckets), under the same backward") {
    double previous = 0;
    for (const double bucket : {1e7, 1e8, 2.5e8, 5e8, 1e9}) {
        const WindowResult r = bucketed_reduce(bucket_sizes(1e9, bucket), 10.0, linear_call);
        CHECK(r.exposed_s >= previous);
        previous = r.exposed_s;
    }
    CHECK(previous == doctest::Approx(linear_call(1e9)));
}

TEST_CASE("the window is the last micro-batch's backward, not every micro-batch's") {
    TrainingSpec t;
    t.bucket_params = 5e7;  // 100 MB buckets of bf16 gradients
    const TrafficItem item = grad_reduce(1e9);
    // A backward of 16 s over 8 micro-batches: 2 s per micro-batch hides 10 × 0.101 s but for
    // the tail; with one micro-batch of 0.05 s nothing but the first bucket's wait hides.
    const WindowResult eight = item_window(item, model_bf16(), t, compute(16.0, 8), linear_call);
    CHECK(eight.window_s == doctest::Approx(2.0));
    CHECK(eight.exposed_s == doctest::Approx(linear_call(1e8)));
    const WindowResult many = item_window(item, model_bf16(), t, compute(16.0, 320), linear_call);
    CHECK(many.window_s == doctest::Approx(0.05));
    CHECK(many.exposed_s == doctest::Approx(0.005 + 10 * linear_call(1e8) - 0.05));
    CHECK(many.exposed_s > eight.exposed_s);
}

TEST_CASE("an FSDP item repeated per micro-batch hides under each micro-batch's backward, not the last one only") {
    TrainingSpec t;
    t.bucket_params = 5e7;
    TrafficItem item = grad_reduce(1e9);
    const WindowResult once = item_window(item, model_bf16(), t, compute(16.0, 8), linear_call);
    item.calls = 8;  // FSDP / ZeRO-3: a reduce-scatter of the whole shard every micro-batch
    const WindowResult each = item_window(item, model_bf16(), t, compute(16.0, 8), linear_call);
    CHECK(each.time_s == doctest::Approx(8 * once.time_s));
    CHECK(each.exposed_s == doctest::Approx(8 * once.exposed_s));
    CHECK(each.window_s == doctest::Approx(16.0));
    CHECK(each.calls == doctest::Approx(8 * once.calls));
    CHECK(each.window == "each micro-batch's backward");
}

TEST_CASE("overlap.dp off: one bucket after the backward") {
    TrainingSpec t;
    t.overlap_dp = false;
    const WindowResult r = item_window(grad_reduce(1e9), model_bf16(), t, compute(100.0, 1), linear_call);
    CHECK(r.calls == 1.0);
    CHECK(r.exposed_s == doctest::Approx(linear_call(1e9)));
}

TEST_CASE("Megatron's default bucket is max(4e7, 1e6 x dp) parameters") {
    const TrainingSpec t;
    CHECK(bucket_setting(t, 8, 2, true).params == 4e7);
    CHECK(bucket_setting(t, 128, 2, true).params == 1.28e8);
    CHECK(bucket_setting(t, 8, 2, false).params == 0.0);
    TrainingSpec bytes;
    bytes.bucket_bytes = 25.0 * 1024 * 1024;  // PyTorch DDP's bucket_cap_mb
    CHECK(bucket_setting(bytes, 8, 2, true).params == doctest::Approx(25.0 * 1024 * 1024 / 2));
}

TEST_CASE("prefetched gathers: the first bucket shows, the others hide under the bucket before") {
    const std::vector<double> sizes = {1e8, 1e8, 1e8, 1e8};
    const WindowResult slow = prefetched_gather(sizes, 0.04, linear_call);  // 0.01 s of compute per bucket
    CHECK(slow.exposed_s == doctest::Approx(linear_call(1e8) + 3 * (linear_call(1e8) - 0.01)));
    const WindowResult fast = prefetched_gather(sizes, 4.0, linear_call);
    CHECK(fast.exposed_s == doctest::Approx(linear_call(1e8)));
    // Distributed-optimizer param gather: forward order (the remainder first), one bucket ahead.
    TrainingSpec t;
    t.bucket_params = 5e7;
    const TrafficItem gather{"dp", CollectiveOp::AllGather, "param gather", 2.5e8, 1, 0, OverlapKind::Forward};
    const WindowResult g = item_window(gather, model_bf16(), t, compute(100.0, 1), linear_call);
    CHECK(g.calls == 3.0);
    CHECK(g.exposed_s == doctest::Approx(linear_call(5e7)));
    t.overlap_param_gather = false;
    const WindowResult off = item_window(gather, model_bf16(), t, compute(100.0, 1), linear_call);
    CHECK(off.exposed_s == doctest::Approx(off.time_s));
}

TEST_CASE("pipeline and per-layer windows keep their capacity semantics") {
    TrainingSpec t;
    OverlapCompute c = compute(2.0, 4);  // comp 3 s
    c.vpp = 1;
    const TrafficItem pp{"pp", CollectiveOp::SendRecv, "activations", 1e8, 8, 2, OverlapKind::PipelineSteady};
    const WindowResult r = item_window(pp, model_bf16(), t, c, linear_call);
    // window per call 3 / (2 · 4) = 0.375 s > 0.101 s: only the 2 fill/drain calls show.
    CHECK(r.exposed_s == doctest::Approx(2 * linear_call(1e8)));
    t.overlap_pp = false;
    CHECK(item_window(pp, model_bf16(), t, c, linear_call).exposed_s == doctest::Approx(8 * linear_call(1e8)));
    const TrafficItem ep{"ep", CollectiveOp::AllToAll, "dispatch+combine", 1e9, 100, 0, OverlapKind::PerLayer};
    // 3 s over 100 calls: 0.03 s each against 1.001 s.
    CHECK(item_window(ep, model_bf16(), t, c, linear_call).exposed_s == doctest::Approx(100 * (linear_call(1e9) - 0.03)));
    const TrafficItem tp{"tp", CollectiveOp::AllReduce, "activation all-reduce", 1e6, 10, 0, OverlapKind::None};
    CHECK(item_window(tp, model_bf16(), t, c, linear_call).exposed_s == doctest::Approx(10 * linear_call(1e6)));
}

TEST_CASE("training.overlap: param_gather follows dp unless given - one bucket size, not two") {
    const auto read = [](const char* text) {
        return training_spec_from_json(nlohmann::json::parse(text), "l.json");
    };
    CHECK(read(R"({"global_batch": 8, "seq_len": 16})").overlap_param_gather);
    CHECK_FALSE(read(R"({"global_batch": 8, "seq_len": 16, "overlap": {"dp": false}})").overlap_param_gather);
    CHECK(read(R"({"global_batch": 8, "seq_len": 16, "overlap": {"dp": false, "param_gather": true}})").overlap_param_gather);
    const TrainingSpec t = read(R"({"global_batch": 8, "seq_len": 16, "overlap": {"bucket_params": 1e8}})");
    CHECK(t.bucket_params == 1e8);
    CHECK(training_spec_from_json(t.to_json(), "again").bucket_params == 1e8);
    CHECK_THROWS_WITH(read(R"({"global_batch": 8, "seq_len": 16, "overlap": {"bucket_params": 1e8, "bucket_bytes": 1e8}})"),
                      doctest::Contains("bucket_params and bucket_bytes both give the bucket size"));
}

TEST_CASE("TP communication overlap: tp chunks under the paired GEMM, one chunk always exposed") {
    TrainingSpec t;
    OverlapCompute c = compute(2.0, 4);  // comp 3 s
    c.tp = 4;
    // 100 calls of 1e8 bytes: 0.101 s each; window 3 s / 100 = 0.03 s per call.
    const TrafficItem tp{"tp", CollectiveOp::AllGather, "sequence-parallel AG", 1e8, 100, 0, OverlapKind::TpChunked};
    const double call = linear_call(1e8);
    const WindowResult r = item_window(tp, model_bf16(), t, c, linear_call);
    CHECK(r.exposed_s == doctest::Approx(100 * (call / 4 + (call * 3 / 4 - 0.03))));
    CHECK(r.time_s == doctest::Approx(100 * call));
    // A long window hides all but the first chunk.
    c = compute(200.0, 4);
    c.tp = 4;
    CHECK(item_window(tp, model_bf16(), t, c, linear_call).exposed_s == doctest::Approx(100 * call / 4));
}
