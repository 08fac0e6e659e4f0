// Tests: memory per GPU against figures computed by hand, and the budget it is checked against
// (the node templates' GPU memory, the smallest of the nodes the job uses; --gpu-memory; the
// headroom), in plan(), its warnings and search.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "planlayout/analysis/search.hpp"
#include "planlayout/emit/report_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/model/memory.hpp"
#include "planlayout/plan.hpp"
#include "planlayout/text_format.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
namespace fs = std::filesystem;

namespace {

constexpr double kH100Bytes = 81559.0 * 1024 * 1024;  // layouts/nodes/h100-hgx-8gpu-8nic.json: 81559 MiB
constexpr double kL40SBytes = 46068.0 * 1024 * 1024;  // layouts/nodes/pcie-8gpu-4nic.json: 46068 MiB

// A Llama-3-8B-like dense model (32 layers, h 4096, 32 heads of 128, 8 KV heads, gated FFN
// 14336, vocabulary 128256, untied embeddings), 8k tokens, bf16, sequence parallelism and the
// distributed optimizer, on `cluster` with tp 2, pp 2 (8 GPUs: dp 2).
std::string llama_layout(const std::string& cluster) {
    return R"({"cluster": )" + cluster + R"(,
      "parallel": {"tp": 2, "pp": 2, "world": 8},
      "model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128,
                "ffn_hidden": 14336, "vocab": 128256},
      "training": {"global_batch": 128, "micro_batch": 1, "seq_len": 8192, "sequence_parallel": true,
                   "distributed_optimizer": true}})";
}

Report plan_text(const std::string& text, const MemoryLimits& limits = {}) {
    PlanRequest r;
    r.layout_text = text;
    r.layout_name = "test.json";
    r.base_dir = PLANLAYOUT_SOURCE_DIR;
    r.memory_limits = limits;
    return plan(r);
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// "fits", "does not fit" or "unknown" (doctest prints strings, not optionals).
std::string fit(const MemoryReport& m) {
    const auto f = m.fits();
    return !f ? "unknown" : (*f ? "fits" : "does not fit");
}

bool has_warning(const Report& r, const std::string& text) {
    return std::any_of(r.warnings.begin(), r.warnings.end(),
                       [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

// Llama-3-8B's shape: h 4096, 32 heads and 8 KV heads of 128, FFN 14336, vocabulary 128256.
ModelSpec llama8b_like(int layers) {
    ModelSpec m;
    m.layers = layers;
    m.hidden = 4096;
    m.heads = 32;
    m.kv_heads = 8;
    m.head_dim = 128;
    m.ffn_hidden = 14336;
    m.vocab = 128256;
    return m;
}

}  // namespace

TEST_CASE("memory per GPU, by hand: a Llama-3-8B-like dense model at tp2 pp2 dp2, bf16, distributed optimizer") {
    // Parameters (norms left out), per layer:
    //   attention 2·h·(heads·hd) + 2·h·(kv·hd) = 2·4096·4096 + 2·4096·1024 =  41,943,040
    //   gated FFN 3·h·ffn = 3·4096·14336                                   = 176,160,768
    //   32 layers × 218,103,808                                            = 6,979,321,856
    //   embeddings, untied: 2·128256·4096                                  = 1,050,673,152
    //   Ψ = 8,029,995,008
    // One rank holds Ψ/(tp·pp) = 2,007,498,752 parameters:
    //   weights     2 bytes each                                      =  4,014,997,504
    //   gradients   2 bytes each (the layout's default gradient dtype; the distributed optimizer
    //               does not shard them)                              =  4,014,997,504
    //   optimizer   12 bytes each (fp32 master, Adam m, v), sharded over dp = 2
    //               12 · 2,007,498,752 / 2                            = 12,044,992,512
    //   activations s·b·h = 8192·1·4096 = 33,554,432; with sequence parallelism 34·sbh/tp =
    //               570,425,344 per layer and micro-batch, its 4h GELU MLP's 16·sbh/tp =
    //               268,435,456 replaced by this gated MLP's FC1 and activation outputs
    //               2·s·b·3·ffn/tp = 2·8192·3·14336/2 = 352,321,536: 654,311,424; fused
    //               attention keeps K and V 8 heads wide, not h: β·sbh/tp·(3h − q − 2kv)/h =
    //               2·16,777,216·(12288 − 4096 − 2048)/4096 = 50,331,648 less: 603,979,776; the
    //               first stage holds ⌈32/2⌉ = 16 layers for min(pp, m) = min(2, 128/(1·2)) = 2
    //               micro-batches (1F1B)
    //               2 · 16 · 603,979,776                              = 19,327,352,832
    //   total                                                         = 39,402,340,352 (36.7 GiB)
    const Report r = plan_text(llama_layout(R"({"nodes": 1, "node": "h100-hgx-8gpu-8nic"})"));
    REQUIRE(r.memory);
    const MemoryEstimate& e = r.memory->estimate;
    CHECK(e.params_bytes == 4014997504.0);
    CHECK(e.grads_bytes == 4014997504.0);
    CHECK(e.gathered_bytes == 0);
    CHECK(e.optimizer_bytes == 12044992512.0);
    CHECK(e.activations_bytes == 19327352832.0);
    CHECK(e.total_bytes() == 39402340352.0);
    // The budget: the template's 81559 MiB less the default 6 GiB headroom = 73.6 GiB: it fits.
    CHECK(r.memory->budget.gpu_memory_bytes == kH100Bytes);
    CHECK(r.memory->budget.headroom_bytes == 6 * kGiB);
    CHECK(r.memory->budget.budget_bytes() == kH100Bytes - 6 * kGiB);
    CHECK(r.memory->budget.source == "node template h100-hgx-8gpu-8nic");
    CHECK(fit(*r.memory) == "fits");
    CHECK(!has_warning(r, "memory per GPU"));
    // The same figures straight from the estimate (tp 2, pp 2, cp 1, dp 2).
    const ModelSpec m = llama8b_like(32);
    TrainingSpec t;
    t.global_batch = 128;
    t.seq_len = 8192;
    t.sequence_parallel = true;
    t.distributed_optimizer = true;
    CHECK(estimate_memory({2, 2, 1, 2, 1, 2, 2, 1}, m, t).total_bytes() == 39402340352.0);
    // Without the distributed optimizer the optimizer state is whole: 12 · 2,007,498,752.
    t.distributed_optimizer = false;
    CHECK(estimate_memory({2, 2, 1, 2, 1, 2, 2, 1}, m, t).optimizer_bytes == 24089985024.0);
}

TEST_CASE("fused attention keeps K and V kv_heads wide, unfused attention and torchtitan keep Korthikanti's h") {
    // Llama-3-8B-like: h 4096, 32 heads and 8 KV heads of 128, one layer; s·b·h = 8192·4096.
    ModelSpec m = llama8b_like(1);
    TrainingSpec t;
    t.global_batch = 1;
    t.seq_len = 8192;
    t.hidden_dropout = 0;  // no dropout masks, which torchtitan's models never keep
    const ParallelSizes p{2, 1, 1, 1, 1, 1, 1, 1};  // tp 2: everything per rank /2
    const double megatron = estimate_memory(p, m, t, {Framework::Megatron, 0}).activations_bytes;
    const double torchtitan = estimate_memory(p, m, t, {Framework::Torchtitan, 0}).activations_bytes;
    // Megatron's fused attention keeps Q 4096, K and V 1024 wide where Korthikanti counts 3 × 4096:
    // β·s·b·(3h − q − 2kv)/t = 2·8192·6144/2 bytes less. torchtitan expands K and V (repeat_kv).
    CHECK(torchtitan - megatron == 2.0 * 8192 * 6144 / 2);
    // Unfused attention (Megatron-LM local) expands K and V to every head too: no difference.
    t.attention_backend = AttentionBackend::Unfused;
    CHECK(estimate_memory(p, m, t, {Framework::Torchtitan, 0}).activations_bytes ==
          estimate_memory(p, m, t, {Framework::Megatron, 0}).activations_bytes);
    // Multi-head attention keeps h-wide K and V either way.
    t.attention_backend = AttentionBackend::Auto;
    m.kv_heads = 32;
    CHECK(estimate_memory(p, m, t, {Framework::Torchtitan, 0}).activations_bytes ==
          estimate_memory(p, m, t, {Framework::Megatron, 0}).activations_bytes);
}

TEST_CASE("memory per GPU, by hand: the seed's MoE layout A (tp1 pp1 ep16 dp16, LoRA)") {
    // layouts/seed-2x8-ep16.json: 43 layers (3 dense, 40 MoE), h 4096, 32 heads of 128, 4 KV
    // heads, dense FFN 12288, vocabulary 129280, 256 experts of FFN 2048, top-6, 1 shared expert.
    //   attention 2·4096·4096 + 2·4096·512 = 37,748,736 per layer × 43  = 1,623,195,648
    //   3 dense FFNs 3·4096·12288 = 150,994,944 × 3                    =   452,984,832
    //   40 MoE layers: router 4096·256 + shared 3·4096·2048 = 26,214,400 × 40 = 1,048,576,000
    //   embeddings 2·129280·4096                                       = 1,059,061,760
    //   Ψ_d = 4,183,818,240;  Ψ_e = 40·256·3·4096·2048 = 257,698,037,760
    // One rank: Ψ_d/(tp·pp) + Ψ_e/(ep·etp·pp) = 4,183,818,240 + 16,106,127,360 = 20,289,945,600
    //   weights     2 bytes each = 40,579,891,200, plus the 1e8 LoRA adapters (all dense,
    //               expert_share 0) at 2 bytes = 200,000,000            → 40,779,891,200
    //   gradients   the adapters only, 2 bytes, not sharded (ZeRO 0)   =    200,000,000
    //   optimizer   12 bytes per adapter parameter, not sharded        =  1,200,000,000
    //   activations s·b·h = 512·1·4096 = 2,097,152; no SP, no recompute: (10 + 24/1)·sbh =
    //               71,303,168 per layer less its 4h GELU MLP's 16·sbh = 33,554,432 →
    //               37,748,736; the 3 dense layers add their gated MLP's FC1 and activation
    //               outputs 2·s·3·12288 = 37,748,736 (75,497,472 each); the 40 MoE layers add
    //               the routed copies in and out 2·topk·sbh·β = 2·6·2,097,152·2 = 50,331,648,
    //               the experts' FC1 outputs 6·512·2·2048·2 = 25,165,824 and activation
    //               outputs 6·512·2048·2 = 12,582,912, the shared expert's 2·512·3·2048 =
    //               6,291,456 (132,120,576 each); fused attention keeps K and V 4 heads wide:
    //               each layer β·sbh·(3h − q − 2kv)/h = 2·2,097,152·7168/4096 = 7,340,032 less
    //               (68,157,440 dense, 124,780,544 MoE); one stage of 43 layers, min(pp, m) =
    //               min(1, 16/16) = 1; the one stage is also the last: the output layer's
    //               input and the fp32 logits, 4·s·b·(h + V) = 4·512·(4096 + 129280) = 273,154,048
    //               3 · 68,157,440 + 40 · 124,780,544 + 273,154,048    =  5,468,848,128
    //   total                                                         = 47,648,739,328 (44.4 GiB)
    const Report r = plan_text(slurp(fs::path(PLANLAYOUT_SOURCE_DIR) / "layouts/seed-2x8-ep16.json"));
    REQUIRE(r.memory);
    const MemoryEstimate& e = r.memory->estimate;
    CHECK(e.params_bytes == 40779891200.0);
    CHECK(e.grads_bytes == 200000000.0);
    CHECK(e.optimizer_bytes == 1200000000.0);
    CHECK(e.activations_bytes == doctest::Approx(5468848128.0).epsilon(1e-12));  // 40/43 · 43 in doubles
    CHECK(e.total_bytes() == doctest::Approx(47648739328.0).epsilon(1e-12));
    CHECK(fit(*r.memory) == "fits");  // 44.4 GiB of 73.6 GiB
    // The JSON carries the same figures as integers, and the budget.
    const auto j = to_json(*r.memory);
    CHECK(j["params"] == 40779891200);
    CHECK(j["activations"] == 5468848128);
    CHECK(j["total"] == 47648739328);
    CHECK(j["gpu_memory"] == 85520809984);  // 81559 MiB
    CHECK(j["headroom"] == 6442450944);
    CHECK(j["budget"] == 79078359040);
    CHECK(j["fits"] == true);
}

TEST_CASE("memory budget: --gpu-memory overrides the template, the headroom is taken off, too little does not fit") {
    const std::string layout = llama_layout(R"({"nodes": 1, "node": "h100-hgx-8gpu-8nic"})");
    // 40 GiB less 6 GiB = 34 GiB < the 36.7 GiB needed: a warning that names both.
    const Report small = plan_text(layout, {40 * kGiB, std::nullopt});
    REQUIRE(small.memory);
    CHECK(small.memory->budget.source == "given");
    CHECK(small.memory->budget.budget_bytes() == 34 * kGiB);
    CHECK(fit(*small.memory) == "does not fit");
    CHECK(has_warning(small, "memory per GPU: the busiest rank needs 36.7 GiB, over the budget of 34.0 GiB = 40.0 GiB "
                             "GPU memory (given) - 6.0 GiB headroom"));
    const std::string text = report_text(small, {});
    CHECK(text.find("  total         36.7 GiB: does NOT fit, 2.7 GiB over the budget\n") != std::string::npos);
    CHECK(to_json(*small.memory)["fits"] == false);
    // No headroom: 40 GiB holds it.
    const Report roomy = plan_text(layout, {40 * kGiB, 0.0});
    CHECK(fit(*roomy.memory) == "fits");
    CHECK(roomy.memory->budget.headroom_bytes == 0);
    // A headroom that leaves nothing is refused.
    CHECK_THROWS_WITH_AS(plan_text(layout, {4 * kGiB, std::nullopt}),
                         "memory headroom 6.0 GiB: leaves nothing of the 4.0 GiB of GPU memory (given); give a headroom "
                         "below the GPU memory (--memory-headroom)",
                         Error);
}

TEST_CASE("memory budget: the smallest GPU memory among the nodes the job uses - unknown when a template gives none") {
    // Node a0 is an H100 node, b0 an L40S node; 8 ranks fill a0 only, 16 fill both.
    const std::string mixed =
        R"({"nodes": [{"host": "a0", "node": "h100-hgx-8gpu-8nic"}, {"host": "b0", "node": "pcie-8gpu-4nic"}]})";
    const Report h100_only = plan_text(llama_layout(mixed));
    CHECK(h100_only.memory->budget.gpu_memory_bytes == kH100Bytes);
    CHECK(h100_only.memory->budget.source == "node template h100-hgx-8gpu-8nic");
    std::string both = llama_layout(mixed);
    both.replace(both.find("\"world\": 8"), 10, "\"world\": 16");
    const Report r = plan_text(both);
    CHECK(r.memory->budget.gpu_memory_bytes == kL40SBytes);
    CHECK(r.memory->budget.source == "node template pcie-8gpu-4nic, the smallest of the 2 the job uses");
    // A template without gpu_memory_mib (an nvidia-smi capture has none): no budget, a warning.
    Cluster cluster = load_cluster_file((fs::path(PLANLAYOUT_SOURCE_DIR) / "layouts/seed-2x8-ep16.json").string());
    cluster.templates.front().gpu_memory_bytes = 0;
    const MemoryBudget unknown = memory_budget(cluster, node_major_placement(cluster, 16), {});
    CHECK(!unknown.known());
    CHECK(unknown.budget_bytes() == 0);
    CHECK(unknown.source == "node template h100-hgx-8gpu-8nic gives no gpu_memory_mib");
    MemoryEstimate four;
    four.params_bytes = 1;
    four.grads_bytes = 2;
    four.optimizer_bytes = 3;
    four.activations_bytes = 4;
    const MemoryReport m{four, unknown};
    CHECK(fit(m) == "unknown");
    CHECK(memory_warning(m).value_or("").find("no budget to check the 10 B against") != std::string::npos);
    CHECK(to_json(m)["fits"].is_null());
    // The given figure needs no template.
    CHECK(memory_budget(cluster, node_major_placement(cluster, 16), {80 * kGiB, 2 * kGiB}).budget_bytes() == 78 * kGiB);
}

TEST_CASE("search prunes with the budget analyze checks against") {
    const fs::path path = fs::path(PLANLAYOUT_SOURCE_DIR) / "layouts/seed-2x8-ep16.json";
    const Cluster cluster = load_cluster_file(path.string());
    const Report seed = plan_text(slurp(path));
    SearchModel model;
    const auto j = nlohmann::json::parse(seed.sections.dump());
    model.model = model_spec_from_json(j.at("model"), "seed");
    model.training = training_spec_from_json(j.at("training"), "seed");
    const SearchResult r = search_layouts(cluster, model, {});
    CHECK(r.budget.budget_bytes() == seed.memory->budget.budget_bytes());
    CHECK(r.budget.source == seed.memory->budget.source);
    CHECK(r.pruned_memory > 0);
    CHECK(r.smallest_pruned_bytes > r.budget.budget_bytes());
    for (const auto& l : r.layouts) {
        CHECK(l.memory.total_bytes() <= r.budget.budget_bytes());
    }
    // An unknown budget prunes nothing.
    Cluster unknown = cluster;
    unknown.templates.front().gpu_memory_bytes = 0;
    const SearchResult all = search_layouts(unknown, model, {});
    CHECK(all.pruned_memory == 0);
    CHECK(all.evaluated == r.evaluated + r.pruned_memory);
}
