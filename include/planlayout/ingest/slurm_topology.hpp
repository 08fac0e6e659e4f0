// Ingest: Slurm topology.conf (tree and block plugins, also as NVIDIA topograph writes them)
// → FabricTopology, the cluster-level switch tree above the nodes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace planlayout {

/// One switch of a topology/tree file. tier 0 = leaf (lists nodes), increasing outward.
struct FabricSwitch {
    std::string name;
    std::string label;                  // topograph's "# name=label" comment, empty if none
    int tier = 0;
    std::vector<std::string> children;  // switch names (expanded)
    std::vector<std::string> nodes;     // host names (expanded)
    std::string link_speed;             // LinkSpeed= as written, empty if absent
};

/// One block of a topology/block file (an NVLink domain or a leaf group).
struct FabricBlock {
    std::string name;
    std::string label;
    std::vector<std::string> nodes;
};

/// One node as a Kubernetes NodeList describes it (empty for Slurm files, which name no GPUs).
struct FabricNode {
    std::string name;           // metadata.name
    std::string gpu_product;    // label nvidia.com/gpu.product, empty if absent
    int gpu_count = 0;          // label nvidia.com/gpu.count, 0 if absent
    int gpu_capacity = 0;       // status.capacity["nvidia.com/gpu"], 0 if absent
    std::string nvlink_domain;  // nvidia.com/gpu.clique (or topograph's accelerator label)
};

struct FabricTopology {
    std::string source;
    std::string plugin;  // "tree", "block" or "flat"
    std::string topology;      // topology.yaml: the entry read (its `topology:` name)
    std::string label_scheme;  // k8s: "topograph", "aws", "gcp", "oci", "custom"
    std::vector<std::string> tier_labels;  // k8s: the label read per tier, tier 0 first
    std::string domain_label;              // k8s: the label the blocks (NVLink domains) came from
    std::vector<FabricNode> nodes;         // k8s: every node of the list, in list order
    std::vector<FabricSwitch> switches;  // file order
    std::vector<FabricBlock> blocks;     // file order
    std::vector<int> block_sizes;        // BlockSizes=
    std::vector<std::string> warnings;
};

/// Expands a Slurm hostlist ("node[01-03,7],gpu-a[1-2]") in order. Zero padding follows the
/// width of the range's first number. Throws Error (BadInput) naming `where` for unbalanced
/// brackets, reversed ranges or more than 1,000,000 names.
[[nodiscard]] std::vector<std::string> expand_hostlist(const std::string& expr,
                                                       const std::string& where);

/// Parses topology.conf text. Errors name where:line; questionable content (a node under two
/// leaves, leaves without a common parent, a child switch never defined, a host name whose
/// prefix differs from the others) becomes a warning.
[[nodiscard]] FabricTopology read_slurm_topology(const std::string& text, const std::string& where);

/// The checks and tiers shared by topology.conf and topology.yaml: assigns switch tiers (leaves 0;
/// a cycle is an error naming where:switch_lines[i]) and adds the warnings (undefined child,
/// no common parent, a node listed twice, a host-name prefix differing from the rest).
void complete_fabric(FabricTopology& f, const std::vector<std::size_t>& switch_lines,
                     const std::string& where);

/// Parses Slurm 25.05+ topology.yaml text (a list of topologies: tree, block or flat) and
/// returns the entry named `topology`, or else the first with cluster_default: true, or else
/// the first. Errors name where:line.
[[nodiscard]] FabricTopology read_slurm_topology_yaml(const std::string& text, const std::string& where,
                                                      const std::string& topology = {});

/// JSON form ("schema_version" is added by the CLI).
[[nodiscard]] nlohmann::json to_json(const FabricTopology& f);

}  // namespace planlayout
