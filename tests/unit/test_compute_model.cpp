// Tests: the compute model (model/compute_model.hpp), GPU specs and the anchoring solve.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "planlayout/error.hpp"
#include "planlayout/ingest/gpu_spec_json.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/model/compute_model.hpp"
#include "planlayout/model/score.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

GpuSpec h100() {
    GpuSpec g;
    g.name = "H100 SXM";
    g.bf16_tflops = 989;
    g.fp16_tflops = 989;
    g.fp8_tflops = 1979;
    g.hbm_gbyte_s = 3350;
    return g;
}

/// One dense layer, no embedding/output (vocab 0), GELU FFN: params per layer = 4h² + 2·h·ffn.
ModelSpec dense_model() {
    ModelSpec m;
    m.layers = 1;
    m.hidden = 1024;
    m.heads = 8;
    m.ffn_hidden = 4096;
    m.ffn_gated = false;
    m.vocab = 0;
    return m;
}

TrainingSpec one_batch(int seq) {
    TrainingSpec t;
    t.global_batch = 1;
    t.micro_batch = 1;
    t.seq_len = seq;
    return t;
}

double op_flops(const ComputeBreakdown& c, const std::string& name) {
    const auto it = std::find_if(c.ops.begin(), c.ops.end(), [&](const ComputeOp& o) { return o.name == name; });
    return it == c.ops.end() ? 0.0 : it->flops;
}

}  // namespace

TEST_CASE("a dense layer's GEMMs do 2·tokens·params forward and twice that backward") {
    const ModelSpec m = dense_model();
    const TrainingSpec t = one_batch(512);
    const ComputeBreakdown c = compute_breakdown(m, t, ParallelSizes{}, h100(), 1.0);
    const double params = 4.0 * 1024 * 1024 + 2.0 * 1024 * 4096;
    const double gemm = op_flops(c, "qkv") + op_flops(c, "attn_out") + op_flops(c, "mlp");
    CHECK(gemm == doctest::Approx(6.0 * 512 * params));
    // TP splits them: each of 4 ranks does a quarter.
    ParallelSizes tp4;
    tp4.tp = 4;
    const ComputeBreakdown c4 = compute_breakdown(m, t, tp4, h100(), 1.0);
    CHECK(op_flops(c4, "mlp") == doctest::Approx(op_flops(c, "mlp") / 4));
    // LoRA: frozen weights, no weight gradients: backward = forward.
    TrainingSpec lora = t;
    lora.finetune = FineTune::Lora;
    CHECK(op_flops(compute_breakdown(m, lora, ParallelSizes{}, h100(), 1.0), "mlp") ==
          doctest::Approx(op_flops(c, "mlp") * 2.0 / 3.0));
    // Model FLOPs of the whole step: the GEMMs and attention once per GPU.
    CHECK(c.model_flops == doctest::Approx(gemm + op_flops(c, "attention")));
}

TEST_CASE("causal attention: 2·s²·heads·head_dim forward, 2.5× that backward, split by CP") {
    const ModelSpec m = dense_model();
    const double s = 2048;
    const ComputeBreakdown c = compute_breakdown(m, one_batch(2048), ParallelSizes{}, h100(), 1.0);
    const double fwd = 2.0 * s * s * 8 * 128;
    CHECK(op_flops(c, "attention") == doctest::Approx(fwd * (1.0 + numbers::kAttentionBackwardFactor.value)));
    ParallelSizes cp2;
    cp2.cp = 2;
    CHECK(op_flops(compute_breakdown(m, one_batch(2048), cp2, h100(), 1.0), "attention") ==
          doctest::Approx(op_flops(c, "attention") / 2));
    // Selective recompute repeats the attention core's forward.
    TrainingSpec sel = one_batch(2048);
    sel.recompute = Recompute::Selective;
    CHECK(op_flops(compute_breakdown(m, sel, ParallelSizes{}, h100(), 1.0), "attention") ==
          doctest::Approx(fwd * (2.0 + numbers::kAttentionBackwardFactor.value)));
    // --recompute-modules mlp: the MLP's forward repeated, the attention core no longer.
    sel.recompute_modules = {"mlp"};
    const ComputeBreakdown mlp = compute_breakdown(m, sel, ParallelSizes{}, h100(), 1.0);
    CHECK(op_flops(mlp, "attention") == doctest::Approx(op_flops(c, "attention")));
    CHECK(op_flops(mlp, "mlp") == doctest::Approx(op_flops(c, "mlp") * 4.0 / 3.0));
}

TEST_CASE("MoE: each local expert gets tokens·topk·cf·ep/experts tokens - the rank's expert FLOPs do not depend on EP") {
    ModelSpec m = dense_model();
    m.experts = 64;
    m.topk = 2;
    m.moe_ffn_hidden = 1024;
    m.moe_layers = 1;
    m.capacity_factor = 1.25;
    const TrainingSpec t = one_batch(4096);
    ParallelSizes ep1;
    ParallelSizes ep8;
    ep8.ep = 8;
    ep8.dp = 8;
    ep8.expert_dp = 1;
    ep1.dp = 8;
    ep1.expert_dp = 8;
    const ComputeBreakdown a = compute_breakdown(m, t, ep1, h100(), 1.0);
    const ComputeBreakdown b = compute_breakdown(m, t, ep8, h100(), 1.0);
    // 2 matrices (GELU) of h × ffn_e over 4096·2·1.25 token copies, fwd + 2× bwd.
    const double expected = 3.0 * 2.0 * 4096 * 2 * 1.25 * 2.0 * 1024 * 1024;
    CHECK(op_flops(a, "experts") == doctest::Approx(expected));
    CHECK(op_flops(b, "experts") == doctest::Approx(expected));
    // ...but 8 local experts of 1280 tokens run faster than 64 of 160.
    const auto secs = [](const ComputeBreakdown& c) {
        return std::find_if(c.ops.begin(), c.ops.end(), [](const ComputeOp& o) { return o.name == "experts"; })->seconds;
    };
    CHECK(secs(b) < secs(a));
}

TEST_CASE("the efficiency curves rise with every dimension and stay below their maxima") {
    double last = 0;
    for (const double x : {1.0, 16.0, 64.0, 128.0, 512.0, 4096.0, 65536.0}) {
        const double e = gemm_efficiency(x, 4096, 4096);
        CHECK(e > last);
        CHECK(gemm_efficiency(4096, x, 4096) == doctest::Approx(e));
        CHECK(gemm_efficiency(4096, 4096, x) == doctest::Approx(e));
        CHECK(e < numbers::kGemmEfficiencyMax.value);
        last = e;
    }
    CHECK(gemm_efficiency(numbers::kGemmHalfDim.value, 1e12, 1e12) == doctest::Approx(numbers::kGemmEfficiencyMax.value / 2));
    CHECK(attention_efficiency(512) < attention_efficiency(4096));
    CHECK(attention_efficiency(numbers::kAttentionHalfSeq.value) == doctest::Approx(numbers::kAttentionEfficiencyMax.value / 2));
    CHECK(gemm_efficiency(0, 1, 1) == 0.0);
}

TEST_CASE("pipeline schedule: 1F1B bubble (p−1)/m, interleaved (p−1)/(v·m), uneven stages") {
    const std::vector<StageTime> equal(4, StageTime{2, 0, 1.0, 2.0});
    const ScheduleTime one = pipeline_schedule(equal, 8, 1);
    CHECK(one.busy_s == doctest::Approx(8 * 3.0));
    CHECK(one.bubble_s / one.busy_s == doctest::Approx(3.0 / 8));
    const ScheduleTime v2 = pipeline_schedule(equal, 8, 2);
    CHECK(v2.bubble_s / v2.busy_s == doctest::Approx(3.0 / 16));
    std::vector<StageTime> uneven = equal;
    uneven[2].bwd_s = 4.0;
    const ScheduleTime u = pipeline_schedule(uneven, 8, 1);
    CHECK(u.slowest == 2);
    CHECK(u.busy_s == doctest::Approx(8 * 5.0));
    CHECK(u.bubble_s == doctest::Approx(9.0));
    CHECK(layers_per_chunk(10, 4, 1) == std::vector<int>{3, 3, 2, 2});
    CHECK(layers_per_chunk(8, 2, 2) == std::vector<int>{2, 2, 2, 2});
    // The model's own stages: 3 layers on 2 stages, the first holds 2 (and the embedding), the
    // last 1 and the output layer.
    ModelSpec m = dense_model();
    m.layers = 3;
    m.vocab = 32000;
    ParallelSizes pp2;
    pp2.pp = 2;
    TrainingSpec t = one_batch(1024);
    t.global_batch = 4;
    const ComputeBreakdown c = compute_breakdown(m, t, pp2, h100(), 1.0);
    REQUIRE(c.stages.size() == 2);
    CHECK(c.stages[0].layers == 2);
    CHECK(c.stages[1].layers == 1);
    CHECK(c.micro_batches == 4);
    const ScheduleTime s = pipeline_schedule(c.stages, 4, 1);
    CHECK(c.bubble_s == doctest::Approx(s.bubble_s));
}

TEST_CASE("compute_scale speeds up compute-bound ops only - MFU is model FLOPs over step × peak × GPUs") {
    const ModelSpec m = dense_model();
    const TrainingSpec t = one_batch(4096);
    const ComputeBreakdown a = compute_breakdown(m, t, ParallelSizes{}, h100(), 1.0);
    const ComputeBreakdown b = compute_breakdown(m, t, ParallelSizes{}, h100(), 2.0);
    CHECK(b.comp_s < a.comp_s);
    CHECK(b.comp_s > a.comp_s / 2);  // norms and the optimizer are bandwidth-bound
    CHECK(mfu_of(a, 1.0) == doctest::Approx(a.model_flops / (989e12)));
    CHECK(mfu_of(a, 0.0) == 0.0);
}

TEST_CASE("anchoring: compute_scale is fitted so that the measured arm's step is the measurement") {
    ScoreInput in;
    in.model = dense_model();
    in.model->layers = 8;
    in.training = one_batch(4096);
    in.training->global_batch = 8;
    in.training->measured_transport = "tcp";
    const double plain = compute_score(in).step_time_s[0];
    for (const double measured : {plain * 1.7, plain * 0.8}) {
        in.training->measured_step_time_s = measured;
        const Score s = compute_score(in);
        CHECK(s.anchored);
        CHECK(s.step_time_s[0] == doctest::Approx(measured).epsilon(1e-6));
        CHECK((measured > plain ? s.compute_scale < 1.0 : s.compute_scale > 1.0));
        CHECK(s.warnings.empty());
    }
    // A measurement no scale can reach: clamped, with a warning.
    in.training->measured_step_time_s = plain * 1e-6;
    const Score clamped = compute_score(in);
    CHECK(clamped.compute_scale == numbers::kMaxComputeScale.value);
    REQUIRE(clamped.warnings.size() == 1);
    CHECK(clamped.warnings.front().find("lies outside") != std::string::npos);
}

TEST_CASE("GPU specs: the built-in files, matching by name and id, reader errors") {
    const std::vector<GpuSpec> specs = builtin_gpu_specs();
    CHECK(specs.size() >= 6);
    const auto name_of = [&](const std::string& s) {
        const GpuSpec* g = match_gpu(specs, s);
        return g ? g->name : std::string("-");
    };
    CHECK(name_of("NVIDIA H100 80GB HBM3") == "H100 SXM");
    CHECK(name_of("NVIDIA H100 PCIe") == "H100 PCIe");
    CHECK(name_of("NVIDIA H200") == "H200");
    CHECK(name_of("A100-SXM4-80GB") == "A100 SXM 80GB");
    CHECK(name_of("l40s") == "L40S");
    CHECK(name_of("NVIDIA B200") == "B200");
    // Blackwell Ultra and the Grace Blackwell parts (issue 28): the longer id wins, so GB200 is
    // not taken for B200 nor GB300 for B300.
    CHECK(name_of("NVIDIA B300 SXM6 AC") == "B300");
    CHECK(name_of("NVIDIA GB200") == "GB200");
    CHECK(name_of("NVIDIA GB300") == "GB300");
    CHECK(match_gpu(specs, "NVIDIA GB200")->bf16_tflops == 2500);
    CHECK(match_gpu(specs, "NVIDIA GB300")->fp8_tflops == 5000);
    CHECK(name_of("Tesla T4") == "-");
    const GpuChoice from_template = choose_gpu(specs, "", {{"n", "NVIDIA H200"}});
    CHECK(from_template.spec.name == "H200");
    CHECK(from_template.spec.hbm_gbyte_s == 4800);
    const GpuChoice def = choose_gpu(specs, "", {{"n", "Tesla T4"}});
    CHECK(def.is_default);
    CHECK(def.spec.name == kDefaultGpuName);
    CHECK(def.source.find("Tesla T4") != std::string::npos);
    CHECK(choose_gpu(specs, "b200", {{"n", "NVIDIA H200"}}).spec.name == "B200");
    CHECK_THROWS_WITH_AS((void)choose_gpu(specs, "TPU v5", {}), doctest::Contains("unknown GPU 'TPU v5'"), Error);

    CHECK_THROWS_WITH_AS((void)gpu_spec_from_json(nlohmann::json::parse(R"({"name": "X", "hbm_gbyte_s": 1})"), "g.json"),
                         "g.json (/bf16_tflops): missing: bf16_tflops; add \"bf16_tflops\": 989 from the vendor's datasheet",
                         Error);
    CHECK_THROWS_WITH_AS((void)gpu_spec_from_json(
                             nlohmann::json::parse(R"({"name": "X", "bf16_tflops": 1, "hbm_gbyte_s": 1, "hbm": 2})"), "g.json"),
                         doctest::Contains("g.json (/hbm)"), Error);
    CHECK_THROWS_WITH_AS((void)gpu_spec_from_json(
                             nlohmann::json::parse(R"({"name": "X", "ids": [3], "bf16_tflops": 1, "hbm_gbyte_s": 1})"), "g.json"),
                         doctest::Contains("g.json (/ids/0)"), Error);
    CHECK_THROWS_WITH_AS((void)gpu_spec_from_json(
                             nlohmann::json::parse(R"({"name": "X", "bf16_tflops": -1, "hbm_gbyte_s": 1})"), "g.json"),
                         doctest::Contains("g.json (/bf16_tflops)"), Error);
}

TEST_CASE("training.gpu, compute_scale and fp8: read, range-checked, and what they change") {
    const auto j = nlohmann::json::parse(
        R"({"global_batch": 8, "seq_len": 4096, "gpu": "H200", "compute_scale": 0.5, "mfu": 0.3})");
    const TrainingSpec t = training_spec_from_json(j, "l.json");
    CHECK(t.gpu == "H200");
    CHECK(t.compute_scale == 0.5);
    REQUIRE(t.mfu);
    CHECK(*t.mfu == 0.3);
    CHECK_FALSE(t.gpu_peak_tflops);
    CHECK(training_spec_from_json(t.to_json(), "l.json").to_json() == t.to_json());
    CHECK_THROWS_WITH_AS(
        (void)training_spec_from_json(nlohmann::json::parse(R"({"global_batch": 8, "seq_len": 8, "compute_scale": 1000})"),
                                      "l.json"),
        doctest::Contains("l.json (/training/compute_scale)"), Error);
    // fp8: the GEMMs run at the fp8 peak, attention stays bf16.
    const ModelSpec m = dense_model();
    TrainingSpec bf16 = one_batch(4096);
    TrainingSpec fp8 = bf16;
    fp8.fp8 = "hybrid";
    const auto secs = [](const ComputeBreakdown& c, const std::string& name) {
        return std::find_if(c.ops.begin(), c.ops.end(), [&](const ComputeOp& o) { return o.name == name; })->seconds;
    };
    const ComputeBreakdown a = compute_breakdown(m, bf16, ParallelSizes{}, h100(), 1.0);
    const ComputeBreakdown b = compute_breakdown(m, fp8, ParallelSizes{}, h100(), 1.0);
    CHECK(secs(b, "mlp") == doctest::Approx(secs(a, "mlp") / 2));
    CHECK(secs(b, "attention") == doctest::Approx(secs(a, "attention")));
}

namespace {

double op_bytes(const ComputeBreakdown& c, const std::string& name) {
    const auto it = std::find_if(c.ops.begin(), c.ops.end(), [&](const ComputeOp& o) { return o.name == name; });
    return it == c.ops.end() ? 0.0 : it->bytes;
}

}  // namespace

TEST_CASE("attention bytes: beta*tokens*(heads/tp*(dqk+dv) + 2*kv_heads*head_dim/tp) forward, x(1+2.5) with backward") {
    // Closed form (docs/cost-model.md, the attention core under flash attention): per layer and
    // micro-batch the forward reads Q and the output per local head, K and V once per KV head:
    // β·T·(H/t·(d_qk + d_v) + 2·H_kv·d/t) bytes; the backward moves 2.5× that. Pinned here by hand,
    // not by a golden's bytes (issue 32, item 4).
    ModelSpec m = dense_model();  // hidden 1024, 8 heads of 128, kv_heads = heads
    const double beta = 2;
    const double tokens = 2048;
    const double both = 1.0 + numbers::kAttentionBackwardFactor.value;
    const ComputeBreakdown mha = compute_breakdown(m, one_batch(2048), ParallelSizes{}, h100(), 1.0);
    CHECK(op_bytes(mha, "attention") == doctest::Approx(beta * tokens * (8 * 256.0 + 2 * 8 * 128.0) * both));
    // TP halves the heads each rank holds, queries and KV alike.
    ParallelSizes tp2;
    tp2.tp = 2;
    const ComputeBreakdown mha_tp2 = compute_breakdown(m, one_batch(2048), tp2, h100(), 1.0);
    CHECK(op_bytes(mha_tp2, "attention") == doctest::Approx(beta * tokens * (4 * 256.0 + 2 * 8 * 128.0 / 2) * both));
    // GQA: 2 KV heads carry a quarter of the K and V bytes; Q and the output are unchanged.
    m.kv_heads = 2;
    const ComputeBreakdown gqa = compute_breakdown(m, one_batch(2048), ParallelSizes{}, h100(), 1.0);
    CHECK(op_bytes(gqa, "attention") == doctest::Approx(beta * tokens * (8 * 256.0 + 2 * 2 * 128.0) * both));
    // fp32 activations double every byte; two micro-batches (global batch 2) twice the step's.
    m.activation_bytes = 4;
    TrainingSpec two = one_batch(2048);
    two.global_batch = 2;
    const ComputeBreakdown fp32 = compute_breakdown(m, two, ParallelSizes{}, h100(), 1.0);
    CHECK(op_bytes(fp32, "attention") == doctest::Approx(2 * 4 * tokens * (8 * 256.0 + 2 * 2 * 128.0) * both));
}

TEST_CASE("training.fp8_recipe and overlap.tp: read, round-tripped, and refused where they mean nothing") {
    const TrainingSpec t = training_spec_from_json(
        nlohmann::json::parse(R"({"global_batch": 8, "seq_len": 4096, "fp8": "hybrid", "fp8_recipe": "tensorwise",
                                  "overlap": {"tp": true}})"),
        "l.json");
    CHECK(t.fp8_recipe == "tensorwise");
    CHECK(t.overlap_tp);
    CHECK(training_spec_from_json(t.to_json(), "l.json").to_json() == t.to_json());
    CHECK_THROWS_WITH_AS((void)training_spec_from_json(
                             nlohmann::json::parse(R"({"global_batch": 8, "seq_len": 8, "fp8_recipe": "delayed"})"), "l.json"),
                         doctest::Contains("fp8_recipe without fp8"), Error);
    CHECK_THROWS_WITH_AS((void)training_spec_from_json(nlohmann::json::parse(
                                                           R"({"global_batch": 8, "seq_len": 8, "fp8": "e4m3", "fp8_recipe": "nvfp4"})"),
                                                       "l.json"),
                         doctest::Contains("l.json (/training/fp8_recipe)"), Error);
}

TEST_CASE("a sliding-window layer's attention counts min(window, position) keys per query") {
    ModelSpec m = dense_model();
    m.layers = 2;
    const TrainingSpec t = one_batch(4096);
    const double full = op_flops(compute_breakdown(m, t, ParallelSizes{}, h100(), 1.0), "attention");
    m.sliding_window = 128;
    m.window_layers = {1, 0};  // layer 0 windowed, layer 1 global
    const ComputeBreakdown w = compute_breakdown(m, t, ParallelSizes{}, h100(), 1.0);
    // Causal full: s/2 keys per query on average; window W: W − W²/(2s) = 126 here.
    CHECK(op_flops(w, "attention") == doctest::Approx(full / 2 * (1.0 + 126.0 / 2048)));
    CHECK(op_flops(w, "qkv") == op_flops(compute_breakdown(dense_model(), t, ParallelSizes{}, h100(), 1.0), "qkv") * 2);
    // A window as long as the sequence is the causal mask itself.
    m.sliding_window = 4096;
    CHECK(op_flops(compute_breakdown(m, t, ParallelSizes{}, h100(), 1.0), "attention") == doctest::Approx(full));
}

TEST_CASE("gpu_spec_from_json: fp16_tflops and fp8_tflops are bounded 0 to 1e5, both ends included") {
    const auto spec = [](const std::string& extra) {
        return gpu_spec_from_json(
            nlohmann::json::parse(R"({"name": "X", "bf16_tflops": 1, "hbm_gbyte_s": 1, )" + extra + "}"), "g.json");
    };
    CHECK(spec(R"("fp16_tflops": 100000)").fp16_tflops == 100000);
    CHECK(spec(R"("fp8_tflops": 0)").fp8_tflops == 0);
    CHECK_THROWS_WITH_AS((void)spec(R"("fp16_tflops": 100001)"),
                         doctest::Contains("g.json (/fp16_tflops): fp16_tflops = 100001 TFLOP/s is larger than 100000 TFLOP/s"),
                         Error);
    CHECK_THROWS_WITH_AS((void)spec(R"("fp8_tflops": -1)"),
                         doctest::Contains("g.json (/fp8_tflops): fp8_tflops = -1 TFLOP/s is smaller than 0 TFLOP/s"), Error);
}
