// Ingest: a Kubernetes NodeList (`kubectl get nodes -o json`) → FabricTopology, the switch tree
// and NVLink domains its node labels describe, plus each node's GPU product and count
// (docs/formats/k8s-nodes.md names every label and its source).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "planlayout/ingest/slurm_topology.hpp"

namespace planlayout {

/// True for a JSON document that is a NodeList, a kubectl List of Nodes, or one Node.
[[nodiscard]] bool looks_like_k8s_nodes(const nlohmann::json& j);

/// Reads the nodes' topology labels. `tier_labels` (lowest tier first) overrides the known
/// schemes (topograph, AWS, GCP, OCI); empty = the first known scheme any node carries.
/// NVLink domains (nvidia.com/gpu.clique, else topograph's accelerator label) become blocks.
/// Errors (BadInput) name where (/json/pointer); questionable content becomes a warning.
[[nodiscard]] FabricTopology read_k8s_nodes(const nlohmann::json& j, const std::string& where,
                                            const std::vector<std::string>& tier_labels = {});

}  // namespace planlayout
