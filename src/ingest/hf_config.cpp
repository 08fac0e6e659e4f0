// Ingest: a Hugging Face config.json read into a layout's "model" section. Each family's fields
// and the layer rules follow transformers' modeling code (MixtralSparseMoeBlock,
// Qwen2MoeDecoderLayer, DeepseekV3DecoderLayer, GptOssMLP); docs/formats/hf-config.md lists them.
// Over 500 lines: one reader for every family: HfReader (file-local) records each key a family's
// reader uses, so that list_unused can name the rest; the families' readers are a few dozen lines
// each and would need HfReader in a private header to live apart.
#include "planlayout/ingest/hf_config.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <optional>
#include <set>
#include <string_view>

#include "planlayout/error.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/names.hpp"

namespace planlayout {

namespace {

constexpr int kMaxCount = 1 << 30;  // heads, experts, vocabulary (as the model section allows)
constexpr int kMaxLayers = 1 << 16;  // the reader may write one 0/1 per layer
constexpr int kMaxHfDim = 1 << 24;    // widths (as the model section allows)

enum class Family { Dense, Mixtral, QwenMoe, DeepSeek, GptOss, Gemma2, Gemma3, Llama4, Glm4Moe, Qwen3Next, Unknown };

struct FamilyName {
    std::string_view type;
    Family family;
};

constexpr std::array<FamilyName, 19> kFamilies = {{{"llama", Family::Dense},
                                                   {"mistral", Family::Dense},
                                                   {"qwen2", Family::Dense},
                                                   {"qwen3", Family::Dense},
                                                   {"phi3", Family::Dense},
                                                   {"mixtral", Family::Mixtral},
                                                   {"qwen2_moe", Family::QwenMoe},
                                                   {"qwen3_moe", Family::QwenMoe},
                                                   {"deepseek_v2", Family::DeepSeek},
                                                   {"deepseek_v3", Family::DeepSeek},
                                                   {"kimi_k2", Family::DeepSeek},
                                                   {"gpt_oss", Family::GptOss},
                                                   {"gemma2", Family::Gemma2},
                                                   {"gemma3_text", Family::Gemma3},
                                                   {"gemma3", Family::Gemma3},
                                                   {"llama4_text", Family::Llama4},
                                                   {"llama4", Family::Llama4},
                                                   {"glm4_moe", Family::Glm4Moe},
                                                   {"qwen3_next", Family::Qwen3Next}}};

// Fields that change neither the parameter count nor the traffic: passed over silently.
constexpr std::array<std::string_view, 53> kHarmless = {
    "architectures",     "model_type",          "transformers_version", "_name_or_path",       "auto_map",
    "bos_token_id",      "eos_token_id",        "pad_token_id",         "initializer_range",   "rms_norm_eps",
    "layer_norm_eps",    "layer_norm_epsilon",  "use_cache",            "attention_dropout",   "hidden_dropout",
    "rope_theta",        "rope_scaling",        "rope_parameters",      "rope_interleave",     "output_router_logits",
    "router_aux_loss_coef", "aux_loss_alpha",   "seq_aux",              "pretraining_tp",      "max_window_layers",
    "use_sliding_window", "norm_topk_prob",     "routed_scaling_factor", "scoring_func",       "topk_method",
    "router_jitter_noise", "use_mrope",         "partial_rotary_factor", "qk_layernorm",       "use_qk_norm",
    "tie_word_embeddings", "hidden_act",
    // Gemma, Phi-3, Llama 4, Qwen3-Next: scalings, caps, dropouts and RoPE choices (no weights, FLOPs unchanged)
    "hidden_activation", "query_pre_attn_scalar", "attn_logit_softcapping", "final_logit_softcapping",
    "cache_implementation", "sliding_window_size", "rope_local_base_freq", "embd_pdrop", "resid_pdrop",
    "original_max_position_embeddings", "no_rope_layers", "no_rope_layer_interval", "attn_temperature_tuning",
    "attn_scale", "floor_scale", "for_llm_compressor"};

// Fields that bear on size, precision or traffic but are not modelled, and why.
struct Note {
    std::string_view key;
    std::string_view why;
};

constexpr std::array<Note, 16> kNotes = {{
    {"attention_chunk_size", "Llama 4's chunked attention on its RoPE layers (keys within the same chunk): "
                             "attention FLOPs are counted over the whole causal sequence"},
    {"max_position_embeddings", "the longest position the model was built for, not the training sequence length: "
                                "give /training/seq_len"},
    {"initial_context_length", "the pre-training context length, not this run's: give /training/seq_len"},
    {"torch_dtype", "the checkpoint's dtype, not the training precision: /model/dtype_bytes (default 2, bf16) and "
                    "/training/fp8 say that"},
    {"dtype", "the checkpoint's dtype, not the training precision: /model/dtype_bytes (default 2, bf16) and "
              "/training/fp8 say that"},
    {"quantization_config", "how the checkpoint is quantized, not the training precision (/training/fp8)"},
    {"sliding_window", "a local attention window: weights and communication unchanged, attention compute smaller"},
    {"layer_types", "which layers attend through a sliding window: weights and communication unchanged"},
    {"attention_bias", "not read for this model_type: the count has the attention biases docs/formats/hf-config.md "
                       "lists for it (none, or Qwen2's fixed q/k/v biases) whatever this says"},
    {"mlp_bias", "not read for this model_type: the count has no MLP biases for it (docs/formats/hf-config.md) "
                 "whatever this says"},
    {"swiglu_limit", "a clamp inside the gated FFN: counted as a gated (3-matrix) FFN"},
    {"ep_size", "an inference setting, not the training expert parallelism (give that in \"parallel\")"},
    {"num_nextn_predict_layers", "multi-token prediction modules are not counted (DeepSeek-V3's one module holds "
                                 "11.5B more parameters) and not placed on a pipeline stage"},
    {"num_key_value_heads", "multi-head latent attention: K and V come from the latent (/model/mla)"},
}};

std::string_view note_of(std::string_view key) {
    const auto* n = std::find_if(kNotes.begin(), kNotes.end(), [&](const Note& x) { return x.key == key; });
    return n == kNotes.end() ? std::string_view() : n->why;
}

std::string scalar_text(const nlohmann::json& v) {
    return v.is_primitive() ? " = " + printable(v.dump()) : std::string();
}

// The fields of one config, read with the range checks of the model section; remembers which
// fields it used and writes each key with its source.
class HfReader {
public:
    HfReader(const JsonReader& r, std::string file, std::string prefix, HfModel& out)
        : r_(r), file_(std::move(file)), prefix_(std::move(prefix)), out_(out) {}

    [[nodiscard]] const JsonReader& json() const { return r_; }

    [[nodiscard]] bool has(const std::string& key) const { return r_.has(key); }

    void use(const std::string& key) { used_.insert(key); }

    [[nodiscard]] bool used(const std::string& key) const { return used_.count(key) > 0; }

    std::optional<int> integer(const std::string& key, int min, int max) {
        use(key);
        const auto v = r_.get_int(key, min, max);
        return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
    }

    int required(const std::string& key, int min, int max, const std::string& what) {
        const auto v = integer(key, min, max);
        if (!v) {
            throw input_error(r_.where(key), "missing: " + key + " (" + what + ")",
                              "add \"" + key + "\" as the model's published config.json has it, or write the layout's "
                              "\"model\" section by hand (docs/formats/layout.md)");
        }
        return *v;
    }

    // The source of a value read from one field: "config.json (hidden_size)".
    [[nodiscard]] std::string from(const std::string& key) const { return file_ + " (" + prefix_ + key + ")"; }

    void set(const std::string& pointer, const nlohmann::json& value, const std::string& source) {
        out_.model[nlohmann::json::json_pointer(pointer)] = value;
        out_.sources["/model" + pointer] = source;
    }

    void unset_moe() {
        out_.model.erase("moe");
        for (auto it = out_.sources.begin(); it != out_.sources.end();) {
            it = it->first.rfind("/model/moe", 0) == 0 ? out_.sources.erase(it) : std::next(it);
        }
    }

    void warn(const std::string& w) { out_.warnings.push_back(w); }

    void ignore(const std::string& what) { out_.ignored.push_back(what); }

private:
    const JsonReader& r_;
    std::string file_;
    std::string prefix_;
    HfModel& out_;
    std::set<std::string> used_;
};

Family family_of(const std::string& type) {
    const auto* f = std::find_if(kFamilies.begin(), kFamilies.end(), [&](const FamilyName& n) { return n.type == type; });
    return f == kFamilies.end() ? Family::Unknown : f->family;
}

std::string known_types() {
    std::string s;
    for (const auto& f : kFamilies) {
        s += (s.empty() ? "" : ", ") + std::string(f.type);
    }
    return s;
}

void read_common(HfReader& c, Family fam, const std::string& type) {
    c.set("/layers", c.required("num_hidden_layers", 1, kMaxLayers, "the number of transformer layers"),
          c.from("num_hidden_layers"));
    const int hidden = c.required("hidden_size", 1, kMaxHfDim, "the hidden size");
    c.set("/hidden", hidden, c.from("hidden_size"));
    const int heads = c.required("num_attention_heads", 1, kMaxHfDim, "the number of attention heads");
    c.set("/heads", heads, c.from("num_attention_heads"));
    if (fam == Family::Gemma3 && !c.has("vocab_size")) {  // Gemma 3's text_config leaves it to the class default
        c.set("/vocab", 262208, "default of transformers' Gemma3TextConfig (vocab_size = 262208)");
    } else {
        c.set("/vocab", c.required("vocab_size", 1, kMaxCount, "the vocabulary size"), c.from("vocab_size"));
    }
    if (fam != Family::DeepSeek) {  // MLA: the attention shape is /model/mla
        if (const auto kv = c.integer("num_key_value_heads", 1, heads)) {
            if (heads % *kv != 0) {
                throw input_error(c.json().where("num_key_value_heads"),
                                  "num_attention_heads " + std::to_string(heads) + " is not a multiple of num_key_value_heads " +
                                      std::to_string(*kv),
                                  "give the key/value head count the model has (a divisor of the attention heads)");
            }
            c.set("/kv_heads", *kv, c.from("num_key_value_heads"));
        }
        if (const auto hd = c.integer("head_dim", 1, kMaxHfDim)) {
            c.set("/head_dim", *hd, c.from("head_dim"));
        } else if (hidden % heads != 0) {
            throw input_error(c.json().where("num_attention_heads"),
                              "hidden_size " + std::to_string(hidden) + " is not a multiple of num_attention_heads " +
                                  std::to_string(heads) + " and head_dim is not given",
                              "add \"head_dim\" as the model's config.json has it");
        }
    }
    c.use("tie_word_embeddings");
    if (const auto tied = c.json().get_bool("tie_word_embeddings")) {
        c.set("/tied_embeddings", *tied, c.from("tie_word_embeddings"));
    } else if (fam == Family::Gemma2 || fam == Family::Gemma3) {
        c.set("/tied_embeddings", true, "default of transformers' " + type + " config (tie_word_embeddings = true)");
    } else if (fam != Family::Unknown) {
        c.set("/tied_embeddings", false, "default of transformers' " + type + " config (tie_word_embeddings = false)");
    } else {
        c.set("/tied_embeddings", true, "default of transformers' PretrainedConfig (tie_word_embeddings = true)");
        c.warn("tie_word_embeddings is not given: assumed true, transformers' default; set /model/tied_embeddings if "
               "the model unties them");
    }
    c.use("hidden_act");
    const auto act = c.json().get_string("hidden_act");
    if (fam != Family::Unknown) {
        c.set("/ffn_gated", true, c.from("model_type") + ": gated MLP (gate, up and down projections)");
    } else if (!act || *act == "silu" || *act == "swish" || *act == "swiglu") {
        c.set("/ffn_gated", true, act ? c.from("hidden_act") : "default (SwiGLU)");
        if (!act) {
            c.warn("hidden_act is not given: assumed a gated (SwiGLU) FFN; set /model/ffn_gated if it has two matrices");
        }
    } else {
        c.set("/ffn_gated", false, c.from("hidden_act"));
        c.warn("hidden_act \"" + printable(*act) + "\": assumed a two-matrix FFN; gated variants (GeGLU, as in Gemma) "
               "have three: set /model/ffn_gated to true for them");
    }
    const auto ffn = c.integer("intermediate_size", 1, kMaxHfDim);
    if (ffn) {
        c.set("/ffn_hidden", *ffn, c.from("intermediate_size"));
    } else if (fam != Family::Unknown) {
        (void)c.required("intermediate_size", 1, kMaxHfDim, "the FFN width");
    } else {
        c.warn("intermediate_size is not given: the FFN width defaults to 4 × hidden_size");
    }
}

// Which layers are MoE, written the shortest way: nothing when all are, first_dense_layers when
// the MoE layers are the tail, else the 0/1 list. Returns false (and writes nothing) when none is.
bool write_layers(HfReader& c, const std::vector<int>& pattern, const std::string& lead_source, const std::string& how) {
    const auto first_moe = std::find(pattern.begin(), pattern.end(), 1);
    if (first_moe == pattern.end()) {
        return false;
    }
    const bool tail = std::all_of(first_moe, pattern.end(), [](int v) { return v == 1; });
    const auto lead = static_cast<int>(first_moe - pattern.begin());
    if (tail && lead > 0) {
        c.set("/first_dense_layers", lead, lead_source);
    } else if (!tail) {
        c.set("/moe/layer_freq", pattern, "derived: " + how);
    }
    return true;
}

void drop_moe_if_none(HfReader& c, bool any, const std::string& why) {
    if (!any) {
        c.unset_moe();
        c.warn(why + ": no layer is MoE, so the model is read as dense");
    }
}

void read_moe_counts(HfReader& c, const std::string& experts_key, int experts) {
    c.set("/moe/experts", experts, c.from(experts_key));
    const int topk = c.required("num_experts_per_tok", 1, experts, "experts per token");
    c.set("/moe/topk", topk, c.from("num_experts_per_tok"));
    // Group-limited routing (DeepSeek-V3, Kimi-K2: n_group, topk_group); one group is none.
    // groups as an int, not an optional: gcc 12 -O2 warns -Wmaybe-uninitialized on *groups once
    // this file shares a unity batch (a false positive).
    const int groups = c.has("n_group") ? c.integer("n_group", 1, experts).value_or(1) : 1;
    const auto per_token = c.has("topk_group") ? c.integer("topk_group", 1, kMaxCount) : std::nullopt;
    if (groups > 1 && per_token) {
        c.set("/moe/router_groups", groups, c.from("n_group"));
        c.set("/moe/router_group_topk", *per_token, c.from("topk_group"));
    }
}

// Mixtral and GPT-OSS: every layer MoE, each expert intermediate_size wide.
void read_mixtral_like(HfReader& c, Family fam) {
    const int experts = c.required("num_local_experts", 1, kMaxCount, "routed experts per layer");
    const bool plain = c.has("num_experts_per_tok");
    if (fam == Family::GptOss && plain && c.has("experts_per_token")) {
        const auto a = c.integer("experts_per_token", 1, experts);
        const auto b = c.integer("num_experts_per_tok", 1, experts);
        if (a != b) {
            throw input_error(c.json().where("experts_per_token"),
                              "experts_per_token " + std::to_string(*a) + " differs from num_experts_per_tok " +
                                  std::to_string(*b),
                              "make the two agree (the experts each token is routed to)");
        }
    }
    c.set("/moe/experts", experts, c.from("num_local_experts"));
    const std::string topk_key = plain || fam != Family::GptOss ? "num_experts_per_tok" : "experts_per_token";
    c.set("/moe/topk", c.required(topk_key, 1, experts, "experts per token"), c.from(topk_key));
    c.set("/moe/ffn_hidden", c.required("intermediate_size", 1, kMaxHfDim, "the FFN width of one expert"),
          c.from("intermediate_size"));
}

void read_qwen_moe(HfReader& c, const std::string& type, int layers) {
    const int experts = c.required("num_experts", 0, kMaxCount, "routed experts per layer (0: dense)");
    if (experts == 0) {
        return;
    }
    read_moe_counts(c, "num_experts", experts);
    c.set("/moe/ffn_hidden", c.required("moe_intermediate_size", 1, kMaxHfDim, "the FFN width of one expert"),
          c.from("moe_intermediate_size"));
    if (type == "qwen2_moe" || type == "qwen3_next") {
        const int shared = c.required("shared_expert_intermediate_size", 0, kMaxHfDim, "the shared expert's FFN width");
        if (shared > 0) {
            c.set("/moe/shared_experts", 1, c.from("shared_expert_intermediate_size") + ": one shared expert");
            c.set("/moe/shared_ffn_hidden", shared, c.from("shared_expert_intermediate_size"));
        }
        // The block builds its gate whatever the shared expert's width, 0 included.
        c.set("/moe/shared_gate", true, c.from("model_type") + ": shared_expert_gate, h × 1 (" +
                  (type == "qwen2_moe" ? "Qwen2MoeSparseMoeBlock)" : "Qwen3NextSparseMoeBlock)"));
    }
    const int step = c.integer("decoder_sparse_step", 1, kMaxCount).value_or(1);
    std::vector<int> pattern(static_cast<std::size_t>(layers), 0);
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        pattern[i] = (i + 1) % static_cast<std::size_t>(step) == 0 ? 1 : 0;
    }
    c.use("mlp_only_layers");
    if (const nlohmann::json* dense = c.json().get_array("mlp_only_layers")) {
        for (std::size_t k = 0; k < dense->size(); ++k) {
            const auto& v = (*dense)[k];
            if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() >= layers) {
                throw input_error(c.json().where("mlp_only_layers/" + std::to_string(k)),
                                  "expected a layer index from 0 to " + std::to_string(layers - 1) + ", got " + printable(v.dump()),
                                  "list the 0-based indices of the dense layers");
            }
            pattern[static_cast<std::size_t>(v.get<std::int64_t>())] = 0;
        }
    }
    drop_moe_if_none(c,
                     write_layers(c, pattern, "derived: mlp_only_layers",
                                  "layer i is MoE unless listed in mlp_only_layers, when (i + 1) % decoder_sparse_step == 0"),
                     "decoder_sparse_step and mlp_only_layers");
}

void read_deepseek(HfReader& c, int layers) {
    c.use("q_lora_rank");
    const auto q = c.json().get_int("q_lora_rank", 0, kMaxHfDim);
    c.set("/mla/q_lora_rank", q.value_or(0), c.from("q_lora_rank") + (q ? "" : ": null, no query compression"));
    c.set("/mla/kv_lora_rank", c.required("kv_lora_rank", 1, kMaxHfDim, "the K/V latent rank"), c.from("kv_lora_rank"));
    c.set("/mla/qk_head_dim", c.required("qk_nope_head_dim", 1, kMaxHfDim, "per-head Q/K width without rotary part"),
          c.from("qk_nope_head_dim"));
    c.set("/mla/qk_rope_head_dim", c.required("qk_rope_head_dim", 0, kMaxHfDim, "per-head rotary Q/K width"),
          c.from("qk_rope_head_dim"));
    c.set("/mla/v_head_dim", c.required("v_head_dim", 1, kMaxHfDim, "per-head V width"), c.from("v_head_dim"));
    if (const auto mtp = c.integer("num_nextn_predict_layers", 0, kMaxCount); mtp && *mtp > 0) {
        c.warn("num_nextn_predict_layers = " + std::to_string(*mtp) +
               ": the multi-token prediction module(s) are not counted in the parameters");
        c.ignore("num_nextn_predict_layers = " + std::to_string(*mtp) + ": " +
                 std::string(note_of("num_nextn_predict_layers")));
    }
    c.use("n_routed_experts");
    const auto experts = c.json().get_int("n_routed_experts", 1, kMaxCount);
    if (!experts) {
        return;  // null: a dense model
    }
    read_moe_counts(c, "n_routed_experts", static_cast<int>(*experts));
    const int moe_ffn = c.required("moe_intermediate_size", 1, kMaxHfDim, "the FFN width of one expert");
    c.set("/moe/ffn_hidden", moe_ffn, c.from("moe_intermediate_size"));
    const int shared = c.integer("n_shared_experts", 0, kMaxCount).value_or(0);
    if (shared > 0) {
        c.set("/moe/shared_experts", shared, c.from("n_shared_experts"));
        const long long width = static_cast<long long>(shared) * moe_ffn;
        if (width > kMaxHfDim) {
            throw input_error(c.json().where("n_shared_experts"), "n_shared_experts × moe_intermediate_size is too wide",
                              "give the model's real values");
        }
        c.set("/moe/shared_ffn_hidden", static_cast<int>(width), "derived: n_shared_experts × moe_intermediate_size");
    }
    const int first = c.integer("first_k_dense_replace", 0, layers).value_or(0);
    const int freq = c.integer("moe_layer_freq", 1, kMaxCount).value_or(1);
    std::vector<int> pattern(static_cast<std::size_t>(layers), 0);
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        pattern[i] = i >= static_cast<std::size_t>(first) && i % static_cast<std::size_t>(freq) == 0 ? 1 : 0;
    }
    drop_moe_if_none(c,
                     write_layers(c, pattern, c.from("first_k_dense_replace"),
                                  "layer i is MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0"),
                     "first_k_dense_replace and moe_layer_freq");
}

// The layer_types list ("sliding_attention", "full_attention", "linear_attention", ...), checked
// for one entry per layer; nullopt when the config has none.
std::optional<std::vector<std::string>> layer_types(HfReader& c, int layers) {
    c.use("layer_types");
    if (!c.has("layer_types")) {
        return std::nullopt;
    }
    auto types = c.json().get_strings("layer_types");
    if (!types || types->size() != static_cast<std::size_t>(layers)) {
        throw input_error(c.json().where("layer_types"),
                          "expected one attention type per layer (" + std::to_string(layers) + " strings)",
                          "give the model's layer_types as its config.json has them, or leave them out");
    }
    return types;
}

// The sliding window: its size and which layers use it (1 = windowed), written the shortest way.
void write_window(HfReader& c, int size, const std::vector<int>& windowed, const std::string& how) {
    if (std::find(windowed.begin(), windowed.end(), 1) == windowed.end()) {
        return;
    }
    c.set("/sliding_window/size", size, c.from("sliding_window"));
    if (std::find(windowed.begin(), windowed.end(), 0) != windowed.end()) {
        c.set("/sliding_window/layers", windowed, "derived: " + how);
    }
}

// A window on the layers layer_types calls "sliding_attention", else on those `fallback` marks.
void read_window(HfReader& c, int layers, const std::vector<int>& fallback, const std::string& rule) {
    c.use("sliding_window");
    const auto size = c.json().get_int("sliding_window", 1, kMaxCount);
    const auto types = layer_types(c, layers);
    if (!size) {
        return;  // null or absent: no window
    }
    std::vector<int> windowed = fallback;
    std::string how = rule;
    if (types) {
        for (std::size_t i = 0; i < windowed.size(); ++i) {
            windowed[i] = (*types)[i] == "sliding_attention" ? 1 : 0;
        }
        how = "layer i is windowed when layer_types[i] is \"sliding_attention\"";
    }
    write_window(c, static_cast<int>(*size), windowed, how);
}

// Llama, Mistral, Qwen2/3, Phi-3 (dense) and GPT-OSS: a window on every layer (Mistral, Phi-3), on
// layers from max_window_layers on when use_sliding_window is true (Qwen), or on layer_types'
// sliding layers (every other layer by default: GPT-OSS, Gemma 2).
void read_dense_window(HfReader& c, const std::string& type, int layers) {
    std::vector<int> all(static_cast<std::size_t>(layers), 1);
    if (type == "qwen2" || type == "qwen3" || type == "qwen2_moe" || type == "qwen3_moe") {
        c.use("use_sliding_window");
        c.use("max_window_layers");
        if (c.json().get_bool("use_sliding_window") != true) {
            c.use("sliding_window");
            c.use("layer_types");
            return;
        }
        const int from = c.integer("max_window_layers", 0, layers).value_or(0);
        for (int i = 0; i < std::min(from, layers); ++i) {
            all[static_cast<std::size_t>(i)] = 0;
        }
        read_window(c, layers, all, "layer i is windowed when i >= max_window_layers (use_sliding_window)");
    } else if (type == "gpt_oss") {
        for (std::size_t i = 0; i < all.size(); ++i) {
            all[i] = i % 2 == 0 ? 1 : 0;
        }
        read_window(c, layers, all, "even layers are windowed (GptOssConfig's default layer_types)");
    } else if (type == "mistral" || type == "phi3" || type == "mixtral") {
        read_window(c, layers, all, "every layer is windowed");
    }
}

void set_norms(HfReader& c, int per_layer, const std::string& what) {
    c.set("/norms", per_layer, "derived: " + what);
}

// A bias switch of the config (`fallback`: its config class's default when absent), and its source.
bool bias_flag(HfReader& c, const std::string& type, const std::string& key, bool fallback, std::string& source) {
    c.use(key);
    const auto v = c.json().get_bool(key);
    source = v ? c.from(key) : "default of transformers' " + type + " config (" + key + " = " + (fallback ? "true" : "false") + ")";
    return v.value_or(fallback);
}

// The older families' norms and biases as transformers builds them. Every one has an input and a
// post-attention RMSNorm per layer and a final norm (LlamaDecoderLayer and its copies); Qwen3 and
// Qwen3-MoE q_norm/k_norm (Qwen3Attention). Biases: LlamaAttention's q, k, v and o projections follow
// attention_bias (llama; Qwen3Attention and Qwen3MoeAttention inherit it), LlamaMLP's follow mlp_bias;
// Qwen2Attention's q, k, v always carry one, Qwen2MoeAttention's when qkv_bias (default true);
// DeepseekV2/V3Attention's q_a, kv_a and o projections follow attention_bias, DeepseekV2MLP's (dense
// and shared experts) mlp_bias; GptOssAttention's q, k, v, o follow attention_bias (default true), with
// a sink per head, a router bias (GptOssTopKRouter) and expert biases (GptOssExperts). MistralAttention,
// MixtralAttention, their MLPs and the routers of Mixtral, Qwen and DeepSeek have none.
void read_norms_and_biases(HfReader& c, Family fam, const std::string& type) {
    set_norms(c, 2, "input and post-attention RMSNorms");
    if (fam == Family::Mixtral || type == "mistral" || type == "phi3") {
        return;
    }
    if (type == "qwen3" || type == "qwen3_moe") {
        c.set("/qk_norm", true, c.from("model_type") + ": q_norm and k_norm of head_dim (Qwen3Attention)");
    }
    std::string src;
    if (type == "qwen2") {
        c.set("/attention_bias", true, c.from("model_type") + ": Qwen2Attention's q, k and v projections carry biases");
    } else if (type == "qwen2_moe") {
        if (bias_flag(c, type, "qkv_bias", true, src)) {
            c.set("/attention_bias", true, src + ": Qwen2MoeAttention's q, k and v biases");
        }
    } else if (bias_flag(c, type, "attention_bias", fam == Family::GptOss, src)) {  // llama, qwen3*, DeepSeek, gpt_oss
        c.set("/attention_bias", true, src + (fam == Family::DeepSeek ? ": q_a_proj and kv_a_proj_with_mqa biases"
                                                                      : ": q, k and v projection biases"));
        c.set("/attention_out_bias", true, src + ": o_proj bias");
    }
    if ((type == "llama" || type == "deepseek_v2") && bias_flag(c, type, "mlp_bias", false, src)) {
        c.set("/mlp_bias", true, src + ": gate, up and down projection biases (LlamaMLP)");
    }
    if (fam == Family::GptOss) {
        c.set("/attention_sinks", true, c.from("model_type") + ": one sink logit per head (GptOssAttention.sinks)");
        c.set("/moe/router_bias", true, c.from("model_type") + ": GptOssTopKRouter.bias, one per expert");
        c.set("/moe/expert_bias", true, c.from("model_type") + ": GptOssExperts' gate_up_proj_bias and down_proj_bias");
    }
}

// LlamaAttention's copies that read_norms_and_biases does not cover (Gemma2Attention,
// Gemma3Attention, Llama4TextAttention): q, k, v and o projection biases follow attention_bias
// (default false in their configs).
void read_qkvo_bias(HfReader& c, const std::string& type) {
    std::string src;
    if (bias_flag(c, type, "attention_bias", false, src)) {
        c.set("/attention_bias", true, src + ": q, k and v projection biases");
        c.set("/attention_out_bias", true, src + ": o_proj bias");
    }
}

// Gemma 2: a window on even layers, four norms per layer (pre and post attention and FFN).
// Gemma 3: a window except on every sliding_window_pattern-th layer (or as layer_types says), q/k norms.
void read_gemma(HfReader& c, Family fam, int layers) {
    set_norms(c, 4, "Gemma's input, post-attention, pre- and post-feed-forward RMSNorms");
    std::vector<int> windowed(static_cast<std::size_t>(layers), 0);
    std::string rule;
    if (fam == Family::Gemma2) {
        for (std::size_t i = 0; i < windowed.size(); ++i) {
            windowed[i] = i % 2 == 0 ? 1 : 0;
        }
        rule = "even layers are windowed (Gemma2DecoderLayer)";
    } else {
        c.set("/qk_norm", true, c.from("model_type") + ": q_norm and k_norm of head_dim (Gemma3Attention)");
        const int pattern = c.integer("sliding_window_pattern", 1, kMaxCount).value_or(6);
        for (std::size_t i = 0; i < windowed.size(); ++i) {
            windowed[i] = (i + 1) % static_cast<std::size_t>(pattern) != 0 ? 1 : 0;
        }
        rule = "layer i is windowed unless (i + 1) % sliding_window_pattern == 0 (Gemma3TextConfig)";
    }
    read_window(c, layers, windowed, rule);
}

// Llama 4: MoE layers from moe_layers (else every interleave_moe_layer_step-th, Llama4TextConfig);
// one shared expert of intermediate_size; dense layers intermediate_size_mlp wide.
void read_llama4(HfReader& c, int layers) {
    set_norms(c, 2, "input and post-attention RMSNorms");
    const int experts = c.required("num_local_experts", 1, kMaxCount, "routed experts per layer");
    read_moe_counts(c, "num_local_experts", experts);
    const int width = c.required("intermediate_size", 1, kMaxHfDim, "the FFN width of one expert");
    c.set("/moe/ffn_hidden", width, c.from("intermediate_size"));
    c.set("/moe/shared_experts", 1, c.from("model_type") + ": one shared expert (Llama4TextMoe)");
    c.set("/moe/shared_ffn_hidden", width, c.from("intermediate_size"));
    if (const auto dense = c.integer("intermediate_size_mlp", 1, kMaxHfDim)) {
        c.set("/ffn_hidden", *dense, c.from("intermediate_size_mlp"));
    }
    c.use("use_qk_norm");  // an L2 norm without weights
    std::vector<int> pattern(static_cast<std::size_t>(layers), 0);
    c.use("moe_layers");
    c.use("interleave_moe_layer_step");
    std::string how;
    if (const nlohmann::json* list = c.json().get_array("moe_layers")) {
        for (std::size_t k = 0; k < list->size(); ++k) {
            const auto& v = (*list)[k];
            if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() >= layers) {
                throw input_error(c.json().where("moe_layers/" + std::to_string(k)),
                                  "expected a layer index from 0 to " + std::to_string(layers - 1) + ", got " +
                                      printable(v.dump()),
                                  "list the 0-based indices of the MoE layers");
            }
            pattern[static_cast<std::size_t>(v.get<std::int64_t>())] = 1;
        }
        how = "layer i is MoE when listed in moe_layers";
    } else {
        const int step = c.integer("interleave_moe_layer_step", 1, kMaxCount).value_or(1);
        for (std::size_t i = 0; i < pattern.size(); ++i) {
            pattern[i] = (i + 1) % static_cast<std::size_t>(step) == 0 ? 1 : 0;
        }
        how = "layer i is MoE when (i + 1) % interleave_moe_layer_step == 0";
    }
    drop_moe_if_none(c, write_layers(c, pattern, "derived: " + how, how), "moe_layers");
}

// GLM-4.5/4.6: GQA attention with q/k/v biases (attention_bias) and optional q/k norms, DeepSeek's
// MoE layout (first_k_dense_replace leading dense layers, n_shared_experts of moe_intermediate_size).
void read_glm4_moe(HfReader& c, int layers) {
    set_norms(c, 2, "input and post-attention RMSNorms");
    c.use("attention_bias");
    if (c.json().get_bool("attention_bias") == true) {
        c.set("/attention_bias", true, c.from("attention_bias"));
    }
    c.use("use_qk_norm");
    if (c.json().get_bool("use_qk_norm") == true) {
        c.set("/qk_norm", true, c.from("use_qk_norm"));
    }
    if (const auto mtp = c.integer("num_nextn_predict_layers", 0, kMaxCount); mtp && *mtp > 0) {
        c.warn("num_nextn_predict_layers = " + std::to_string(*mtp) +
               ": the multi-token prediction layer(s) are not counted in the parameters");
        c.ignore("num_nextn_predict_layers = " + std::to_string(*mtp) + ": multi-token prediction layers are not "
                 "counted and not placed on a pipeline stage");
    }
    const int experts = c.required("n_routed_experts", 1, kMaxCount, "routed experts per layer");
    read_moe_counts(c, "n_routed_experts", experts);
    const int moe_ffn = c.required("moe_intermediate_size", 1, kMaxHfDim, "the FFN width of one expert");
    c.set("/moe/ffn_hidden", moe_ffn, c.from("moe_intermediate_size"));
    const int shared = c.integer("n_shared_experts", 0, 64).value_or(0);
    if (shared > 0) {
        c.set("/moe/shared_experts", shared, c.from("n_shared_experts"));
        c.set("/moe/shared_ffn_hidden", shared * moe_ffn, "derived: n_shared_experts × moe_intermediate_size");
    }
    const int first = c.integer("first_k_dense_replace", 0, layers).value_or(0);
    std::vector<int> pattern(static_cast<std::size_t>(layers), 0);
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        pattern[i] = i >= static_cast<std::size_t>(first) ? 1 : 0;
    }
    drop_moe_if_none(c, write_layers(c, pattern, c.from("first_k_dense_replace"), "layer i is MoE when i >= first_k_dense_replace"),
                     "first_k_dense_replace");
}

// Qwen3-Next: Gated DeltaNet layers, and gated softmax attention (q/k norms) on every
// full_attention_interval-th layer; Qwen's MoE with a gated shared expert.
void read_qwen3_next(HfReader& c, int layers) {
    set_norms(c, 2, "input and post-attention RMSNorms (and the linear layers' gated norm)");
    c.set("/qk_norm", true, c.from("model_type") + ": q_norm and k_norm of head_dim (Qwen3NextAttention)");
    c.set("/attention_gate", true, c.from("model_type") + ": q_proj gives the query and an output gate");
    std::vector<int> linear(static_cast<std::size_t>(layers), 1);
    std::string how;
    if (const auto types = layer_types(c, layers)) {
        for (std::size_t i = 0; i < linear.size(); ++i) {
            linear[i] = (*types)[i] == "linear_attention" ? 1 : 0;
        }
        how = "layer i is linear attention when layer_types[i] is \"linear_attention\"";
        c.use("full_attention_interval");
    } else {
        const int interval = c.integer("full_attention_interval", 1, kMaxCount).value_or(4);
        for (std::size_t i = 0; i < linear.size(); ++i) {
            linear[i] = (i + 1) % static_cast<std::size_t>(interval) == 0 ? 0 : 1;
        }
        how = "layer i is linear attention unless (i + 1) % full_attention_interval == 0";
    }
    c.set("/linear_attention/layers", linear, "derived: " + how);
    c.set("/linear_attention/key_heads", c.required("linear_num_key_heads", 1, kMaxHfDim, "Gated DeltaNet key heads"),
          c.from("linear_num_key_heads"));
    c.set("/linear_attention/value_heads", c.required("linear_num_value_heads", 1, kMaxHfDim, "Gated DeltaNet value heads"),
          c.from("linear_num_value_heads"));
    c.set("/linear_attention/key_head_dim", c.required("linear_key_head_dim", 1, kMaxHfDim, "Gated DeltaNet key head width"),
          c.from("linear_key_head_dim"));
    c.set("/linear_attention/value_head_dim",
          c.required("linear_value_head_dim", 1, kMaxHfDim, "Gated DeltaNet value head width"), c.from("linear_value_head_dim"));
    c.set("/linear_attention/conv_kernel", c.required("linear_conv_kernel_dim", 1, kMaxHfDim, "the short convolution's width"),
          c.from("linear_conv_kernel_dim"));
    c.use("use_sliding_window");
    c.use("sliding_window");
    c.use("max_window_layers");
}

// Every field not used: silently when harmless, else under ignored (with the reason when known).
// Returns the names of those listed.
std::vector<std::string> list_unused(const HfReader& c, HfModel& out, const std::string& type) {
    std::vector<std::string> unknown;
    for (const auto& [key, value] : c.json().json().items()) {
        if (c.used(key) || std::find(kHarmless.begin(), kHarmless.end(), key) != kHarmless.end() ||
            (value.is_boolean() && !value.get<bool>()) || value.is_null()) {
            continue;
        }
        if (const std::string_view why = note_of(key); !why.empty()) {
            out.ignored.push_back(printable(key) + scalar_text(value) + ": " + std::string(why));
            unknown.push_back(printable(key));
        } else {
            out.ignored.push_back(printable(key) + scalar_text(value) + ": not read for model_type " + printable(type));
            unknown.push_back(printable(key));
        }
    }
    return unknown;
}

}  // namespace

HfModel read_hf_config(const std::string& text, const std::string& file, bool allow_unknown_model) {
    require_text_size(text, file, kMaxConfigBytes, "kMaxConfigBytes",
                      "a Hugging Face config.json is a few kilobytes: give the model's config.json, not its weights");
    const nlohmann::json doc = parse_json_text(text, file);
    const JsonReader top(doc, file, "");
    HfModel out;
    const bool nested = !top.has("hidden_size") && top.has("text_config");
    const std::optional<JsonReader> inner = nested ? top.get_object("text_config") : std::nullopt;
    const JsonReader& r = nested ? *inner : top;
    if (nested) {
        out.warnings.emplace_back("read the language model from text_config; other towers (vision, audio) are not counted");
    }
    HfReader c(r, file, nested ? "text_config/" : "", out);
    c.use("model_type");
    if (r.get_bool("use_sliding_window") == false) {
        c.use("sliding_window");  // Qwen: a window size that is not used
    }
    std::string type = r.get_string("model_type").value_or(top.get_string("model_type").value_or(""));
    const Family fam = family_of(type);
    if (fam == Family::Unknown && !allow_unknown_model) {
        throw input_error(r.where("model_type"),
                          "model_type " + (type.empty() ? std::string("is missing") : "\"" + printable(type) + "\" is not one plan-layout reads") +
                              " (" + known_types() + ")",
                          "pass --allow-unknown-model to read only the common fields");
    }
    read_common(c, fam, type.empty() ? "model" : type);
    const int layers = out.model.at("layers").get<int>();
    if (fam == Family::Dense || fam == Family::Mixtral || fam == Family::QwenMoe || fam == Family::DeepSeek ||
        fam == Family::GptOss) {
        read_norms_and_biases(c, fam, type);
    }
    switch (fam) {
        case Family::Mixtral:
        case Family::GptOss:
            read_mixtral_like(c, fam);
            read_dense_window(c, type, layers);
            break;
        case Family::QwenMoe:
            read_qwen_moe(c, type, layers);
            read_dense_window(c, type, layers);
            break;
        case Family::DeepSeek:
            read_deepseek(c, layers);
            break;
        case Family::Gemma2:
        case Family::Gemma3:
            read_gemma(c, fam, layers);
            read_qkvo_bias(c, type);
            break;
        case Family::Llama4:
            read_llama4(c, layers);
            read_qkvo_bias(c, type);
            break;
        case Family::Glm4Moe:
            read_glm4_moe(c, layers);
            break;
        case Family::Qwen3Next:
            read_qwen3_next(c, layers);
            read_qwen_moe(c, type, layers);
            break;
        case Family::Dense:
            read_dense_window(c, type, layers);
            break;
        case Family::Unknown:
            break;
    }
    const std::vector<std::string> unknown = list_unused(c, out, type.empty() ? "(none)" : type);
    if (fam == Family::Unknown) {
        std::string names;  // every field not read (--allow-unknown-model promises the whole list)
        for (std::size_t i = 0; i < unknown.size(); ++i) {
            names += (i == 0 ? "" : ", ") + unknown[i];
        }
        out.warnings.push_back("model_type " + (type.empty() ? std::string("(missing)") : "\"" + printable(type) + "\"") +
                               " is not one plan-layout knows (" + known_types() +
                               "): read only the common fields (--allow-unknown-model)" +
                               (names.empty() ? "" : "; not read: " + names) +
                               ". Check the model section, and add MoE or MLA keys by hand");
    }
    return out;
}

}  // namespace planlayout
