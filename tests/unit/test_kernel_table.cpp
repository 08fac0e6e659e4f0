// Tests: the measured kernel table (topology/kernel_table.hpp, ingest/kernel_table_json.hpp) and the
// compute model's use of it (model/compute_model.hpp, choose_kernels), by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "planlayout/error.hpp"
#include "planlayout/ingest/gpu_spec_json.hpp"
#include "planlayout/ingest/kernel_table_json.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/model/compute_model.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

KernelTable small_table() {
    KernelTable t;
    t.gpu = "H200";
    t.peak_bf16_tflops = 1000;
    t.spec_hbm_gbyte_s = 4000;
    t.copy_gbyte_s = 3600;
    t.attention = {{AttentionBackend::Flash, 64, 1024, 0.2, 0.1},
                   {AttentionBackend::Flash, 64, 4096, 0.4, 0.3},
                   {AttentionBackend::Flash, 128, 1024, 0.3, 0.2},
                   {AttentionBackend::Flash, 128, 4096, 0.5, 0.4}};
    ImplementationBlocks b;
    b.rmsnorm = {10, 20};
    b.rope = {3, 4};
    b.swiglu = {5, 6};
    b.residual = {1, 0};
    b.loss = {7, 8};
    b.unfused_attention = BlockCost{30, 40};
    t.blocks["megatron"] = b;
    t.blocks["hf"] = b;
    t.blocks["fused"] = b;
    t.embedding_bwd_ps = 2;
    t.optimizer_ps_per_param = {{"fused_fp32", 8}, {"foreach_fp32", 20}, {"foreach_bf16", 12}, {"fused_bf16", 5}};
    return t;
}

GpuSpec gpu_with(const KernelTable& t, double hbm, bool derived) {
    GpuSpec g;
    g.name = derived ? "Other" : "H200";
    g.bf16_tflops = 1000;
    g.fp8_tflops = 2000;
    g.hbm_gbyte_s = hbm;
    g.kernels = std::make_shared<const KernelTable>(t);
    g.kernels_derived = derived;
    return g;
}

/// A dense layer stack of hidden 4096 (32 heads, FFN 16384, vocabulary 32000).
ModelSpec dense_4096(int layers) {
    ModelSpec m;
    m.layers = layers;
    m.hidden = 4096;
    m.heads = 32;
    m.ffn_hidden = 16384;
    m.vocab = 32000;
    return m;
}

/// One sequence of 4096 tokens a step.
TrainingSpec one_sequence() {
    TrainingSpec t;
    t.global_batch = 1;
    t.seq_len = 4096;
    return t;
}

/// The required keys of a kernel table file, before its optional sections.
const std::string kTableHead = R"({"gpu": "H200", "peak_bf16_tflops": 989, "spec_hbm_gbyte_s": 4800, "copy_gbyte_s": 4296,
        "launch_us": 6, "embedding_bwd_ps": 1, "attention": [], "unfused_attention": {},
        "blocks": {"hf": {"rmsnorm": [1, 1], "rope": [1, 1], "swiglu": [1, 1], "residual": [1, 1], "loss": [1, 1]}},)";

double op_seconds_named(const ComputeBreakdown& c, const std::string& name) {
    const auto it = std::find_if(c.ops.begin(), c.ops.end(), [&](const ComputeOp& o) { return o.name == name; });
    return it == c.ops.end() ? -1.0 : it->seconds;
}

}  // namespace

TEST_CASE("attention efficiency from the table: linear in log2(seq), linear in head dim, ends held") {
    const KernelTable t = small_table();
    CHECK(*t.attention_efficiency(AttentionBackend::Flash, 64, 2048, false) == doctest::Approx(0.3));  // halfway in log2
    CHECK(*t.attention_efficiency(AttentionBackend::Flash, 64, 2048, true) == doctest::Approx(0.2));
    CHECK(*t.attention_efficiency(AttentionBackend::Flash, 96, 1024, false) == doctest::Approx(0.25));
    CHECK(*t.attention_efficiency(AttentionBackend::Flash, 64, 512, false) == doctest::Approx(0.2));     // below: held
    CHECK(*t.attention_efficiency(AttentionBackend::Flash, 128, 65536, false) == doctest::Approx(0.5));  // above: held
    CHECK(*t.attention_efficiency(AttentionBackend::Flash, 256, 4096, true) == doctest::Approx(0.4));    // wider head
    CHECK(*t.attention_efficiency(AttentionBackend::Flash, 32, 4096, true) == doctest::Approx(0.3));     // narrower
    CHECK_FALSE(t.attention_efficiency(AttentionBackend::Cudnn, 64, 4096, false).has_value());
}

TEST_CASE("the H200 and the H100 SXM have their own measured tables, other GPUs carry the H200's by the datasheets' bandwidth") {
    const auto specs = builtin_gpu_specs();
    const GpuSpec* h200 = match_gpu(specs, "H200");
    const GpuSpec* h100 = match_gpu(specs, "H100 SXM");
    const GpuSpec* a100 = match_gpu(specs, "A100 SXM 80GB");
    REQUIRE(h200 != nullptr);
    REQUIRE(h100 != nullptr);
    REQUIRE(a100 != nullptr);
    REQUIRE(h200->kernels);
    REQUIRE(h100->kernels);
    CHECK(h200->kernels->gpu == "H200");
    CHECK(h200->kernels->carried);
    CHECK_FALSE(h200->kernels_derived);
    CHECK(h100->kernels->gpu == "H100 SXM");
    CHECK_FALSE(h100->kernels->carried);
    CHECK_FALSE(h100->kernels_derived);
    CHECK(a100->kernels->gpu == "H200");  // the carried table, not the H100's
    CHECK(a100->kernels_derived);
    TrainingSpec t;
    CHECK(choose_kernels(t, *h200).mem_scale == 1.0);
    CHECK(choose_kernels(t, *h100).mem_scale == 1.0);
    CHECK(choose_kernels(t, *a100).mem_scale == doctest::Approx(h200->hbm_gbyte_s / a100->hbm_gbyte_s));
    // Every implementation has its blocks, and the measured local one its unfused attention.
    for (const GpuSpec* g : {h200, h100}) {
        for (const char* name : {"fused", "megatron", "hf"}) {
            CHECK(g->kernels->implementation(name) != nullptr);
        }
        CHECK(g->kernels->implementation("megatron")->unfused_attention.has_value());
        CHECK(g->kernels->implementation("hf")->moe_routing.has_value());
    }
    // Measured on the slower memory, the H100's memory-bound blocks take longer than the H200's.
    CHECK(h100->kernels->implementation("megatron")->swiglu.fwd_ps > h200->kernels->implementation("megatron")->swiglu.fwd_ps);
}

TEST_CASE("each implementation resolves its attention backend and optimizer, and the spec overrides them") {
    const GpuSpec g = gpu_with(small_table(), 4000, false);
    TrainingSpec t;
    KernelChoice k = choose_kernels(t, g);
    CHECK(k.blocks == "fused");
    CHECK(k.attention == AttentionBackend::Cudnn);
    CHECK(k.optimizer == OptimizerImpl::FusedFp32);
    CHECK(k.optimizer_ps == 8);
    CHECK(k.optimizer_extra_bytes == numbers::kMegatronOptimizerExtraBytes.value);
    t.implementation = Implementation::MegatronLocal;
    k = choose_kernels(t, g);
    CHECK(k.blocks == "megatron");
    CHECK(k.attention == AttentionBackend::Unfused);
    CHECK(k.optimizer_ps == 20);
    t.implementation = Implementation::Hf;
    k = choose_kernels(t, g);
    CHECK(k.blocks == "hf");
    CHECK(k.optimizer == OptimizerImpl::ForeachBf16);
    CHECK(k.optimizer_extra_bytes == 0);  // the optimizer steps on the bf16 weights themselves
    t.attention_backend = AttentionBackend::Flash;
    t.optimizer = OptimizerImpl::FusedBf16;
    k = choose_kernels(t, g);
    CHECK(k.attention == AttentionBackend::Flash);
    CHECK(k.optimizer_ps == 5);
    CHECK(choose_kernels(t, gpu_with(small_table(), 2000, true)).mem_scale == 2.0);  // half the bandwidth: twice the time
}

TEST_CASE("a layer priced from the table, by hand: norms, rope, activation, unfused attention, loss, embedding, optimizer") {
    // One layer, h 1024, 8 heads of 128 (kv 8), gated FFN 4096, vocab 1000, 2048 tokens.
    ModelSpec m;
    m.layers = 1;
    m.hidden = 1024;
    m.heads = 8;
    m.ffn_hidden = 4096;
    m.vocab = 1000;
    TrainingSpec t;
    t.global_batch = 1;
    t.seq_len = 2048;
    t.implementation = Implementation::MegatronLocal;
    const GpuSpec g = gpu_with(small_table(), 2000, true);  // derived: every block takes twice its table time
    const ComputeBreakdown c = compute_breakdown(m, t, {1, 1, 1, 1, 1, 1, 1, 1}, g, 1.0);
    const double T = 2048;
    const double th = T * 1024;
    CHECK(op_seconds_named(c, "norms") == doctest::Approx(2.0 * ((10 + 20) * 2 * th + (1 + 0) * 2 * th) * 1e-12));
    CHECK(op_seconds_named(c, "rope") == doctest::Approx(2.0 * (3 + 4) * T * (8 + 8) * 128 * 1e-12));
    CHECK(op_seconds_named(c, "activation") == doctest::Approx(2.0 * (5 + 6) * T * 4096 * 1e-12));
    CHECK(op_seconds_named(c, "attention") == doctest::Approx(2.0 * (30 + 40) * T * 2048 * 8 * 1e-12));
    CHECK(op_seconds_named(c, "loss") == doctest::Approx(2.0 * (7 + 8) * T * 1000 * 1e-12));
    // Embedding: the forward gather by bytes (2 accesses x T x h x 2 bytes at 2000 GB/s), the dense
    // gradient from the table (vocab x hidden).
    CHECK(op_seconds_named(c, "embedding") == doctest::Approx(2.0 * T * 1024 * 2 / 2000e9 + 2.0 * 2 * 1000 * 1024 * 1e-12));
    // Optimizer: foreach fp32 (20 ps) on every parameter, plus Megatron's 14 bytes around the step.
    const double params = m.derived_dense_params();
    CHECK(c.optimizer_s == doctest::Approx(2.0 * 20 * params * 1e-12 + numbers::kMegatronOptimizerExtraBytes.value * params / 2000e9));
    // A fused backend instead: FLOPs at the table's efficiency of this GPU's peak (forward and backward each).
    t.attention_backend = AttentionBackend::Flash;
    const ComputeBreakdown f = compute_breakdown(m, t, {1, 1, 1, 1, 1, 1, 1, 1}, g, 1.0);
    const double fwd_flops = T * 2048 * 256 * 8;  // tokens x keys x (dqk + dv) x heads
    const double eff_f = *small_table().attention_efficiency(AttentionBackend::Flash, 128, 2048, false);
    const double eff_b = *small_table().attention_efficiency(AttentionBackend::Flash, 128, 2048, true);
    CHECK(op_seconds_named(f, "attention") == doctest::Approx(fwd_flops / (1000e12 * eff_f) + 2.5 * fwd_flops / (1000e12 * eff_b)));
}

TEST_CASE("a kernel table entry that is not a pair of numbers is refused, naming the file and key") {
    const std::string text = R"({"gpu": "H200", "peak_bf16_tflops": 989, "spec_hbm_gbyte_s": 4800, "copy_gbyte_s": 4296,
        "launch_us": 6, "embedding_bwd_ps": 1, "attention": [], "unfused_attention": {},
        "blocks": {"hf": {"rmsnorm": [1], "rope": [1, 1], "swiglu": [1, 1], "residual": [1, 1], "loss": [1, 1]}}})";
    try {
        (void)kernel_table_from_json(parse_json_text(text, "k.json"), "k.json");
        FAIL("accepted a one-number pair");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("k.json (/blocks/hf/rmsnorm)") != std::string::npos);
        CHECK(std::string(e.what()).find("[forward ps, backward ps]") != std::string::npos);
    }
}

TEST_CASE("FP8 GEMM speedup: linear in log2 of the cube root of M·N·K between measured points, the ends held") {
    KernelTable t = small_table();
    t.gemm_fp8["tensorwise"] = {{1024, 1.1}, {4096, 1.7}};
    CHECK(*t.fp8_speedup("tensorwise", 512, 512, 512) == doctest::Approx(1.1));
    CHECK(*t.fp8_speedup("tensorwise", 1024, 1024, 1024) == doctest::Approx(1.1));
    CHECK(*t.fp8_speedup("tensorwise", 2048, 2048, 2048) == doctest::Approx(1.4));  // halfway in log2
    CHECK(*t.fp8_speedup("tensorwise", 1024, 4096, 2048) == doctest::Approx(1.4));  // the cube root is 2048
    CHECK(*t.fp8_speedup("tensorwise", 1e5, 1e5, 1e5) == doctest::Approx(1.7));
    CHECK_FALSE(t.fp8_speedup("rowwise", 2048, 2048, 2048).has_value());
    CHECK(*t.fp8_speedup("tensorwise", 1, 1, 1) == doctest::Approx(1.1));  // one element: the first point held
    CHECK_FALSE(t.fp8_speedup("tensorwise", 1, 0, 1).has_value());
    CHECK_FALSE(t.fp8_speedup("tensorwise", 0, 1, 1).has_value());
    CHECK_FALSE(t.fp8_speedup("tensorwise", 1, 1, 0).has_value());
}

TEST_CASE("grouped expert GEMM efficiency: the nearest measured shape, linear in log2(tokens per expert)") {
    KernelTable t = small_table();
    t.grouped_gemm = {{2048, 1536, 64, 0.15}, {2048, 1536, 256, 0.45}, {7168, 4096, 64, 0.2}, {7168, 4096, 256, 0.7}};
    CHECK(*t.grouped_efficiency(128, 2048, 1536) == doctest::Approx(0.30));
    CHECK(*t.grouped_efficiency(16, 2048, 1536) == doctest::Approx(0.15));   // below: the first point held
    CHECK(*t.grouped_efficiency(4096, 7000, 4000) == doctest::Approx(0.70)); // nearest: the large shape, last point held
    CHECK(*t.grouped_efficiency(128, 7168, 4096) == doctest::Approx(0.45));
    t.grouped_gemm.clear();
    CHECK_FALSE(t.grouped_efficiency(128, 2048, 1536).has_value());
}

TEST_CASE("FP8 from the table: GEMMs at the measured speedup, operands quantized, output layer and router in bf16") {
    const ModelSpec m = dense_4096(1);
    TrainingSpec t = one_sequence();
    KernelTable k = small_table();
    k.gemm_fp8["tensorwise"] = {{1000, 1.8}, {100000, 1.8}};
    k.gemm_fp8["rowwise"] = {{1000, 1.7}, {100000, 1.7}};
    k.fp8_quant_ps = {{"delayed", 1.0}, {"tensorwise", 2.0}, {"blockwise", 1.5}};
    const GpuSpec g = gpu_with(k, 4000, false);
    const ParallelSizes one{1, 1, 1, 1, 1, 1, 1, 1};
    const ComputeBreakdown bf16 = compute_breakdown(m, t, one, g, 1.0);
    t.fp8 = "hybrid";
    const ComputeBreakdown delayed = compute_breakdown(m, t, one, g, 1.0);
    CHECK(delayed.kernels.fp8_recipe == "delayed");
    CHECK(delayed.kernels.fp8_gemm == "tensorwise");
    CHECK(delayed.kernels.fp8_quant_ps == doctest::Approx(1.0));
    // The MLP: its two GEMMs at 1/1.8 of the bf16 time, plus the quantization of their inputs
    // (T x h, T x ffn), weights (one micro-batch: whole) and output gradients (T x 2ffn... T x h).
    const double T = 4096;
    const double gemm_bf16 = op_seconds_named(bf16, "mlp");
    const double quant = 1e-12 * ((T * 4096 + 2 * 16384 * 4096.0 + T * 16384 + 4096.0 * 16384) + (T * 2 * 16384 + T * 4096));
    CHECK(op_seconds_named(delayed, "mlp") == doctest::Approx(gemm_bf16 / 1.8 + quant));
    // The output layer stays bf16.
    CHECK(op_seconds_named(delayed, "output") == doctest::Approx(op_seconds_named(bf16, "output")));
    // Current scaling (tensorwise) adds the amax pass: more quantization time, same GEMMs.
    t.fp8_recipe = "tensorwise";
    const ComputeBreakdown tensorwise = compute_breakdown(m, t, one, g, 1.0);
    CHECK(op_seconds_named(tensorwise, "mlp") == doctest::Approx(gemm_bf16 / 1.8 + 2.0 * quant));
    // Blockwise: the row-wise-scaled GEMM and two block casts.
    t.fp8_recipe = "blockwise";
    const ComputeBreakdown blockwise = compute_breakdown(m, t, one, g, 1.0);
    CHECK(blockwise.kernels.fp8_gemm == "rowwise");
    CHECK(op_seconds_named(blockwise, "mlp") == doctest::Approx(gemm_bf16 / 1.7 + 1.5 * quant));
}

TEST_CASE("the kernel table's FP8 and grouped-GEMM sections are read, and points out of order are refused") {
    const std::string& head = kTableHead;
    const KernelTable t = kernel_table_from_json(
        parse_json_text(head + R"("fp8_source": "test", "gemm_fp8": {"tensorwise": [{"d": 1024, "speedup": 1.1}, {"d": 4096, "speedup": 1.8}]},
            "fp8_quant_ps": {"delayed": 1.1}, "grouped_gemm": [{"k": 2048, "n": 1536, "tokens_per_expert": 256, "eff": 0.4},
            {"k": 2048, "n": 1536, "tokens_per_expert": 64, "eff": 0.1}]})", "k.json"), "k.json");
    CHECK(t.gemm_fp8.at("tensorwise").size() == 2);
    CHECK(t.fp8_quant_ps.at("delayed") == doctest::Approx(1.1));
    REQUIRE(t.grouped_gemm.size() == 2);
    CHECK(t.grouped_gemm[0].tokens_per_expert == doctest::Approx(64));  // sorted by tokens per expert
    try {
        (void)kernel_table_from_json(
            parse_json_text(head + R"("gemm_fp8": {"tensorwise": [{"d": 4096, "speedup": 1.8}, {"d": 1024, "speedup": 1.1}]}})", "k.json"),
            "k.json");
        FAIL("accepted points out of order");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("k.json (/gemm_fp8/tensorwise/1/d)") != std::string::npos);
    }
}

TEST_CASE("host time: a pass takes the slower of its GPU work and the host's, experts one by one or grouped as one") {
    // A tiny MoE model (the GPU's work a few microseconds) with a host table: every pass is the host's.
    ModelSpec m;
    m.layers = 4;
    m.hidden = 64;
    m.heads = 4;
    m.ffn_hidden = 128;
    m.vocab = 128;
    m.experts = 16;
    m.topk = 2;
    m.moe_ffn_hidden = 32;
    m.moe_layers = 4;
    TrainingSpec t;
    t.global_batch = 1;
    t.seq_len = 64;
    t.implementation = Implementation::MegatronLocal;
    KernelTable table = small_table();
    const ComputeBreakdown without = compute_breakdown(m, t, {1, 1, 1, 1, 1, 1, 1, 1}, gpu_with(table, 4000, false), 1.0);
    CHECK(without.host_wait_s == 0.0);
    CHECK(without.kernels.host.empty());
    HostTime h;
    h.dense = {100, 200};
    h.moe = {300, 500};
    h.expert = {50, 80};
    h.optimizer_dense_us = 10;
    h.optimizer_moe_us = 20;
    h.optimizer_expert_us = 5;
    h.base = {40, 30};
    h.optimizer_base_us = 7;
    table.host["megatron"] = h;
    const GpuSpec g = gpu_with(table, 4000, false);
    const ComputeBreakdown c = compute_breakdown(m, t, {1, 1, 1, 1, 1, 1, 1, 1}, g, 1.0);
    CHECK(c.kernels.host == "megatron");
    // Local: SequentialMLP, 16 local experts; four MoE layers, one micro-batch.
    const double fwd_layer = (300 + 16 * 50) * 1e-6;
    const double bwd_layer = (500 + 16 * 80) * 1e-6;
    REQUIRE(c.stages.size() == 1);
    // Outside the layers the micro-batch takes the host's 40 + 30 us (the tiny embedding, output
    // layer and loss are faster on the GPU).
    CHECK(c.stages[0].fwd_s == doctest::Approx(4 * fwd_layer + 40e-6));
    CHECK(c.stages[0].bwd_s == doctest::Approx(4 * bwd_layer + 30e-6));
    CHECK(c.optimizer_s == doctest::Approx((7 + 4 * (20 + 16 * 5)) * 1e-6));
    CHECK(c.host_wait_s > 0.8 * (4 * (fwd_layer + bwd_layer)));
    CHECK(op_seconds_named(c, "host") == doctest::Approx(c.host_wait_s));
    // EP 4: four local experts; Transformer Engine with grouped GEMM: the experts as one call.
    const ComputeBreakdown ep4 = compute_breakdown(m, t, {1, 1, 1, 1, 4, 1, 1, 1}, g, 1.0);
    CHECK(ep4.stages[0].fwd_s >= 4 * (300 + 4 * 50) * 1e-6);
    CHECK(ep4.stages[0].fwd_s < 4 * (300 + 5 * 50) * 1e-6);
    t.implementation = Implementation::MegatronTe;
    m.grouped_gemm = true;
    const ComputeBreakdown te = compute_breakdown(m, t, {1, 1, 1, 1, 1, 1, 1, 1}, g, 1.0);
    CHECK(te.stages[0].fwd_s >= 4 * (300 + 50) * 1e-6);
    CHECK(te.stages[0].fwd_s < 4 * (300 + 2 * 50) * 1e-6);
    // Compute scale does not speed up the host.
    const ComputeBreakdown fast = compute_breakdown(m, t, {1, 1, 1, 1, 1, 1, 1, 1}, g, 100.0);
    CHECK(fast.stages[0].fwd_s >= 4 * (300 + 50) * 1e-6);
    // "host_time": "none" (not Megatron's Python, or CUDA graphs): the kernels alone, as without the section.
    t.implementation = Implementation::MegatronLocal;
    m.grouped_gemm = false;
    t.host_time = false;
    const ComputeBreakdown none = compute_breakdown(m, t, {1, 1, 1, 1, 1, 1, 1, 1}, g, 1.0);
    CHECK(none.kernels.host.empty());
    CHECK(none.host_wait_s == 0.0);
    CHECK(none.stages[0].fwd_s == doctest::Approx(without.stages[0].fwd_s));
    // CUDA graphs (Megatron --cuda-graph-impl): graphed layers cost no host time, the schedule and
    // the optimizer keep theirs; with modules named the layers keep theirs (not measured per module);
    // a full-iteration graph has none at all.
    t.host_time = true;
    t.cuda_graph = CudaGraph::Layers;
    const ComputeBreakdown layers = compute_breakdown(m, t, {1, 1, 1, 1, 1, 1, 1, 1}, g, 1.0);
    CHECK(layers.kernels.cuda_graph == "layers");
    CHECK(layers.kernels.host == "megatron");
    // The layers' GPU work, and outside them the base host time 40 us in place of the tiny GPU work.
    CHECK(layers.stages[0].fwd_s >= without.stages[0].fwd_s);
    CHECK(layers.stages[0].fwd_s <= without.stages[0].fwd_s + 40e-6);
    CHECK(layers.stages[0].fwd_s < 4 * fwd_layer);
    CHECK(layers.optimizer_s == doctest::Approx(c.optimizer_s));
    t.cuda_graph_modules = {"attn", "moe_router"};
    const ComputeBreakdown modules = compute_breakdown(m, t, {1, 1, 1, 1, 1, 1, 1, 1}, g, 1.0);
    CHECK(modules.kernels.cuda_graph == "layers of attn, moe_router (host time kept: not measured per module)");
    CHECK(modules.stages[0].fwd_s == doctest::Approx(c.stages[0].fwd_s));
    t.cuda_graph_modules.clear();
    t.cuda_graph = CudaGraph::FullIteration;
    const ComputeBreakdown whole = compute_breakdown(m, t, {1, 1, 1, 1, 1, 1, 1, 1}, g, 1.0);
    CHECK(whole.kernels.host.empty());
    CHECK(whole.host_wait_s == 0.0);
    CHECK(whole.stages[0].fwd_s == doctest::Approx(without.stages[0].fwd_s));
}

TEST_CASE("the kernel table's host section is read, and a missing optimizer part is refused") {
    const std::string base = R"({"gpu": "H200", "peak_bf16_tflops": 989, "spec_hbm_gbyte_s": 4800, "copy_gbyte_s": 4296,
        "launch_us": 6, "embedding_bwd_ps": 1, "attention": [], "unfused_attention": {},
        "blocks": {"hf": {"rmsnorm": [1, 1], "rope": [1, 1], "swiglu": [1, 1], "residual": [1, 1], "loss": [1, 1]}},
        "host": {"megatron": {"source": "test", "base_us": [10, 11], "dense_us": [1, 2], "moe_us": [3, 4],
        "expert_us": [5, 6], "fit_error": {"any": 0.01})";
    const KernelTable t = kernel_table_from_json(
        parse_json_text(base + R"(, "optimizer_us": {"base": 12, "dense": 7, "moe": 8, "expert": 9}}}})", "k.json"), "k.json");
    REQUIRE(t.host.count("megatron") == 1);
    const HostTime& h = t.host.at("megatron");
    CHECK(h.dense.fwd == 1);
    CHECK(h.expert.bwd == 6);
    CHECK(h.optimizer_expert_us == 9);
    CHECK(h.base.fwd == 10);
    CHECK(h.base.bwd == 11);
    CHECK(h.optimizer_base_us == 12);
    CHECK_THROWS_WITH_AS((void)kernel_table_from_json(parse_json_text(base + "}}}", "k.json"), "k.json"),
                         doctest::Contains("k.json (/host/megatron/optimizer_us): missing"), Error);
    CHECK(h.implementation.empty());  // no bound without them
    CHECK(h.hidden_max == 0);
    CHECK(h.local_experts_max == 0);

    // Where it was measured: the implementation, the hidden sizes and the most local experts.
    const std::string opt = R"(, "optimizer_us": {"base": 12, "dense": 7, "moe": 8, "expert": 9})";
    const KernelTable r = kernel_table_from_json(
        parse_json_text(base + opt + R"(, "implementation": "megatron-local", "hidden": [256, 4096], "local_experts_max": 128}}})",
                        "k.json"),
        "k.json");
    CHECK(r.host.at("megatron").implementation == "megatron-local");
    CHECK(r.host.at("megatron").hidden_min == 256);
    CHECK(r.host.at("megatron").hidden_max == 4096);
    CHECK(r.host.at("megatron").local_experts_max == 128);
    for (const char* bad : {R"("hidden": [4096, 256])", R"("hidden": [0, 256])", R"("hidden": [256])", R"("hidden": ["a", 9])"}) {
        CAPTURE(bad);
        CHECK_THROWS_WITH_AS((void)kernel_table_from_json(parse_json_text(base + opt + ", " + bad + "}}}", "k.json"), "k.json"),
                             doctest::Contains("k.json (/host/megatron/hidden): expected [smallest, largest] hidden size"), Error);
    }
    CHECK_THROWS_WITH_AS(
        (void)kernel_table_from_json(parse_json_text(base + opt + R"(, "local_experts_max": 0}}})", "k.json"), "k.json"),
        doctest::Contains("k.json (/host/megatron/local_experts_max)"), Error);
}

TEST_CASE("host time is priced for the implementation and the range it was measured on, and said not modelled elsewhere") {
    ModelSpec m;
    m.layers = 4;
    m.hidden = 64;
    m.heads = 4;
    m.ffn_hidden = 128;
    m.vocab = 128;
    m.experts = 16;
    m.topk = 2;
    m.moe_ffn_hidden = 32;
    m.moe_layers = 4;
    TrainingSpec t;
    t.global_batch = 1;
    t.seq_len = 64;
    t.implementation = Implementation::MegatronLocal;
    KernelTable table = small_table();
    HostTime h;
    h.dense = {100, 200};
    h.moe = {300, 500};
    h.expert = {50, 80};
    h.implementation = "megatron-local";
    h.hidden_min = 32;
    h.hidden_max = 128;
    h.local_experts_max = 8;
    table.host["megatron"] = h;
    const GpuSpec g = gpu_with(table, 4000, false);
    const ParallelSizes ep1{1, 1, 1, 1, 1, 1, 1, 1};
    const ParallelSizes ep4{1, 1, 1, 1, 4, 1, 1, 1};
    // Inside the range (4 local experts at EP 4): priced.
    const ComputeBreakdown in = compute_breakdown(m, t, ep4, g, 1.0);
    CHECK(in.kernels.host == "megatron");
    CHECK(in.kernels.host_gap.why == HostGap::Why::None);
    CHECK(in.host_wait_s > 0);
    // 16 local experts, more than the 8 measured: not modelled, the GPU's work alone.
    const ComputeBreakdown many = compute_breakdown(m, t, ep1, g, 1.0);
    CHECK(many.kernels.host.empty());
    CHECK(many.kernels.host_gap.why == HostGap::Why::Experts);
    CHECK(many.kernels.host_gap.value == 16);
    CHECK(many.kernels.host_gap.hi == 8);
    CHECK(many.host_wait_s == 0.0);
    // A hidden size outside 32..128, either side.
    for (const int hidden : {16, 256}) {
        CAPTURE(hidden);
        ModelSpec other = m;
        other.hidden = hidden;
        const ComputeBreakdown c = compute_breakdown(other, t, ep4, g, 1.0);
        CHECK(c.kernels.host.empty());
        CHECK(c.kernels.host_gap.why == HostGap::Why::Hidden);
        CHECK(c.kernels.host_gap.value == hidden);
        CHECK(c.host_wait_s == 0.0);
    }
    // Another implementation: Megatron-LM local's fit is not carried to Transformer Engine or HF.
    for (const Implementation impl : {Implementation::MegatronTe, Implementation::Hf}) {
        t.implementation = impl;
        const ComputeBreakdown c = compute_breakdown(m, t, ep4, g, 1.0);
        CHECK(c.kernels.host.empty());
        CHECK(c.kernels.host_gap.why == HostGap::Why::Implementation);
        CHECK(c.kernels.host_gap.measured_for == "megatron-local");
        CHECK(c.host_wait_s == 0.0);
    }
    // A table without a host section says so; host_time none asks for nothing.
    table.host.clear();
    t.implementation = Implementation::MegatronLocal;
    CHECK(compute_breakdown(m, t, ep4, gpu_with(table, 4000, false), 1.0).kernels.host_gap.why == HostGap::Why::NoSection);
    t.host_time = false;
    CHECK(compute_breakdown(m, t, ep4, g, 1.0).kernels.host_gap.why == HostGap::Why::None);
}

TEST_CASE("the power curve: linear in duty between measured points, the ends held, per GEMM precision") {
    PowerCurve c;
    c.gpus = {"H100 SXM", "H200"};
    c.bf16 = {{0.0, 1.0}, {0.5, 0.9}, {1.0, 0.8}};
    c.fp8 = {{0.2, 0.95}, {1.0, 0.7}};
    CHECK(c.ratio(false, 0.25) == doctest::Approx(0.95));
    CHECK(c.ratio(false, 0.75) == doctest::Approx(0.85));
    CHECK(c.ratio(false, 1.0) == doctest::Approx(0.8));
    CHECK(c.ratio(true, 0.6) == doctest::Approx(0.825));
    CHECK(c.ratio(true, 0.1) == doctest::Approx(0.95));  // below the first point: held
    CHECK(c.applies_to("H200"));
    CHECK_FALSE(c.applies_to("A100 SXM 80GB"));
    c.fp8.clear();
    CHECK(c.ratio(true, 0.75) == doctest::Approx(0.85));  // no FP8 points: the bf16 curve
    CHECK(PowerCurve{}.ratio(false, 0.9) == 1.0);
}

TEST_CASE("the kernel table's power section is read, and points out of order or a curve without GPUs refused") {
    const std::string& head = kTableHead;
    const KernelTable t = kernel_table_from_json(
        parse_json_text(head + R"("power": {"gpus": ["H100 SXM"], "source": "sustained.py",
            "bf16": [{"duty": 0, "ratio": 1}, {"duty": 1, "ratio": 0.86}], "fp8": [{"duty": 1, "ratio": 0.84}]}})", "k.json"),
        "k.json");
    REQUIRE(t.power.has_value());
    CHECK(t.power->gpus == std::vector<std::string>{"H100 SXM"});
    CHECK(t.power->ratio(false, 0.5) == doctest::Approx(0.93));
    const auto refused = [&](const std::string& power, const std::string& where) {
        try {
            (void)kernel_table_from_json(parse_json_text(head + R"("power": )" + power + "}", "k.json"), "k.json");
            FAIL("accepted " << power);
        } catch (const Error& e) {
            CHECK_MESSAGE(std::string(e.what()).find(where) != std::string::npos, e.what());
        }
    };
    refused(R"({"gpus": ["H200"], "bf16": [{"duty": 1, "ratio": 0.9}, {"duty": 0.5, "ratio": 0.95}], "fp8": [{"duty": 1, "ratio": 0.8}]})",
            "k.json (/power/bf16/1/duty)");
    refused(R"({"gpus": [], "bf16": [{"duty": 1, "ratio": 0.9}], "fp8": [{"duty": 1, "ratio": 0.8}]})", "k.json (/power/gpus)");
    refused(R"({"gpus": ["H200"], "bf16": [{"duty": 1, "ratio": 0.9}]})", "k.json (/power/fp8)");
    CHECK_FALSE(kernel_table_from_json(parse_json_text(head + R"("gemm_fp8": {}})", "k.json"), "k.json").power.has_value());
}

TEST_CASE("at the power limit: compute-bound ops slow by the curve's ratio at the step's duty, on the GPUs it names only") {
    const ModelSpec m = dense_4096(2);
    const TrainingSpec t = one_sequence();
    KernelTable k = small_table();
    const ParallelSizes one{1, 1, 1, 1, 1, 1, 1, 1};
    const ComputeBreakdown burst = compute_breakdown(m, t, one, gpu_with(k, 4000, false), 1.0);
    CHECK(burst.kernels.power_gpu.empty());
    CHECK(burst.kernels.power_ratio == 1.0);
    k.power = PowerCurve{{"H200"}, "test", {{0.0, 1.0}, {1.0, 0.5}}, {}};
    const ComputeBreakdown held = compute_breakdown(m, t, one, gpu_with(k, 4000, false), 1.0);
    CHECK(held.kernels.power_gpu == "H200");
    // The duty is the compute-bound ops' share of the burst step; the GEMMs and attention slow by
    // the ratio there, the memory-bound ops not at all.
    double tensor = 0;
    for (const ComputeOp& o : burst.ops) {
        tensor += o.flops > 0 && !o.memory_bound && !o.host_bound ? o.seconds : 0.0;
    }
    const double duty = tensor / (burst.comp_s + burst.bubble_s);
    CHECK(held.kernels.power_duty == doctest::Approx(duty));
    CHECK(duty > 0.3);
    CHECK(duty < 1.0);
    const double ratio = 1.0 - 0.5 * duty;
    CHECK(held.kernels.power_ratio == doctest::Approx(ratio));
    CHECK(op_seconds_named(held, "mlp") == doctest::Approx(op_seconds_named(burst, "mlp") / ratio));
    CHECK(op_seconds_named(held, "norms") == doctest::Approx(op_seconds_named(burst, "norms")));
    CHECK(held.comp_s > burst.comp_s);
    // A given (or fitted) compute_scale does not move the duty: it is the model's own.
    const ComputeBreakdown scaled = compute_breakdown(m, t, one, gpu_with(k, 4000, false), 0.25);
    CHECK(scaled.kernels.power_duty == doctest::Approx(duty));
    // A GPU the curve does not name keeps the burst rates.
    const ComputeBreakdown other = compute_breakdown(m, t, one, gpu_with(k, 4000, true), 1.0);
    CHECK(other.kernels.power_gpu.empty());
    CHECK(other.kernels.power_ratio == 1.0);
}

TEST_CASE("the built-in power curve was measured on the H100 and applies to the H100 SXM and the H200 alone") {
    const auto specs = builtin_gpu_specs();
    const GpuSpec* h200 = match_gpu(specs, "H200");
    REQUIRE(h200 != nullptr);
    REQUIRE(h200->kernels->power.has_value());
    const PowerCurve& p = *h200->kernels->power;
    CHECK(p.gpus.front() == "H100 SXM");
    CHECK(p.applies_to("H200"));
    CHECK_FALSE(p.applies_to("A100 SXM 80GB"));
    CHECK_FALSE(p.applies_to("B200"));
    // Measured: more GEMM time, lower sustained rate; FP8 (more power per second) below bf16 at full duty.
    CHECK(p.ratio(false, 0.0) == 1.0);
    CHECK(p.ratio(false, 1.0) < p.ratio(false, 0.5));
    CHECK(p.ratio(true, 1.0) < p.ratio(false, 1.0));
    CHECK(p.ratio(true, 1.0) > 0.8);
}
