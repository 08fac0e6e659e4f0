// Cost: the bridge from the edge classification (GroupFootprint) to the cost model (PlacedGroup).
#pragma once

#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/model/cost.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// A PlacedGroup from one classified group footprint. Every rank is in one group of each kind, so
/// shape.gpus_per_node / g groups of the kind share a node's TCP interface; hw: line rates;
/// pxn: NCCL_PXN_DISABLE=0; spine_oversubscription: the leaf uplinks' down:up ratio
/// (FabricSpec::oversubscription), paid by a group whose worst cross-node class is XRAIL or XPOD.
/// A rank whose nearest NIC is NODE/SYS away marks the group host-staged for GPUDirect.
[[nodiscard]] PlacedGroup placed_group_of(const GroupFootprint& shape, const NodeHardware& hw, bool pxn = true,
                                          double spine_oversubscription = 1.0);

/// The hardware numbers of a cluster (NVLink, PCIe, rail NIC and TCP speeds, NICs per node),
/// the minimum over its node templates: a mixed cluster runs at its slowest node's pace.
[[nodiscard]] NodeHardware node_hardware(const Cluster& cluster);

}  // namespace planlayout
