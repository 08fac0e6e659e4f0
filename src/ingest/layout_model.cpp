// Ingest: a layout's "model", "training", "transport" and "score" sections read into the analysis
// values (ModelSpec, TrainingSpec, TransportSpec, ScoreFactors) through the one JSON reader.
// Over 500 lines: four sections of a layout, each read field by field with its bounds and its
// source through the one JsonReader; the model section (with its MoE, MLA and layer-pattern parts)
// and the training section are about 300 lines each.
// to split: the training section (training_spec_from_json and its read_* helpers) could be its own
// source, as layout_parallel.cpp is for the parallel section.
#include "planlayout/ingest/layout_sections.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/error.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/names.hpp"

namespace planlayout {

namespace {

constexpr int kMaxInt = 1 << 30;

template <typename T>
void set_if(std::optional<T> v, T& field) {
    if (v) {
        field = *v;
    }
}

}  // namespace

// ---------------------------------------------------------------------------- ModelSpec

namespace {

constexpr int kMaxModelDim = 1 << 24;  // hidden, head and latent widths: far above any model
// FFN widths: any int, so that the derived ones to_json writes (4·hidden, shared_experts × width) read
// back; the parameter count they give is checked instead.
constexpr int kMaxWidth = std::numeric_limits<int>::max();

// The keys present (and not null) in an object and in the objects it holds, as pointers relative
// to it: what fields() reports as given.
std::vector<std::string> present_keys(const nlohmann::json& j) {
    std::vector<std::string> out;
    for (const auto& [key, value] : j.items()) {
        if (is_comment_key(key) || value.is_null()) {
            continue;
        }
        out.push_back("/" + key);
        if (value.is_object()) {
            for (const auto& [inner, v] : value.items()) {
                if (!is_comment_key(inner) && !v.is_null()) {
                    out.push_back("/" + key + "/" + inner);
                }
            }
        }
    }
    return out;
}

// "moe/layer_freq": an int N (Megatron --moe-layer-freq: layer i is MoE when i % N == 0) or one
// 0/1 per layer.
void read_layer_freq(const JsonReader& moe, ModelSpec& m) {
    if (!moe.has("layer_freq")) {
        return;
    }
    const nlohmann::json& v = moe.at("layer_freq");
    if (!v.is_array()) {
        m.moe_layer_freq = *moe.get<int>("layer_freq", 1, kMaxInt);
        return;
    }
    if (v.size() != static_cast<std::size_t>(m.layers)) {
        throw input_error(moe.where("layer_freq"),
                          "the list has " + std::to_string(v.size()) + " entries for " + std::to_string(m.layers) + " layers",
                          "give one 0 (dense) or 1 (MoE) per layer, or an int N for every N-th layer");
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number_integer() || (v[i].get<std::int64_t>() != 0 && v[i].get<std::int64_t>() != 1)) {
            throw input_error(moe.where("layer_freq/" + std::to_string(i)), "expected 0 or 1, got " + v[i].dump(),
                              "write 0 for a dense layer and 1 for an MoE layer");
        }
        m.moe_layer_pattern.push_back(v[i].get<int>());
    }
}

// first_dense_layers and moe_layers from the layer_freq pattern; given values must agree with it.
void apply_layer_pattern(const JsonReader& f, ModelSpec& m) {
    // An int N: layers 0, N, 2N, ... (counted, not listed: layers may be large); a list: as given.
    const auto& p = m.moe_layer_pattern;
    const int moe = p.empty() ? (m.layers - 1) / m.moe_layer_freq + 1 : static_cast<int>(std::count(p.begin(), p.end(), 1));
    const int lead = p.empty() ? 0 : static_cast<int>(std::find(p.begin(), p.end(), 1) - p.begin());
    if (moe == 0) {
        throw input_error(f.where("moe/layer_freq"), "layer_freq makes none of the " + std::to_string(m.layers) + " layers MoE",
                          "mark at least one layer 1, or remove the \"moe\" section for a dense model");
    }
    const auto check = [&](const char* key, int given, int derived) {
        if (f.has(key) && given != derived) {
            throw input_error(f.where(key),
                              std::string(key) + " " + std::to_string(given) + " conflicts with moe/layer_freq, which gives " +
                                  std::to_string(derived),
                              "remove " + std::string(key) + " or moe/layer_freq, or make them agree");
        }
    };
    check("first_dense_layers", m.first_dense_layers, lead);
    check("moe_layers", m.moe_layers, moe);
    m.first_dense_layers = lead;
    m.moe_layers = moe;
}

/// Group-limited routing: both keys or neither; the groups divide the experts, a token's groups
/// hold at least its top-k.
void read_router_groups(const JsonReader& moe, ModelSpec& m) {
    const auto g = moe.get<int>("router_groups", 1, kMaxInt);
    const auto k = moe.get<int>("router_group_topk", 1, kMaxInt);
    if (!g && !k) {
        return;
    }
    if (!g || !k) {
        throw input_error(moe.where(g ? "router_group_topk" : "router_groups"), "group-limited routing needs both keys",
                          "give router_groups (n_group) and router_group_topk (topk_group) together");
    }
    if (m.experts % *g != 0 || *k > *g) {
        throw input_error(moe.where(m.experts % *g != 0 ? "router_groups" : "router_group_topk"),
                          std::to_string(*g) + " router groups with " + std::to_string(*k) + " per token do not fit " +
                              std::to_string(m.experts) + " experts",
                          "router_groups must divide the experts and router_group_topk be at most router_groups");
    }
    if (*k * (m.experts / *g) < m.topk) {
        throw input_error(moe.where("router_group_topk"),
                          std::to_string(*k) + " groups of " + std::to_string(m.experts / *g) + " experts hold fewer than topk " +
                              std::to_string(m.topk),
                          "raise router_group_topk (or check topk)");
    }
    m.router_groups = *g;
    m.router_group_topk = *k;
}

void read_moe(const JsonReader& f, ModelSpec& m) {
    auto moe = f.get_object("moe");
    if (!moe) {
        return;
    }
    moe->check_keys({"experts", "topk", "ffn_hidden", "shared_experts", "shared_ffn_hidden", "capacity_factor",
                     "layer_freq", "token_dispatcher", "grouped_gemm", "shared_gate", "router_bias", "expert_bias",
                     "router_groups", "router_group_topk"});
    set_if(moe->get<int>("experts", 1, kMaxInt), m.experts);
    set_if(moe->get<int>("topk", 1, kMaxInt), m.topk);
    set_if(moe->get<int>("ffn_hidden", 0, kMaxWidth), m.moe_ffn_hidden);
    set_if(moe->get<int>("shared_experts", 0, kMaxInt), m.shared_experts);
    set_if(moe->get<int>("shared_ffn_hidden", 0, kMaxWidth), m.shared_ffn_hidden);
    set_if(moe->get<double>("capacity_factor", 0.01, 64), m.capacity_factor);
    set_if(moe->get_enum<TokenDispatcher>(
               "token_dispatcher",
               [](const std::string& s) -> std::optional<TokenDispatcher> {
                   for (const auto d : {TokenDispatcher::AllGather, TokenDispatcher::AllToAll, TokenDispatcher::Flex}) {
                       if (s == to_string(d)) {
                           return d;
                       }
                   }
                   return std::nullopt;
               },
               "allgather, alltoall or flex"),
           m.token_dispatcher);
    set_if(moe->get<bool>("grouped_gemm"), m.grouped_gemm);
    set_if(moe->get<bool>("shared_gate"), m.moe_shared_gate);
    set_if(moe->get<bool>("router_bias"), m.moe_router_bias);
    set_if(moe->get<bool>("expert_bias"), m.moe_expert_bias);
    if (m.experts == 0 || m.topk == 0) {
        throw input_error(moe->where(m.experts == 0 ? "experts" : "topk"), "an MoE model needs both experts and topk",
                          "add \"experts\": E and \"topk\": k");
    }
    if (m.topk > m.experts) {
        throw input_error(moe->where("topk"), "topk " + std::to_string(m.topk) + " exceeds experts " + std::to_string(m.experts),
                          "topk must be at most the number of experts");
    }
    read_layer_freq(*moe, m);
    read_router_groups(*moe, m);
}

void read_mla(const JsonReader& f, ModelSpec& m) {
    auto a = f.get_object("mla");
    if (!a) {
        return;
    }
    a->check_keys({"q_lora_rank", "kv_lora_rank", "qk_head_dim", "qk_rope_head_dim", "v_head_dim"});
    MlaSpec s;
    set_if(a->get<int>("q_lora_rank", 0, kMaxModelDim), s.q_lora_rank);
    const auto required = [&](const char* key, int min, const char* example) {
        const auto v = a->get<int>(key, min, kMaxModelDim);
        if (!v) {
            throw input_error(a->where(key), std::string("missing: ") + key + " (multi-head latent attention needs it)",
                              std::string("add \"") + key + "\": N (DeepSeek-V3: " + example + ")");
        }
        return *v;
    };
    s.kv_lora_rank = required("kv_lora_rank", 1, "512");
    s.qk_head_dim = required("qk_head_dim", 1, "128");
    s.qk_rope_head_dim = required("qk_rope_head_dim", 0, "64");
    s.v_head_dim = required("v_head_dim", 1, "128");
    m.mla = s;
}

// One 0/1 per layer under `key` of `r` (a window or linear-attention layer map).
std::vector<int> read_layer_flags(const JsonReader& r, const char* key, int layers, const char* what) {
    const nlohmann::json& v = r.at(key);
    if (!v.is_array() || v.size() != static_cast<std::size_t>(layers)) {
        throw input_error(r.where(key), std::string("expected a list of one 0 or 1 per layer (") + std::to_string(layers) + ")",
                          std::string("write 1 for a layer with ") + what + " and 0 for the others");
    }
    std::vector<int> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number_integer() || (v[i].get<std::int64_t>() != 0 && v[i].get<std::int64_t>() != 1)) {
            throw input_error(r.where(std::string(key) + "/" + std::to_string(i)), "expected 0 or 1, got " + v[i].dump(),
                              std::string("write 1 for a layer with ") + what + " and 0 for the others");
        }
        out.push_back(v[i].get<int>());
    }
    return out;
}

// The issue-29 attention keys: sliding_window, linear_attention, norms, qk_norm, attention_bias/gate;
// and the biases and sinks transformers builds (attention_out_bias, attention_sinks, mlp_bias).
void read_attention_extras(const JsonReader& f, ModelSpec& m) {
    set_if(f.get<int>("norms", 0, 16), m.norms);
    set_if(f.get<bool>("qk_norm"), m.qk_norm);
    set_if(f.get<bool>("attention_bias"), m.attention_bias);
    set_if(f.get<bool>("attention_out_bias"), m.attention_out_bias);
    set_if(f.get<bool>("attention_sinks"), m.attention_sinks);
    set_if(f.get<bool>("mlp_bias"), m.mlp_bias);
    set_if(f.get<bool>("attention_gate"), m.attention_gate);
    if (auto w = f.get_object("sliding_window")) {
        w->check_keys({"size", "layers"});
        const auto size = w->get<int>("size", 1, kMaxInt);
        if (!size) {
            throw input_error(w->where("size"), "missing: the window size", "add \"size\": W (keys each query attends to)");
        }
        m.sliding_window = *size;
        if (w->has("layers")) {
            m.window_layers = read_layer_flags(*w, "layers", m.layers, "a sliding window");
        }
    }
    if (auto a = f.get_object("linear_attention")) {
        a->check_keys({"layers", "key_heads", "value_heads", "key_head_dim", "value_head_dim", "conv_kernel"});
        LinearAttentionSpec s;
        const auto required = [&](const char* key, int min) {
            const auto v = a->get<int>(key, min, kMaxModelDim);
            if (!v) {
                throw input_error(a->where(key), std::string("missing: ") + key + " (linear attention needs it)",
                                  std::string("add \"") + key + "\" (Qwen3-Next: docs/formats/hf-config.md)");
            }
            return *v;
        };
        if (!a->has("layers")) {
            throw input_error(a->where("layers"), "missing: which layers are linear attention",
                              "add \"layers\": one 0 or 1 per layer");
        }
        s.layers = read_layer_flags(*a, "layers", m.layers, "linear attention");
        s.key_heads = required("key_heads", 1);
        s.value_heads = required("value_heads", 1);
        s.key_head_dim = required("key_head_dim", 1);
        s.value_head_dim = required("value_head_dim", 1);
        s.conv_kernel = required("conv_kernel", 0);
        m.linear_attention = s;
    }
}

void require_model_basics(const JsonReader& f, const ModelSpec& m) {
    if (m.hidden == 0) {
        throw input_error(f.where("hidden"), "missing: the hidden size",
                          "add \"hidden\": H (a documented assumption if the model card does not say)");
    }
    if (m.heads == 0 && m.dense_params == 0) {
        throw input_error(f.where("heads"), "missing: heads (needed to derive the dense parameters)",
                          "add \"heads\": N, or give \"params\": {\"dense\": ...}");
    }
    if (m.kv_heads > m.heads && m.heads > 0) {
        throw input_error(f.where("kv_heads"),
                          "kv_heads " + std::to_string(m.kv_heads) + " exceeds heads " + std::to_string(m.heads),
                          "give at most as many key/value heads as attention heads");
    }
    if (m.head_dim == 0 && !m.mla && m.heads > m.hidden) {
        throw input_error(f.where("heads"), "heads " + std::to_string(m.heads) + " exceeds hidden " + std::to_string(m.hidden),
                          "give \"head_dim\" too, or fewer heads");
    }
}

}  // namespace

ModelSpec model_spec_from_json(const nlohmann::json& j, const std::string& where,
                               const std::string& pointer) {
    const JsonReader f(j, where, pointer);
    f.check_keys({"layers", "first_dense_layers", "moe_layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden",
                  "ffn_gated", "vocab", "tied_embeddings", "moe", "mla", "params", "dtype_bytes", "norms", "qk_norm",
                  "attention_bias", "attention_out_bias", "attention_sinks", "mlp_bias", "attention_gate",
                  "sliding_window", "linear_attention"});
    ModelSpec m;
    set_if(f.get<int>("layers", 1, kMaxInt), m.layers);
    if (m.layers == 0) {
        throw input_error(f.where("layers"), "missing: the number of transformer layers", "add \"layers\": N");
    }
    set_if(f.get<int>("first_dense_layers", 0, kMaxInt), m.first_dense_layers);
    set_if(f.get<int>("hidden", 1, kMaxModelDim), m.hidden);
    set_if(f.get<int>("heads", 1, kMaxModelDim), m.heads);
    set_if(f.get<int>("kv_heads", 1, kMaxModelDim), m.kv_heads);
    set_if(f.get<int>("head_dim", 1, kMaxModelDim), m.head_dim);
    set_if(f.get<int>("ffn_hidden", 1, kMaxWidth), m.ffn_hidden);
    set_if(f.get<bool>("ffn_gated"), m.ffn_gated);
    set_if(f.get<int>("vocab", 0, kMaxInt), m.vocab);
    set_if(f.get<bool>("tied_embeddings"), m.tied_embeddings);
    read_moe(f, m);
    read_mla(f, m);
    read_attention_extras(f, m);
    if (m.first_dense_layers > m.layers) {
        throw input_error(f.where("first_dense_layers"), "more leading dense layers than layers",
                          "set it to at most " + std::to_string(m.layers));
    }
    m.moe_layers = m.experts > 0 ? m.layers - m.first_dense_layers : 0;
    set_if(f.get<int>("moe_layers", 0, m.layers), m.moe_layers);
    if (!m.moe_layer_pattern.empty() || m.moe_layer_freq > 0) {
        apply_layer_pattern(f, m);
    }
    if (auto p = f.get_object("params")) {
        p->check_keys({"dense", "expert"});
        set_if(p->get<double>("dense", 0, 1e15), m.dense_params);
        set_if(p->get<double>("expert", 0, 1e15), m.expert_params);
    }
    if (auto d = f.get_object("dtype_bytes")) {
        d->check_keys({"activation", "grad", "param"});
        set_if(d->get<int>("activation", 1, 8), m.activation_bytes);
        set_if(d->get<int>("grad", 1, 8), m.grad_bytes);
        set_if(d->get<int>("param", 1, 8), m.param_bytes);
    }
    require_model_basics(f, m);
    for (const double n : {m.derived_dense_params(), m.derived_expert_params()}) {
        if (!(n <= 1e15)) {
            throw input_error(f.where(), "the shape gives " + number_text(n) + " parameters, more than 1e15",
                              "check layers, hidden, ffn_hidden, vocab and the moe sizes, or give \"params\"");
        }
    }
    m.given = present_keys(j);
    return m;
}

namespace {

// The value of `e` whose to_string is `s` (enums numbered from 0 up to Last).
template <typename E, E Last>
std::optional<E> enum_named(const std::string& s) {
    for (int i = 0; i <= static_cast<int>(Last); ++i) {
        if (to_string(static_cast<E>(i)) == s) {
            return static_cast<E>(i);
        }
    }
    return std::nullopt;
}

// TrainingSpec's memory block (issue 29): "states", "checkpoint_every", "per_op_checkpoint".

// A list of Megatron module names (`key`: each one of `known`, kept once, in the order given);
// nullopt when the key is absent. `what` and `flag` name them in the error.
template <std::size_t N>
std::optional<std::vector<std::string>> read_module_list(const JsonReader& f, const std::string& key,
                                                         const std::array<std::string_view, N>& known, const std::string& what,
                                                         const std::string& flag, const std::string& fix_note = "") {
    const nlohmann::json* list = f.get_array(key);
    if (list == nullptr) {
        return std::nullopt;
    }
    std::string names;
    for (const std::string_view k : known) {
        names += (names.empty() ? "" : ", ") + std::string(k);
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const nlohmann::json& v = (*list)[i];
        if (!v.is_string() || std::find(known.begin(), known.end(), v.get<std::string>()) == known.end()) {
            throw input_error(f.where(key + "/" + std::to_string(i)),
                              "not a " + what + ": " + (v.is_string() ? "'" + printable(v.get<std::string>()) + "'" : v.dump()),
                              "use names of Megatron's " + flag + ": " + names + fix_note);
        }
        if (std::find(out.begin(), out.end(), v.get<std::string>()) == out.end()) {
            out.push_back(v.get<std::string>());
        }
    }
    return out;
}

// "cuda_graph" (Megatron --cuda-graph-impl) and, with "layers", "cuda_graph_modules" (Megatron
// --cuda-graph-modules: the capture regions; empty: the whole layer).
void read_cuda_graph(const JsonReader& f, TrainingSpec& t) {
    set_if(f.get_enum<CudaGraph>(
               "cuda_graph", [](const std::string& s) { return parse_cuda_graph(s); },
               "none, layers (Megatron --cuda-graph-impl local or transformer_engine) or full_iteration"),
           t.cuda_graph);
    const auto modules = read_module_list(f, "cuda_graph_modules", kCudaGraphModules, "CUDA-graph module",
                                          "--cuda-graph-modules", " (none: the whole layer)");
    if (!modules) {
        return;
    }
    t.cuda_graph_modules = *modules;
    if (t.cuda_graph != CudaGraph::Layers && !t.cuda_graph_modules.empty()) {
        throw input_error(f.where("cuda_graph_modules"), "cuda_graph_modules apply to \"cuda_graph\": \"layers\" only",
                          "set \"cuda_graph\": \"layers\" (Megatron --cuda-graph-impl local or transformer_engine), or remove them");
    }
}

// training.recompute_modules: Megatron's --recompute-modules, with selective recompute only.
void read_recompute_modules(const JsonReader& f, TrainingSpec& t) {
    const auto modules = read_module_list(f, "recompute_modules", kRecomputeModules, "recompute module", "--recompute-modules");
    if (!modules) {
        return;
    }
    t.recompute_modules = *modules;
    if (t.recompute != Recompute::Selective) {
        throw input_error(f.where("recompute_modules"), "recompute_modules apply to selective recompute only",
                          "set \"recompute\": \"selective\" (Megatron --recompute-granularity selective), or remove them");
    }
}

void read_memory_block(const JsonReader& f, TrainingSpec& t) {
    if (auto st = f.get_object("states")) {
        st->check_keys({"precision", "bf16_master_weights_and_grads", "bf16_optimizer_states", "offload_optimizer",
                        "offload_param", "prefetch_bucket", "megatron_fsdp"});
        set_if(st->get_enum<StatePrecision>("precision", enum_named<StatePrecision, StatePrecision::Fp32>, "bf16, fp16 or fp32"),
               t.precision);
        set_if(st->get<bool>("bf16_master_weights_and_grads"), t.bf16_master_weights_and_grads);
        set_if(st->get<bool>("bf16_optimizer_states"), t.bf16_optimizer_states);
        set_if(st->get_enum<Offload>("offload_optimizer", enum_named<Offload, Offload::Nvme>, "none, cpu or nvme"),
               t.offload_optimizer);
        set_if(st->get_enum<Offload>("offload_param", enum_named<Offload, Offload::Nvme>, "none, cpu or nvme"), t.offload_param);
        set_if(st->get<double>("prefetch_bucket", 0, 1e15), t.prefetch_bucket);
        set_if(st->get_enum<ShardingStrategy>("megatron_fsdp", enum_named<ShardingStrategy, ShardingStrategy::OptimGradsParams>,
                                              "off, no_shard, optim, optim_grads or optim_grads_params"),
               t.megatron_fsdp);
        if (t.bf16_optimizer_states && !t.bf16_master_weights_and_grads) {
            // DeepSpeed runtime/config.py: "bf16_optimizer_states requires bf16_master_weights_and_grads".
            throw input_error(st->where("bf16_optimizer_states"),
                              "bf16_optimizer_states requires bf16_master_weights_and_grads (DeepSpeed refuses it alone)",
                              "set \"bf16_master_weights_and_grads\": true too, or drop bf16_optimizer_states");
        }
        if ((t.bf16_master_weights_and_grads) && t.precision != StatePrecision::Bf16) {
            throw input_error(st->where("bf16_master_weights_and_grads"), "bf16 master weights need bf16 precision",
                              "set \"precision\": \"bf16\", or drop bf16_master_weights_and_grads");
        }
    }
    set_if(f.get<int>("checkpoint_every", 1, kMaxInt), t.checkpoint_every);
    set_if(f.get<bool>("per_op_checkpoint"), t.per_op_checkpoint);
    if (t.per_op_checkpoint && t.checkpoint_every > 0) {
        throw input_error(f.where("per_op_checkpoint"), "per_op_checkpoint and checkpoint_every are two values of one option",
                          "keep one (torchtitan's selective_ac_option is \"op\" or a number)");
    }
}

}  // namespace

/// The second measured arm and the measured compute-only step (docs/formats/layout.md): the second
/// arm needs the first and a different transport.
void read_second_arm(const JsonReader& f, TrainingSpec& t) {
    if (const auto c = f.get<double>("measured_compute_s", 1e-6, 1e6)) {
        t.measured_compute_s = *c;
    }
    const auto s = f.get<double>("second_measured_step_time_s", 1e-6, 1e6);
    const auto mt = f.get<std::string>("second_measured_transport");
    if (!s && !mt) {
        return;
    }
    if (!s || !mt) {
        throw input_error(f.where(s ? "second_measured_transport" : "second_measured_step_time_s"),
                          "the second measured arm needs both its step and its transport",
                          "give second_measured_step_time_s and second_measured_transport together");
    }
    if (!parse_transport(*mt)) {
        throw input_error(f.where("second_measured_transport"), "unknown transport '" + *mt + "'",
                          "use tcp, rdma, gdrdma, p2p or shm");
    }
    if (!t.measured_step_time_s) {
        throw input_error(f.where("second_measured_step_time_s"), "a second measured arm without a first",
                          "give the first as measured_step_time_s and measured_transport");
    }
    if (parse_transport(*mt) == parse_transport(t.measured_transport)) {
        throw input_error(f.where("second_measured_transport"),
                          "the second measured arm is the first's transport (" + *mt + ")",
                          "give the other arm's step (tcp and rdma, say), or only one measured step");
    }
    t.second_measured_step_time_s = *s;
    t.second_measured_transport = *mt;
}

TrainingSpec training_spec_from_json(const nlohmann::json& j, const std::string& where,
                                     const std::string& pointer) {
    const JsonReader f(j, where, pointer);
    f.check_keys({"global_batch", "micro_batch", "seq_len", "vpp", "recompute", "sequence_parallel", "finetune", "lora",
                  "distributed_optimizer", "zero_stage", "overlap", "measured_step_time_s", "measured_transport", "grad_accum",
                  "second_measured_step_time_s", "second_measured_transport", "measured_compute_s",
                  "compute_time_s", "gpu", "gpu_peak_tflops", "mfu", "compute_scale", "fp8", "fp8_recipe", "recompute_method",
                  "recompute_layers", "implementation", "attention_backend", "optimizer", "host_time", "states", "checkpoint_every",
                  "per_op_checkpoint", "recompute_modules", "attention_dropout", "hidden_dropout", "cuda_graph",
                  "cuda_graph_modules"});
    TrainingSpec t;
    set_if(f.get<int>("global_batch", 1, kMaxInt), t.global_batch);
    set_if(f.get<int>("micro_batch", 1, kMaxInt), t.micro_batch);
    set_if(f.get<int>("grad_accum", 1, kMaxInt), t.grad_accum);
    set_if(f.get<int>("seq_len", 1, kMaxInt), t.seq_len);
    set_if(f.get<int>("vpp", 1, 1024), t.vpp);
    if (const auto r = f.get<std::string>("recompute")) {
        if (*r == "none") {
            t.recompute = Recompute::None;
        } else if (*r == "selective") {
            t.recompute = Recompute::Selective;
        } else if (*r == "full") {
            t.recompute = Recompute::Full;
        } else {
            throw input_error(f.where("recompute"), "unknown recompute '" + *r + "'",
                              "use none, selective or full");
        }
    }
    set_if(f.get<bool>("sequence_parallel"), t.sequence_parallel);
    if (const auto ft = f.get<std::string>("finetune")) {
        if (*ft == "full") {
            t.finetune = FineTune::Full;
        } else if (*ft == "lora") {
            t.finetune = FineTune::Lora;
        } else {
            throw input_error(f.where("finetune"), "unknown finetune '" + *ft + "'", "use full or lora");
        }
    }
    if (auto lora = f.get_object("lora")) {
        lora->check_keys({"adapter_params", "expert_share"});
        t.finetune = FineTune::Lora;
        set_if(lora->get<double>("adapter_params", 0, 1e15), t.lora_adapter_params);
        set_if(lora->get<double>("expert_share", 0, 1), t.lora_expert_share);
    }
    set_if(f.get<bool>("distributed_optimizer"), t.distributed_optimizer);
    set_if(f.get<int>("zero_stage", 0, 3), t.zero_stage);
    if (auto o = f.get_object("overlap")) {
        o->check_keys({"dp", "param_gather", "bucket_params", "bucket_bytes", "pp", "ep", "cp", "tp"});
        set_if(o->get<bool>("dp"), t.overlap_dp);
        t.overlap_param_gather = o->get<bool>("param_gather").value_or(t.overlap_dp);
        set_if(o->get<double>("bucket_params", 1, 1e15), t.bucket_params);
        set_if(o->get<double>("bucket_bytes", 1, 1e18), t.bucket_bytes);
        if (t.bucket_params > 0 && t.bucket_bytes > 0) {
            throw input_error(o->where("bucket_bytes"), "bucket_params and bucket_bytes both give the bucket size",
                              "keep one: bucket_params (Megatron --ddp-bucket-size) or bucket_bytes");
        }
        set_if(o->get<bool>("pp"), t.overlap_pp);
        set_if(o->get<bool>("ep"), t.overlap_ep);
        set_if(o->get<bool>("cp"), t.overlap_cp);
        set_if(o->get<bool>("tp"), t.overlap_tp);
    }
    if (const auto s = f.get<double>("measured_step_time_s", 1e-6, 1e6)) {
        t.measured_step_time_s = *s;
    }
    if (const auto mt = f.get<std::string>("measured_transport")) {
        if (!parse_transport(*mt)) {
            throw input_error(f.where("measured_transport"), "unknown transport '" + *mt + "'",
                              "use tcp, rdma, gdrdma, p2p or shm");
        }
        t.measured_transport = *mt;
    }
    read_second_arm(f, t);
    if (const auto c = f.get<double>("compute_time_s", 0, 1e6)) {
        t.compute_time_s = *c;
    }
    if (const auto g = f.get<std::string>("gpu")) {
        if (g->empty()) {
            throw input_error(f.where("gpu"), "empty GPU name", "name a GPU of layouts/gpus (\"H100 SXM\"), or remove the key");
        }
        t.gpu = *g;
    }
    t.gpu_peak_tflops = f.get<double>("gpu_peak_tflops", 1e-3, 1e6);
    t.mfu = f.get<double>("mfu", 1e-6, 1.0);
    set_if(f.get<double>("compute_scale", 1e-4, 100.0), t.compute_scale);
    set_if(f.get_enum<Implementation>(
               "implementation", [](const std::string& s) { return parse_implementation(s); },
               "megatron-te (Transformer Engine), megatron-local (--transformer-impl local, fusions off) or hf (transformers)"),
           t.implementation);
    set_if(f.get_enum<AttentionBackend>(
               "attention_backend", [](const std::string& s) { return parse_attention_backend(s); },
               "auto (the implementation's), flash, cudnn, efficient or unfused"),
           t.attention_backend);
    set_if(f.get_enum<OptimizerImpl>(
               "optimizer", [](const std::string& s) { return parse_optimizer_impl(s); },
               "auto, adamw-fused-fp32, adamw-foreach-fp32, adamw-fused-bf16 or adamw-foreach-bf16"),
           t.optimizer);
    const auto host_time = [](const std::string& s) {
        return s == "auto" ? std::optional<bool>(true) : s == "none" ? std::optional<bool>(false) : std::nullopt;
    };
    set_if(f.get_enum<bool>("host_time", host_time,
                            "auto (the kernel table's host time of the implementation) or none (no host time: code that is "
                            "not Megatron's Python, or a step captured in CUDA graphs)"),
           t.host_time);
    read_cuda_graph(f, t);
    if (const auto fp8 = f.get<std::string>("fp8")) {
        if (*fp8 != "e4m3" && *fp8 != "hybrid") {
            throw input_error(f.where("fp8"), "unknown fp8 format '" + *fp8 + "'", "use e4m3 or hybrid (Megatron --fp8-format)");
        }
        t.fp8 = *fp8;
    }
    if (const auto recipe = f.get<std::string>("fp8_recipe")) {
        if (*recipe != "delayed" && *recipe != "tensorwise" && *recipe != "blockwise" && *recipe != "mxfp8") {
            throw input_error(f.where("fp8_recipe"), "unknown fp8 recipe '" + *recipe + "'",
                              "use delayed, tensorwise, blockwise or mxfp8 (Megatron --fp8-recipe)");
        }
        if (t.fp8.empty()) {
            throw input_error(f.where("fp8_recipe"), "fp8_recipe without fp8", "add \"fp8\": \"hybrid\" (or e4m3), or remove it");
        }
        t.fp8_recipe = *recipe;
    }
    t.recompute_method = f.get_enum<RecomputeMethod>(
        "recompute_method",
        [](const std::string& s) -> std::optional<RecomputeMethod> {
            if (s == "uniform" || s == "block") {
                return s == "uniform" ? RecomputeMethod::Uniform : RecomputeMethod::Block;
            }
            return std::nullopt;
        },
        "uniform or block");
    set_if(f.get<int>("recompute_layers", 1, kMaxInt), t.recompute_layers);
    if ((t.recompute_method || t.recompute_layers > 0) && t.recompute != Recompute::Full) {
        throw input_error(f.where(t.recompute_method ? "recompute_method" : "recompute_layers"),
                          "recompute_method and recompute_layers apply to full recompute only",
                          "set \"recompute\": \"full\", or remove them");
    }
    read_recompute_modules(f, t);
    set_if(f.get<double>("attention_dropout", 0, 1), t.attention_dropout);
    set_if(f.get<double>("hidden_dropout", 0, 1), t.hidden_dropout);
    read_memory_block(f, t);
    if (t.global_batch == 0 || t.seq_len == 0) {
        throw input_error(f.where(t.global_batch == 0 ? "global_batch" : "seq_len"),
                          "missing: global_batch and seq_len are both required",
                          "add \"global_batch\": N and \"seq_len\": S");
    }
    t.given = present_keys(j);
    return t;
}

// ---------------------------------------------------------------------------- TransportSpec

namespace {

void read_prior(const JsonReader& f, const std::string& key, Prior& p) {
    if (!f.has(key)) {
        return;
    }
    const nlohmann::json* v = &f.at(key);
    if (v->is_number()) {
        const double old_value = p.value;
        p.value = *f.get<double>(key, 1e-6, 1.0);
        // A bare number moves the band with it, keeping its relative width.
        p.low = p.low * p.value / old_value;
        p.high = std::min(1.0, p.high * p.value / old_value);
        return;
    }
    auto o = f.get_object(key);
    o->check_keys({"value", "low", "high"});
    set_if(o->get<double>("value", 1e-6, 1.0), p.value);
    set_if(o->get<double>("low", 1e-6, 1.0), p.low);
    set_if(o->get<double>("high", 1e-6, 1.0), p.high);
    if (!(p.low <= p.value && p.value <= p.high)) {
        throw input_error(f.where(key), "the band must satisfy low <= value <= high",
                          "fix low, value and high");
    }
}

void read_params(const JsonReader& f, TransportParams& p) {
    read_prior(f, "efficiency", p.efficiency);
    read_prior(f, "alltoall_efficiency", p.alltoall_efficiency);
    set_if(f.get<double>("alpha_us", 0, 1e6), p.alpha_us);
}

}  // namespace

TransportSpec transport_spec_from_json(const nlohmann::json& j, const std::string& where,
                                       const std::string& pointer) {
    const JsonReader f(j, where, pointer);
    f.check_keys({"compare", "tcp", "rdma", "gdrdma", "shm", "calibration"});
    TransportSpec t;
    if (f.has("compare")) {
        const nlohmann::json* c = &f.at("compare");
        if (!c->is_array() || c->size() != 2 || !(*c)[0].is_string() || !(*c)[1].is_string()) {
            throw input_error(f.where("compare"), "expected two transport names, found " + c->dump(),
                              "write e.g. \"compare\": [\"tcp\", \"gdrdma\"]");
        }
        for (std::size_t i = 0; i < 2; ++i) {
            const auto name = (*c)[i].get<std::string>();
            const auto parsed = parse_transport(name);
            if (!parsed) {
                throw input_error(f.where("compare/" + std::to_string(i)),
                                  "unknown transport '" + name + "'", "use tcp, rdma or gdrdma (network), or p2p and shm (inside a node)");
            }
            (i == 0 ? t.baseline : t.candidate) = *parsed;
        }
        if (is_intra_arm(t.baseline) != is_intra_arm(t.candidate)) {
            throw input_error(f.where("compare"), "compares an intra-node arm with a network transport (" + c->dump() + ")",
                              "compare two network transports (tcp, rdma, gdrdma) or the two intra-node arms "
                              "[\"p2p\", \"shm\"], whose network is the best the hardware allows");
        }
        t.compare_given = true;
    }
    if (auto tcp = f.get_object("tcp")) {
        tcp->check_keys({"interface", "interface_gbit_s", "interfaces_per_node", "nsocks_perthread", "socket_nthreads",
                         "per_stream_gbit_s", "inside_node", "efficiency", "alltoall_efficiency", "alpha_us"});
        if (const auto name = tcp->get<std::string>("interface")) {
            require_device_name(*name, tcp->where("interface"), "TCP interface");
            t.tcp.interface_name = *name;
        }
        set_if(tcp->get<double>("interface_gbit_s", 1e-3, 1e5), t.tcp.interface_gbit_s);
        set_if(tcp->get<int>("interfaces_per_node", 1, 64), t.tcp.interfaces_per_node);
        set_if(tcp->get<int>("nsocks_perthread", 1, 64), t.tcp.sockets_per_thread);
        set_if(tcp->get<int>("socket_nthreads", 1, 64), t.tcp.socket_threads);
        set_if(tcp->get_rate("per_stream_gbit_s", 1e-3, 1e5), t.tcp.per_stream_gbit_s);
        set_if(tcp->get<bool>("inside_node"), t.tcp.inside_node);
        read_params(*tcp, t.tcp_params);
    }
    if (auto rdma = f.get_object("rdma")) {
        rdma->check_keys({"efficiency", "alltoall_efficiency", "alpha_us"});
        read_params(*rdma, t.rdma_params);
    }
    if (auto gdr = f.get_object("gdrdma")) {
        gdr->check_keys({"efficiency", "alltoall_efficiency", "alpha_us"});
        read_params(*gdr, t.gdrdma_params);
    }
    if (auto shm = f.get_object("shm")) {
        shm->check_keys({"efficiency", "alltoall_efficiency", "alpha_us", "host_memory_gbyte_s", "inter_socket_gbyte_s",
                         "sockets_per_node"});
        read_params(*shm, t.shm_params);
        set_if(shm->get<double>("host_memory_gbyte_s", 1e-3, 1e5), t.shm.host_memory_gbyte_s);
        set_if(shm->get<double>("inter_socket_gbyte_s", 1e-3, 1e5), t.shm.inter_socket_gbyte_s);
        set_if(shm->get<int>("sockets_per_node", 1, 64), t.shm.sockets_per_node);
    }
    if (f.has("calibration")) {
        const nlohmann::json* c = &f.at("calibration");
        // One file or a list of them: a NIC/TCP-class fit per transport and collective, an NV/PCIe one.
        const bool list = c->is_array() && !c->empty() &&
                          std::all_of(c->begin(), c->end(), [](const nlohmann::json& e) { return e.is_string(); });
        if (c->is_string()) {
            t.calibrations.push_back(c->get<std::string>());
        } else if (list) {
            for (const auto& e : *c) {
                t.calibrations.push_back(e.get<std::string>());
            }
        } else {
            throw input_error(f.where("calibration"), "expected a file name or a list of file names, found " + c->dump(),
                              "write \"calibration\": \"calib.json\" or [\"tcp-a2a.json\", \"tcp-ar.json\"]");
        }
    }
    return t;
}

ScoreFactors score_factors_from_json(const nlohmann::json& j, const std::string& where,
                                     const std::string& pointer) {
    const JsonReader f(j, where, pointer);
    f.check_keys({"cross_node_share", "eliminable", "non_overlapped", "rail_bytes"});
    ScoreFactors s;
    s.cross_node_share = f.get<double>("cross_node_share", 0, 1);
    s.eliminable = f.get<double>("eliminable", 0, 1);
    s.non_overlapped = f.get<double>("non_overlapped", 0, 1);
    if (s.cross_node_share && s.eliminable && s.non_overlapped &&
        *s.cross_node_share * *s.eliminable * *s.non_overlapped >= 1.0) {
        throw unbounded_benefit(f.where(), *s.cross_node_share, *s.eliminable, *s.non_overlapped);
    }
    // rail_bytes (bytes per step by rail, for the fabric diagram): an array, or {"rail": bytes}.
    if (f.has("rail_bytes")) {
        const nlohmann::json& rb = f.at("rail_bytes");
        bool ok = rb.is_array() || rb.is_object();
        if (ok) {
            for (const auto& [k, v] : rb.items()) {
                const bool rail_key =
                    rb.is_array() || (!k.empty() && k.size() < 6 && k.find_first_not_of("0123456789") == std::string::npos);
                ok = ok && rail_key && v.is_number() && v.template get<double>() >= 0 && v.template get<double>() <= 1e18;
            }
        }
        if (!ok) {
            throw input_error(f.where("rail_bytes"), "expected bytes per step by rail, got " + rb.dump().substr(0, 80),
                              "write [1.5e9, 3e9] (index = rail) or {\"0\": 1.5e9}, bytes from 0 to 1e18");
        }
    }
    return s;
}

}  // namespace planlayout
