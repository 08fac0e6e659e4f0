// Cost: the bridge from the edge classification (GroupShape) to the cost model (CostShape).
#pragma once

#include "planlayout/analysis/cost.hpp"
#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// A CostShape from one classified group shape. Every rank is in one group of each kind, so
/// shape.gpus_per_node / g groups of the kind share a node's TCP interface; hw: line rates;
/// pxn: NCCL_PXN_DISABLE=0. A rank whose nearest NIC is NODE/SYS away marks the group
/// host-staged for GPUDirect.
[[nodiscard]] CostShape cost_shape_from_edges(const GroupShape& shape, const NodeHardware& hw, bool pxn = true);

/// The hardware numbers of a cluster (NVLink, PCIe, rail NIC and TCP speeds, NICs per node),
/// the minimum over its node templates: a mixed cluster runs at its slowest node's pace.
[[nodiscard]] NodeHardware node_hardware(const Cluster& cluster);

}  // namespace planlayout
