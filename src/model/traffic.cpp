// Traffic: bytes and calls per group kind per stable step (docs/cost-model.md §5).
#include "planlayout/model/traffic.hpp"

#include <algorithm>
#include <cmath>

#include "planlayout/error.hpp"
#include "planlayout/model/numbers/network.hpp"

namespace planlayout {
namespace {

void add(std::vector<TrafficItem>& out, TrafficItem item) {
    if (item.size_bytes > 0 && item.calls > 0) {
        out.push_back(std::move(item));
    }
}

/// The ZeRO stage Megatron's states follow: training.zero_stage, or Megatron-FSDP's sharding
/// strategy (optim 1, optim_grads 2, optim_grads_params 3), as memory.cpp counts them.
int megatron_stage(const TrainingSpec& t) {
    return std::max(t.zero_stage, zero_stage_of(t.megatron_fsdp));
}

/// Data-parallel gradient (and ZeRO parameter) traffic for one parameter set; `micro` micro-batches
/// a step.
void add_data_parallel(std::vector<TrafficItem>& out, const std::string& kind,
                       double all_params_local, double trainable_local, const ModelSpec& m,
                       const TrainingSpec& t, double micro) {
    const double grads = trainable_local * m.grad_bytes;
    const int stage = megatron_stage(t);
    if (stage >= numbers::kZeroParamShardStage.count()) {
        // FSDP / ZeRO-3 (Megatron-FSDP optim_grads_params): every micro-batch gathers the weights
        // for its forward and again for its backward (frozen ones too: they are sharded) and
        // reduce-scatters its gradients.
        const double params = all_params_local * m.param_bytes;
        add(out, {kind, CollectiveOp::AllGather, "param gather fwd", params, micro, 0, OverlapKind::Forward});
        add(out, {kind, CollectiveOp::AllGather, "param gather bwd", params, micro, 0, OverlapKind::Backward});
        add(out, {kind, CollectiveOp::ReduceScatter, "grad reduce", grads, micro, 0, OverlapKind::Backward});
    } else if (stage >= 1 || t.distributed_optimizer) {
        add(out, {kind, CollectiveOp::ReduceScatter, "grad reduce", grads, 1, 0, OverlapKind::Backward});
        add(out, {kind, CollectiveOp::AllGather, "param gather", trainable_local * m.param_bytes, 1, 0,
                  OverlapKind::Forward});
    } else {
        add(out, {kind, CollectiveOp::AllReduce, "grad reduce", grads, 1, 0, OverlapKind::Backward});
    }
}

/// FSDP (torchtitan's fully_shard, reshard after forward): parameters gathered forward and
/// backward and gradients reduce-scattered on the shard group; with HSDP the shard's gradients
/// are then all-reduced across the replicas.
void add_fsdp(std::vector<TrafficItem>& out, const std::string& shard_kind, int shard, int replicas,
              double all_params_local, double trainable_local, const ModelSpec& m, double micro) {
    const double grads = trainable_local * m.grad_bytes;
    if (shard > 1) {
        // Every micro-batch: the forward's and the backward's gathers, the gradients' reduce-scatter.
        const double params = all_params_local * m.param_bytes;
        add(out, {shard_kind, CollectiveOp::AllGather, "param gather fwd", params, micro, 0, OverlapKind::Forward});
        add(out, {shard_kind, CollectiveOp::AllGather, "param gather bwd", params, micro, 0, OverlapKind::Backward});
        add(out, {shard_kind, CollectiveOp::ReduceScatter, "grad reduce", grads, micro, 0, OverlapKind::Backward});
    }
    if (replicas > 1) {
        add(out, {"dp_replicate", CollectiveOp::AllReduce, "replica grad all-reduce", grads / std::max(1, shard), 1, 0,
                  OverlapKind::Backward});
    }
}

}  // namespace

std::vector<TrafficItem> traffic_per_step(const ParallelSizes& p, const ModelSpec& m,
                                          const TrainingSpec& t) {
    const int per_step = t.micro_batch * p.dp;
    if (per_step <= 0 || t.global_batch % per_step != 0) {
        throw input_error("parallel", "global_batch " + std::to_string(t.global_batch) +
                                          " is not a multiple of micro_batch × dp = " +
                                          std::to_string(t.micro_batch) + " × " + std::to_string(p.dp),
                          "change global_batch, micro_batch or dp");
    }
    std::vector<TrafficItem> out;
    const double micro = t.micro_batches(p.dp);
    const double v = std::max(1, p.vpp);
    const double b = t.micro_batch;
    const double s = t.seq_len;
    const double h = m.hidden;
    const double beta = m.activation_bytes;
    const double layers_stage = static_cast<double>(m.layers) / p.pp;
    const double moe_stage = static_cast<double>(m.moe_layers) / p.pp;
    const double recompute_extra = t.recompute == Recompute::Full ? numbers::kRecomputeExtraCalls : 0.0;
    const double tokens_cp = b * s / p.cp;  // tokens of one micro-batch on one CP rank

    if (p.tp > 1) {
        // 2 all-reduces fwd + 2 bwd per layer (+2 when the forward is recomputed).
        const double calls = micro * layers_stage * (numbers::kTpCallsPerLayer + recompute_extra);
        const double size = tokens_cp * h * beta;
        if (t.sequence_parallel) {
            // --tp-comm-overlap needs sequence parallelism (Megatron refuses it without).
            const OverlapKind k = t.overlap_tp ? OverlapKind::TpChunked : OverlapKind::None;
            add(out, {"tp", CollectiveOp::ReduceScatter, "sequence-parallel RS", size, calls, 0, k});
            add(out, {"tp", CollectiveOp::AllGather, "sequence-parallel AG", size, calls, 0, k});
        } else {
            add(out, {"tp", CollectiveOp::AllReduce, "activation all-reduce", size, calls, 0, OverlapKind::None});
        }
    }
    if (p.cp > 1) {
        // Ring attention: KV blocks travel c−1 hops, 6 passes per layer (K,V fwd; dK,dV,K,V bwd).
        const double kv = m.heads > 0 ? m.kv_dim() : h;
        add(out, {"cp", CollectiveOp::SendRecv, "KV ring", tokens_cp * kv * beta,
                  micro * layers_stage * numbers::kCpRingPassesPerLayer * (p.cp - 1), 0,
                  t.overlap_cp ? OverlapKind::PerLayer : OverlapKind::None});
    }
    if (p.pp > 1) {
        // Activations forward, their gradients backward, per boundary rank.
        const double calls = numbers::kPassesPerMicroBatch * micro * v;
        const double size = tokens_cp * h * beta / p.tp;
        const double fill_drain = std::min(calls, numbers::kPassesPerMicroBatch * (p.pp - 1));
        add(out, {"pp", CollectiveOp::SendRecv, "activations fwd + grads bwd", size, calls,
                  t.overlap_pp ? fill_drain : calls, OverlapKind::PipelineSteady});
    }
    const bool lora = t.finetune == FineTune::Lora;
    const int dense_dp = p.dp * p.cp;
    if (dense_dp > 1) {
        const double all_local = m.derived_dense_params() / (p.tp * p.pp);
        const double trainable = lora ? t.lora_adapter_params * (1.0 - t.lora_expert_share) / (p.tp * p.pp)
                                      : all_local;
        if (p.fsdp > 0) {
            add_fsdp(out, "fsdp", p.fsdp, p.dp_replicate, all_local, trainable, m, micro);
        } else {
            add_data_parallel(out, p.cp > 1 ? "dp_cp" : "dp", all_local, trainable, m, t, micro);
        }
    }
    if (p.expert_dp > 1 && m.experts > 0) {
        const double shards = static_cast<double>(p.ep) * p.etp * p.pp;
        const double all_local = m.derived_expert_params() / shards;
        const double trainable = lora ? t.lora_adapter_params * t.lora_expert_share / shards : all_local;
        if (p.efsdp > 0) {
            add_fsdp(out, "efsdp", p.efsdp, p.dp_replicate, all_local, trainable, m, micro);
        } else {
            add_data_parallel(out, "expt_dp", all_local, trainable, m, t, micro);
        }
    }
    if (m.experts > 0 && m.moe_layers > 0) {
        const double tokens = t.sequence_parallel ? tokens_cp / p.tp : tokens_cp;
        const double size = tokens * m.topk * m.capacity_factor * h * beta;
        if (p.ep > 1) {
            // Dispatch + combine, forward and backward: 4 per MoE layer per micro-batch.
            add(out, {"ep", CollectiveOp::AllToAll, "dispatch+combine", size,
                      micro * moe_stage * (numbers::kEpCallsPerMoeLayer + recompute_extra), 0,
                      t.overlap_ep ? OverlapKind::PerLayer : OverlapKind::None});
        }
        if (p.etp > 1) {
            add(out, {"expt_tp", CollectiveOp::AllReduce, "expert activation all-reduce", size,
                      micro * moe_stage * (numbers::kEpCallsPerMoeLayer + recompute_extra), 0, OverlapKind::None});
        }
    }
    if (p.pp > 1 && m.tied_embeddings && !lora && m.vocab > 0) {
        add(out, {"embd", CollectiveOp::AllReduce, "tied embedding grads",
                  static_cast<double>(m.vocab) * h * m.grad_bytes / p.tp, 1, 1, OverlapKind::None});
    }
    return out;
}

double expected_remote_nodes(int experts, int topk, int nodes) {
    if (nodes <= 1 || experts <= 0 || topk <= 0) {
        return 0.0;
    }
    const double e = experts;
    const double per_node = e / nodes;
    if (e - per_node < topk) {
        return nodes - 1.0;  // every node is always reached
    }
    // log C(a, k) via lgamma; P(a given node gets none of the k experts).
    const auto log_choose = [](double a, double k) {
        return std::lgamma(a + 1) - std::lgamma(k + 1) - std::lgamma(a - k + 1);
    };
    const double p_none = std::exp(log_choose(e - per_node, topk) - log_choose(e, topk));
    return (nodes - 1.0) * (1.0 - p_none);
}

double flex_dedup(const ModelSpec& m, int nodes) {
    if (m.token_dispatcher != TokenDispatcher::Flex || nodes <= 1 || m.experts <= 0 || m.topk <= 0) {
        return 1.0;
    }
    const double copies = m.topk * (nodes - 1.0) / nodes;  // the remote copies of one token, all-to-all
    const bool nested = m.router_groups > 0 && m.router_groups % nodes == 0;
    const double reached = nested ? expected_remote_nodes(m.router_groups, m.router_group_topk, nodes)
                                  : expected_remote_nodes(m.experts, m.topk, nodes);
    return copies > 0 ? std::min(1.0, reached / copies) : 1.0;
}

}  // namespace planlayout
