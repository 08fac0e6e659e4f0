// Memory per GPU: the usual Megatron accounting (Korthikanti et al. 2022 for activations).
#include "planlayout/analysis/memory.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "planlayout/error.hpp"
#include "planlayout/text_format.hpp"

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
