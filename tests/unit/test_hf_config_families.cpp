// Tests: the model families read since issue 29 (Gemma 2/3, Phi-3/4, Llama 4, GLM-4.5, Kimi-K2,
// Qwen3-Next) from real config.json files (tests/data/hf-configs, README.md there names their
// sources). Each derived parameter count is checked against the count of transformers' modules
// for that config (weights, norms and biases: what sum(p.numel() for p in model.parameters())
// gives; tests/gpu/hf_param_counts.py recomputes it with transformers) and against the published
// figure.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/ingest/hf_config.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/model/compute_model.hpp"
#include "planlayout/model/model_spec.hpp"

#include "hf_config_support.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
using namespace hf_fixture;  // NOLINT(google-build-using-namespace)

namespace {

int windowed_layers(const ModelSpec& m) {
    int n = 0;
    for (int i = 0; i < m.layers; ++i) {
        n += m.layer_windowed(i) ? 1 : 0;
    }
    return n;
}

}  // namespace

TEST_CASE("Gemma 2 27B: head_dim apart from hidden/heads, four norms a layer, a window on even layers") {
    const Read r = read_fixture("gemma-2-27b.json");
    CHECK(r.model.derived_head_dim() == 128);
    CHECK(r.model.heads * r.model.derived_head_dim() == 4096);  // narrower than hidden 4608
    CHECK(r.model.tied_embeddings);                            // Gemma2Config's default
    CHECK(r.model.ffn_matrices() == 3);                        // GeGLU: gate, up, down
    CHECK(r.model.norms == 4);
    CHECK(r.model.sliding_window == 4096);
    CHECK(windowed_layers(r.model) == 23);
    CHECK(r.model.layer_windowed(0));
    CHECK(!r.model.layer_windowed(1));
    CHECK(r.hf.warnings.empty());
    // transformers' Gemma2ForCausalLM: 27,227,128,320 parameters; Google: 27B (HF: 27.2B).
    CHECK(total(r.model) == 27227128320.0);
    CHECK(total(r.model) == doctest::Approx(27.2e9).epsilon(0.002));
}

TEST_CASE("Gemma 3 1B (gemma3_text): q/k norms, five local layers to one global") {
    const Read r = read_fixture("gemma-3-1b-it.json");
    CHECK(r.model.qk_norm);
    CHECK(r.model.sliding_window == 512);
    CHECK(windowed_layers(r.model) == 26 - 4);  // layers 5, 11, 17, 23 are global
    CHECK(!r.model.layer_windowed(5));
    CHECK(r.hf.sources.at("/model/sliding_window/layers").rfind("derived: ", 0) == 0);
    // transformers' Gemma3ForCausalLM: 999,885,952 parameters; Google: 1B.
    CHECK(total(r.model) == 999885952.0);
    // gemma3 (multimodal): the language model under text_config, vocab_size from Gemma3TextConfig's default.
    const HfModel g = read_hf_config(R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
        "head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504, "num_attention_heads": 32,
        "num_hidden_layers": 62, "num_key_value_heads": 16, "query_pre_attn_scalar": 168, "sliding_window": 1024}})",
                                     "config.json");
    CHECK(g.model.at("vocab") == 262208);
    CHECK(g.sources.at("/model/vocab") == "default of transformers' Gemma3TextConfig (vocab_size = 262208)");
    CHECK(windowed_layers(model_spec_from_json(g.model, "config.json")) == 62 - 10);
}

TEST_CASE("Phi-4 (phi3): fused qkv and gate_up hold what separate projections would") {
    const Read r = read_fixture("phi-4.json");
    CHECK(r.model.kv_heads == 10);
    CHECK(r.model.sliding_window == 0);  // "sliding_window": null
    CHECK(r.model.norms == 2);
    // transformers' Phi3ForCausalLM: 14,659,507,200 parameters; Microsoft: 14B (HF: 14.7B).
    CHECK(total(r.model) == 14659507200.0);
}

TEST_CASE("Llama 4 Scout: text_config, 16 experts and a shared expert on every layer") {
    const Read r = read_fixture("llama-4-scout-17b-16e.json");
    CHECK(r.model.experts == 16);
    CHECK(r.model.topk == 1);
    CHECK(r.model.moe_ffn_hidden == 8192);
    CHECK(r.model.derived_shared_ffn_hidden() == 8192);
    CHECK(r.model.ffn_hidden == 16384);  // intermediate_size_mlp: the dense layers' width (none here)
    CHECK(r.model.moe_layers == 48);
    CHECK(any_contains(r.hf.ignored, "attention_chunk_size = 8192"));
    // transformers' Llama4ForCausalLM (the language model): 107,769,861,120; Meta: 109B total with the
    // vision encoder, 17B active.
    CHECK(total(r.model) == 107769861120.0);
    CHECK(r.model.active_params() == 17172894720.0);
    CHECK(r.model.active_params() == doctest::Approx(17e9).epsilon(0.02));
    // Maverick's interleaving: every second layer MoE (interleave_moe_layer_step 2), dense ones intermediate_size_mlp wide.
    const HfModel m = read_hf_config(R"({"model_type": "llama4", "text_config": {"model_type": "llama4_text",
        "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
        "vocab_size": 100, "intermediate_size": 32, "intermediate_size_mlp": 128, "num_local_experts": 8,
        "num_experts_per_tok": 1, "interleave_moe_layer_step": 2}})",
                                     "config.json");
    CHECK(m.model.at("moe").at("layer_freq") == nlohmann::json::parse("[0, 1, 0, 1]"));
    const ModelSpec ms = model_spec_from_json(m.model, "config.json");
    const double dense_layer = 64.0 * 64 * 2 + 2.0 * 64 * 32 + 3.0 * 64 * 128 + 2 * 64;
    const double moe_layer = 64.0 * 64 * 2 + 2.0 * 64 * 32 + 9.0 * 3 * 64 * 32 + 64.0 * 8 + 2 * 64;
    CHECK(total(ms) == 2 * dense_layer + 2 * moe_layer + 2.0 * 100 * 64 + 64);
}

TEST_CASE("GLM-4.5-Air: q/k/v biases, one leading dense layer, a shared expert - the MTP layer named") {
    const Read r = read_fixture("glm-4.5-air.json");
    CHECK(r.model.attention_bias);
    CHECK(!r.model.qk_norm);  // use_qk_norm false (GLM-4.5 sets it)
    CHECK(r.model.first_dense_layers == 1);
    CHECK(r.model.moe_layers == 45);
    CHECK(r.model.derived_shared_ffn_hidden() == 1408);
    CHECK(any_contains(r.hf.warnings, "num_nextn_predict_layers = 1"));
    // transformers' Glm4MoeForCausalLM: 106,852,245,504 (the MTP layer is not one of its modules);
    // Z.ai: 106B total, 12B active (without the embedding and the output layer: 12.18B).
    CHECK(total(r.model) == 106852245504.0);
    CHECK(total(r.model) == doctest::Approx(106e9).epsilon(0.01));
    CHECK(r.model.active_params() - 2 * embedding(r.model) == doctest::Approx(12e9).epsilon(0.02));
}

TEST_CASE("Kimi-K2: model_type kimi_k2 read as DeepSeek-V3, 384 experts") {
    const Read r = read_fixture("kimi-k2-instruct.json");
    REQUIRE(r.model.mla.has_value());
    CHECK(r.model.mla->q_lora_rank == 1536);
    CHECK(r.model.experts == 384);
    CHECK(r.model.topk == 8);
    CHECK(r.model.first_dense_layers == 1);
    CHECK(r.model.norms == 2);
    CHECK(r.hf.warnings.empty());
    // transformers' DeepseekV3ForCausalLM for this config: 1,026,408,209,408 (norms, q_a/kv_a latent
    // norms included); Moonshot: 1T total, 32B activated.
    CHECK(total(r.model) == 1026408209408.0);
    CHECK(r.model.active_params() == 32861477888.0);
    CHECK(r.model.active_params() == doctest::Approx(32e9).epsilon(0.03));
}

TEST_CASE("Qwen3-Next-80B-A3B: Gated DeltaNet on three layers of four, gated attention on the fourth") {
    const Read r = read_fixture("qwen3-next-80b-a3b-instruct.json");
    REQUIRE(r.model.linear_attention.has_value());
    CHECK(r.model.linear_attention->count() == 36);
    CHECK(!r.model.layer_linear(3));
    CHECK(r.model.layer_linear(0));
    CHECK(r.model.attention_gate);
    CHECK(r.model.qk_norm);
    CHECK(r.model.moe_shared_gate);
    CHECK(r.model.experts == 512);
    CHECK(r.model.topk == 10);
    // One Gated DeltaNet layer (Qwen3NextGatedDeltaNet): in_proj_qkvz 2048×12288, in_proj_ba 2048×64,
    // conv1d 8192×4, dt_bias and A_log 32 each, out_proj 4096×2048, norm 128.
    CHECK(r.model.linear_attention->params_per_layer(2048, true) == 33718464.0);
    // transformers' Qwen3NextForCausalLM: 79,674,391,296; Qwen: 80B total, 3B activated (3.25B without
    // the embedding and the output layer).
    CHECK(total(r.model) == 79674391296.0);
    CHECK(r.model.active_params() == 3874929408.0);
    CHECK(r.model.active_params() - 2 * embedding(r.model) == doctest::Approx(3.0e9).epsilon(0.1));
}

TEST_CASE("sliding windows of the older families: GPT-OSS's layer_types, Mistral's every layer, Qwen's max_window_layers") {
    const Read g = read_fixture("gpt-oss-120b.json");
    CHECK(g.model.sliding_window == 128);
    CHECK(windowed_layers(g.model) == 18);
    CHECK(g.model.layer_windowed(0));
    CHECK(!g.model.layer_windowed(1));
    CHECK(g.model.norms == 2);  // since wave 3: the older families count their norms too (GptOssDecoderLayer)
    const HfModel m = read_hf_config(R"({"model_type": "mistral", "num_hidden_layers": 4, "hidden_size": 64,
        "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128, "sliding_window": 4096})",
                                     "config.json");
    CHECK(m.model.at("sliding_window") == nlohmann::json::parse(R"({"size": 4096})"));
    const HfModel q = read_hf_config(R"({"model_type": "qwen2", "num_hidden_layers": 4, "hidden_size": 64,
        "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128, "use_sliding_window": true,
        "sliding_window": 1024, "max_window_layers": 2})",
                                     "config.json");
    CHECK(q.model.at("sliding_window").at("layers") == nlohmann::json::parse("[0, 0, 1, 1]"));
    const HfModel off = read_hf_config(R"({"model_type": "qwen2", "num_hidden_layers": 4, "hidden_size": 64,
        "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128, "use_sliding_window": false,
        "sliding_window": 1024})",
                                       "config.json");
    CHECK(off.model.count("sliding_window") == 0);
}

TEST_CASE("an unknown model_type is an error unless --allow-unknown-model") {
    const char* text = R"({"model_type": "gpt2ish", "num_hidden_layers": 12, "hidden_size": 768,
        "num_attention_heads": 12, "vocab_size": 50257, "intermediate_size": 3072, "n_inner": 3072})";
    CHECK_THROWS_WITH_AS(read_hf_config(text, "config.json"),
                         doctest::Contains("config.json (/model_type): model_type \"gpt2ish\" is not one plan-layout "
                                           "reads (llama, mistral"),
                         Error);
    CHECK_THROWS_WITH_AS(read_hf_config(text, "config.json"),
                         doctest::Contains("; pass --allow-unknown-model to read only the common fields"), Error);
    const HfModel h = read_hf_config(text, "config.json", true);
    CHECK(any_contains(h.warnings, "not read: n_inner"));
}

TEST_CASE("gpt-oss-120b: model FLOPs per token at 4,096 tokens with its windowed layers") {
    const Read r = read_fixture("gpt-oss-120b.json");
    TrainingSpec t;
    t.global_batch = 1;
    t.micro_batch = 1;
    t.seq_len = 4096;
    GpuSpec g;
    g.name = "H100 SXM";
    g.bf16_tflops = 989;
    g.hbm_gbyte_s = 3350;
    const double per_token = compute_breakdown(r.model, t, ParallelSizes{}, g, 1.0).model_flops / 4096;
    ModelSpec full = r.model;
    full.sliding_window = 0;
    const double full_per_token = compute_breakdown(full, t, ParallelSizes{}, g, 1.0).model_flops / 4096;
    // 18 windowed layers of 64 heads × 64 dims: per token 2·(s/2 − 126)·128·64 fewer forward FLOPs each,
    // × 3.5 with the backward (numbers::kAttentionBackwardFactor.value 2.5).
    CHECK(full_per_token - per_token == doctest::Approx(18 * 2.0 * (2048 - 126) * 128 * 64 * 3.5).epsilon(1e-6));
    // Megatron-Bridge 26.02 (DGX-H100, seq 4096): 163 TFLOP/s/GPU at 5,993 tokens/s/GPU = 27.2 GFLOP per
    // token (tests/data/published/megatron-bridge-dgx-h100.json). Full-length attention gave +28.7 %;
    // with the windows +21.4 % remains, not from attention (its whole term is 2.4 GFLOP/token): the
    // GEMMs' 6·N of 5.13B active parameters (no input embedding) alone are 30.8 GFLOP/token.
    const double published = 163e12 / 5993;
    CHECK(full_per_token / published == doctest::Approx(1.287).epsilon(0.003));
    CHECK(per_token / published == doctest::Approx(1.214).epsilon(0.003));
}

TEST_CASE("every fixture's parameter count is transformers' count") {
    // tests/gpu/data/h100-hf-param-counts: transformers 5.17.0's sum(p.numel()) for each config of
    // tests/data/hf-configs, built on the meta device (README.md there).
    const std::string path = std::string(PLANLAYOUT_SOURCE_DIR) + "/tests/gpu/data/h100-hf-param-counts/hf-param-counts.json";
    const nlohmann::json measured = nlohmann::json::parse(read_text_file(path));
    const nlohmann::json& params = measured.at("params");
    REQUIRE(params.size() == 15);
    for (const auto& item : params.items()) {
        const std::string& key = item.key();
        CAPTURE(key);
        const Read r = read_fixture(key);
        CHECK(total(r.model) == static_cast<double>(item.value().get<std::int64_t>()));
    }
}

namespace {

// A two-layer dense model of the given model_type written from transformers' modules: hidden 64,
// 4 heads of 16, 2 key/value heads, FFN 128, vocabulary 100, untied; `extra` adds fields.
double tiny_dense_total(const std::string& type, const std::string& extra, HfModel* out = nullptr) {
    const HfModel h = read_hf_config(R"({"model_type": ")" + type + R"(", "num_hidden_layers": 2, "hidden_size": 64,
        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100, "intermediate_size": 128,
        "tie_word_embeddings": false)" + extra + "}",
                                     "config.json");
    if (out != nullptr) {
        *out = h;
    }
    return total(model_spec_from_json(h.model, "config.json"));
}

// Per layer: q 64×64, k and v 64×32, o 64×64; gate, up, down 3×64×128; two RMSNorms of 64. Plus the
// embedding and lm_head 2×100×64 and the final norm 64.
constexpr double kLayerWeights = 64.0 * 64 * 2 + 64.0 * 32 * 2 + 3.0 * 64 * 128 + 2 * 64;
constexpr double kOutside = 2.0 * 100 * 64 + 64;

}  // namespace

TEST_CASE("dense families' biases and norms as transformers builds them: Llama, Qwen2, Qwen3, Mistral") {
    // LlamaAttention: q, k, v, o biases with attention_bias (64 + 32 + 32 + 64); LlamaMLP: gate, up,
    // down biases with mlp_bias (128 + 128 + 64).
    CHECK(tiny_dense_total("llama", "") == 2 * kLayerWeights + kOutside);
    CHECK(tiny_dense_total("llama", R"(, "attention_bias": true)") == 2 * (kLayerWeights + 192) + kOutside);
    HfModel h;
    CHECK(tiny_dense_total("llama", R"(, "attention_bias": true, "mlp_bias": true)", &h) ==
          2 * (kLayerWeights + 192 + 320) + kOutside);
    CHECK(h.sources.at("/model/attention_out_bias") == "config.json (attention_bias): o_proj bias");
    CHECK(h.ignored.empty());
    // Qwen2Attention: q, k, v biases whatever the config says (no attention_bias in Qwen2Config), none on o_proj.
    CHECK(tiny_dense_total("qwen2", "", &h) == 2 * (kLayerWeights + 128) + kOutside);
    CHECK(tiny_dense_total("qwen2", R"(, "attention_bias": true)", &h) == 2 * (kLayerWeights + 128) + kOutside);
    CHECK(any_contains(h.ignored, "attention_bias = true: not read for this model_type"));
    // Qwen3Attention: q_norm and k_norm of head_dim (2 × 16), LlamaAttention's biases with attention_bias;
    // Qwen3MLP (GemmaMLP) has none.
    CHECK(tiny_dense_total("qwen3", "") == 2 * (kLayerWeights + 32) + kOutside);
    CHECK(tiny_dense_total("qwen3", R"(, "attention_bias": true)") == 2 * (kLayerWeights + 32 + 192) + kOutside);
    // MistralAttention and MistralMLP: bias=False whatever the config says.
    CHECK(tiny_dense_total("mistral", R"(, "attention_bias": true, "mlp_bias": true)", &h) == 2 * kLayerWeights + kOutside);
    CHECK(any_contains(h.ignored, "mlp_bias = true: not read for this model_type"));
}

TEST_CASE("Gemma 2/3 and Llama 4 count q, k, v and o biases when attention_bias is true") {
    // Gemma2Attention, Gemma3Attention, Llama4TextAttention: bias=config.attention_bias on q, k, v
    // and o (64 + 32 + 32 + 64 per layer here); false in their configs' defaults.
    HfModel h;
    for (const std::string type : {"gemma2", "gemma3_text"}) {
        CAPTURE(type);
        const double off = tiny_dense_total(type, "");
        CHECK(tiny_dense_total(type, R"(, "attention_bias": false)") == off);
        CHECK(tiny_dense_total(type, R"(, "attention_bias": true)", &h) == off + 2 * 192);
        CHECK(h.sources.at("/model/attention_out_bias") == "config.json (attention_bias): o_proj bias");
        CHECK(!any_contains(h.ignored, "attention_bias"));
    }
    const std::string llama4 = R"(, "num_local_experts": 4, "num_experts_per_tok": 1, "intermediate_size_mlp": 256)";
    const double off = tiny_dense_total("llama4_text", llama4);
    CHECK(tiny_dense_total("llama4_text", llama4 + R"(, "attention_bias": true)", &h) == off + 2 * 192);
    CHECK(!any_contains(h.ignored, "attention_bias"));
}

TEST_CASE("MoE families' biases: Qwen2-MoE's qkv_bias and shared-expert gate, DeepSeek's MLA attention_bias") {
    // Qwen2MoeAttention: q, k, v biases when qkv_bias (Qwen2MoeConfig's default true); Qwen2MoeSparseMoeBlock:
    // router 64×4, 4 experts 3×64×32, a shared expert 3×64×128 and its gate 64×1.
    const std::string moe = R"({"model_type": "qwen2_moe", "num_hidden_layers": 2, "hidden_size": 64,
        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100, "intermediate_size": 128,
        "tie_word_embeddings": false, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
        "shared_expert_intermediate_size": 128)";
    const double attention = 64.0 * 64 * 2 + 64.0 * 32 * 2;
    const double moe_layer = attention + 64.0 * 4 + 4 * 3.0 * 64 * 32 + 3.0 * 64 * 128 + 64 + 2 * 64;
    const ModelSpec on = model_spec_from_json(read_hf_config(moe + "}", "config.json").model, "config.json");
    CHECK(on.moe_shared_gate);
    CHECK(total(on) == 2 * (moe_layer + 128) + kOutside);
    const ModelSpec off = model_spec_from_json(read_hf_config(moe + R"(, "qkv_bias": false})", "config.json").model,
                                               "config.json");
    CHECK(total(off) == 2 * moe_layer + kOutside);
    // A shared expert of width 0: Qwen2MoeSparseMoeBlock still builds its gate (h × 1 per layer).
    std::string none = moe;
    none.replace(none.find(R"("shared_expert_intermediate_size": 128)"), 38, R"("shared_expert_intermediate_size": 0)");
    const ModelSpec no_shared = model_spec_from_json(read_hf_config(none + "}", "config.json").model, "config.json");
    CHECK(no_shared.moe_shared_gate);
    CHECK(total(no_shared) == 2 * (moe_layer - 3.0 * 64 * 128 + 128) + kOutside);
    // DeepseekV3Attention with attention_bias: q_a_proj (q_lora_rank 32), kv_a_proj_with_mqa (16 + 4) and
    // o_proj (64) biases; q_a_layernorm 32 and kv_a_layernorm 16. A dense model (n_routed_experts null).
    const HfModel d = read_hf_config(R"({"model_type": "deepseek_v3", "num_hidden_layers": 1, "hidden_size": 64,
        "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128, "tie_word_embeddings": false,
        "q_lora_rank": 32, "kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 8,
        "n_routed_experts": null, "attention_bias": true})",
                                     "config.json");
    const double mla = 64.0 * 32 + 32.0 * 4 * 12 + 64.0 * 20 + 16.0 * 4 * 16 + 4.0 * 8 * 64;
    CHECK(total(model_spec_from_json(d.model, "config.json")) ==
          mla + (32 + 20 + 64) + (32 + 16) + 3.0 * 64 * 128 + 2 * 64 + kOutside);
}
