// Memory per GPU: the model states as each framework allocates them (Megatron, DeepSpeed ZeRO,
// torchtitan FSDP2), activations after Korthikanti et al. 2022 (docs/cost-model.md §8).
// Over 500 lines: one estimate: the model states of three frameworks and the activations of
// Megatron's modules, transformers' eager modules and torchtitan's per-op checkpointing add into one
// MemoryEstimate, each formula beside the source code it follows.
#include "planlayout/model/memory.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "planlayout/error.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/model/numbers/memory.hpp"
#include "planlayout/model/numbers/training.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout {

namespace {

// The registry's bytes per element and ZeRO's stages, under short names.
constexpr double kFp32 = numbers::kFp32Bytes;
constexpr double kHalf = numbers::kHalfBytes;
constexpr double kAdamFp32 = numbers::kAdamMoments * kFp32;  // m + v in fp32
constexpr double kGated = numbers::kGatedFc1Outputs;         // g of a gated MLP (gate, up)
constexpr int kShardGradsStage = numbers::kZeroGradsStage.count();
constexpr int kShardParamsStage = numbers::kZeroParamsStage.count();

// Bytes per parameter of each model state, which of them are sharded over the data-parallel
// ranks, and how unsharded parameters come back for compute.
enum class Gather { None, Units, Modules };  // none; FSDP units (layers); ZeRO-3 modules with prefetch

struct States {
    std::string name;           // "Megatron DDP", "DeepSpeed ZeRO-3, bf16", ...
    double weight = kHalf;      // bytes per parameter of the resident weights
    double grad = kFp32;
    double optimizer = numbers::kMixedAdamStateBytes;  // master + Adam m, v
    std::string optimizer_parts = "4 fp32 master + 4 m + 4 v";
    bool shard_weight = false;
    bool shard_grad = false;
    bool shard_optimizer = false;
    Gather gather = Gather::None;
    double gather_bytes = kHalf;  // dtype of the gathered (compute) parameters
    double unit_grad_bytes = 0;  // FSDP: bytes per parameter of one unit's unsharded gradient
    bool offload_optimizer = false;
    bool offload_param = false;
    double step_temp_bytes = 0;  // bytes per trained parameter the optimizer's step allocates (foreach: sqrt(v))
};

// Megatron-LM (megatron/training/theoretical_memory_usage.py compute_weight_and_optimizer_memory):
// bf16 weights 2 + fp32 main grads 4 + fp32 master, m, v 12 = 18 bytes per parameter; the
// distributed optimizer shards the 12 over the data-parallel ranks (6 + 12/d). Megatron-FSDP
// (megatron/core/distributed/fsdp, --data-parallel-sharding-strategy) shards the optimizer
// (optim), also the main grads (optim_grads), also the weights (optim_grads_params: gathered per
// module during compute). A legacy training.zero_stage shards as ZeRO's stages do.
States megatron_states(const ModelSpec& m, const TrainingSpec& t) {
    States s;
    const bool fp32 = t.precision == StatePrecision::Fp32;
    s.weight = fp32 ? kFp32 : m.param_bytes;
    // main_grad in the model's gradient dtype: the Megatron reader gives 4 for --bf16 (fp32 main
    // grads, Megatron's 18), 2 with --grad-reduce-in-bf16; a layout's default is 2.
    s.grad = fp32 ? kFp32 : m.grad_bytes;
    s.optimizer = fp32 ? kAdamFp32 : numbers::kMixedAdamStateBytes.value;
    s.optimizer_parts = fp32 ? "4 m + 4 v (fp32 weights are the master)" : "4 fp32 master + 4 m + 4 v";
    if (!fp32 && steps_bf16_weights(t.resolved_optimizer())) {
        // AdamW stepping the bf16 weights (optimizer adamw-*-bf16, hf's default: torch.optim.AdamW
        // on a bf16 model): gradients and m, v in the weights' dtype, no fp32 master.
        s.grad = m.param_bytes;
        s.optimizer = numbers::kAdamMoments * m.param_bytes;
        s.optimizer_parts = "m + v in the weights' dtype, no master: " + std::string(to_string(t.resolved_optimizer()));
    }
    int stage = t.zero_stage;
    s.name = t.implementation == Implementation::Hf ? "PyTorch DDP (hf)" : "Megatron DDP";
    if (t.distributed_optimizer) {
        stage = std::max(stage, 1);
        s.name = "Megatron distributed optimizer";
    }
    if (t.zero_stage > 0) {
        s.name = "Megatron, ZeRO-" + std::to_string(t.zero_stage) + " (training.zero_stage)";
    }
    if (t.megatron_fsdp != ShardingStrategy::Off) {
        stage = zero_stage_of(t.megatron_fsdp);
        s.name = "Megatron-FSDP " + std::string(to_string(t.megatron_fsdp));
        if (stage == kShardParamsStage) {
            s.gather = Gather::Units;
            s.gather_bytes = s.weight;
            s.unit_grad_bytes = s.grad;
        }
    }
    // torch.optim.AdamW's foreach step (_multi_tensor_adamw) takes _foreach_sqrt of every v at
    // once: one more tensor of v's dtype per parameter until the step ends. The fused kernels
    // (apex, TE, torch fused) work in place.
    const OptimizerImpl o = t.resolved_optimizer();
    if (o == OptimizerImpl::ForeachBf16 || o == OptimizerImpl::ForeachFp32) {
        s.step_temp_bytes = o == OptimizerImpl::ForeachBf16 ? m.param_bytes : kFp32;
    }
    s.shard_optimizer = stage >= 1;
    s.shard_grad = stage >= kShardGradsStage;
    s.shard_weight = stage >= kShardParamsStage;
    if (stage >= kShardParamsStage && s.gather == Gather::None) {
        s.gather = Gather::Units;
        s.gather_bytes = s.weight;
    }
    return s;
}

// DeepSpeed (ZeRO paper §3, DeepSpeed's ZeRO docs: mixed-precision Adam 2 + 2 + 12 = 16 bytes per
// parameter; stage 1 shards the 12 (4 + 12/Nd), stage 2 also the 2 of gradients (2 + 14/Nd),
// stage 3 everything (16/Nd)). Precision as runtime/precision_config.py: fp32 when neither bf16
// nor fp16 is enabled (4-byte weights and gradients, Adam m, v: 8, no separate master);
// bf16.bf16_master_weights_and_grads keeps the master in bf16 (2), bf16.bf16_optimizer_states
// also m, v (2 + 2). zero_optimization.offload_optimizer moves the optimizer states to the host
// (ZeRO-Offload), offload_param the ZeRO-3 weight shards.
States deepspeed_states(const TrainingSpec& t, int stage) {
    States s;
    const bool fp32 = t.precision == StatePrecision::Fp32;
    s.name = "DeepSpeed ZeRO-" + std::to_string(stage) + ", " + std::string(to_string(t.precision));
    s.weight = fp32 ? kFp32 : kHalf;
    s.grad = fp32 ? kFp32 : kHalf;
    if (fp32) {
        s.optimizer = kAdamFp32;
        s.optimizer_parts = "4 m + 4 v (fp32 weights are the master)";
    } else {
        const double master = t.bf16_master_weights_and_grads ? kHalf : kFp32;
        const double moments = t.bf16_optimizer_states ? numbers::kAdamMoments * kHalf : kAdamFp32;
        s.optimizer = master + moments;
        s.optimizer_parts = (t.bf16_master_weights_and_grads ? "2 bf16 master" : "4 fp32 master") +
                            std::string(t.bf16_optimizer_states ? " + 2 m + 2 v (bf16)" : " + 4 m + 4 v");
    }
    s.shard_optimizer = stage >= 1;
    s.shard_grad = stage >= kShardGradsStage;
    s.shard_weight = stage >= kShardParamsStage;
    s.gather = stage >= kShardParamsStage ? Gather::Modules : Gather::None;
    s.gather_bytes = s.weight;
    s.offload_optimizer = t.offload_optimizer != Offload::None;
    s.offload_param = stage >= kShardParamsStage && t.offload_param != Offload::None;
    return s;
}

// torchtitan (torchtitan/distributed/fsdp.py, models/llama3/infra/parallelize.py apply_fsdp):
// fully_shard keeps fp32 parameters (4), fp32 gradients (4) and AdamW's fp32 m, v (8) sharded
// over the FSDP mesh (dp_shard × cp), replicated over dp_replicate (HSDP); compute gathers each
// unit (a transformer block, the embedding, the norm + output) in param_dtype bf16, the next one
// prefetched, and reduce-scatters a unit's gradient in reduce_dtype fp32. Without an FSDP mesh
// (dp_shard·cp = 1) DDP or a single GPU keeps the same 16 bytes whole. A DeviceMesh with FSDP
// dims is counted the same way.
States fsdp2_states(bool sharded) {
    States s;
    s.name = sharded ? "FSDP2 (torchtitan), fp32 states, bf16 compute" : "torchtitan without FSDP, fp32 states";
    s.weight = kFp32;
    s.grad = kFp32;
    s.optimizer = kAdamFp32;
    s.optimizer_parts = "4 m + 4 v (fp32 weights are the master)";
    s.shard_weight = s.shard_grad = s.shard_optimizer = sharded;
    if (sharded) {
        s.gather = Gather::Units;
        s.gather_bytes = kHalf;
        s.unit_grad_bytes = kHalf + kFp32;  // the unit's bf16 gradient and its fp32 copy for the reduce-scatter
    }
    return s;
}

std::string gib(double b) { return human_bytes(b); }

// "X/Nd" or "X" for one term's bytes per parameter.
std::string per_param(double bytes, bool sharded, const char* over) {
    return number_text(bytes) + (sharded ? std::string("/") + over : std::string());
}

// The parameters one rank holds and, for gathering, the largest unit and module.
struct Holding {
    double dense_local = 0;     // Ψ_d/(t·p)
    double expert_local = 0;    // Ψ_e/(e·etp·p)
    double dense_trainable = 0;
    double expert_trainable = 0;
    double nd = 1;              // shards of dense states
    double ne = 1;              // shards of expert states
};

// The largest FSDP unit a rank gathers (a transformer block's local parameters, or the embedding
// or output layer), and the largest single module ZeRO-3 fetches (one linear layer).
double largest_unit(const ParallelSizes& p, const ModelSpec& m) {
    const double embed = static_cast<double>(m.vocab) * m.hidden;
    const double layers = std::max(1, m.layers);
    const double matrices = m.tied_embeddings ? 1.0 : numbers::kUntiedEmbeddingMatrices.value;  // embedding, output
    const double dense_layer = std::max(0.0, m.derived_dense_params() - embed * matrices) / layers;
    const double expert_layer = m.moe_layers > 0 ? m.derived_expert_params() / m.moe_layers : 0.0;
    const double block = dense_layer / p.tp + expert_layer / (static_cast<double>(p.ep) * p.etp);
    return std::max(block, embed / p.tp);
}

double largest_module(const ParallelSizes& p, const ModelSpec& m) {
    const double h = m.hidden;
    const double linear = std::max({static_cast<double>(m.vocab) * h, h * m.derived_ffn_hidden(),
                                    h * m.heads * m.derived_head_dim(), h * m.derived_moe_ffn_hidden()});
    return linear / p.tp;
}

void model_states(const States& s, const Holding& h, const ModelSpec& m, const TrainingSpec& t, MemoryEstimate& e) {
    const bool lora = t.finetune == FineTune::Lora;
    const auto shard = [&](double dense, double expert, bool sharded) {
        return dense / (sharded ? h.nd : 1.0) + expert / (sharded ? h.ne : 1.0);
    };
    const double weights = shard(h.dense_local, h.expert_local, s.shard_weight);
    const double adapters = lora ? h.dense_trainable + h.expert_trainable : 0.0;  // on top of the frozen base
    const double trainable_g = shard(h.dense_trainable, h.expert_trainable, s.shard_grad);
    const double trainable_o = shard(h.dense_trainable, h.expert_trainable, s.shard_optimizer);
    // LoRA's frozen base weights keep the model's dtype: sharded or not, they are not trained.
    const double w_bytes = lora ? m.param_bytes : s.weight;
    e.params_bytes = weights * w_bytes + adapters * s.weight;
    e.grads_bytes = trainable_g * s.grad;
    e.optimizer_bytes = trainable_o * s.optimizer;
    const std::string nd = "Nd " + number_text(h.nd) + (h.expert_local > 0 ? ", Ne " + number_text(h.ne) : std::string());
    e.accounting = s.name + ": " + per_param(s.weight, s.shard_weight, "Nd") + " weights + " +
                   per_param(s.grad, s.shard_grad, "Nd") + " grads + " + per_param(s.optimizer, s.shard_optimizer, "Nd") +
                   " optimizer (" + s.optimizer_parts + ") bytes per parameter; " + nd;
    const std::string held = "Ψ_d/(t·p)" + std::string(h.expert_local > 0 ? " + Ψ_e/(e·etp·p)" : "");
    e.params_formula = held + (s.shard_weight ? " sharded" : "") + " × " + number_text(w_bytes) + " B" +
                       (lora ? " + the LoRA adapters × " + number_text(s.weight) + " B" : "");
    const std::string trained = lora ? "the LoRA adapters" : held;
    e.grads_formula = trained + (s.shard_grad ? " sharded" : "") + " × " + number_text(s.grad) + " B";
    e.optimizer_formula = trained + (s.shard_optimizer ? " sharded" : "") + " × " + number_text(s.optimizer) + " B";
    if (s.step_temp_bytes > 0 && !s.offload_optimizer) {
        e.optimizer_step_bytes = trainable_o * s.step_temp_bytes;
        e.optimizer_step_formula = trained + (s.shard_optimizer ? " sharded" : "") + " × " + number_text(s.step_temp_bytes) +
                                   " B (foreach AdamW's sqrt(v), beside the gradients once the activations are freed)";
    }
    if (s.offload_optimizer) {
        e.offloaded_bytes += e.optimizer_bytes;
        e.optimizer_bytes = 0;
        e.optimizer_formula += ", offloaded (offload_optimizer " + std::string(to_string(t.offload_optimizer)) + "): 0 on the GPU";
    }
    if (s.offload_param) {
        e.offloaded_bytes += e.params_bytes;
        e.params_bytes = 0;
        e.params_formula += ", offloaded (offload_param " + std::string(to_string(t.offload_param)) + "): 0 on the GPU";
    }
}

void gathered(const States& s, const ParallelSizes& p, const ModelSpec& m, const TrainingSpec& t, MemoryEstimate& e) {
    if (s.gather == Gather::Units) {
        // The unit computing and the next one prefetched, in the compute dtype, and one unit's
        // unsharded gradient before its reduce-scatter.
        const double unit = largest_unit(p, m);
        e.gathered_bytes = unit * (numbers::kFsdpUnitsInFlight * s.gather_bytes + s.unit_grad_bytes);
        e.gathered_formula = "largest unit " + number_text(std::round(unit)) + " params × (2 in flight × " + number_text(s.gather_bytes) +
                             " B" + (s.unit_grad_bytes > 0 ? " + one unit's gradient " + number_text(s.unit_grad_bytes) + " B" : "") +
                             ")";
    } else if (s.gather == Gather::Modules) {
        // ZeRO-3 fetches module by module, prefetching up to stage3_prefetch_bucket_size elements
        // ahead (the HF Trainer's "auto": 0.9·h·h).
        const double module = largest_module(p, m);
        const double bucket = t.prefetch_bucket > 0 ? t.prefetch_bucket : numbers::kZero3AutoPrefetchPerH2 * m.hidden * m.hidden;
        e.gathered_bytes = (module + bucket) * s.gather_bytes;
        e.gathered_formula = "(largest module " + number_text(std::round(module)) + " + prefetch bucket " + number_text(std::round(bucket)) +
                             ") params × " + number_text(s.gather_bytes) + " B";
    }
}

// torchtitan's per-op selective checkpointing (selective_ac_option "op", models/llama3/infra/
// parallelize.py _save_list and its policy): a block keeps its input, the attention output and
// every other matmul output (the 1st, 3rd, 5th, 7th of wq, wk, wv, wo, w1, w3, w2: q, v, w1's
// and w2's), all bf16: 2·(h + heads·hd + heads·hd + kv·hd + ffn + h) bytes per token, over t.
double per_op_layer(const ModelSpec& m, double tokens, double tp) {
    const double q = static_cast<double>(m.heads) * m.derived_head_dim();
    const double kv = static_cast<double>(m.derived_kv_heads()) * m.derived_head_dim();
    return kHalf * tokens *
           (numbers::kPerOpHiddenSaved * m.hidden + numbers::kPerOpQSaved * q + kv + m.derived_ffn_hidden()) / tp;
}

// What one layer keeps beyond Korthikanti's dense layer, and what selective recompute's modules
// (Megatron --recompute-modules) drop from it. All in bytes per micro-batch.
struct LayerParts {
    double score_unit = 0;  // unfused attention: a·s²·b/t, one byte per score of the rank's heads
    double scores = 0;      // unfused attention: the s×s probabilities (2·a·s²·b/t), with dropout
                            // also its mask and output (5·a·s²·b/t, Korthikanti's term)
    double norms = 0;       // the two norms' outputs (the QKV and FC1 inputs): 4·s·b·h (/t under SP)
    double dense_mlp = 0;   // a dense MLP's FC1 output and activation output: 2·s·b·(g·f + f)/t
    double moe_io = 0;      // routed token copies, in and out of the experts: 2·topk·s·b·h·β (/t under SP)
    double moe_fc1 = 0;     // the experts' FC1 outputs: topk·s·b·g·f_e·β/etp
    double moe_act = 0;     // the experts' activation outputs: topk·s·b·f_e·β/etp
    double shared = 0;      // shared experts' FC1 and activation outputs: 2·s·b·(g + 1)·f_s/t
};

LayerParts layer_parts(const ParallelSizes& p, const ModelSpec& m, const TrainingSpec& t) {
    LayerParts x;
    const double tp = p.tp;
    const double sb = static_cast<double>(t.seq_len) * t.micro_batch / p.cp;
    const double beta = m.activation_bytes;
    const double g = m.ffn_gated ? kGated : 1.0;
    if (t.unfused_attention()) {
        x.score_unit = m.heads * static_cast<double>(t.seq_len) * t.seq_len * t.micro_batch / (tp * p.cp);
        x.scores = (t.attention_dropout > 0 ? numbers::kScoresDropoutBytes : numbers::kScoresBytes) * x.score_unit;
    }
    x.norms = numbers::kNormsPerSbh * sb * m.hidden / (t.sequence_parallel ? tp : 1.0);
    x.dense_mlp = beta * sb * (g + 1.0) * m.derived_ffn_hidden() / tp;
    if (m.experts > 0) {
        const double routed = m.topk * sb / (t.sequence_parallel ? tp : 1.0);
        const double width = static_cast<double>(m.derived_moe_ffn_hidden()) / std::max(1, p.etp);
        x.moe_io = numbers::kRoutedCopies * routed * m.hidden * beta;
        x.moe_fc1 = routed * g * width * beta;
        x.moe_act = routed * width * beta;
        x.shared = beta * sb * (g + 1.0) * m.derived_shared_ffn_hidden() / tp;
    }
    return x;
}

// What Hugging Face transformers' eager modules keep per layer (modeling_llama.py and its kin,
// transformers 5, SDPA attention with enable_gqa), which is more than Megatron's modules keep:
// LlamaRMSNorm upcasts its input to fp32 and keeps it (pow, mul) beside its normalized output (the
// weight's mul) and the next linear's input, (4 + 2β)·h per token and norm; RoPE keeps the
// rotated q and k, SDPA also v and its output, o_proj a contiguous copy of that output
// (β·(3q + 2kv)); Qwen3's q_norm/k_norm add (4 + β)·(q + kv); the MLP keeps its FC1 outputs, the
// activation's output and the product (2·g·β·f: gate, up, act(gate), act·up when gated). Bytes per
// micro-batch over t; the output side is hf_output().
struct HfLayer {
    double attention_norms = 0;  // the two norms and the attention
    double mlp = 0;              // a dense MLP
};

HfLayer hf_layer(const ModelSpec& m, double tokens, double tp) {
    const double beta = m.activation_bytes;
    const double q = static_cast<double>(m.heads) * m.derived_head_dim();
    const double kv = static_cast<double>(m.derived_kv_heads()) * m.derived_head_dim();
    const double g = m.ffn_gated ? kGated : 1.0;
    HfLayer l;
    l.attention_norms = tokens * (numbers::kHfNormsPerLayer * (kFp32 + numbers::kHfNormHalfSaved * beta) * m.hidden +
                                  beta * (numbers::kHfQSaved * q + numbers::kKvTensors * kv) +
                                  (m.qk_norm ? (kFp32 + beta) * (q + kv) : 0.0)) / tp;
    l.mlp = tokens * numbers::kHfMlpSavedPerFc1 * g * beta * m.derived_ffn_hidden() / tp;
    return l;
}

// The output side under hf: the final norm ((4 + 2β)·h per token, as a layer's norm) and the
// loss (ForCausalLMLoss upcasts the logits to fp32 and F.cross_entropy keeps the log-softmax):
// the bf16 logits the model's output holds, the fp32 log-softmax and, in its backward, the fp32
// gradients of the NLL and of the log-softmax, (β + 12)·s·b·V, all alive at once.
double hf_output(const ModelSpec& m, double tokens, double tp) {
    const double beta = m.activation_bytes;
    return tokens *
           ((kFp32 + numbers::kHfNormHalfSaved * beta) * m.hidden + (beta + numbers::kHfLossFp32PerLogit) * m.vocab) / tp;
}

// Whether the GEMMs keep FP8 copies of their inputs: FP8 training under Transformer Engine
// (megatron-te; Megatron's local implementation has no FP8 GEMMs).
bool fp8_saved_inputs(const TrainingSpec& t) { return !t.fp8.empty() && t.implementation == Implementation::MegatronTe; }

// Korthikanti's count keeps Q, K and V h wide each (β·s·b·3h/t). Fused attention (flash, cuDNN: TE's
// and Megatron's fused backends) saves them at the model's widths, Q heads·head_dim, K and V
// kv_heads·head_dim each under GQA/MQA; the difference is what it keeps less (negative when
// heads·head_dim exceeds h). Unfused attention (Megatron's local DotProductAttention) expands K and V
// to every head (repeat_interleave) before its matmuls, which keep the expanded copies: Korthikanti's
// count. MLA keeps Korthikanti's count too, and so do models that expand K and V themselves
// (torchtitan's and DeepSpeed's repeat_kv before SDPA): only Megatron's modules get it. sbh_t: s·b·h/t of the micro-batch.
double fused_qkv_saving(const ModelSpec& m, const TrainingSpec& t, double sbh_t) {
    if (t.unfused_attention() || m.mla) {
        return 0.0;
    }
    const double q = static_cast<double>(m.heads) * m.derived_head_dim();
    const double kv = static_cast<double>(m.derived_kv_heads()) * m.derived_head_dim();
    return m.activation_bytes * sbh_t * (numbers::kQkvTensors * m.hidden - q - numbers::kKvTensors * kv) / m.hidden;
}

// Saved activations per layer and micro-batch (Korthikanti et al. 2022, bf16, flash attention:
// no s² term): s·b·h·(10 + 24/t) without sequence parallelism, s·b·h·34/t with it; a fully
// checkpointed layer keeps its input, 2·s·b·h/t. Unfused attention adds the probabilities
// (LayerParts::scores) unless recomputed, and the backward of one layer holds two s×s gradients
// (of the probabilities and of the scores, 4·a·s²·b/t) on top. An MoE layer keeps, instead of the
// dense MLP's outputs, the routed tokens' expert inputs, outputs and the experts' FC1 and
// activation outputs (LayerParts). Selective recompute drops its modules' parts (core_attn: the
// scores; layernorm, mlp, moe_act, moe, shared_experts). Pipeline: the first stage holds min(p, m)
// micro-batches (1F1B), × (1 + (p−1)/(p·v)) interleaved (Megatron's theoretical_memory_usage.py);
// with p = 1 the output layer's input and logits.
void activations(const ParallelSizes& p, const ModelSpec& m, const TrainingSpec& t, bool megatron_modules,
                 MemoryEstimate& e) {
    const double tp = p.tp;
    const double pp = p.pp;
    const double sbh = static_cast<double>(t.seq_len) * t.micro_batch * m.hidden / p.cp;
    const double full_layer = t.sequence_parallel ? numbers::kActSpPerSbh * sbh / tp
                                                  : sbh * (numbers::kActReplicatedPerSbh + numbers::kActTpSplitPerSbh / tp);
    const double input_layer = kHalf * sbh / tp;
    const LayerParts x = layer_parts(p, m, t);
    const double scores = t.recompute == Recompute::None || (t.recompute == Recompute::Selective && !t.recomputes("core_attn"))
                              ? x.scores
                              : 0.0;
    const double layers_stage = std::ceil(static_cast<double>(m.layers) / pp);
    const double moe_share = m.layers > 0 ? static_cast<double>(m.moe_layers) / m.layers : 0.0;
    const auto dropped = [&](const char* module, double bytes) { return t.recomputes(module) ? bytes : 0.0; };
    const bool moe_whole = t.recomputes("moe");
    const double moe_layer = moe_whole ? 0.0
                                       : x.moe_io + x.moe_fc1 + x.moe_act - dropped("moe_act", x.moe_act) + x.shared -
                                             dropped("shared_experts", x.shared);
    // Korthikanti's 34 (or 10 + 24/t) holds a 4h GELU MLP's FC1 and activation outputs, 16·s·b·h/t:
    // replaced by the model's own MLP (dense layers) or by the experts (MoE layers).
    const bool per_op = t.per_op_checkpoint;
    const bool hf = t.implementation == Implementation::Hf && !per_op;
    const HfLayer hf_parts = hf ? hf_layer(m, sbh / m.hidden, tp) : HfLayer{};
    // Korthikanti's two dropout masks (after the attention and after the MLP, one byte per element,
    // /t with sequence parallelism): none when the hidden dropout is 0 (F.dropout with p = 0 returns
    // its input), nor outside Megatron's modules: torchtitan's models have no dropout, and DeepSpeed's
    // are taken as Hugging Face models, whose configs set it to 0 (assumed).
    const double dropout_masks = !megatron_modules || t.hidden_dropout == 0.0
                                     ? numbers::kDropoutMasksPerSbh * sbh / (t.sequence_parallel ? tp : 1.0)
                                     : 0.0;
    const double base = per_op ? per_op_layer(m, sbh / m.hidden, tp)
                        : hf   ? hf_parts.attention_norms
                               : full_layer - numbers::kGeluMlpPerSbh * sbh / tp - dropped("layernorm", x.norms) -
                                     (megatron_modules ? fused_qkv_saving(m, t, sbh / tp) : 0.0) -
                                     dropout_masks;
    double dense_kept = base + (per_op ? 0.0 : hf ? hf_parts.mlp : x.dense_mlp - dropped("mlp", x.dense_mlp));
    // hf's experts (MixtralExperts and its kin) keep the gated activation's output beside the product.
    double moe_kept = base + moe_layer + (hf && m.ffn_gated && !moe_whole ? x.moe_act : 0.0);
    if (fp8_saved_inputs(t)) {
        // Transformer Engine's FP8 GEMMs keep their inputs for the weight gradient as FP8 copies
        // (te.Linear / LayerNormLinear save the quantized input): one byte where bf16 keeps β.
        // The inputs are the norms' outputs (QKV, FC1), the attention output (proj, s·b·h/t·β) and
        // the activation output (FC2), the routed copies into the experts and their FC2 inputs.
        const double shrink = 1.0 - 1.0 / m.activation_bytes;
        const double norms_kept = x.norms - dropped("layernorm", x.norms);
        const double proj_in = sbh * m.activation_bytes / tp;
        const double fc2_in = x.dense_mlp / ((m.ffn_gated ? kGated : 1.0) + 1.0);  // the activation output: f of (g + 1)·f
        dense_kept -= shrink * (norms_kept + proj_in + fc2_in - dropped("mlp", fc2_in));
        moe_kept -= shrink * (norms_kept + proj_in +
                              (moe_whole ? 0.0 : x.moe_io / numbers::kRoutedCopies + x.moe_act - dropped("moe_act", x.moe_act)));
    }
    const double kept_layer = (1.0 - moe_share) * dense_kept + moe_share * moe_kept + scores;
    // Layers of the stage that keep only their input (fully checkpointed), and the transient peak of
    // recomputing them in the backward.
    double checkpointed = 0;
    double group = 1;
    std::string how = t.recompute == Recompute::Selective ? "selective recompute" : "no recompute";
    if (t.recompute == Recompute::Selective && !t.recompute_modules.empty()) {
        how += " of";
        for (const std::string& module : t.recompute_modules) {
            how += " " + module + (module == "mla_up_proj" ? " (not modelled)" : "");
        }
    }
    if (t.recompute == Recompute::Full) {
        checkpointed = layers_stage;
        how = "full recompute";
        if (t.recompute_method == RecomputeMethod::Block && t.recompute_layers > 0) {
            checkpointed = std::min(layers_stage, static_cast<double>(t.recompute_layers));
            how = "full recompute of " + number_text(checkpointed) + " layers per stage (block)";
        } else if (t.recompute_layers > 1) {
            group = t.recompute_layers;
            how = "full recompute, groups of " + number_text(group) + " layers (uniform)";
        }
    } else if (t.per_op_checkpoint) {
        how = "per-op selective checkpointing (torchtitan \"op\")";
    } else if (t.checkpoint_every > 0) {
        checkpointed = std::floor(layers_stage / t.checkpoint_every);
        how = "every " + number_text(t.checkpoint_every) + "th layer checkpointed (" + number_text(checkpointed) + " per stage)";
    }
    const double kept_layers = layers_stage - checkpointed;
    const double per_micro = kept_layers * kept_layer + std::ceil(checkpointed / group) * input_layer;
    const double vpp = std::max(p.vpp, t.vpp);
    const double m_batches = t.micro_batches(p.dp);
    double in_flight = std::min(pp, m_batches);
    if (vpp > 1 && pp > 1) {
        in_flight = pp * (1.0 + (pp - 1.0) / (pp * vpp));
    }
    // The backward's transient peak: a recomputed group rebuilt whole, and unfused attention's two
    // s×s gradients (with the layer's probabilities when they were recomputed).
    const double score_grads = numbers::kScoreGradBytes * x.score_unit;
    double transient = checkpointed > 0 ? std::min(group, checkpointed) * (kept_layer - scores + x.scores) : 0.0;
    transient += score_grads + (checkpointed > 0 ? 0.0 : x.scores - scores);
    // One stage is also the last (p = 1): the output layer's input and the fp32 logits for the
    // loss, 4·s·b·(h + V)/t (Megatron's theoretical_memory_usage.py, "inputs to output layer and
    // CE loss"), one micro-batch at a time.
    const double sb = static_cast<double>(t.seq_len) * t.micro_batch / p.cp;
    const double logits = p.pp != 1 ? 0.0
                          : hf      ? hf_output(m, sb, tp)
                                    : numbers::kOutputPerTokenHv * sb * (static_cast<double>(m.hidden) + m.vocab) / tp;
    e.activations_bytes = in_flight * per_micro + transient + logits;
    e.activations_formula = number_text(in_flight) + " in flight × (" + number_text(kept_layers) + " layers × " + gib(kept_layer) +
                            (checkpointed > 0 ? " + " + number_text(std::ceil(checkpointed / group)) + " checkpoints × " + gib(input_layer)
                                              : std::string()) +
                            ")" + (transient > 0 ? " + backward transient " + gib(transient) : std::string()) +
                            (logits > 0 ? (hf ? " + final norm, logits and the loss's fp32 log-softmax and gradients "
                                                          : " + output and fp32 logits ") +
                                                         gib(logits)
                                                   : std::string()) +
                            "; " + how + (hf ? ", Hugging Face modules (fp32 norm inputs kept)" : "") +
                            (t.sequence_parallel ? ", sequence parallel" : "") +
                            (fp8_saved_inputs(t) ? ", GEMM inputs kept in FP8" : "") +
                            (t.unfused_attention()
                                 ? std::string(t.attention_dropout > 0 ? ", unfused attention (5·a·s²·b/t)"
                                                                       : ", unfused attention without dropout (2·a·s²·b/t)")
                                 : ", flash attention");
}

}  // namespace

StateOwner state_owner(const FrameworkSpec& spec) {
    StateOwner o;
    o.framework = spec.framework;
    o.zero_stage = spec.framework == Framework::DeepSpeed ? static_cast<int>(spec.deepspeed.zero_stage) : 0;
    return o;
}

MemoryEstimate estimate_memory(const ParallelSizes& p, const ModelSpec& m, const TrainingSpec& t, const StateOwner& owner) {
    MemoryEstimate e;
    const double tp = p.tp;
    const double pp = p.pp;
    const double expert_shards = static_cast<double>(p.ep) * p.etp * pp;
    Holding h;
    h.dense_local = m.derived_dense_params() / (tp * pp);
    h.expert_local = m.experts > 0 ? m.derived_expert_params() / expert_shards : 0.0;
    const bool lora = t.finetune == FineTune::Lora;
    h.dense_trainable = lora ? t.lora_adapter_params * (1.0 - t.lora_expert_share) / (tp * pp) : h.dense_local;
    h.expert_trainable = lora ? t.lora_adapter_params * t.lora_expert_share / expert_shards : h.expert_local;
    // The shard groups: FSDP / ZeRO-3 name theirs (roles fsdp, efsdp); otherwise the data-parallel
    // ranks the distributed optimizer and ZeRO-1/2 shard over, dp·cp and the expert-data group.
    h.nd = p.fsdp > 0 ? p.fsdp : static_cast<double>(p.dp) * p.cp;
    h.ne = p.efsdp > 0 ? p.efsdp : std::max(1, p.expert_dp);
    States s;
    const bool fsdp_framework = owner.framework == Framework::Torchtitan ||
                                (owner.framework == Framework::DeviceMesh && p.fsdp > 0);
    if (owner.framework == Framework::DeepSpeed) {
        s = deepspeed_states(t, std::max(owner.zero_stage, t.zero_stage));
    } else if (fsdp_framework) {
        s = fsdp2_states(p.fsdp > 1 || (p.efsdp > 1 && p.ep > 1));
        if (p.ep <= 1) {
            h.ne = h.nd;  // without EP the experts are FSDP-sharded with the dense parameters
        }
    } else {
        s = megatron_states(m, t);
    }
    model_states(s, h, m, t, e);
    gathered(s, p, m, t, e);
    // Megatron's modules: torchtitan's and DeepSpeed's models expand K and V (repeat_kv) before SDPA,
    // which keeps the expanded copies, and keep no dropout masks.
    activations(p, m, t, owner.framework == Framework::Megatron, e);
    // Without DDP (one data-parallel rank) and with one micro-batch per step, hf's gradients exist
    // only from the backward to the optimizer step (zero_grad(set_to_none=True)).
    e.grads_after_activations = t.implementation == Implementation::Hf && owner.framework == Framework::Megatron &&
                                static_cast<double>(p.dp) * p.cp == 1 && t.micro_batches(p.dp) == 1;
    if (e.grads_after_activations) {
        e.grads_formula += ", allocated in the backward as the activations are freed (not beside them)";
    }
    return e;
}

MemoryBudget memory_budget(const Cluster& cluster, const Placement& placement, const MemoryLimits& limits) {
    MemoryBudget b;
    b.headroom_bytes = limits.headroom_bytes.value_or(kDefaultMemoryHeadroomBytes);
    if (limits.gpu_memory_bytes) {
        b.gpu_memory_bytes = *limits.gpu_memory_bytes;
        b.source = "given";
    } else {
        // The smallest GPU memory among the templates of the nodes the job uses; unknown when
        // one of them gives none.
        std::vector<bool> used(cluster.templates.size(), false);
        for (const std::int32_t node : placement.node) {
            used[static_cast<std::size_t>(cluster.nodes[static_cast<std::size_t>(node)].template_index)] = true;
        }
        const NodeTemplate* smallest = nullptr;
        for (std::size_t i = 0; i < used.size(); ++i) {
            const NodeTemplate& t = cluster.templates[i];
            if (!used[i]) {
                continue;
            }
            if (t.gpu_memory_bytes <= 0) {
                b.gpu_memory_bytes = 0;
                b.source = "node template " + t.name + " gives no gpu_memory_mib";
                return b;
            }
            if (smallest == nullptr || t.gpu_memory_bytes < smallest->gpu_memory_bytes) {
                smallest = &t;
            }
        }
        if (smallest == nullptr) {
            b.source = "the job uses no node";
            return b;
        }
        b.gpu_memory_bytes = smallest->gpu_memory_bytes;
        const auto templates = std::count(used.begin(), used.end(), true);
        b.source = "node template " + smallest->name +
                   (templates > 1 ? ", the smallest of the " + std::to_string(templates) + " the job uses" : "");
    }
    if (b.headroom_bytes >= b.gpu_memory_bytes) {
        throw input_error("memory headroom " + human_bytes(b.headroom_bytes),
                          "leaves nothing of the " + human_bytes(b.gpu_memory_bytes) + " of GPU memory (" + b.source + ")",
                          "give a headroom below the GPU memory (--memory-headroom)");
    }
    return b;
}

std::string memory_budget_text(const MemoryBudget& b) {
    if (!b.known()) {
        return "unknown (" + b.source + ")";
    }
    return human_bytes(b.budget_bytes()) + " = " + human_bytes(b.gpu_memory_bytes) + " GPU memory (" + b.source + ") - " +
           human_bytes(b.headroom_bytes) + " headroom";
}

std::optional<std::string> memory_warning(const MemoryReport& m) {
    const auto fits = m.fits();
    if (!fits) {
        return "memory per GPU: no budget to check the " + human_bytes(m.estimate.total_bytes()) + " against (" +
               m.budget.source + "); add \"gpu_memory_mib\" to the node template or give --gpu-memory";
    }
    if (*fits) {
        return std::nullopt;
    }
    return "memory per GPU: the busiest rank needs " + human_bytes(m.estimate.total_bytes()) + ", over the budget of " +
           memory_budget_text(m.budget) + "; a larger tp or pp (ep for the experts), the distributed optimizer, ZeRO or recomputation shrink it";
}

}  // namespace planlayout
