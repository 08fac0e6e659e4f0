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
void put(FrameworkFragment& out, const std::string& pointer, const nlohmann::json& value, std::string source) {
    out.layout[nlohmann::json::json_pointer(pointer)] = value;
    out.sources[pointer] = std::move(source);
}

// torchtitan's job config (TOML): [parallelism] into /parallel, [training] sizes into /training.
void torchtitan_config_fragment(const std::string& path, Context& ctx, FrameworkFragment& out) {
    const std::string name = path == "-" ? "stdin" : path;
    const TorchtitanConfig config = read_torchtitan_config(read_input(path, ctx, kMaxConfigBytes), name);
    out.files.push_back(path);
    const TorchtitanDims& d = config.dims;
    auto set = [&](const char* pointer, const nlohmann::json& value, const char* key) {
        put(out, pointer, value, name + " (" + key + ")");
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
    }
    if (t.global_batch_size && *t.global_batch_size > 0) {
        set("/training/global_batch", *t.global_batch_size, "training.global_batch_size");
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
        put(out, pointer, value, name + " (" + key + ")");
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
        put(out, pointer, value, source);
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
