// Memory per GPU: parameters, gradients, optimizer state and activations of one rank, and the
// budget they must fit in (docs/commands/search.md "Memory feasibility" states the formulas and
// their assumptions; docs/commands/analyze.md "Memory per GPU" the budget).
#pragma once

#include <algorithm>
#include <optional>
#include <string>

#include "planlayout/model/model_spec.hpp"
#include "planlayout/model/numbers/memory.hpp"
#include "planlayout/model/traffic.hpp"
#include "planlayout/model/units.hpp"
#include "planlayout/parallel/framework.hpp"
#include "planlayout/parallel/placement.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// Bytes one GPU holds during a stable step; every term is for the busiest rank (the first
/// pipeline stage, which keeps the most micro-batches of activations in flight). The model states
/// are counted as the framework that owns them allocates them (docs/cost-model.md §8): Megatron
/// (DDP, distributed optimizer, Megatron-FSDP), DeepSpeed ZeRO-0..3, torchtitan FSDP2/HSDP.
struct MemoryEstimate {
    double params_bytes = 0;       // the rank's resident weights (sharded ones: its shard)
    double grads_bytes = 0;        // the trainable parameters' gradients as the framework keeps them
    double optimizer_bytes = 0;    // master weights and Adam m, v of the trainable parameters
    double activations_bytes = 0;  // saved activations of the in-flight micro-batches
    double gathered_bytes = 0;     // ZeRO-3 / FSDP: the unsharded parameters in flight during compute
    double offloaded_bytes = 0;    // states ZeRO-Offload keeps in host memory or on NVMe (not in the total)
    std::string accounting;        // whose accounting, in bytes per parameter ("DeepSpeed ZeRO-3, bf16: 16/Nd ...")
    // Each term's formula with the numbers it used, for the text and JSON outputs.
    std::string params_formula;
    std::string grads_formula;
    std::string optimizer_formula;
    std::string activations_formula;
    std::string gathered_formula;
    // The gradients are allocated during the backward and freed before the next forward
    // (zero_grad(set_to_none=True) with no DDP bucket holding them: the hf implementation on one
    // data-parallel rank, one micro-batch per step), so they never sit beside the saved
    // activations: the peak is the larger of the two, not their sum.
    bool grads_after_activations = false;
    // What the optimizer's step holds beyond its states, once the activations are freed: torch's
    // foreach AdamW builds sqrt(v) for every parameter at once (one state-sized tensor).
    double optimizer_step_bytes = 0;
    std::string optimizer_step_formula;

    /// The peak: the states, and the larger of the backward's (saved activations, with the
    /// gradients when they are already there) and the optimizer step's (gradients and the step's
    /// temporaries).
    [[nodiscard]] double total_bytes() const {
        const double backward = activations_bytes + (grads_after_activations ? 0.0 : grads_bytes);
        const double step = grads_bytes + optimizer_step_bytes;
        return params_bytes + optimizer_bytes + gathered_bytes + std::max(backward, step);
    }
};

/// Whose accounting of the model states: the framework of the layout's "parallel" section and,
/// for DeepSpeed, its ZeRO stage (zero_optimization.stage lives in "parallel", not "training").
struct StateOwner {
    Framework framework = Framework::Megatron;
    int zero_stage = 0;
};

[[nodiscard]] StateOwner state_owner(const FrameworkSpec& spec);

/// The estimate for one layout. Uneven pipelines count the largest stage (⌈L/p⌉ layers). `p` are
/// the sizes of the layout's groups (parallel_sizes(groups): the fsdp/efsdp group sizes shard
/// FSDP and ZeRO-3 states); `owner` says whose accounting (Megatron's by default).
[[nodiscard]] MemoryEstimate estimate_memory(const ParallelSizes& p, const ModelSpec& model,
                                             const TrainingSpec& training, const StateOwner& owner = {});

/// What the estimate leaves out and the budget keeps back, by default: the CUDA context and
/// library workspaces (~1 GiB), NCCL's buffers (0.5-0.7 GiB per communicator that carries
/// traffic, NVIDIA/nccl issue #964; a Megatron layout drives 4 to 6: tp, dp, pp, ep, expt_dp,
/// embd) and the caching allocator's fragmentation (the rest). docs/commands/analyze.md.
constexpr double kDefaultMemoryHeadroomBytes = numbers::kHeadroomGib * units::kGibi;

/// What the caller gives: one GPU's memory (overrides the node templates) and the headroom.
struct MemoryLimits {
    std::optional<double> gpu_memory_bytes;  // nullopt: from the node templates
    std::optional<double> headroom_bytes;    // nullopt: kDefaultMemoryHeadroomBytes
};

/// The memory one rank may use: one GPU's memory less the headroom.
struct MemoryBudget {
    double gpu_memory_bytes = 0;  // the given figure, or the smallest of the templates of the
                                  // nodes the job uses; 0 unknown
    double headroom_bytes = 0;
    std::string source;  // "given", "node template X"; when unknown, why ("node template X gives no gpu_memory_mib")

    [[nodiscard]] bool known() const { return gpu_memory_bytes > 0; }
    /// gpu_memory_bytes − headroom_bytes; 0 when unknown.
    [[nodiscard]] double budget_bytes() const { return known() ? gpu_memory_bytes - headroom_bytes : 0.0; }
};

/// The budget of a placed job: the given GPU memory, or the smallest GPU memory among the node
/// templates of the nodes `placement` uses (unknown when one of them gives none). Throws Error
/// (BadInput) when the headroom leaves nothing of the GPU memory.
[[nodiscard]] MemoryBudget memory_budget(const Cluster& cluster, const Placement& placement, const MemoryLimits& limits);

/// The estimate of a layout against its budget.
struct MemoryReport {
    MemoryEstimate estimate;
    MemoryBudget budget;

    /// nullopt when the budget is unknown.
    [[nodiscard]] std::optional<bool> fits() const {
        return budget.known() ? std::optional<bool>(estimate.total_bytes() <= budget.budget_bytes()) : std::nullopt;
    }
};

/// The report's warning about memory: the layout does not fit, or there is no budget to check it
/// against; nullopt when it fits.
[[nodiscard]] std::optional<std::string> memory_warning(const MemoryReport& m);

/// "73.6 GiB = 79.6 GiB GPU memory (node template X) - 6.0 GiB headroom", or "unknown (why)".
[[nodiscard]] std::string memory_budget_text(const MemoryBudget& b);

}  // namespace planlayout
