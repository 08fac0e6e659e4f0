// Memory per GPU: the usual Megatron accounting (Korthikanti et al. 2022 for activations).
#include "planlayout/analysis/memory.hpp"

#include <algorithm>
#include <cmath>

namespace planlayout {

MemoryEstimate estimate_memory(const ParallelSizes& p, const ModelSpec& m, const TrainingSpec& t) {
    MemoryEstimate e;
    const double tp = p.tp;
    const double pp = p.pp;
    const double dense_dp = static_cast<double>(p.dp) * p.cp;
    const double expert_shards = static_cast<double>(p.ep) * p.etp * pp;
    const double dense_local = m.derived_dense_params() / (tp * pp);
    const double expert_local = m.experts > 0 ? m.derived_expert_params() / expert_shards : 0.0;
    const bool lora = t.finetune == FineTune::Lora;
    const double edp = std::max(1, p.expert_dp);

    // Weights: ZeRO-3 / FSDP shards them over the data-parallel ranks.
    const bool zero3 = t.zero_stage >= 3;
    e.params_bytes = (dense_local / (zero3 ? dense_dp : 1.0) + expert_local / (zero3 ? edp : 1.0)) * m.param_bytes;

    // Trainable parameters: everything, or the LoRA adapters (dense share and expert share).
    const double dense_trainable = lora ? t.lora_adapter_params * (1.0 - t.lora_expert_share) / (tp * pp) : dense_local;
    const double expert_trainable = lora ? t.lora_adapter_params * t.lora_expert_share / expert_shards : expert_local;
    if (lora) {
        e.params_bytes += (dense_trainable + expert_trainable) * m.param_bytes;  // adapters on top of the base
    }
    const bool shard_grads = t.zero_stage >= 2;
    const bool shard_optimizer = t.zero_stage >= 1 || t.distributed_optimizer;
    e.grads_bytes = (dense_trainable / (shard_grads ? dense_dp : 1.0) + expert_trainable / (shard_grads ? edp : 1.0)) *
                    m.grad_bytes;
    e.optimizer_bytes =
        12.0 * (dense_trainable / (shard_optimizer ? dense_dp : 1.0) + expert_trainable / (shard_optimizer ? edp : 1.0));

    // Activations per layer and micro-batch (bytes, bf16): s·b·h·(10 + 24/t) without sequence
    // parallelism, s·b·h·34/t with it (flash attention: no s² term); full recompute keeps only
    // the layer input, 2·s·b·h/t. CP splits the sequence. MoE layers add the routed tokens'
    // expert inputs and outputs: 2·topk·s·b·h·β.
    const double sbh = static_cast<double>(t.seq_len) * t.micro_batch * m.hidden / p.cp;
    double per_layer = 0;
    if (t.recompute == Recompute::Full) {
        per_layer = 2.0 * sbh / tp;
    } else {
        per_layer = t.sequence_parallel ? 34.0 * sbh / tp : sbh * (10.0 + 24.0 / tp);
    }
    const double layers_stage = std::ceil(static_cast<double>(m.layers) / pp);
    const double moe_share = m.layers > 0 ? static_cast<double>(m.moe_layers) / m.layers : 0.0;
    const double moe_per_layer = m.experts > 0 && t.recompute != Recompute::Full
                                     ? 2.0 * m.topk * sbh * m.activation_bytes / (t.sequence_parallel ? tp : 1.0)
                                     : 0.0;
    const double in_flight = std::min<double>(pp, t.micro_batches(p.dp));
    e.activations_bytes = in_flight * layers_stage * (per_layer + moe_share * moe_per_layer);
    return e;
}

}  // namespace planlayout
