// Placement: rank → (node, local GPU), node-major by default as Megatron assumes.
#pragma once

#include <cstdint>
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

/// Reads a layout's "placement" section: {"hosts": [...] | "hostfile": "path", "local_order":
/// [...]} or {"ranks": [{"host": "node1", "gpu": 3}, ...]}. base_dir resolves a hostfile path.
[[nodiscard]] Placement placement_from_json(const nlohmann::json& j,
                                            const std::string& file,
                                            const std::string& pointer,
                                            const std::string& base_dir,
                                            const Cluster& cluster,
                                            std::int64_t world);

/// Parses hostfile text (MPI/DeepSpeed style: "host slots=8" or "host:8" or "host" per line,
/// # comments) into (host, slots) pairs; slots 0 when not given.
[[nodiscard]] std::vector<std::pair<std::string, int>> parse_hostfile(const std::string& text, const std::string& where);

}  // namespace planlayout
