// Tests: Hugging Face config.json files (tests/data/hf-configs, real ones; README.md there names
// their sources and the published parameter counts) read into the model section.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "planlayout/error.hpp"
#include "planlayout/ingest/hf_config.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/model/model_spec.hpp"

#include "hf_config_support.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
using namespace hf_fixture;  // NOLINT(google-build-using-namespace)

namespace {

HfModel read_text(const char* text) { return read_hf_config(text, "config.json"); }

}  // namespace

TEST_CASE("Llama 3.1 8B and 70B: dense GQA models") {
    const Read r = read_fixture("llama-3.1-8b-instruct.json");
    CHECK(r.hf.model == nlohmann::json::parse(R"({"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
        "vocab": 128256, "tied_embeddings": false, "ffn_gated": true, "ffn_hidden": 14336, "norms": 2})"));
    CHECK(r.hf.sources.at("/model/hidden") == "llama-3.1-8b-instruct.json (hidden_size)");
    CHECK(r.hf.sources.at("/model/kv_heads") == "llama-3.1-8b-instruct.json (num_key_value_heads)");
    CHECK(r.model.experts == 0);
    // Meta: 8B (whole billions); derived 8.030B. Since wave 3 the count includes the two RMSNorms per
    // layer and the final norm (32·2·4096 + 4096 = 266,240 more than the 8,029,995,008 of the weight
    // matrices alone): transformers' LlamaForCausalLM count, tests/gpu/data/h100-hf-param-counts.
    CHECK(total(r.model) == doctest::Approx(8e9).epsilon(0.01));
    CHECK(total(r.model) == 8030261248.0);
    CHECK(r.model.norms == 2);
    // max_position_embeddings is not the training sequence length; torch_dtype is not the training precision.
    CHECK(any_contains(r.hf.ignored, "max_position_embeddings = 131072: the longest position"));
    CHECK(any_contains(r.hf.ignored, "torch_dtype = \"bfloat16\": the checkpoint's dtype"));
    CHECK(r.hf.warnings.empty());
    const Read big = read_fixture("llama-3.1-70b-instruct.json");
    CHECK(big.model.layers == 80);
    CHECK(total(big.model) == doctest::Approx(70e9).epsilon(0.01));  // derived 70.55B
}

TEST_CASE("Mixtral 8x7B: every layer MoE, each expert intermediate_size wide") {
    const Read r = read_fixture("mixtral-8x7b-v0.1.json");
    CHECK(r.model.experts == 8);
    CHECK(r.model.topk == 2);
    CHECK(r.model.moe_ffn_hidden == 14336);
    CHECK(r.model.moe_layers == 32);
    CHECK(r.hf.sources.at("/model/moe/ffn_hidden") == "mixtral-8x7b-v0.1.json (intermediate_size)");
    CHECK(r.hf.sources.at("/model/moe/experts") == "mixtral-8x7b-v0.1.json (num_local_experts)");
    // Mistral AI: 46.7B total, 12.9B active; derived 46.70B and 12.88B.
    CHECK(total(r.model) == doctest::Approx(46.7e9).epsilon(0.005));
    CHECK(r.model.active_params() == doctest::Approx(12.9e9).epsilon(0.005));
}

TEST_CASE("Qwen2-57B-A14B: a shared expert of shared_expert_intermediate_size") {
    const Read r = read_fixture("qwen2-57b-a14b.json");
    CHECK(r.model.experts == 64);
    CHECK(r.model.topk == 8);
    CHECK(r.model.moe_ffn_hidden == 2560);
    CHECK(r.model.shared_experts == 1);
    CHECK(r.model.derived_shared_ffn_hidden() == 20480);
    CHECK(r.hf.sources.at("/model/moe/shared_ffn_hidden") == "qwen2-57b-a14b.json (shared_expert_intermediate_size)");
    CHECK(r.model.moe_layers == 28);
    // Published as 57B total, 14B active (whole billions); derived 57.41B and 14.25B.
    CHECK(total(r.model) == doctest::Approx(57e9).epsilon(0.01));
    CHECK(r.model.active_params() == doctest::Approx(14e9).epsilon(0.02));
}

TEST_CASE("Qwen3-30B-A3B: head_dim given (q is wider than hidden), no shared expert") {
    const Read r = read_fixture("qwen3-30b-a3b.json");
    CHECK(r.model.derived_head_dim() == 128);
    CHECK(r.model.kv_dim() == 4 * 128);
    CHECK(r.model.shared_experts == 0);
    CHECK(r.model.moe_layers == 48);
    CHECK(r.hf.model.at("moe").count("layer_freq") == 0);  // decoder_sparse_step 1 and no mlp_only_layers: all MoE
    // Qwen: 30.5B total, 3.3B activated, 29.9B without embeddings; derived 30.53B, 3.35B, 29.91B.
    CHECK(total(r.model) == doctest::Approx(30.5e9).epsilon(0.005));
    CHECK(r.model.active_params() == doctest::Approx(3.3e9).epsilon(0.02));
    CHECK(total(r.model) - 2 * embedding(r.model) == doctest::Approx(29.9e9).epsilon(0.005));
}

TEST_CASE("DeepSeek-V3: MLA, 3 leading dense layers, one shared expert - the MTP module is named, not counted") {
    const Read r = read_fixture("deepseek-v3.json");
    REQUIRE(r.model.mla.has_value());
    CHECK(r.model.mla->q_lora_rank == 1536);
    CHECK(r.model.mla->kv_lora_rank == 512);
    CHECK(r.model.mla->qk_head_dim == 128);
    CHECK(r.model.mla->qk_rope_head_dim == 64);
    CHECK(r.model.mla->v_head_dim == 128);
    CHECK(r.model.first_dense_layers == 3);
    CHECK(r.model.moe_layers == 58);
    CHECK(r.model.derived_shared_ffn_hidden() == 2048);
    CHECK(r.hf.sources.at("/model/first_dense_layers") == "deepseek-v3.json (first_k_dense_replace)");
    CHECK(r.hf.sources.at("/model/moe/shared_ffn_hidden") == "derived: n_shared_experts × moe_intermediate_size");
    CHECK(r.hf.sources.at("/model/mla/qk_head_dim") == "deepseek-v3.json (qk_nope_head_dim)");
    CHECK(r.hf.model.count("kv_heads") == 0);
    CHECK(any_contains(r.hf.ignored, "num_key_value_heads = 128: multi-head latent attention"));
    CHECK(any_contains(r.hf.warnings, "num_nextn_predict_layers = 1"));
    CHECK(any_contains(r.hf.ignored, "num_nextn_predict_layers = 1: multi-token prediction"));
    CHECK(any_contains(r.hf.ignored, "quantization_config: how the checkpoint is quantized"));
    CHECK(r.hf.model.at("moe").at("router_groups") == 8);  // group-limited routing: n_group, topk_group
    CHECK(r.hf.model.at("moe").at("router_group_topk") == 4);
    CHECK(r.hf.sources.at("/model/moe/router_groups") == "deepseek-v3.json (n_group)");
    // DeepSeek: 671B total, 37B activated; derived 671.03B (+0.004%), 37.55B (+1.5%).
    CHECK(total(r.model) == doctest::Approx(671e9).epsilon(0.001));
    CHECK(r.model.active_params() == doctest::Approx(37e9).epsilon(0.02));
}

TEST_CASE("gpt-oss-120b: 128 experts, top-4, head_dim 64 - attention, router and expert biases and sinks counted") {
    const Read r = read_fixture("gpt-oss-120b.json");
    CHECK(r.model.experts == 128);
    CHECK(r.model.topk == 4);
    CHECK(r.model.moe_ffn_hidden == 2880);
    CHECK(r.model.head_dim == 64);
    CHECK(r.model.moe_layers == 36);
    // Since wave 3 the biases are counted as transformers builds them (they were named as not counted):
    // GptOssAttention's q/k/v/o biases and sinks, GptOssTopKRouter's bias, GptOssExperts' biases.
    CHECK(r.model.attention_bias);
    CHECK(r.model.attention_out_bias);
    CHECK(r.model.attention_sinks);
    CHECK(r.model.moe_router_bias);
    CHECK(r.model.moe_expert_bias);
    CHECK(r.hf.sources.at("/model/attention_bias") == "gpt-oss-120b.json (attention_bias): q, k and v projection biases");
    CHECK(!any_contains(r.hf.ignored, "attention_bias"));
    CHECK(any_contains(r.hf.ignored, "swiglu_limit = 7.0"));
    CHECK(any_contains(r.hf.ignored, "initial_context_length = 4096"));
    // OpenAI: 116.8B total; 5.1B active, which leaves out the input embedding. Derived 116.83B (biases
    // and sinks included) and 5.71B with it, 5.13B without.
    CHECK(total(r.model) == doctest::Approx(116.8e9).epsilon(0.005));
    CHECK(r.model.active_params() - embedding(r.model) == doctest::Approx(5.1e9).epsilon(0.01));
}

TEST_CASE("layer rules: Qwen's decoder_sparse_step and mlp_only_layers, DeepSeek's moe_layer_freq") {
    // Qwen: layer i is MoE unless listed in mlp_only_layers, when (i + 1) % decoder_sparse_step == 0.
    const HfModel q = read_text(R"({"model_type": "qwen3_moe", "num_hidden_layers": 6, "hidden_size": 64,
        "num_attention_heads": 8, "vocab_size": 100, "intermediate_size": 128, "num_experts": 4,
        "num_experts_per_tok": 2, "moe_intermediate_size": 32, "decoder_sparse_step": 2, "mlp_only_layers": [3]})");
    CHECK(q.model.at("moe").at("layer_freq") == nlohmann::json::parse("[0, 1, 0, 0, 0, 1]"));
    CHECK(q.sources.at("/model/moe/layer_freq").rfind("derived: ", 0) == 0);
    CHECK(model_spec_from_json(q.model, "config.json").moe_layers == 2);
    // Leading dense layers only: written as first_dense_layers.
    const HfModel lead = read_text(R"({"model_type": "qwen2_moe", "num_hidden_layers": 4, "hidden_size": 64,
        "num_attention_heads": 8, "vocab_size": 100, "intermediate_size": 128, "num_experts": 4,
        "num_experts_per_tok": 2, "moe_intermediate_size": 32, "shared_expert_intermediate_size": 0,
        "mlp_only_layers": [0, 1]})");
    CHECK(lead.model.at("first_dense_layers") == 2);
    CHECK(lead.model.at("moe").count("shared_experts") == 0);
    // DeepSeek: MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0; no query compression.
    const HfModel d = read_text(R"({"model_type": "deepseek_v2", "num_hidden_layers": 6, "hidden_size": 64,
        "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128, "n_routed_experts": 8,
        "num_experts_per_tok": 2, "moe_intermediate_size": 16, "n_shared_experts": 2, "first_k_dense_replace": 1,
        "moe_layer_freq": 2, "q_lora_rank": null, "kv_lora_rank": 32, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8,
        "v_head_dim": 16})");
    CHECK(d.model.at("moe").at("layer_freq") == nlohmann::json::parse("[0, 0, 1, 0, 1, 0]"));
    CHECK(d.model.at("mla").at("q_lora_rank") == 0);
    CHECK(d.sources.at("/model/mla/q_lora_rank") == "config.json (q_lora_rank): null, no query compression");
    const ModelSpec m = model_spec_from_json(d.model, "config.json");
    CHECK(m.moe_layers == 2);
    CHECK(m.derived_shared_ffn_hidden() == 32);
    CHECK(m.attention_params_per_layer() == 64.0 * 4 * 24 + 64.0 * 40 + 32.0 * 4 * 32 + 4.0 * 16 * 64);
    // No MoE layer left: read as dense, with a warning.
    const HfModel none = read_text(R"({"model_type": "deepseek_v3", "num_hidden_layers": 2, "hidden_size": 64,
        "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128, "n_routed_experts": 8,
        "num_experts_per_tok": 2, "moe_intermediate_size": 16, "first_k_dense_replace": 2, "kv_lora_rank": 32,
        "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16})");
    CHECK(none.model.count("moe") == 0);
    CHECK(any_contains(none.warnings, "no layer is MoE"));
    CHECK(model_spec_from_json(none.model, "config.json").experts == 0);
}

TEST_CASE("an unknown model_type with --allow-unknown-model is read by its common fields, with a warning naming what was not read") {
    const HfModel h = read_hf_config(R"({"model_type": "gpt2ish", "num_hidden_layers": 12, "hidden_size": 768,
        "num_attention_heads": 12, "vocab_size": 50257, "intermediate_size": 3072, "hidden_act": "gelu_new",
        "num_experts": 8, "n_inner": 3072})",
                                     "config.json", true);
    CHECK(h.model.at("ffn_gated") == false);
    CHECK(h.model.at("tied_embeddings") == true);  // transformers' PretrainedConfig default
    CHECK(h.model.count("moe") == 0);
    REQUIRE(!h.warnings.empty());
    CHECK(any_contains(h.warnings, "model_type \"gpt2ish\" is not one plan-layout knows"));
    CHECK(any_contains(h.warnings, "not read: n_inner, num_experts"));
    CHECK(any_contains(h.warnings, "tie_word_embeddings is not given"));
    CHECK(any_contains(h.warnings, "hidden_act \"gelu_new\": assumed a two-matrix FFN"));
    CHECK(any_contains(h.ignored, "num_experts = 8: not read for model_type gpt2ish"));
    CHECK(model_spec_from_json(h.model, "config.json").ffn_matrices() == 2);
    // A multimodal config: the language model under text_config.
    const HfModel v = read_text(R"({"model_type": "llava", "text_config": {"model_type": "llama", "num_hidden_layers": 2,
        "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128}})");
    CHECK(v.model.at("layers") == 2);
    CHECK(v.sources.at("/model/hidden") == "config.json (text_config/hidden_size)");
    CHECK(any_contains(v.warnings, "text_config"));
}

TEST_CASE("bad configs: the file, the field and the fix") {
    CHECK_THROWS_WITH_AS(read_text(R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4,
                                       "vocab_size": 100, "intermediate_size": 128})"),
                         "config.json (/hidden_size): missing: hidden_size (the hidden size); add \"hidden_size\" as the "
                         "model's published config.json has it, or write the layout's \"model\" section by hand "
                         "(docs/formats/layout.md)",
                         Error);
    CHECK_THROWS_WITH_AS(read_text(R"({"model_type": "llama", "num_hidden_layers": 0, "hidden_size": 64,
                                       "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128})"),
                         "config.json (/num_hidden_layers): num_hidden_layers = 0 is smaller than 1; give a value of at "
                         "least 1",
                         Error);
    CHECK_THROWS_WITH_AS(read_text(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
                                       "num_attention_heads": 4, "num_key_value_heads": 3, "vocab_size": 100,
                                       "intermediate_size": 128})"),
                         doctest::Contains("config.json (/num_key_value_heads): num_attention_heads 4 is not a multiple "
                                           "of num_key_value_heads 3"),
                         Error);
    CHECK_THROWS_WITH_AS(read_text(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 66,
                                       "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128})"),
                         doctest::Contains("hidden_size 66 is not a multiple of num_attention_heads 4"), Error);
    CHECK_THROWS_WITH_AS(read_text(R"({"model_type": "mixtral", "num_hidden_layers": 2, "hidden_size": 64,
                                       "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128,
                                       "num_local_experts": 8, "num_experts_per_tok": 9})"),
                         "config.json (/num_experts_per_tok): num_experts_per_tok = 9 is larger than 8; give a value of "
                         "at most 8",
                         Error);
    CHECK_THROWS_WITH_AS(read_text(R"({"model_type": "deepseek_v3", "num_hidden_layers": 2, "hidden_size": 64,
                                       "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128})"),
                         doctest::Contains("config.json (/kv_lora_rank): missing: kv_lora_rank"), Error);
    CHECK_THROWS_WITH_AS(read_text(R"({"model_type": "qwen3_moe", "num_hidden_layers": 2, "hidden_size": 64,
                                       "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128,
                                       "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
                                       "mlp_only_layers": [5]})"),
                         doctest::Contains("config.json (/mlp_only_layers/0): expected a layer index from 0 to 1, got 5"),
                         Error);
    CHECK_THROWS_WITH_AS(read_text(R"({"model_type": "gpt_oss", "num_hidden_layers": 2, "hidden_size": 64,
                                       "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128,
                                       "num_local_experts": 8, "num_experts_per_tok": 4, "experts_per_token": 2})"),
                         doctest::Contains("experts_per_token 2 differs from num_experts_per_tok 4"), Error);
    CHECK_THROWS_WITH_AS(read_text("[1, 2]"), doctest::Contains("config.json (/): expected an object"), Error);
    CHECK_THROWS_WITH_AS(read_text(R"({"model_type": "llama", "hidden_size": "4096"})"),
                         doctest::Contains("config.json (/num_hidden_layers): missing"), Error);
    CHECK_THROWS_WITH_AS(read_text(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": "4096"})"),
                         doctest::Contains("config.json (/hidden_size): hidden_size must be a whole number, got string"),
                         Error);
}
