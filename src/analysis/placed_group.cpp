// Cost: GroupFootprint (edge classes) → PlacedGroup (cost model).
#include "planlayout/analysis/placed_group.hpp"

#include <algorithm>

namespace planlayout {

// The cost model's "node" is the NVLink island: a node, or the nodes of one multi-node NVLink domain,
// which NCCL fuses into one (its rings cross the network once per island, and every NIC of the
// island is a rail of it); the TCP interfaces of an island's nodes add up. Without domains the
// island figures are the node figures.
PlacedGroup placed_group_of(const GroupFootprint& shape, const NodeHardware& hw, bool pxn, double spine_oversubscription) {
    const int islands = std::max(1, shape.islands > 0 ? shape.islands : shape.nodes);
    const int per_island = std::max(1, shape.max_per_island > 0 ? shape.max_per_island : shape.max_per_node);
    PlacedGroup c = make_placed_group(islands, per_island, hw);
    c.n = static_cast<int>(shape.n);
    c.rails_per_node = std::max(1, shape.min_nics_per_island > 0 ? shape.min_nics_per_island : shape.min_rails_per_node);
    c.tcp_interfaces_per_node = hw.tcp_interfaces_per_node * std::max(1, shape.max_nodes_per_island);
    c.worst_intra = shape.worst_intra;
    c.worst_cross = shape.worst_cross;
    c.one_rank_per_node = per_island == 1 && islands > 1;
    c.gpu_nic_sys = shape.worst_gpu_nic >= PathClass::Node;
    c.pxn = pxn;
    c.spine_oversubscription = std::max(1.0, spine_oversubscription);
    c.concurrent_groups_per_node = std::max(1, shape.gpus_per_node / std::max(1, shape.max_per_node));
    return c;
}

// The hardware numbers the cost model needs, from the cluster's first node template (a mixed
// cluster runs at the pace of its slowest node: take the minimum over templates).
NodeHardware node_hardware(const Cluster& c) {
    NodeHardware hw;
    bool first = true;
    int numa = 0;  // the most spread template's GPU NUMA nodes
    for (const auto& f : c.facts) {
        numa = std::max(numa, f.gpu_numa_nodes);
        double nic = 0;
        for (double v : f.rail_gbit_s) {
            nic = nic == 0 ? v : std::min(nic, v);
        }
        const NodeHardware one{f.nvlink_gbyte_s > 0 ? f.nvlink_gbyte_s : hw.nvlink_gbyte_s,
                               f.pcie_gbyte_s > 0 ? f.pcie_gbyte_s : hw.pcie_gbyte_s,
                               f.nvlink_gbyte_s > 0,
                               nic > 0 ? nic : hw.nic_gbit_s,
                               static_cast<int>(f.rail_nics.size()),
                               f.tcp_gbit_s > 0 ? f.tcp_gbit_s : hw.tcp_gbit_s,
                               std::max(1, f.tcp_interfaces)};
        if (first) {
            hw = one;
            first = false;
            continue;
        }
        hw.nvlink_gbyte_s = std::min(hw.nvlink_gbyte_s, one.nvlink_gbyte_s);
        hw.pcie_gbyte_s = std::min(hw.pcie_gbyte_s, one.pcie_gbyte_s);
        hw.nvlink = hw.nvlink && one.nvlink;
        hw.nic_gbit_s = std::min(hw.nic_gbit_s, one.nic_gbit_s);
        hw.tcp_gbit_s = std::min(hw.tcp_gbit_s, one.tcp_gbit_s);
    }
    hw.gpu_numa_nodes = numa;
    return hw;
}

}  // namespace planlayout
