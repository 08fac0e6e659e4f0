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

/// The fabric's domains per node: the leaf group and pod each node belongs to, with names. A leaf
/// group is the set of nodes whose rail NICs share one set of leaf switches: a scalable unit of a
/// rail-aligned fabric, or with explicit wiring the leaf of the node's first rail.
struct FabricDomains {
    std::vector<std::int64_t> leaf_group;         // node → leaf group id (-1: the node has no rail NIC)
    std::vector<std::int64_t> pod;                // node → pod id (-1: no rail NIC)
    std::vector<std::string> leaf_group_names;    // id → "su0" (aligned) or the leaf's name (explicit wiring)
    std::vector<std::int64_t> pod_of_leaf_group;  // leaf group id → pod id
    std::int64_t pods = 0;
};

[[nodiscard]] FabricDomains fabric_domains(const Cluster& cluster);

/// Leaf-major node order, so that rings stay inside leaves: `order` (every node in cluster order
/// when empty) stably sorted by pod, then leaf group; nodes without a rail NIC last.
[[nodiscard]] std::vector<std::int32_t> fabric_node_order(const Cluster& cluster, const std::vector<std::int32_t>& order);

}  // namespace planlayout
