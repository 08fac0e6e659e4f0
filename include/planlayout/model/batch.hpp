// Model: the batch triple (global batch, micro batch, gradient-accumulation steps) settled as
// DeepSpeed and the Hugging Face Trainer settle it: the missing ones derived from the given ones
// and the data-parallel size, then global = micro x gas x dp checked (DeepSpeed
// runtime/config.py `_set_batch_related_parameters` and `_batch_assertion`, floor divisions and
// all). Megatron-LM takes the global batch and derives gas itself: it never calls this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace planlayout {

/// What the input gave; nullopt where a size is absent (or "auto").
struct BatchGiven {
    std::optional<std::int64_t> global_batch;
    std::optional<std::int64_t> micro_batch;
    std::optional<std::int64_t> grad_accum;
};

/// Where each size was given, for errors ("ds.json (/train_batch_size)").
struct BatchPlaces {
    std::string global_batch;
    std::string micro_batch;
    std::string grad_accum;
};

struct Batch {
    std::int64_t global_batch = 0;
    std::int64_t micro_batch = 0;
    std::int64_t grad_accum = 0;
};

/// Derives and checks as DeepSpeed does over `data_world` data-parallel ranks. Throws Error
/// (BadInput) with DeepSpeed's wording when it would refuse: neither global nor micro batch given,
/// a size that is (or derives to) 0, or global != micro x gas x data_world.
[[nodiscard]] Batch settle_batch(const BatchGiven& given, std::int64_t data_world, const BatchPlaces& places);

}  // namespace planlayout
