// Ingest: an imported cluster topology (the fabric JSON of `import slurm|slurm-yaml|k8s-nodes`,
// or directly a topology.conf, topology.yaml or `kubectl get nodes -o json`) → the hosts, scalable
// units and pods of a layout's cluster (docs/formats/layout.md, "cluster.topology").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "planlayout/ingest/slurm_topology.hpp"

namespace planlayout {

/// What the cluster model takes from a fabric: leaf switch (or block) → scalable unit, the switch
/// above the leaves → pod, hosts in fabric order (leaf after leaf, pod after pod).
struct ImportedFabric {
    std::vector<std::string> hosts;    // fabric order: every host of leaf 0, then leaf 1, ...
    std::vector<std::int64_t> su_sizes;   // hosts per leaf switch (block), in fabric order: any sizes
    std::vector<std::int64_t> pod_sizes;  // leaves per spine switch, in fabric order (empty: no switch above the leaves)
    std::vector<std::string> su_names;   // leaf switch (block) names, in fabric order
    std::vector<std::string> pod_names;  // spine switch names, in fabric order (empty: no spine)
    std::string core_name;               // the one switch above the spines, empty if none
    std::vector<std::string> notes;      // what the model does not represent (tiers above, NVLink blocks)
    bool blocks = false;                 // the units are blocks (no switch lists nodes)
    std::vector<std::string> host_domains;  // per host its NVLink clique (a k8s clique label), empty if none
    std::string domain_label;               // the label the cliques came from
};

/// Reads a fabric from text: the fabric JSON `import` writes, a Slurm topology.conf or
/// topology.yaml, or a Kubernetes node list, told apart by the content (as `import auto` does).
/// `where` names the file in errors.
[[nodiscard]] FabricTopology read_fabric_text(const std::string& text, const std::string& where);

/// The fabric JSON `import` writes (schema/fabric.schema.json) back into a FabricTopology.
/// `where` and `pointer` name it in errors.
[[nodiscard]] FabricTopology fabric_from_json(const nlohmann::json& j, const std::string& where,
                                              const std::string& pointer);

/// Maps a fabric onto the cluster model. Leaves (blocks) of any sizes and spines of any leaf
/// counts are taken as they are (a partly populated SuperPOD). Throws Error (BadInput) naming
/// `where` for what the model cannot hold: a node under no leaf or under two, a switch with both
/// nodes and switches, leaves at different depths, or no host at all (a flat topology).
[[nodiscard]] ImportedFabric map_fabric(const FabricTopology& f, const std::string& where);

}  // namespace planlayout
