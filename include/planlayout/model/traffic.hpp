// Traffic: what each group kind sends per stable training step (docs/cost-model.md §5).
#pragma once

#include <string>
#include <vector>

#include "planlayout/model/collective_op.hpp"
#include "planlayout/model/model_spec.hpp"

namespace planlayout {

/// The parallel sizes (Megatron's): dense tp/cp/dp/pp, expert ep/etp/expert_dp, virtual stages.
struct ParallelSizes {
    int tp = 1;
    int pp = 1;
    int cp = 1;
    int dp = 1;
    int ep = 1;
    int etp = 1;
    int expert_dp = 1;
    int vpp = 1;
    // FSDP / HSDP (torchtitan, a DeviceMesh with such dims): the group sizes of the kinds with
    // roles "fsdp" (dense parameter shards), "dp_replicate" (replicas) and "efsdp" (expert
    // parameter shards); 0 when the framework has no such kind (Megatron's dp / expt_dp).
    int fsdp = 0;
    int dp_replicate = 0;
    int efsdp = 0;
};

/// How compute can hide a collective (docs/cost-model.md §6); model/overlap.hpp turns it into
/// windows.
enum class OverlapKind {
    None,          // on the critical path (TP/SP, EP unless configured)
    Backward,      // DP grad reduction in buckets under the last micro-batch's backward (an
                   // all-gather here is ZeRO-3's, prefetched under that backward)
    Forward,       // distributed-optimizer / ZeRO parameter all-gather prefetched under the forward
    PipelineSteady,// PP send/recv under the other micro-batch in the 1F1B steady state
    PerLayer,      // EP / CP overlapped with the same layer's compute
    TpChunked,     // TP/SP collectives split into tp chunks pipelined with their GEMM (Megatron
                   // --tp-comm-overlap: Transformer Engine's userbuffers); the first chunk exposed
};

/// One collective kind of one group kind, per rank per stable step.
struct TrafficItem {
    std::string kind;        // group role: tp, cp, dp, dp_cp, pp, ep, expt_dp, expt_tp, embd, fsdp, dp_replicate, efsdp
    CollectiveOp op = CollectiveOp::AllReduce;
    std::string what;        // "dispatch+combine", "grad reduce", ...
    double size_bytes = 0;   // nccl-tests "size" of one call
    double calls = 0;        // calls per stable step
    double exposed_calls = 0;  // of which can never be hidden (pipeline fill/drain)
    OverlapKind overlap = OverlapKind::None;

    [[nodiscard]] double bytes_per_step() const { return size_bytes * calls; }
};

/// Every communicating collective per stable step for the given sizes; kinds whose group is a
/// singleton are left out. LoRA: grads only for adapters; ZeRO-3: frozen weights are still
/// all-gathered. Throws Error (where = "parallel") when sizes do not divide the batch.
[[nodiscard]] std::vector<TrafficItem> traffic_per_step(const ParallelSizes& p,
                                                        const ModelSpec& model,
                                                        const TrainingSpec& training);

/// Expected distinct remote nodes one token reaches under uniform top-k routing over E experts
/// spread evenly over K nodes: K·(1 − C(E − E/K, k)/C(E, k)) minus the local node's share.
[[nodiscard]] double expected_remote_nodes(int experts, int topk, int nodes);

/// The flex dispatchers' (DeepEP, HybridEP: --moe-token-dispatcher-type flex) cross-node bytes as a
/// share of the all-to-all dispatcher's: a token goes once to each remote node that holds one of its
/// experts (then over NVLink inside that node), not once per expert. Experts spread evenly over the
/// `nodes` of the EP group; with group-limited routing whose groups nest in nodes, over the token's
/// groups. 1 when the group is inside one node or the dispatcher is not flex.
[[nodiscard]] double flex_dedup(const ModelSpec& m, int nodes);

}  // namespace planlayout
