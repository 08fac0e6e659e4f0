// Ingest: torchtitan's TOML job config (ingest/torchtitan_toml.hpp). Key names and defaults:
// torchtitan/config/job_config.py at 238fa9953 (the last commit with TOML configs).
#include "planlayout/ingest/torchtitan_toml.hpp"

#include <map>
#include <set>

#include <toml++/toml.h>

#include "planlayout/error.hpp"

namespace planlayout {
namespace {

std::string at(const std::string& file, const toml::source_region& r) {
    return file + ":" + std::to_string(r.begin.line);
}

// Every field of torchtitan's Parallelism dataclass (job_config.py at 238fa9953).
const std::set<std::string>& parallelism_keys() {
    static const std::set<std::string> kKeys = {
        "data_parallel_replicate_degree", "data_parallel_shard_degree", "fsdp_reshard_after_forward",
        "tensor_parallel_degree", "disable_loss_parallel", "enable_async_tensor_parallel",
        "pipeline_parallel_degree", "module_fqns_per_model_part", "pipeline_parallel_first_stage_less_layers",
        "pipeline_parallel_last_stage_less_layers", "pipeline_parallel_layers_per_stage",
        "pipeline_parallel_schedule", "pipeline_parallel_schedule_csv", "pipeline_parallel_microbatch_size",
        "pipeline_parallel_expert_parallel_overlap", "context_parallel_degree", "context_parallel_load_balancer",
        "context_parallel_rotate_method", "expert_parallel_degree", "expert_tensor_parallel_degree",
        "expert_parallel_comm_backend",
    };
    return kKeys;
}

std::int64_t integer(const toml::node& n, const std::string& file, const std::string& table, const std::string& key) {
    const auto v = n.value_exact<std::int64_t>();
    if (!v) {
        throw input_error(at(file, n.source()), "[" + table + "] " + key + " must be an integer",
                          "write e.g. " + key + " = 2");
    }
    return *v;
}

}  // namespace

TorchtitanConfig read_torchtitan_config(const std::string& text, const std::string& file) {
    toml::table root;
    try {
        root = toml::parse(text, file);
    } catch (const toml::parse_error& e) {
        throw input_error(at(file, e.source()), "not valid TOML: " + std::string(e.description()),
                          "fix the TOML syntax (torchtitan reads it with tomllib)");
    }
    TorchtitanConfig out;
    if (const toml::node* p = root.get("parallelism")) {
        const toml::table* t = p->as_table();
        if (t == nullptr) {
            throw input_error(at(file, p->source()), "parallelism must be a table", "write [parallelism]");
        }
        const std::map<std::string, std::int64_t*> degrees = {
            {"data_parallel_replicate_degree", &out.dims.dp_replicate},
            {"data_parallel_shard_degree", &out.dims.dp_shard},
            {"context_parallel_degree", &out.dims.cp},
            {"tensor_parallel_degree", &out.dims.tp},
            {"pipeline_parallel_degree", &out.dims.pp},
            {"expert_parallel_degree", &out.dims.ep},
            {"expert_tensor_parallel_degree", &out.dims.etp},
        };
        for (const auto& [k, node] : *t) {
            const std::string key(k.str());
            if (parallelism_keys().count(key) == 0) {
                std::vector<std::string> known(parallelism_keys().begin(), parallelism_keys().end());
                const std::string near = nearest_match(key, known);
                throw input_error(at(file, k.source()), "[parallelism] has no key '" + key + "' in torchtitan's JobConfig",
                                  near.empty() ? "see torchtitan/config/job_config.py (class Parallelism)"
                                               : "did you mean " + near + "?");
            }
            if (const auto it = degrees.find(key); it != degrees.end()) {
                *it->second = integer(node, file, "parallelism", key);
            }
            if (key == "pipeline_parallel_microbatch_size") {
                out.training.pp_microbatch_size = integer(node, file, "parallelism", key);
            }
        }
    }
    if (const toml::node* p = root.get("training")) {
        if (const toml::table* t = p->as_table()) {
            const std::map<std::string, std::optional<std::int64_t>*> sizes = {
                {"local_batch_size", &out.training.local_batch_size},
                {"global_batch_size", &out.training.global_batch_size},
                {"seq_len", &out.training.seq_len},
            };
            for (const auto& [key, field] : sizes) {
                if (const toml::node* n = t->get(key)) {
                    *field = integer(*n, file, "training", key);
                }
            }
        }
    }
    return out;
}

TorchtitanDims read_torchtitan_toml(const std::string& text, const std::string& file) {
    return read_torchtitan_config(text, file).dims;
}

}  // namespace planlayout
