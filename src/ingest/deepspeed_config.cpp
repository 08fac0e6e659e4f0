// Ingest: DeepSpeed ds_config.json (ingest/deepspeed_config.hpp). Key names and defaults are
// DeepSpeed's (runtime/constants.py, runtime/config.py, runtime/zero/config.py,
// runtime/precision_config.py, runtime/tensor_parallel/config.py, module_inject/auto_ep_config.py).
#include "planlayout/ingest/deepspeed_config.hpp"

#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/model/batch.hpp"

namespace planlayout {
namespace {

// A whole number, or "auto" (the Hugging Face Trainer's placeholder) read as absent.
std::optional<std::int64_t> int_or_auto(const JsonReader& r, const std::string& key, std::int64_t min, std::int64_t max) {
    if (r.has(key) && r.at(key).is_string() && r.at(key).get<std::string>() == "auto") {
        return std::nullopt;
    }
    return r.get_int(key, min, max);
}

// The section's "enabled": true, false, or "auto" (nullopt: the HF Trainer fills it from its
// --bf16 / --fp16 flag); false when the section is absent.
std::optional<bool> enabled(const JsonReader& r, const std::string& key) {
    const auto sub = r.get_object(key);
    if (!sub) {
        return false;
    }
    if (sub->has("enabled") && sub->at("enabled").is_string() && sub->at("enabled").get<std::string>() == "auto") {
        return std::nullopt;
    }
    return sub->get_bool("enabled").value_or(false);
}

// zero_optimization.<key>.device: none, cpu or nvme (runtime/zero/offload_config.py OffloadDeviceEnum).
std::string offload_device(const JsonReader& z, const std::string& key) {
    const auto sub = z.get_object(key);
    if (!sub) {
        return "none";
    }
    std::string device = sub->get_string("device").value_or("none");
    if (device != "none" && device != "cpu" && device != "nvme") {
        throw input_error(sub->where("device"), "unknown offload device '" + device + "'",
                          "use none, cpu or nvme (DeepSpeed's OffloadDeviceEnum)");
    }
    return device;
}

}  // namespace

DeepSpeedConfig read_deepspeed_config(const std::string& text, const std::string& file) {
    require_text_size(text, file, kMaxConfigBytes, "kMaxConfigBytes",
                      "a DeepSpeed config is a few kilobytes: check that this is the right file");
    const nlohmann::json doc = parse_json_text(text, file);
    const JsonReader r(doc, file, "");
    DeepSpeedConfig c;
    c.train_batch_size = int_or_auto(r, "train_batch_size", 1, INT64_MAX);
    c.train_micro_batch_size_per_gpu = int_or_auto(r, "train_micro_batch_size_per_gpu", 1, INT64_MAX);
    c.gradient_accumulation_steps = int_or_auto(r, "gradient_accumulation_steps", 1, INT64_MAX);
    if (const auto z = r.get_object("zero_optimization")) {
        c.zero_stage = int_or_auto(*z, "stage", 0, 3).value_or(0);
        c.zero_hpz_partition_size = z->get_int("zero_hpz_partition_size", 0, kMaxWorld).value_or(1);
        c.mics_shard_size = z->get_int("mics_shard_size", -1, kMaxWorld).value_or(-1);
        c.offload_optimizer = offload_device(*z, "offload_optimizer");
        c.offload_param = offload_device(*z, "offload_param");
        if (z->has("stage3_prefetch_bucket_size") && z->at("stage3_prefetch_bucket_size").is_string() &&
            z->at("stage3_prefetch_bucket_size").get<std::string>() == "auto") {
            c.prefetch_bucket = 0;
        } else {
            c.prefetch_bucket = z->get_double("stage3_prefetch_bucket_size", 0, 1e15).value_or(5e7);
        }
    }
    const std::string bf16_key = r.has("bf16") || !r.has("bfloat16") ? "bf16" : "bfloat16";
    const std::optional<bool> bf16 = enabled(r, bf16_key);
    const std::optional<bool> fp16 = enabled(r, "fp16");
    // "auto" follows the HF Trainer's flag; plan-layout takes the usual --bf16 unless fp16 is on.
    c.fp16 = fp16.value_or(!bf16.has_value() ? false : !*bf16);
    c.fp16_auto = !fp16.has_value() && c.fp16;
    c.bf16 = bf16.value_or(!c.fp16);
    c.bf16_auto = !bf16.has_value() && c.bf16;
    if (const auto b = r.get_object(bf16_key)) {
        c.bf16_master_weights_and_grads = b->get_bool("bf16_master_weights_and_grads").value_or(false);
        c.bf16_optimizer_states = b->get_bool("bf16_optimizer_states").value_or(false);
    }
    if (c.bf16_master_weights_and_grads && c.zero_stage == 0) {
        // runtime/config.py: "Bf16_master_weights_and_grads is only supported with ZeRO Stage 1, 2, or 3."
        throw input_error(r.where(bf16_key) + " bf16_master_weights_and_grads",
                          "DeepSpeed supports bf16 master weights only with ZeRO stage 1, 2 or 3",
                          "set zero_optimization.stage to 1, 2 or 3, or drop bf16_master_weights_and_grads");
    }
    if (c.bf16 && c.fp16) {
        throw input_error(r.where("fp16"), "bf16 and fp16 are both enabled (DeepSpeed: bfloat16 and fp16 modes cannot be simultaneously enabled)",
                          "enable only one of bf16 and fp16");
    }
    if (const auto tp = r.get_object("tensor_parallel")) {
        c.autotp_size = int_or_auto(*tp, "autotp_size", 0, kMaxWorld).value_or(0);
    }
    if (const auto p = r.get_object("pipeline")) {
        c.pipe_partitioned = p->get_bool("pipe_partitioned").value_or(true);
        c.grad_partitioned = p->get_bool("grad_partitioned").value_or(true);
        c.activation_checkpoint_interval = p->get_int("activation_checkpoint_interval", 0, INT64_MAX).value_or(0);
    }
    if (const auto e = r.get_object("expert_parallel")) {
        c.autoep_enabled = e->get_bool("enabled").value_or(false);
        c.autoep_size = e->get_int("autoep_size", 1, kMaxWorld).value_or(1);
        c.expert_tensor_parallel_size = e->get_int("expert_tensor_parallel_size", 1, kMaxWorld).value_or(1);
    }
    c.use_data_before_expert_parallel = r.get_bool("use_data_before_expert_parallel_").value_or(false);
    c.sequence_parallel_size = r.get_int("sequence_parallel_size", 1, kMaxWorld);
    c.data_parallel_size = r.get_int("data_parallel_size", 1, kMaxWorld);
    return c;
}

DeepSpeedDims apply_deepspeed_config(const DeepSpeedConfig& c, DeepSpeedDims dims) {
    dims.data_before_expert = dims.data_before_expert || c.use_data_before_expert_parallel;
    dims.zero_stage = c.zero_stage;
    const bool sp_mesh = c.sequence_parallel_size && c.data_parallel_size;
    if (c.autotp_size > 1) {
        dims.mp = c.autotp_size;
        dims.topology = "autotp";
    } else if (sp_mesh) {
        dims.mp = *c.sequence_parallel_size;
        dims.dp = *c.data_parallel_size;
        dims.topology = "sp-mesh";
    }
    if (c.autoep_enabled) {
        dims.ep = c.autoep_size;
        // Without AutoTP (autotp_size 0 or 1) "autoep-tp" keeps the pipeline grid and takes
        // groups.py's legacy expert groups, as the engine does.
        dims.moe_path = sp_mesh && *c.sequence_parallel_size > 1 && c.autotp_size <= 1 ? "autoep-sp" : "autoep-tp";
    }
    return dims;
}

DeepSpeedBatch resolve_deepspeed_batch(const DeepSpeedConfig& c, std::int64_t data_world, const std::string& file) {
    const auto where = [&](const char* key) { return file + " (/" + std::string(key) + ")"; };
    const Batch b = settle_batch({c.train_batch_size, c.train_micro_batch_size_per_gpu, c.gradient_accumulation_steps}, data_world,
                                 {where("train_batch_size"), where("train_micro_batch_size_per_gpu"),
                                  where("gradient_accumulation_steps")});
    return {b.global_batch, b.micro_batch, b.grad_accum};
}

}  // namespace planlayout
