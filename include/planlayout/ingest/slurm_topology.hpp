// Ingest: Slurm topology.conf (tree and block plugins, also as NVIDIA topograph writes them)
// → FabricTopology, the cluster-level switch tree above the nodes.
#pragma once

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

struct FabricTopology {
    std::string source;
    std::string plugin;  // "tree" or "block"
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

/// JSON form ("schema_version" is added by the CLI).
[[nodiscard]] nlohmann::json to_json(const FabricTopology& f);

}  // namespace planlayout
