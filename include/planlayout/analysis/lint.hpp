// Analysis: node-level lint, the seed's acceptance checklist applied to one node template.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "planlayout/finding.hpp"
#include "planlayout/topology/node_template.hpp"

namespace planlayout {

/// Node-level checks: GPUs without a PIX/PXB RDMA NIC; several GPUs sharing one nearest NIC;
/// a GPU and its nearest NIC SYS apart or on different NUMA nodes; RDMA NICs of different
/// speeds; PCIe links below capability (or slower than the other GPUs'); storage/management
/// NICs, or NICs that are no GPU's nearest, that NCCL might still pick. Sorted by severity,
/// then code (GPU order within a code). Cluster-level checks (rails, heterogeneity) belong elsewhere.
[[nodiscard]] std::vector<Finding> lint_node(const NodeTemplate& t);

/// The nearest RDMA compute NIC of a GPU (best path class, then lowest index); empty if none.
[[nodiscard]] std::string nearest_nic(const NodeTemplate& t, const std::string& gpu);

}  // namespace planlayout
