// Placement: rank → (node, local GPU), node-major by default as Megatron assumes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "planlayout/topology/cluster.hpp"

namespace planlayout {

struct Placement {
    std::vector<std::int32_t> node;  // rank → node index in Cluster::nodes
    std::vector<std::int32_t> gpu;   // rank → local GPU index on that node
    std::string description;         // "node-major", "hostfile hosts.txt", ...

    [[nodiscard]] std::int64_t world() const { return static_cast<std::int64_t>(node.size()); }
};

/// Rank r on the node that holds the r-th GPU in node order (node-major: ⌊r/G⌋ for uniform G),
/// local GPU in index order, or in `local_order` (a CUDA_VISIBLE_DEVICES permutation) when given.
/// `node_order` (hostfile order) lists node indices in the order ranks fill them; empty = all
/// nodes in cluster order. Throws Error naming `where` when world exceeds the GPUs available.
[[nodiscard]] Placement node_major_placement(const Cluster& cluster,
                                             std::int64_t world,
                                             const std::vector<std::int32_t>& node_order = {},
                                             const std::vector<std::int32_t>& local_order = {},
                                             const std::string& where = "placement");

/// The hostfile a placement section names, already read by the caller: the name as the layout
/// gives it, the path it was read from (for messages), and its hosts in file order.
struct NamedHostfile {
    std::string name;
    std::string path;
    std::vector<std::string> hosts;
};

/// Reads a layout's "placement" section: {"hosts": [...] | "hostfile": "path", "local_order":
/// [...]} or {"ranks": [{"host": "node1", "gpu": 3}, ...]}. A section naming a hostfile needs
/// `hostfile` (placement_hostfile_name() tells the caller which file to read).
[[nodiscard]] Placement placement_from_json(const nlohmann::json& j,
                                            const std::string& file,
                                            const std::string& pointer,
                                            const Cluster& cluster,
                                            std::int64_t world,
                                            const std::optional<NamedHostfile>& hostfile = std::nullopt);

/// The hostfile a placement section names, if any (not checked beyond being a string).
[[nodiscard]] std::optional<std::string> placement_hostfile_name(const nlohmann::json& j);

}  // namespace planlayout
