// Memory per GPU: parameters, gradients, optimizer state and activations of one rank, and the
// budget they must fit in (docs/commands/search.md "Memory feasibility" states the formulas and
// their assumptions; docs/commands/analyze.md "Memory per GPU" the budget).
#pragma once

#include <optional>
#include <string>

#include "planlayout/analysis/model_spec.hpp"
#include "planlayout/analysis/traffic.hpp"
#include "planlayout/parallel/placement.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// Bytes one GPU holds during a stable step; every term is for the busiest rank (the first
/// pipeline stage, which keeps min(pp, m) micro-batches of activations in flight under 1F1B).
struct MemoryEstimate {
    double params_bytes = 0;       // weights, param_bytes each (ZeRO-3: sharded over dp)
    double grads_bytes = 0;        // trainable parameters' gradients, grad_bytes each
    double optimizer_bytes = 0;    // fp32 master + Adam m, v: 12 bytes per trainable parameter
    double activations_bytes = 0;  // saved activations of the in-flight micro-batches

    [[nodiscard]] double total_bytes() const {
        return params_bytes + grads_bytes + optimizer_bytes + activations_bytes;
    }
};

/// The estimate for one layout. Uneven pipelines count the largest stage (⌈L/p⌉ layers).
[[nodiscard]] MemoryEstimate estimate_memory(const ParallelSizes& p, const ModelSpec& model,
                                             const TrainingSpec& training);

/// What the estimate leaves out and the budget keeps back, by default: the CUDA context and
/// library workspaces (~1 GiB), NCCL's buffers (0.5-0.7 GiB per communicator that carries
/// traffic, NVIDIA/nccl issue #964; a Megatron layout drives 4 to 6: tp, dp, pp, ep, expt_dp,
/// embd) and the caching allocator's fragmentation (the rest). docs/commands/analyze.md.
constexpr double kDefaultMemoryHeadroomBytes = 6.0 * 1024 * 1024 * 1024;

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
