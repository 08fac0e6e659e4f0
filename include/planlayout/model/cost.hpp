// Cost: the time of one collective on one group's placement (docs/cost-model.md §2–§4).
#pragma once

#include <string>

#include "planlayout/model/collective_fit.hpp"
#include "planlayout/model/collective_op.hpp"
#include "planlayout/model/model_spec.hpp"
#include "planlayout/model/numbers/hardware.hpp"
#include "planlayout/model/numbers/network.hpp"
#include "planlayout/topology/path_class.hpp"

namespace planlayout {

/// Where a group lives and what its links can do, as the cost model reads it: one per group
/// kind (its worst group). placed_group_of() builds it from edge_class.hpp's GroupFootprint.
struct PlacedGroup {
    int n = 1;                    // ranks in the group
    int nodes = 1;                // k: nodes it spans
    int max_per_node = 1;         // g: most ranks on one node
    int rails_per_node = 1;       // r: distinct rail NICs its ranks on one node reach at PIX/PXB
                                  //    (min over nodes; r = g when GPU j pairs with NIC j)
    int concurrent_groups_per_node = 1;  // groups of the same kind that run at the same time with
                                         // ranks on one node: they share its TCP interface(s)
    PathClass worst_intra = PathClass::Nv;    // worst path class between two ranks on one node
    PathClass worst_cross = PathClass::Rail;  // worst class of a cross-node path it uses
    bool one_rank_per_node = false;
    bool gpu_nic_sys = false;     // some rank's nearest NIC is NODE/SYS away: no GPUDirect there
    bool pxn = true;              // NCCL_PXN_DISABLE=0 (NCCL's default)
    bool nvls = true;             // NCCL_NVLS_ENABLE (default 2: where the NVLink switches multicast): an
                                  // all-reduce inside one multi-node NVLink domain runs as NVLS (nvls_busbw_factor)
    double spine_oversubscription = 1.0;  // leaf down:up ratio: an XRAIL/XPOD group gets NIC / this
    // Hardware (line rates, one direction)
    double nvlink_gbyte_s = numbers::kNvlinkGbyteS;          // per GPU (H100/H200 NVLink4)
    double nvlink_efficiency = numbers::kNvlinkRingEfficiency;  // what ring collectives reach of it
    double pcie_gbyte_s = numbers::kPcieGen5X16GbyteS;        // gen5 x16
    double pcie_efficiency = numbers::kPcieRingEfficiency;
    double nic_gbit_s = numbers::kNicGbitS;                   // per rail NIC
    double tcp_gbit_s = numbers::kTcpInterfaceGbitS;          // the socket interface NCCL_SOCKET_IFNAME picks
    int tcp_interfaces_per_node = 1;
    double nvlink_alpha_us = numbers::kNvlinkAlphaUs;  // per step, NCCL tuner Simple-protocol priors
    double pcie_alpha_us = numbers::kPcieAlphaUs;
    double two_node_tree_gain = numbers::kTwoNodeTreeGain;  // k = 2 all-reduce: tree / NVLS-tree gain on the
                                                           // NIC term, bounded to [1, kTwoNodeTreeGainMax]
    int gpu_numa_nodes = 0;           // NUMA nodes a node's GPUs hang off (0 unknown): SHM's sockets
    // An all-to-all's cross-node bytes as a share of the remote copies (1: every copy over the
    // network; the flex dispatchers send a token once per remote node: net_dedup, score.cpp).
    double net_dedup = 1.0;
};

/// Hardware numbers for building shapes from (nodes, GPUs per node) — the `collective`
/// command's flags, and later a cluster file.
struct NodeHardware {
    double nvlink_gbyte_s = numbers::kNvlinkGbyteS;
    double pcie_gbyte_s = numbers::kPcieGen5X16GbyteS;
    bool nvlink = true;          // false: GPUs talk over PCIe inside a node
    double nic_gbit_s = numbers::kNicGbitS;
    int nics_per_node = 0;       // rail NICs; 0 = one per GPU
    double tcp_gbit_s = numbers::kTcpInterfaceGbitS;
    int tcp_interfaces_per_node = 1;
    // Intra-node efficiency and per-step latency (priors; an NV/PCIe calibration replaces them)
    double nvlink_efficiency = numbers::kNvlinkRingEfficiency;
    double nvlink_alpha_us = numbers::kNvlinkAlphaUs;
    double pcie_efficiency = numbers::kPcieRingEfficiency;
    double pcie_alpha_us = numbers::kPcieAlphaUs;
    int gpu_numa_nodes = 0;      // distinct NUMA nodes of a node's GPUs (0 unknown; the most over templates)
};

/// A group of every GPU on `nodes` nodes × `gpus_per_node` (nccl-tests' usual run): rail
/// aligned, GPU i ↔ NIC i at PIX, NVLink inside a node unless hw.nvlink is false.
[[nodiscard]] PlacedGroup make_placed_group(int nodes, int gpus_per_node, const NodeHardware& hw);

/// One transport, resolved at one end of its priors.
struct TransportModel {
    Transport kind = Transport::Gdrdma;
    int sockets = 1;                       // TCP: nsocks_perthread × nthreads per connection
    bool socket_inside_node = false;       // TCP with P2P and SHM off: ranks of one node use sockets too
    bool shm = false;                      // the shm arm: inside a node over NCCL's SHM transport (below)
    int sockets_per_node = 0;              // CPU sockets the node's GPUs are spread over (0: the
                                           // group's gpu_numa_nodes, else 2)
    double efficiency = numbers::kGdrdmaEfficiency;
    double alltoall_efficiency = numbers::kGdrdmaAlltoallEfficiency;
    double alpha_us = numbers::kRdmaAlphaUs;
    double host_staged_efficiency = numbers::kRdmaEfficiency;  // GDRDMA where the GPU↔NIC path is NODE/SYS
    double per_stream_gbit_s = 0;          // TCP: one stream's cap, 0 = none
    // Calibrated collectives (owned by the TransportSpec this model was built from; null: priors).
    // A fit for (transport, op, class) replaces the efficiency, alpha and floor of that op only;
    // ring_band / alltoall_band carry the prior band's end onto a fitted efficiency.
    const CollectiveFits* fits = nullptr;
    double ring_band = 1.0;
    double alltoall_band = 1.0;
    // Inside a node: P2P (NVLink/PCIe, the shape's own priors) or, in the shm arm, NCCL's SHM
    // transport, staged through host memory (docs/cost-model.md §4, "SHM").
    double shm_efficiency = numbers::kShmEfficiency;  // of shm_line_gbyte_s
    double shm_alltoall_efficiency = numbers::kShmEfficiency;
    double shm_alpha_us = numbers::kShmAlphaUs;                     // per intra-node step
    double host_memory_gbyte_s = numbers::kHostMemoryGbyteS;       // per CPU socket
    double inter_socket_gbyte_s = numbers::kInterSocketGbyteS;     // one direction of the CPU-CPU link
};

[[nodiscard]] TransportModel transport_model(const TransportSpec& spec, Transport t,
                                             PriorEnd end = PriorEnd::Point);

/// A predicted collective, in nccl-tests' vocabulary. GB/s are 10^9 bytes per second.
struct CollectiveCost {
    double time_s = 0;
    double algbw_gbyte_s = 0;  // size / time
    double busbw_gbyte_s = 0;  // algbw × bus_factor(op, n)
    double alpha_s = 0;        // latency part: alpha × steps
    double floor_s = 0;        // per-call floor of a calibrated fit (0 with the priors)
    double nic_s = 0;          // bandwidth time on the NIC / TCP interface
    double intra_s = 0;        // bandwidth time on NVLink / PCIe
    int steps = 0;             // latency steps in all ...
    int net_steps = 0;         // ... of which cross nodes (NCCL: 2(k−1) ring all-reduce, k−1 AG/RS)
    bool cross_node = false;
    std::string bottleneck;    // "NIC", "TCP interface", "NVLink", "PCIe", "latency", "none"
};

/// NVLS inside one multi-node NVLink domain (NCCL, src/graph/tuning.cc ncclTopoTuneModel and
/// src/transport/nvls.cc ncclNvlsTuning, commit 5067397c): the all-reduce bus bandwidth is
/// 2 x nvlsEfficiency x (nChannels-1)/nChannels of the NVLink bandwidth ("AllReduce pipelines two
/// operations"), with Blackwell's efficiency and NVLS channels on one NVLink "node" (a clique fused
/// by MNNVL: SM100 NVL), and one NVLS latency (hwLatencies NVLINK, NVLS, Simple): the registry's
/// network.nvls.* entries. MNNVL exists on GB200/GB300 (Blackwell), so its constants are the ones used.
[[nodiscard]] double nvls_busbw_factor();

/// True when an all-reduce on g runs as NCCL's NVLS: g.nvls, the group inside one NVLink island that
/// spans nodes (worst_intra MNNVL, one island), over P2P (not the shm arm).
[[nodiscard]] bool uses_nvls(const PlacedGroup& g, const TransportModel& x);

/// Effective per-rank cross-node bandwidth (GB/s): the rank's own rail NIC (RDMA), or its share
/// of the node's TCP interface(s); alltoall selects the all-to-all efficiency.
[[nodiscard]] double cross_rank_gbyte_s(const PlacedGroup& g, const TransportModel& x, bool alltoall);

/// Effective intra-node bandwidth (GB/s): NVLink, or PCIe when the worst intra path is PCIe.
[[nodiscard]] double intra_gbyte_s(const PlacedGroup& g);

/// The same for a transport: with x.shm, shm_line_gbyte_s × the SHM efficiency, else intra_gbyte_s(g).
[[nodiscard]] double intra_gbyte_s(const PlacedGroup& g, const TransportModel& x, bool alltoall);

/// SHM's bound per rank before efficiency (GB/s), the least of: its PCIe link (each direction
/// carries what the rank sends, resp. receives); the host memory of its CPU socket, shared by the
/// m ranks there that run the kind's collective at once (every group of the kind on the node,
/// spread evenly over x.sockets_per_node sockets), each received byte written and read once
/// (memory / 2m); and, when a group spans sockets (worst intra class SYS, or more ranks than a
/// socket holds), the inter-socket link, shared by the c groups of the node: a ring crosses it
/// once each way (link / c), an all-to-all sends h·(g−h)/g of every rank's data across, h = ⌈g/2⌉
/// (link·(g−1) / (h·(g−h)·c)).
[[nodiscard]] double shm_line_gbyte_s(const PlacedGroup& g, const TransportModel& x, bool alltoall);

// One function per collective. size_bytes is nccl-tests' "size" (docs/cost-model.md §1).
[[nodiscard]] CollectiveCost all_reduce(const PlacedGroup& g, double size_bytes, const TransportModel& x);
[[nodiscard]] CollectiveCost all_gather(const PlacedGroup& g, double size_bytes, const TransportModel& x);
[[nodiscard]] CollectiveCost reduce_scatter(const PlacedGroup& g, double size_bytes, const TransportModel& x);
[[nodiscard]] CollectiveCost all_to_all(const PlacedGroup& g, double size_bytes, const TransportModel& x);
[[nodiscard]] CollectiveCost broadcast(const PlacedGroup& g, double size_bytes, const TransportModel& x);
/// One point-to-point transfer between two ranks of the group (pp neighbours, CP ring).
[[nodiscard]] CollectiveCost sendrecv(const PlacedGroup& g, double size_bytes, const TransportModel& x);

/// The shape as NCCL sees it with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1: every rank is its own
/// socket endpoint (one rank per "node"), all ranks of a node still share its interface(s).
[[nodiscard]] PlacedGroup socket_endpoints(const PlacedGroup& g);

/// The fits collective_cost uses for op on shape under x (null where the priors hold).
struct FitsUsed {
    const CollectiveFit* network = nullptr;
    const CollectiveFit* intra = nullptr;
    const CollectiveFit* shm = nullptr;  // the shm arm's intra-node part
};
[[nodiscard]] FitsUsed fits_used(CollectiveOp op, const PlacedGroup& shape, const TransportModel& x);

/// Dispatches to the function above; a TCP model with socket_inside_node costs socket_endpoints(g).
/// With x.fits, the fits of this op (fits_used) replace the efficiencies and alphas at this size,
/// and the larger of their floors is added once per call.
[[nodiscard]] CollectiveCost collective_cost(CollectiveOp op, const PlacedGroup& shape, double size_bytes,
                                             const TransportModel& x);

}  // namespace planlayout
