// Model inputs: what the model and training sections mean once defaults and derivations are
// applied (docs/cost-model.md, "Parameters from the shape"), and both sections written back with
// every field explicit (ModelSpec::to_json, TrainingSpec::to_json).
// Over 500 lines: ModelSpec's derived values (widths, parameter counts) and the writers back to
// JSON (fields, to_json), which write those derived values, change together.
// to split: the enum names and parsers at the end (Implementation, OptimizerImpl, CudaGraph) with
// TrainingSpec::recomputes and resolved_optimizer could join model_spec.cpp's.
#include <algorithm>
#include <array>
#include <climits>

#include "planlayout/model/model_spec.hpp"

namespace planlayout {

namespace {

using namespace std::string_view_literals;

constexpr std::array kOriginNames{"given"sv, "default"sv, "derived"sv};
constexpr std::array kDispatcherNames{"allgather"sv, "alltoall"sv, "flex"sv};

int clamp_int(long long v) { return static_cast<int>(std::clamp<long long>(v, 0, INT_MAX)); }

}  // namespace

std::string_view to_string(ValueOrigin o) { return kOriginNames.at(static_cast<std::size_t>(o)); }

std::string_view to_string(TokenDispatcher d) { return kDispatcherNames.at(static_cast<std::size_t>(d)); }

// ---------------------------------------------------------------------------- effective values

int ModelSpec::derived_head_dim() const { return head_dim > 0 ? head_dim : (heads > 0 ? hidden / heads : 0); }

int ModelSpec::derived_kv_heads() const { return kv_heads > 0 ? kv_heads : heads; }

int ModelSpec::derived_ffn_hidden() const {
    return ffn_hidden > 0 ? ffn_hidden : clamp_int(static_cast<long long>(numbers::kFfnHiddenPerHidden.count()) * hidden);
}

int ModelSpec::derived_moe_ffn_hidden() const {
    if (moe_ffn_hidden > 0) {
        return moe_ffn_hidden;
    }
    return topk > 0 ? derived_ffn_hidden() / topk : 0;
}

int ModelSpec::derived_shared_ffn_hidden() const {
    if (shared_ffn_hidden > 0) {
        return shared_ffn_hidden;
    }
    return clamp_int(static_cast<long long>(shared_experts) * derived_moe_ffn_hidden());
}

int ModelSpec::kv_dim() const {
    if (mla) {
        return clamp_int(static_cast<long long>(heads) * (mla->qk_head_dim + mla->qk_rope_head_dim + mla->v_head_dim) /
                         numbers::kKvTensors.count());
    }
    return clamp_int(static_cast<long long>(derived_kv_heads()) * derived_head_dim());
}

int ModelSpec::kv_cache_dim() const {
    if (mla) {
        return mla->kv_lora_rank + mla->qk_rope_head_dim;
    }
    return clamp_int(static_cast<long long>(numbers::kKvTensors.count()) * derived_kv_heads() * derived_head_dim());
}

double ModelSpec::attention_params_per_layer() const {
    const double h = hidden;
    const double n = heads;
    if (mla) {
        const double q_head = static_cast<double>(mla->qk_head_dim) + mla->qk_rope_head_dim;
        const double q = mla->q_lora_rank > 0 ? h * mla->q_lora_rank + mla->q_lora_rank * n * q_head : h * n * q_head;
        const double kv_a = h * (static_cast<double>(mla->kv_lora_rank) + mla->qk_rope_head_dim);
        const double kv_b = mla->kv_lora_rank * n * (static_cast<double>(mla->qk_head_dim) + mla->v_head_dim);
        const double o = n * mla->v_head_dim * h;
        return q + kv_a + kv_b + o;
    }
    const double q_dim = n * derived_head_dim();
    const double kv = static_cast<double>(derived_kv_heads()) * derived_head_dim();
    return numbers::kQoMatrices * h * q_dim + numbers::kKvTensors * h * kv;  // q and o; k and v
}

double LinearAttentionSpec::params_per_layer(double hidden, bool with_norm) const {
    const double key_dim = static_cast<double>(key_heads) * key_head_dim;
    const double value_dim = static_cast<double>(value_heads) * value_head_dim;
    const double in_proj = hidden * (numbers::kLinearKeyProjections * key_dim + numbers::kLinearValueProjections * value_dim) +
                           hidden * numbers::kLinearHeadGates * value_heads;
    const double conv = (numbers::kLinearKeyProjections * key_dim + value_dim) * conv_kernel;
    return in_proj + conv + numbers::kLinearHeadParams * value_heads + value_dim * hidden + (with_norm ? value_head_dim : 0.0);
}

int LinearAttentionSpec::count() const { return static_cast<int>(std::count(layers.begin(), layers.end(), 1)); }

bool ModelSpec::layer_windowed(int layer) const {
    if (sliding_window <= 0 || layer_linear(layer)) {
        return false;
    }
    const auto i = static_cast<std::size_t>(layer);
    return window_layers.empty() || (i < window_layers.size() && window_layers[i] != 0);
}

bool ModelSpec::layer_linear(int layer) const {
    const auto i = static_cast<std::size_t>(layer);
    return linear_attention && i < linear_attention->layers.size() && linear_attention->layers[i] != 0;
}

double ModelSpec::extra_dense_params() const {
    const double h = hidden;
    const int linear = linear_attention ? linear_attention->count() : 0;
    const auto softmax_layers = static_cast<double>(layers - linear);
    double x = 0;
    if (linear > 0) {  // those layers hold linear attention instead of q, k, v and o
        x += linear * (linear_attention->params_per_layer(h, norms > 0) - attention_params_per_layer());
    }
    if (!mla) {
        const double q_dim = static_cast<double>(heads) * derived_head_dim();
        const double kv = static_cast<double>(derived_kv_heads()) * derived_head_dim();
        x += attention_gate ? softmax_layers * h * q_dim : 0.0;
        x += attention_bias ? softmax_layers * (q_dim + numbers::kKvTensors * kv) : 0.0;
        x += qk_norm ? softmax_layers * numbers::kQkNorms * derived_head_dim() : 0.0;
    } else if (attention_bias) {  // q_a_proj (when the query is compressed) and kv_a_proj_with_mqa
        x += softmax_layers * (static_cast<double>(mla->q_lora_rank) + mla->kv_lora_rank + mla->qk_rope_head_dim);
    }
    x += attention_out_bias ? softmax_layers * h : 0.0;
    x += attention_sinks ? softmax_layers * heads : 0.0;
    const double moe_l = moe_layers;
    const double mats = ffn_matrices();
    if (mlp_bias) {  // the dense FFN layers, and the shared experts of the MoE layers
        x += static_cast<double>(layers - moe_layers) * ((mats - 1.0) * derived_ffn_hidden() + h);
        x += derived_shared_ffn_hidden() > 0 ? moe_l * ((mats - 1.0) * derived_shared_ffn_hidden() + h) : 0.0;
    }
    x += moe_router_bias ? moe_l * experts : 0.0;
    if (moe_shared_gate) {  // built whatever the shared expert's width (Qwen2MoeSparseMoeBlock)
        x += moe_l * h;
    }
    if (norms > 0) {
        x += static_cast<double>(layers) * norms * h + h;  // per layer, and the final norm
        if (mla) {
            x += static_cast<double>(layers) * (static_cast<double>(mla->q_lora_rank) + mla->kv_lora_rank);
        }
    }
    return x;
}

double ModelSpec::derived_dense_params() const {
    if (dense_params > 0) {
        return dense_params;
    }
    const double h = hidden;
    const double mats = ffn_matrices();
    const auto dense_layers = static_cast<double>(layers - moe_layers);
    const double per_moe_layer = h * experts + mats * h * derived_shared_ffn_hidden();  // router + shared experts
    const double embed = static_cast<double>(vocab) * h * (tied_embeddings ? 1.0 : numbers::kUntiedEmbeddingMatrices.value);
    return static_cast<double>(layers) * attention_params_per_layer() + dense_layers * mats * h * derived_ffn_hidden() +
           static_cast<double>(moe_layers) * per_moe_layer + embed + extra_dense_params();
}

double ModelSpec::derived_expert_params() const {
    if (expert_params > 0) {
        return expert_params;
    }
    const double h = hidden;
    const double f_e = derived_moe_ffn_hidden();
    const double per_expert = ffn_matrices() * h * f_e + (moe_expert_bias ? (ffn_matrices() - 1.0) * f_e + h : 0.0);
    return static_cast<double>(moe_layers) * experts * per_expert;
}

double ModelSpec::active_params() const {
    const double share = experts > 0 ? static_cast<double>(topk) / experts : 0.0;
    return derived_dense_params() + share * derived_expert_params();
}

std::vector<bool> ModelSpec::moe_layer_map() const {
    std::vector<bool> map(static_cast<std::size_t>(std::max(0, layers)), false);
    for (std::size_t i = 0; i < map.size(); ++i) {
        if (!moe_layer_pattern.empty()) {
            map[i] = i < moe_layer_pattern.size() && moe_layer_pattern[i] != 0;
        } else if (moe_layer_freq > 0) {
            map[i] = i % static_cast<std::size_t>(moe_layer_freq) == 0;
        } else {
            const auto first = static_cast<std::size_t>(std::max(0, first_dense_layers));
            map[i] = i >= first && i < first + static_cast<std::size_t>(std::max(0, moe_layers));
        }
    }
    return map;
}

bool ModelSpec::is_given(std::string_view pointer) const {
    return std::find(given.begin(), given.end(), pointer) != given.end();
}

// ---------------------------------------------------------------------------- writing back

std::vector<SpecField> ModelSpec::fields() const {
    std::vector<SpecField> out;
    // A field with a documented default: given when the input had it.
    const auto plain = [&](const std::string& p, nlohmann::json v) {
        out.push_back({p, std::move(v), is_given(p) ? ValueOrigin::Given : ValueOrigin::Default});
    };
    // A field whose 0 means "derive it": derived while it is 0.
    const auto derivable = [&](const std::string& p, nlohmann::json v, bool derived) {
        out.push_back({p, std::move(v), derived ? ValueOrigin::Derived : ValueOrigin::Given});
    };
    const bool has_pattern = !moe_layer_pattern.empty() || moe_layer_freq > 0;
    out.push_back({"/layers", layers, ValueOrigin::Given});
    const auto origin = [&](const std::string& p, bool derived) {
        return is_given(p) ? ValueOrigin::Given : (derived ? ValueOrigin::Derived : ValueOrigin::Default);
    };
    out.push_back({"/first_dense_layers", first_dense_layers, origin("/first_dense_layers", has_pattern)});
    out.push_back({"/moe_layers", moe_layers, origin("/moe_layers", experts > 0)});
    out.push_back({"/hidden", hidden, ValueOrigin::Given});
    if (heads > 0) {
        out.push_back({"/heads", heads, ValueOrigin::Given});
        derivable("/kv_heads", derived_kv_heads(), kv_heads == 0);
        derivable("/head_dim", derived_head_dim(), head_dim == 0);
    }
    derivable("/ffn_hidden", derived_ffn_hidden(), ffn_hidden == 0);
    plain("/ffn_gated", ffn_gated);
    plain("/vocab", vocab);
    plain("/tied_embeddings", tied_embeddings);
    if (experts > 0) {
        out.push_back({"/moe/experts", experts, ValueOrigin::Given});
        out.push_back({"/moe/topk", topk, ValueOrigin::Given});
        derivable("/moe/ffn_hidden", derived_moe_ffn_hidden(), moe_ffn_hidden == 0);
        plain("/moe/shared_experts", shared_experts);
        derivable("/moe/shared_ffn_hidden", derived_shared_ffn_hidden(), shared_ffn_hidden == 0);
        plain("/moe/capacity_factor", capacity_factor);
        if (!moe_layer_pattern.empty()) {
            out.push_back({"/moe/layer_freq", moe_layer_pattern, ValueOrigin::Given});
        } else if (moe_layer_freq > 0) {
            out.push_back({"/moe/layer_freq", moe_layer_freq, ValueOrigin::Given});
        }
        if (moe_shared_gate) {
            plain("/moe/shared_gate", true);
        }
        if (moe_router_bias) {
            plain("/moe/router_bias", true);
        }
        if (moe_expert_bias) {
            plain("/moe/expert_bias", true);
        }
        plain("/moe/token_dispatcher", std::string(to_string(token_dispatcher)));
        if (router_groups > 0) {
            plain("/moe/router_groups", router_groups);
            plain("/moe/router_group_topk", router_group_topk);
        }
        plain("/moe/grouped_gemm", grouped_gemm);
    }
    if (mla) {
        out.push_back({"/mla/q_lora_rank", mla->q_lora_rank,
                       is_given("/mla/q_lora_rank") ? ValueOrigin::Given : ValueOrigin::Default});
        out.push_back({"/mla/kv_lora_rank", mla->kv_lora_rank, ValueOrigin::Given});
        out.push_back({"/mla/qk_head_dim", mla->qk_head_dim, ValueOrigin::Given});
        out.push_back({"/mla/qk_rope_head_dim", mla->qk_rope_head_dim, ValueOrigin::Given});
        out.push_back({"/mla/v_head_dim", mla->v_head_dim, ValueOrigin::Given});
    }
    // The issue-29 keys: written only when set, so that models without them read back the same.
    for (const auto& [key, on] : {std::pair<const char*, bool>{"/attention_bias", attention_bias},
                                  {"/attention_out_bias", attention_out_bias},
                                  {"/attention_sinks", attention_sinks},
                                  {"/attention_gate", attention_gate},
                                  {"/mlp_bias", mlp_bias},
                                  {"/qk_norm", qk_norm}}) {
        if (on) {
            plain(key, true);
        }
    }
    if (norms > 0) {
        plain("/norms", norms);
    }
    if (sliding_window > 0) {
        plain("/sliding_window/size", sliding_window);
        if (!window_layers.empty()) {
            plain("/sliding_window/layers", window_layers);
        }
    }
    if (linear_attention) {
        const LinearAttentionSpec& a = *linear_attention;
        plain("/linear_attention/layers", a.layers);
        plain("/linear_attention/key_heads", a.key_heads);
        plain("/linear_attention/value_heads", a.value_heads);
        plain("/linear_attention/key_head_dim", a.key_head_dim);
        plain("/linear_attention/value_head_dim", a.value_head_dim);
        plain("/linear_attention/conv_kernel", a.conv_kernel);
    }
    derivable("/params/dense", derived_dense_params(), dense_params <= 0);
    derivable("/params/expert", derived_expert_params(), expert_params <= 0);
    plain("/dtype_bytes/activation", activation_bytes);
    plain("/dtype_bytes/grad", grad_bytes);
    plain("/dtype_bytes/param", param_bytes);
    return out;
}

nlohmann::json ModelSpec::to_json() const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& f : fields()) {
        j[nlohmann::json::json_pointer(f.pointer)] = f.value;
    }
    return j;
}

nlohmann::json TrainingSpec::to_json() const {
    static constexpr std::array kRecompute{"none", "selective", "full"};
    nlohmann::json j = {{"global_batch", global_batch},
                        {"micro_batch", micro_batch},
                        {"seq_len", seq_len},
                        {"vpp", vpp},
                        {"recompute", kRecompute.at(static_cast<std::size_t>(recompute))},
                        {"sequence_parallel", sequence_parallel},
                        {"finetune", finetune == FineTune::Lora ? "lora" : "full"},
                        {"distributed_optimizer", distributed_optimizer},
                        {"zero_stage", zero_stage},
                        {"overlap", {{"dp", overlap_dp},
                                     {"param_gather", overlap_param_gather},
                                     {"pp", overlap_pp},
                                     {"ep", overlap_ep},
                                     {"cp", overlap_cp},
                                     {"tp", overlap_tp}}},
                        {"measured_transport", measured_transport},
                        {"compute_scale", compute_scale}};
    if (!gpu.empty()) {
        j["gpu"] = gpu;
    }
    if (gpu_peak_tflops) {
        j["gpu_peak_tflops"] = *gpu_peak_tflops;
    }
    if (mfu) {
        j["mfu"] = *mfu;
    }
    if (finetune == FineTune::Lora) {
        j["lora"] = {{"adapter_params", lora_adapter_params}, {"expert_share", lora_expert_share}};
    }
    if (bucket_params > 0) {
        j["overlap"]["bucket_params"] = bucket_params;
    }
    if (bucket_bytes > 0) {
        j["overlap"]["bucket_bytes"] = bucket_bytes;
    }
    if (measured_step_time_s) {
        j["measured_step_time_s"] = *measured_step_time_s;
    }
    if (second_measured_step_time_s) {
        j["second_measured_step_time_s"] = *second_measured_step_time_s;
        j["second_measured_transport"] = second_measured_transport;
    }
    if (measured_compute_s) {
        j["measured_compute_s"] = *measured_compute_s;
    }
    if (compute_time_s) {
        j["compute_time_s"] = *compute_time_s;
    }
    if (!fp8.empty()) {
        j["fp8"] = fp8;
    }
    if (!fp8_recipe.empty()) {
        j["fp8_recipe"] = fp8_recipe;
    }
    if (recompute_method) {
        j["recompute_method"] = *recompute_method == RecomputeMethod::Uniform ? "uniform" : "block";
    }
    if (recompute_layers > 0) {
        j["recompute_layers"] = recompute_layers;
    }
    if (!recompute_modules.empty()) {
        j["recompute_modules"] = recompute_modules;
    }
    if (attention_dropout != TrainingSpec{}.attention_dropout) {
        j["attention_dropout"] = attention_dropout;
    }
    if (hidden_dropout != TrainingSpec{}.hidden_dropout) {
        j["hidden_dropout"] = hidden_dropout;
    }
    // The memory block (issue 29): written when it differs from the defaults.
    const TrainingSpec defaults;
    nlohmann::json states = nlohmann::json::object();
    if (precision != defaults.precision) {
        states["precision"] = to_string(precision);
    }
    if (bf16_master_weights_and_grads) {
        states["bf16_master_weights_and_grads"] = true;
    }
    if (bf16_optimizer_states) {
        states["bf16_optimizer_states"] = true;
    }
    if (offload_optimizer != Offload::None) {
        states["offload_optimizer"] = to_string(offload_optimizer);
    }
    if (offload_param != Offload::None) {
        states["offload_param"] = to_string(offload_param);
    }
    if (prefetch_bucket != defaults.prefetch_bucket) {
        states["prefetch_bucket"] = prefetch_bucket;
    }
    if (megatron_fsdp != ShardingStrategy::Off) {
        states["megatron_fsdp"] = to_string(megatron_fsdp);
    }
    if (!states.empty()) {
        j["states"] = states;
    }
    if (checkpoint_every > 0) {
        j["checkpoint_every"] = checkpoint_every;
    }
    if (per_op_checkpoint) {
        j["per_op_checkpoint"] = true;
    }
    if (grad_accum > 0) {
        j["grad_accum"] = grad_accum;
    }
    j["implementation"] = std::string(planlayout::to_string(implementation));
    j["attention_backend"] = planlayout::to_string(attention_backend);
    j["optimizer"] = std::string(planlayout::to_string(optimizer));
    j["host_time"] = host_time ? "auto" : "none";
    if (cuda_graph != CudaGraph::None) {
        j["cuda_graph"] = std::string(planlayout::to_string(cuda_graph));
    }
    if (!cuda_graph_modules.empty()) {
        j["cuda_graph_modules"] = cuda_graph_modules;
    }
    return j;
}

std::string_view to_string(Implementation i) {
    switch (i) {
        case Implementation::MegatronTe:
            return "megatron-te";
        case Implementation::MegatronLocal:
            return "megatron-local";
        case Implementation::Hf:
            return "hf";
    }
    return "megatron-te";
}

std::optional<Implementation> parse_implementation(std::string_view s) {
    for (const Implementation i : {Implementation::MegatronTe, Implementation::MegatronLocal, Implementation::Hf}) {
        if (s == to_string(i)) {
            return i;
        }
    }
    return std::nullopt;
}

std::string_view to_string(OptimizerImpl o) {
    switch (o) {
        case OptimizerImpl::Auto:
            return "auto";
        case OptimizerImpl::FusedFp32:
            return "adamw-fused-fp32";
        case OptimizerImpl::ForeachFp32:
            return "adamw-foreach-fp32";
        case OptimizerImpl::FusedBf16:
            return "adamw-fused-bf16";
        case OptimizerImpl::ForeachBf16:
            return "adamw-foreach-bf16";
    }
    return "auto";
}

bool steps_bf16_weights(OptimizerImpl o) { return o == OptimizerImpl::FusedBf16 || o == OptimizerImpl::ForeachBf16; }

bool TrainingSpec::recomputes(std::string_view module) const {
    if (recompute != Recompute::Selective) {
        return false;
    }
    if (recompute_modules.empty()) {
        return module == "core_attn";
    }
    const auto listed = [&](std::string_view m) {
        return std::find(recompute_modules.begin(), recompute_modules.end(), m) != recompute_modules.end();
    };
    // "moe" checkpoints the whole MoE layer, its activation and shared experts included.
    return listed(module) || ((module == "moe_act" || module == "shared_experts") && listed("moe"));
}

OptimizerImpl TrainingSpec::resolved_optimizer() const {
    if (optimizer != OptimizerImpl::Auto) {
        return optimizer;
    }
    switch (implementation) {
        case Implementation::MegatronTe:
            return OptimizerImpl::FusedFp32;
        case Implementation::MegatronLocal:
            return OptimizerImpl::ForeachFp32;
        case Implementation::Hf:
            return OptimizerImpl::ForeachBf16;
    }
    return OptimizerImpl::FusedFp32;
}

std::string_view to_string(CudaGraph g) {
    switch (g) {
        case CudaGraph::None:
            return "none";
        case CudaGraph::Layers:
            return "layers";
        case CudaGraph::FullIteration:
            return "full_iteration";
    }
    return "none";
}

std::optional<CudaGraph> parse_cuda_graph(std::string_view s) {
    for (const CudaGraph g : {CudaGraph::None, CudaGraph::Layers, CudaGraph::FullIteration}) {
        if (s == to_string(g)) {
            return g;
        }
    }
    return std::nullopt;
}

std::optional<OptimizerImpl> parse_optimizer_impl(std::string_view s) {
    for (const OptimizerImpl o : {OptimizerImpl::Auto, OptimizerImpl::FusedFp32, OptimizerImpl::ForeachFp32,
                                  OptimizerImpl::FusedBf16, OptimizerImpl::ForeachBf16}) {
        if (s == to_string(o)) {
            return o;
        }
    }
    return std::nullopt;
}

}  // namespace planlayout
