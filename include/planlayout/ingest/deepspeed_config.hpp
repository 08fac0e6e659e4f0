// Ingest: a DeepSpeed ds_config.json (the dict given to deepspeed.initialize(config=...)), read
// for what shapes the rank groups and the traffic (docs/frameworks/deepspeed.md). Keys this
// reader does not use are not errors (a ds_config carries many: optimizer, scheduler, ...); a
// key it uses with the wrong type or range is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/parallel/framework.hpp"

namespace planlayout {

struct DeepSpeedConfig {
    // Batch (runtime/constants.py): DeepSpeed checks train_batch_size = micro x gas x dp.
    // "auto" (the Hugging Face integration's placeholder) reads as absent.
    std::optional<std::int64_t> train_batch_size;
    std::optional<std::int64_t> train_micro_batch_size_per_gpu;
    std::optional<std::int64_t> gradient_accumulation_steps;
    // zero_optimization (runtime/zero/config.py)
    std::int64_t zero_stage = 0;                  // zero_optimization.stage, 0..3
    std::int64_t zero_hpz_partition_size = 1;     // ZeRO++ hierarchical partition (secondary group)
    std::int64_t mics_shard_size = -1;            // MiCS shard group size (-1: off)
    // Precision (runtime/precision_config.py): bf16 (or the old "bfloat16") / fp16 .enabled.
    // "enabled": "auto" (the HF Trainer's placeholder, filled from its --bf16 / --fp16) reads as
    // enabled with the *_auto flag set, unless the other one is enabled outright.
    bool bf16 = false;
    bool fp16 = false;
    bool bf16_auto = false;
    bool fp16_auto = false;
    bool bf16_master_weights_and_grads = false;  // bf16.bf16_master_weights_and_grads
    bool bf16_optimizer_states = false;          // bf16.bf16_optimizer_states
    // zero_optimization.offload_optimizer.device / offload_param.device: "none", "cpu", "nvme".
    std::string offload_optimizer = "none";
    std::string offload_param = "none";
    // zero_optimization.stage3_prefetch_bucket_size (elements; DeepSpeed's default 5e7); 0: "auto"
    // (the HF Trainer fills 0.9 * hidden_size^2).
    double prefetch_bucket = 5e7;
    // tensor_parallel.autotp_size (runtime/tensor_parallel/config.py; 0: AutoTP off).
    std::int64_t autotp_size = 0;
    // pipeline (runtime/config.py get_pipeline_config); the stage count itself is not in the
    // config: it is PipelineModule(num_stages=...) or its topology.
    bool pipe_partitioned = true;
    bool grad_partitioned = true;
    std::int64_t activation_checkpoint_interval = 0;
    // expert_parallel (module_inject/auto_ep_config.py parse_autoep_config): AutoEP.
    bool autoep_enabled = false;
    std::int64_t autoep_size = 1;
    std::int64_t expert_tensor_parallel_size = 1;
    // use_data_before_expert_parallel_ (runtime/config.py get_expert_data_topo_config).
    bool use_data_before_expert_parallel = false;
    // sequence_parallel_size and data_parallel_size (deepspeed/__init__.py: both present -> the
    // (data_parallel, sequence_parallel) device mesh).
    std::optional<std::int64_t> sequence_parallel_size;
    std::optional<std::int64_t> data_parallel_size;
};

/// Reads ds_config.json text; `file` names it in errors ("file (/zero_optimization/stage): ...").
/// Throws Error (BadInput) on a used key of the wrong type or range.
[[nodiscard]] DeepSpeedConfig read_deepspeed_config(const std::string& text, const std::string& file);

/// The DeepSpeedDims the config implies, on top of `dims` (world, pp and the MoE layer's ep come
/// from the command line: a ds_config does not hold them): AutoEP enabled -> ep = autoep_size and
/// moe_path autoep-sp (sequence_parallel_size > 1 with data_parallel_size) or else autoep-tp;
/// autotp_size > 1 -> mp and topology autotp; sequence_parallel_size with data_parallel_size ->
/// mp = sp, dp; use_data_before_expert_parallel_ -> data_before_expert; zero_stage.
[[nodiscard]] DeepSpeedDims apply_deepspeed_config(const DeepSpeedConfig& config, DeepSpeedDims dims);

/// The batch sizes DeepSpeed settles on (runtime/config.py _set_batch_related_parameters and
/// _batch_assertion): the missing ones derived from the given ones and the data-parallel world
/// `data_world` (DeepSpeedConfig.world_size: the data group's size, world / sp on the sequence
/// mesh), then train_batch_size = micro x gas x data_world checked.
struct DeepSpeedBatch {
    std::int64_t train_batch_size = 0;
    std::int64_t micro_batch_per_gpu = 0;
    std::int64_t gradient_accumulation_steps = 0;
};

/// Throws Error (BadInput) naming `file` and the key when DeepSpeed would refuse: neither
/// train_batch_size nor train_micro_batch_size_per_gpu given, a derived size of 0, or the
/// three not multiplying up.
[[nodiscard]] DeepSpeedBatch resolve_deepspeed_batch(const DeepSpeedConfig& config, std::int64_t data_world,
                                                     const std::string& file);

}  // namespace planlayout
