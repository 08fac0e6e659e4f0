// CLI: the framework flags as a fragment of the layout (framework_flags.hpp).
#include "framework_flags.hpp"

#include "planlayout/error.hpp"
#include "planlayout/ingest/deepspeed_config.hpp"
#include "planlayout/ingest/torchtitan_toml.hpp"
#include "planlayout/limits.hpp"

namespace planlayout::cli {
namespace {

constexpr const char* kFrameworkFlags[] = {"--framework",        "--dp-replicate", "--dp-shard",     "--torchtitan-config", "--spmd-backend",
                                           "--moe-path",         "--deepspeed-config", "--ds-topology", "--data-before-expert",
                                           "--zero-stage",       "--mesh",         "--flatten"};

std::string flag_source(const ParsedArgs& args, const char* flag) {
    return "command line (" + args.spelling(flag) + ")";
}

// out.layout[pointer] = value, given by `source`.
void put_fragment(FrameworkFragment& out, const std::string& pointer, const nlohmann::json& value, std::string source) {
    out.layout[nlohmann::json::json_pointer(pointer)] = value;
    out.sources[pointer] = std::move(source);
}

// torchtitan's [activation_checkpoint] into /training/recompute (and checkpoint_every for the
// layer-level selective option): absent, torchtitan's default mode "selective" with option "2".
void torchtitan_checkpoint_fragment(const TorchtitanTraining& t, const std::string& name, FrameworkFragment& out) {
    const std::string mode = t.ac_mode.value_or("selective");
    const std::string option = t.ac_option.value_or("2");
    const std::string given = t.ac_mode ? "activation_checkpoint.mode" : "[activation_checkpoint] absent: torchtitan's default mode";
    put_fragment(out, "/training/recompute", mode, name + " (" + given + " " + mode + ")");
    if (mode == "selective" && option == "op") {
        put_fragment(out, "/training/per_op_checkpoint", true, name + " (activation_checkpoint.selective_ac_option op)");
    } else if (mode == "selective") {
        put_fragment(out, "/training/checkpoint_every", std::stoi(option),
            name + " (activation_checkpoint.selective_ac_option " + option + (t.ac_option ? "" : ", torchtitan's default") +
                ": every " + option + "th block fully checkpointed)");
    }
}

// torchtitan's job config (TOML): [parallelism] into /parallel, [training] sizes into /training.
void torchtitan_config_fragment(const std::string& path, Context& ctx, FrameworkFragment& out) {
    const std::string name = path == "-" ? "stdin" : path;
    const TorchtitanConfig config = read_torchtitan_config(read_input(path, ctx, kMaxConfigBytes), name);
    out.files.push_back(path);
    const TorchtitanDims& d = config.dims;
    auto set = [&](const char* pointer, const nlohmann::json& value, const std::string& key) {
        put_fragment(out, pointer, value, name + " (" + key + ")");
    };
    set("/parallel/framework", "torchtitan", "torchtitan job config");
    set("/parallel/dp_replicate", d.dp_replicate, "parallelism.data_parallel_replicate_degree");
    set("/parallel/dp_shard", d.dp_shard, "parallelism.data_parallel_shard_degree");
    set("/parallel/cp", d.cp, "parallelism.context_parallel_degree");
    set("/parallel/tp", d.tp, "parallelism.tensor_parallel_degree");
    set("/parallel/pp", d.pp, "parallelism.pipeline_parallel_degree");
    set("/parallel/ep", d.ep, "parallelism.expert_parallel_degree");
    if (d.ep > 1 && d.etp != 1) {  // with ep 1 torchtitan ignores it
        set("/parallel/etp", d.etp, "parallelism.expert_tensor_parallel_degree");
    }
    if (d.spmd_backend != TorchtitanDims{}.spmd_backend) {
        set("/parallel/spmd_backend", d.spmd_backend, "parallelism.spmd_backend");
    }
    const TorchtitanTraining& t = config.training;
    if (t.seq_len) {
        set("/training/seq_len", *t.seq_len, "training.seq_len");
    }
    if (d.pp > 1 && t.pp_microbatch_size) {
        set("/training/micro_batch", *t.pp_microbatch_size, "parallelism.pipeline_parallel_microbatch_size");
    } else if (t.local_batch_size) {
        set("/training/micro_batch", *t.local_batch_size, "training.local_batch_size");
    } else {
        set("/training/micro_batch", 8, "training.local_batch_size absent: torchtitan's default 8");
    }
    if (t.global_batch_size && *t.global_batch_size > 0) {
        set("/training/global_batch", *t.global_batch_size, "training.global_batch_size");
    } else {
        // torchtitan (train.py): global_batch_size -1 (the default) is local_batch_size x the
        // data-parallel degree (dp_replicate x dp_shard), one gradient-accumulation step; with a
        // pipeline, the local batch is split into micro-batches of pipeline_parallel_microbatch_size.
        // plan() settles global = micro x grad_accum x dp (model/batch.hpp).
        const std::int64_t local = t.local_batch_size.value_or(8);
        std::int64_t accum = 1;
        if (d.pp > 1 && t.pp_microbatch_size && *t.pp_microbatch_size > 0) {
            if (local % *t.pp_microbatch_size != 0) {
                throw input_error(name + " (parallelism.pipeline_parallel_microbatch_size)",
                                  "the local batch " + std::to_string(local) + " is not a multiple of the micro-batch " +
                                      std::to_string(*t.pp_microbatch_size) + " (torchtitan refuses it too)",
                                  "make training.local_batch_size a multiple of pipeline_parallel_microbatch_size");
            }
            accum = local / *t.pp_microbatch_size;
        }
        set("/training/grad_accum", accum,
            "training.global_batch_size " + std::string(t.global_batch_size ? "-1" : "absent") +
                ": torchtitan's global batch is local_batch_size x dp" +
                (accum > 1 ? ", the local batch in " + std::to_string(accum) + " pipeline micro-batches" : std::string()));
    }
    torchtitan_checkpoint_fragment(t, name, out);
}

// ds_config.json: how DeepSpeed keeps the model states (precision, bf16 master and optimizer
// states, offload, ZeRO-3 prefetch) into /training/states, where they differ from the defaults
// (docs/cost-model.md §8).
void deepspeed_states_fragment(const DeepSpeedConfig& config, const std::string& name, FrameworkFragment& out) {
    auto set = [&](const char* pointer, const nlohmann::json& value, const std::string& key) {
        put_fragment(out, pointer, value, name + " (" + key + ")");
    };
    if (!config.bf16 && !config.fp16) {
        set("/training/states/precision", "fp32", "neither bf16 nor fp16 enabled: DeepSpeed trains in fp32");
    } else if (config.fp16) {
        set("/training/states/precision", "fp16", config.fp16_auto ? "fp16.enabled \"auto\": the HF Trainer's --fp16" : "fp16.enabled");
    } else if (config.bf16_auto) {
        set("/training/states/precision", "bf16", "bf16.enabled \"auto\": taken as the HF Trainer's --bf16");
    }
    if (config.bf16_master_weights_and_grads) {
        set("/training/states/bf16_master_weights_and_grads", true, "bf16.bf16_master_weights_and_grads");
    }
    if (config.bf16_optimizer_states) {
        set("/training/states/bf16_optimizer_states", true, "bf16.bf16_optimizer_states");
    }
    if (config.offload_optimizer != "none") {
        set("/training/states/offload_optimizer", config.offload_optimizer, "zero_optimization.offload_optimizer.device");
    }
    if (config.offload_param != "none") {
        set("/training/states/offload_param", config.offload_param, "zero_optimization.offload_param.device");
    }
    if (config.prefetch_bucket != DeepSpeedConfig{}.prefetch_bucket) {
        set("/training/states/prefetch_bucket", config.prefetch_bucket,
            config.prefetch_bucket == 0 ? "zero_optimization.stage3_prefetch_bucket_size \"auto\": 0.9 * hidden^2"
                                        : "zero_optimization.stage3_prefetch_bucket_size");
    }
}

// ds_config.json: the degrees it implies (apply_deepspeed_config) into /parallel, its batch
// sizes into /training, each with the file as source.
void deepspeed_config_fragment(const std::string& path, Context& ctx, FrameworkFragment& out) {
    const std::string name = path == "-" ? "stdin" : path;
    const DeepSpeedConfig config = read_deepspeed_config(read_input(path, ctx, kMaxConfigBytes), name);
    out.files.push_back(path);
    const DeepSpeedDims defaults;
    const DeepSpeedDims d = apply_deepspeed_config(config, defaults);
    auto set = [&](const char* pointer, const nlohmann::json& value, const char* key) {
        put_fragment(out, pointer, value, name + " (" + key + ")");
    };
    set("/parallel/framework", "deepspeed", "ds_config");
    set("/parallel/zero_stage", d.zero_stage, "zero_optimization.stage");
    if (d.mp != defaults.mp) {
        set("/parallel/tp", d.mp, d.topology == "autotp" ? "tensor_parallel.autotp_size" : "sequence_parallel_size");
    }
    if (d.dp != defaults.dp) {
        set("/parallel/dp", d.dp, "data_parallel_size");
    }
    if (d.topology != defaults.topology) {
        set("/parallel/topology", d.topology, d.topology == "autotp" ? "tensor_parallel.autotp_size" : "sequence_parallel_size");
    }
    if (d.ep != defaults.ep) {
        set("/parallel/ep", d.ep, "expert_parallel.autoep_size");
    }
    if (d.moe_path != defaults.moe_path) {
        set("/parallel/moe_path", d.moe_path, "expert_parallel.enabled");
    }
    if (d.data_before_expert) {
        set("/parallel/data_before_expert", true, "use_data_before_expert_parallel_");
    }
    if (config.train_micro_batch_size_per_gpu) {
        set("/training/micro_batch", *config.train_micro_batch_size_per_gpu, "train_micro_batch_size_per_gpu");
    }
    if (config.train_batch_size) {
        set("/training/global_batch", *config.train_batch_size, "train_batch_size");
    }
    if (config.gradient_accumulation_steps) {
        set("/training/grad_accum", *config.gradient_accumulation_steps, "gradient_accumulation_steps");
    }
    deepspeed_states_fragment(config, name, out);
}

}  // namespace

bool has_framework_flags(const ParsedArgs& args) {
    for (const char* flag : kFrameworkFlags) {
        if (args.has(flag)) {
            return true;
        }
    }
    return false;
}

FrameworkFragment framework_fragment(const ParsedArgs& args, Context& ctx) {
    FrameworkFragment out;
    auto set = [&out](const std::string& pointer, const nlohmann::json& value, const std::string& source) {
        put_fragment(out, pointer, value, source);
    };
    std::string implied;
    std::string implied_by;
    auto imply = [&](const char* flag, const char* framework) {
        if (args.has(flag)) {
            if (!implied.empty() && implied != framework) {
                throw input_error(args.spelling(flag), "conflicts with " + implied_by + " (" + implied + ")",
                                  "give the flags of one framework");
            }
            implied = framework;
            implied_by = args.spelling(flag);
        }
    };
    imply("--mesh", "mesh");
    imply("--flatten", "mesh");
    imply("--torchtitan-config", "torchtitan");
    imply("--dp-replicate", "torchtitan");
    imply("--dp-shard", "torchtitan");
    imply("--spmd-backend", "torchtitan");
    if (const auto file = args.get("--torchtitan-config")) {
        torchtitan_config_fragment(*file, ctx, out);
    }
    imply("--deepspeed-config", "deepspeed");
    imply("--moe-path", "deepspeed");
    imply("--ds-topology", "deepspeed");
    imply("--data-before-expert", "deepspeed");
    imply("--zero-stage", "deepspeed");
    if (const auto file = args.get("--deepspeed-config")) {
        // The config first: the flags below win over it.
        deepspeed_config_fragment(*file, ctx, out);
    }
    if (const auto name = args.get("--framework")) {
        const std::string family = name->substr(0, name->find(':'));
        if (!implied.empty() && family != implied) {
            throw input_error("--framework " + *name, implied_by + " is " + implied + "'s",
                              "give --framework " + implied + ", or drop " + implied_by);
        }
        set("/parallel/framework", *name, flag_source(args, "--framework"));
    } else if (!implied.empty()) {
        set("/parallel/framework", implied, "implied by " + implied_by);
    }
    for (const auto& [flag, key] : {std::pair{"--dp-replicate", "dp_replicate"}, std::pair{"--dp-shard", "dp_shard"}}) {
        if (const auto v = args.get_int(flag, -kMaxWorld, kMaxWorld)) {
            set(std::string("/parallel/") + key, *v, flag_source(args, flag));
        }
    }
    if (const auto path = args.get("--moe-path")) {
        set("/parallel/moe_path", *path, flag_source(args, "--moe-path"));
    }
    if (const auto topology = args.get("--ds-topology")) {
        set("/parallel/topology", *topology, flag_source(args, "--ds-topology"));
    }
    if (args.has("--data-before-expert")) {
        set("/parallel/data_before_expert", true, flag_source(args, "--data-before-expert"));
    }
    if (const auto stage = args.get_int("--zero-stage", 0, 3)) {
        set("/parallel/zero_stage", *stage, flag_source(args, "--zero-stage"));
    }
    if (const auto mesh = args.get("--mesh")) {
        set("/parallel/mesh", *mesh, flag_source(args, "--mesh"));
    }
    if (args.has("--flatten")) {
        set("/parallel/flatten", args.get_all("--flatten"), flag_source(args, "--flatten"));
    }
    if (const auto backend = args.get("--spmd-backend")) {
        set("/parallel/spmd_backend", *backend, flag_source(args, "--spmd-backend"));
    }
    return out;
}

}  // namespace planlayout::cli
