// Ingest: a torchtitan job config in TOML (`--job.config_file`, the format torchtitan read up to
// 238fa9953 / 2026-02-23, when #2386 replaced it with Python config dataclasses): its
// [parallelism] degrees and the [training] batch and sequence sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "planlayout/parallel/framework.hpp"

namespace planlayout {

/// [training] sizes, each present only when the file sets it (torchtitan's defaults:
/// local_batch_size 8, global_batch_size -1 = local_batch_size * dp, seq_len 2048).
struct TorchtitanTraining {
    std::optional<std::int64_t> local_batch_size;
    std::optional<std::int64_t> global_batch_size;
    std::optional<std::int64_t> seq_len;
    std::optional<std::int64_t> pp_microbatch_size;  // [parallelism] pipeline_parallel_microbatch_size
    // [activation_checkpoint] (class ActivationCheckpoint): mode "selective" (torchtitan's default),
    // "full" or "none"; selective_ac_option "op" (op-level) or N (every Nth block fully
    // checkpointed; torchtitan's default "2"). Absent: the file does not set it.
    std::optional<std::string> ac_mode;
    std::optional<std::string> ac_option;
};

struct TorchtitanConfig {
    TorchtitanDims dims;  // world 0: the file does not say (the launcher does)
    TorchtitanTraining training;
};

/// Reads the [parallelism] degrees (data_parallel_replicate_degree, data_parallel_shard_degree,
/// context_parallel_degree, tensor_parallel_degree, pipeline_parallel_degree,
/// expert_parallel_degree, expert_tensor_parallel_degree; torchtitan's defaults where absent)
/// and [training] sizes. Throws Error (BadInput) "FILE:LINE: ..." on bad TOML, a degree that is
/// not an integer, or a [parallelism] key torchtitan's JobConfig does not have.
[[nodiscard]] TorchtitanConfig read_torchtitan_config(const std::string& text, const std::string& file);

/// The degrees only (read_torchtitan_config(text, file).dims).
[[nodiscard]] TorchtitanDims read_torchtitan_toml(const std::string& text, const std::string& file);

}  // namespace planlayout
