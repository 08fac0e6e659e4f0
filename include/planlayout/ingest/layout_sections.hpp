// Ingest: a layout's sections read into the domain values of the later stages, through the one
// JSON reader (json_reader.hpp). parallel/ and analysis/ define the values and their rules and
// read no JSON themselves; every reader of the layout schema is here (layout_parallel.cpp,
// layout_model.cpp). Each throws Error (BadInput) naming "file (/json/pointer/key)".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/model/model_spec.hpp"
#include "planlayout/model/score.hpp"
#include "planlayout/parallel/framework.hpp"
#include "planlayout/parallel/parallel_spec.hpp"
#include "planlayout/parallel/placement.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// Reads the "parallel" object of a layout file (Megatron's keys); `source` names it for errors.
[[nodiscard]] ParallelSpec parallel_spec_from_json(const nlohmann::json& j, const SpecSource& source);

/// Reads a layout's "parallel" object: "framework" (default "megatron") and that framework's keys
/// (docs/formats/layout.md): Megatron's as parallel_spec_from_json; torchtitan: world, dp_replicate,
/// dp_shard, cp, tp, pp, ep (etp with "torchtitan:2025"); deepspeed: world, pp, tp, dp, ep, moe_path;
/// mesh: world, mesh ("pp=2,dp=4,tp=2"), flatten (["dp,cp", "dp,cp:name"]).
[[nodiscard]] FrameworkSpec framework_spec_from_json(const nlohmann::json& j, const SpecSource& source);

/// The hostfile a placement section names, already read by the caller: the name as the layout
/// gives it, the path it was read from (for messages), and its hosts in file order.
struct NamedHostfile {
    std::string name;
    std::string path;
    std::vector<std::string> hosts;
};

/// Reads a layout's "placement" section: {"hosts": [...] | "hostfile": "path", "local_order":
/// [...], "order": "node-major" | "fabric"} or {"ranks": [{"host": "node1", "gpu": 3}, ...]}.
/// "order": "fabric" fills the nodes leaf-major (fabric_node_order) instead of in list order. A
/// section naming a hostfile needs `hostfile` (placement_hostfile_name() tells the caller which
/// file to read).
[[nodiscard]] Placement placement_from_json(const nlohmann::json& j,
                                            const std::string& file,
                                            const std::string& pointer,
                                            const Cluster& cluster,
                                            std::int64_t world,
                                            const std::optional<NamedHostfile>& hostfile = std::nullopt);

/// The GPUs of the hosts a placement section lists in "hosts" (an allocation: --nodelist,
/// --hostfile on a cluster naming hosts), each host once; 0 when it lists none. Unknown hosts
/// count nothing here (placement_from_json refuses them). The job's default world.
[[nodiscard]] std::int64_t placement_hosts_gpus(const nlohmann::json& j, const Cluster& cluster);

/// The hostfile a placement section names, if any (not checked beyond being a string).
[[nodiscard]] std::optional<std::string> placement_hostfile_name(const nlohmann::json& j);

/// Reads the "model" section. Throws Error naming "where (pointer/key)".
ModelSpec model_spec_from_json(const nlohmann::json& j, const std::string& where,
                               const std::string& pointer = "/model");

/// Reads the "training" section.
TrainingSpec training_spec_from_json(const nlohmann::json& j, const std::string& where,
                                     const std::string& pointer = "/training");

/// Reads the "transport" section.
TransportSpec transport_spec_from_json(const nlohmann::json& j, const std::string& where,
                                       const std::string& pointer = "/transport");

/// Reads the "score" section (factors given instead of computed).
ScoreFactors score_factors_from_json(const nlohmann::json& j, const std::string& where,
                                     const std::string& pointer = "/score");

}  // namespace planlayout
