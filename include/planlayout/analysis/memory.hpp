// Memory per GPU: parameters, gradients, optimizer state and activations of one rank
// (docs/scheduler.md "Memory feasibility" states the formulas and their assumptions).
#pragma once

#include "planlayout/analysis/model_spec.hpp"
#include "planlayout/analysis/traffic.hpp"

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

}  // namespace planlayout
