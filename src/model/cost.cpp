// Cost: collective time per group on its placement. Bandwidth-bound terms plus alpha per step;
// the slowest path decides (a max, never an average); only NIC terms change with the transport.
#include "planlayout/model/cost.hpp"

#include <algorithm>

#include "planlayout/model/units.hpp"

namespace planlayout {
namespace {

using units::kGiga;
using units::kMicro;

double tcp_rank_gbyte_s(const PlacedGroup& g, const TransportModel& x, bool alltoall);
double rail_nic_gbyte_s(const PlacedGroup& g, const TransportModel& x, bool alltoall);

bool spans_nodes(const PlacedGroup& g) { return g.nodes > 1 && g.n > 1; }

double alpha_intra_us(const PlacedGroup& g, const TransportModel& x) {
    if (x.shm) {
        return x.shm_alpha_us;
    }
    return over_nvlink(g.worst_intra) ? g.nvlink_alpha_us : g.pcie_alpha_us;
}

/// Cross-node bandwidth one ring sees per node: NCCL runs one ring per rail (RDMA), so the
/// group's rail NICs add up; over TCP the node's interface(s) are shared, whatever r is.
double ring_cross_gbyte_s(const PlacedGroup& g, const TransportModel& x) {
    if (x.kind == Transport::Tcp) {
        return std::max(1, g.max_per_node) * cross_rank_gbyte_s(g, x, false);
    }
    return std::max(1, std::min(g.rails_per_node, g.max_per_node)) * rail_nic_gbyte_s(g, x, false);
}

/// Finishes a cost: time from its parts; algbw/busbw in nccl-tests' conventions. Latency as in
/// NCCL's tuner: steps that cross nodes pay the transport's alpha, the others the intra-node one.
CollectiveCost finish(CollectiveOp op, const PlacedGroup& g, const TransportModel& x, double size_bytes,
                      CollectiveCost c, double net_alpha_us) {
    c.alpha_s = (alpha_intra_us(g, x) * (c.steps - c.net_steps) + net_alpha_us * c.net_steps) * kMicro;
    const double bw_s = std::max(c.nic_s, c.intra_s);
    c.time_s = c.alpha_s + bw_s;
    if (c.time_s <= 0) {
        c.bottleneck = "none";
        return c;
    }
    if (c.alpha_s > bw_s) {
        c.bottleneck = "latency";
    } else if (c.nic_s >= c.intra_s) {
        c.bottleneck = c.bottleneck == "tcp" ? "TCP interface" : "NIC";
    } else {
        c.bottleneck = x.shm ? "SHM" : over_nvlink(g.worst_intra) ? "NVLink" : "PCIe";
    }
    c.algbw_gbyte_s = size_bytes / c.time_s / kGiga;
    c.busbw_gbyte_s = c.algbw_gbyte_s * bus_factor(op, g.n);
    return c;
}

}  // namespace

PlacedGroup make_placed_group(int nodes, int gpus_per_node, const NodeHardware& hw) {
    PlacedGroup g;
    g.nodes = std::max(1, nodes);
    g.max_per_node = std::max(1, gpus_per_node);
    g.n = g.nodes * g.max_per_node;
    const int nics = hw.nics_per_node > 0 ? hw.nics_per_node : g.max_per_node;
    g.rails_per_node = std::min(nics, g.max_per_node);
    g.worst_intra = g.max_per_node == 1 ? PathClass::Loc : (hw.nvlink ? PathClass::Nv : PathClass::Sys);
    g.worst_cross = g.nodes > 1 ? PathClass::Rail : PathClass::Loc;
    g.one_rank_per_node = g.max_per_node == 1 && g.nodes > 1;
    g.nvlink_gbyte_s = hw.nvlink_gbyte_s;
    g.pcie_gbyte_s = hw.pcie_gbyte_s;
    g.nic_gbit_s = hw.nic_gbit_s;
    g.tcp_gbit_s = hw.tcp_gbit_s;
    g.tcp_interfaces_per_node = hw.tcp_interfaces_per_node;
    g.nvlink_efficiency = hw.nvlink_efficiency;
    g.nvlink_alpha_us = hw.nvlink_alpha_us;
    g.pcie_efficiency = hw.pcie_efficiency;
    g.pcie_alpha_us = hw.pcie_alpha_us;
    g.gpu_numa_nodes = hw.gpu_numa_nodes;
    return g;
}

TransportModel transport_model(const TransportSpec& spec, Transport t, PriorEnd end) {
    const TransportParams& p = spec.params(t);
    TransportModel x;
    x.kind = t;
    x.efficiency = pick(p.efficiency, end);
    x.alltoall_efficiency = pick(p.alltoall_efficiency, end);
    if (const double f = spec.anchor_factor(t); f != 1.0) {  // the anchoring's fit (carried onto calibrated fits by the bands)
        x.efficiency = std::min(1.0, x.efficiency * f);
        x.alltoall_efficiency = std::min(1.0, x.alltoall_efficiency * f);
    }
    x.alpha_us = p.alpha_us;
    x.host_staged_efficiency = pick(spec.rdma_params.efficiency, end);
    x.sockets = spec.tcp.sockets_per_thread * spec.tcp.socket_threads;
    x.per_stream_gbit_s = spec.tcp.per_stream_gbit_s;
    x.socket_inside_node = t == Transport::Tcp && spec.tcp.inside_node;
    x.fits = spec.fits.get();
    x.ring_band = p.efficiency.value > 0 ? x.efficiency / p.efficiency.value : 1.0;
    x.alltoall_band = p.alltoall_efficiency.value > 0 ? x.alltoall_efficiency / p.alltoall_efficiency.value : 1.0;
    x.shm_efficiency = pick(spec.shm_params.efficiency, end);
    x.shm_alltoall_efficiency = pick(spec.shm_params.alltoall_efficiency, end);
    x.shm_alpha_us = spec.shm_params.alpha_us;
    x.host_memory_gbyte_s = spec.shm.host_memory_gbyte_s;
    x.inter_socket_gbyte_s = spec.shm.inter_socket_gbyte_s;
    x.sockets_per_node = spec.shm.sockets_per_node;
    if (is_intra_arm(t)) {
        // p2p and shm keep the network the hardware allows (spec.network); only the path inside a
        // node differs. Sockets inside the node (tcp.inside_node) belong to the tcp arm alone.
        TransportModel net = transport_model(spec, is_intra_arm(spec.network) ? Transport::Gdrdma : spec.network, end);
        net.socket_inside_node = false;
        net.shm = t == Transport::Shm;
        return net;
    }
    return x;
}

double intra_gbyte_s(const PlacedGroup& g) {
    return over_nvlink(g.worst_intra) ? g.nvlink_gbyte_s * g.nvlink_efficiency
                                          : g.pcie_gbyte_s * g.pcie_efficiency;
}

double shm_line_gbyte_s(const PlacedGroup& g, const TransportModel& x, bool alltoall) {
    const int per_node = std::max(1, g.max_per_node);
    const int groups = std::max(1, g.concurrent_groups_per_node);
    // The sockets: as given, else one per NUMA node the node's GPUs hang off (a one-NUMA host has
    // no inter-socket hop), else hardware.host.cpu_sockets (HGX/DGX: 2).
    const int sockets = x.sockets_per_node > 0 ? x.sockets_per_node : g.gpu_numa_nodes > 0 ? g.gpu_numa_nodes
                                                                                  : numbers::kCpuSocketsPerNode.count();
    const int per_socket = (per_node * groups + sockets - 1) / sockets;  // m: ranks sharing a socket's memory
    const bool spans = sockets > 1 && per_node > 1 && (g.worst_intra >= PathClass::Sys || per_node > per_socket);
    double bw = std::min(g.pcie_gbyte_s, x.host_memory_gbyte_s / (numbers::kShmHostMemoryPasses * per_socket));
    if (spans) {
        const double link = x.inter_socket_gbyte_s / groups;
        const int h = (per_node + 1) / numbers::kShmSocketSplit.count();
        bw = std::min(bw, alltoall ? link * (per_node - 1.0) / (static_cast<double>(h) * (per_node - h)) : link);
    }
    return bw;
}

double intra_gbyte_s(const PlacedGroup& g, const TransportModel& x, bool alltoall) {
    if (!x.shm) {
        return intra_gbyte_s(g);
    }
    return shm_line_gbyte_s(g, x, alltoall) * (alltoall ? x.shm_alltoall_efficiency : x.shm_efficiency);
}

namespace {

/// A rank's share of the node's TCP interface(s), capped by its sockets.
double tcp_rank_gbyte_s(const PlacedGroup& g, const TransportModel& x, bool alltoall) {
    const double eff = alltoall ? x.alltoall_efficiency : x.efficiency;
    // Every rank of the node that sends at the same time shares the interface(s).
    const double node = g.tcp_interfaces_per_node * g.tcp_gbit_s / units::kBitsPerByte * eff;
    const int sharers = std::max(1, g.max_per_node) * std::max(1, g.concurrent_groups_per_node);
    double per_rank = node / sharers;
    if (x.per_stream_gbit_s > 0) {
        per_rank = std::min(per_rank, x.sockets * x.per_stream_gbit_s / units::kBitsPerByte * eff);
    }
    return per_rank;
}

/// One rail NIC's effective bandwidth for this transport (slowest rank decides).
double rail_nic_gbyte_s(const PlacedGroup& g, const TransportModel& x, bool alltoall) {
    const double eff = alltoall ? x.alltoall_efficiency : x.efficiency;
    double e = eff;
    if (x.kind == Transport::Gdrdma && g.gpu_nic_sys) {
        // NCCL disables GPUDirect over SYS: that rank is host-staged, and the slowest rank decides.
        e = std::min(e, x.host_staged_efficiency * (alltoall ? x.alltoall_efficiency / x.efficiency : 1.0));
    }
    double per_nic = g.nic_gbit_s / units::kBitsPerByte * e;
    // XRAIL and XPOD cross the spine: with PXN on, a pair that PXN can relay is classed PXN (one
    // leaf), so what is left of XRAIL/XPOD climbs the leaf uplinks whether PXN is on or not, and
    // shares them at the oversubscription (every node of the leaf sending up at once: a bound).
    if (g.worst_cross >= PathClass::Xrail) {
        per_nic /= std::max(1.0, g.spine_oversubscription);
    }
    return per_nic;
}

}  // namespace

double cross_rank_gbyte_s(const PlacedGroup& g, const TransportModel& x, bool alltoall) {
    if (x.kind == Transport::Tcp) {
        return tcp_rank_gbyte_s(g, x, alltoall);
    }
    // Fewer rail NICs than ranks on a node: the ranks share them.
    const double share = std::min(1.0, static_cast<double>(std::max(1, g.rails_per_node)) / std::max(1, g.max_per_node));
    return rail_nic_gbyte_s(g, x, alltoall) * share;
}

double nvls_busbw_factor() {
    return numbers::kNvlsAllReducePipelining * numbers::kNvlsEfficiencyBlackwell * (numbers::kNvlsChannelsBlackwellNvl - 1.0) /
           numbers::kNvlsChannelsBlackwellNvl;
}

bool uses_nvls(const PlacedGroup& g, const TransportModel& x) {
    return g.nvls && !x.shm && !spans_nodes(g) && g.worst_intra == PathClass::Mnnvl && g.n > 1;
}

CollectiveCost all_reduce(const PlacedGroup& g, double size_bytes, const TransportModel& x) {
    CollectiveCost c;
    if (g.n <= 1) {
        return finish(CollectiveOp::AllReduce, g, x, size_bytes, c, 0);
    }
    const double n = g.n;
    const double volume = numbers::kRingAllReducePasses * (n - 1.0) / n * size_bytes;
    c.steps = numbers::kRingAllReducePasses.count() * (g.n - 1);
    if (!spans_nodes(g)) {
        c.intra_s = volume / (intra_gbyte_s(g, x, false) * kGiga);
        CollectiveCost ring = finish(CollectiveOp::AllReduce, g, x, size_bytes, c, 0);
        if (!uses_nvls(g, x)) {
            return ring;
        }
        // NVLS: the same bus volume at nvls_busbw_factor (2 x 0.74 x 23/24) of NVLink, one multicast latency. NCCL's
        // tuner takes the faster of the two (for a small group and a small message, the ring).
        CollectiveCost v;
        v.steps = 1;
        v.intra_s = volume / (nvls_busbw_factor() * g.nvlink_gbyte_s * kGiga);
        v = finish(CollectiveOp::AllReduce, g, x, size_bytes, v, 0);
        v.time_s += numbers::kNvlsAlphaUs * kMicro - v.alpha_s;
        v.alpha_s = numbers::kNvlsAlphaUs * kMicro;
        v.bottleneck = v.alpha_s > v.intra_s ? "latency" : "NVLS";
        v.algbw_gbyte_s = size_bytes / v.time_s / kGiga;
        v.busbw_gbyte_s = v.algbw_gbyte_s * bus_factor(CollectiveOp::AllReduce, g.n);
        return v.time_s < ring.time_s ? v : ring;
    }
    c.cross_node = true;
    c.net_steps = numbers::kRingAllReducePasses.count() * (g.nodes - 1);
    // k = 2: NCCL's tree / NVLS-tree beats the ring on the NIC term by a bounded factor.
    const double gain = g.nodes == numbers::kTreeGainNodes.count()
                             ? std::clamp(g.two_node_tree_gain, 1.0, static_cast<double>(numbers::kTwoNodeTreeGainMax))
                             : 1.0;
    c.nic_s = volume / (ring_cross_gbyte_s(g, x) * gain * kGiga);
    if (g.max_per_node > 1) {
        c.intra_s = volume / (intra_gbyte_s(g, x, false) * kGiga);
    }
    c.bottleneck = std::string(to_string(x.kind));
    return finish(CollectiveOp::AllReduce, g, x, size_bytes, c, x.alpha_us);
}

namespace {

CollectiveCost ring_gather_like(CollectiveOp op, const PlacedGroup& g, double size_bytes,
                                const TransportModel& x) {
    CollectiveCost c;
    if (g.n <= 1) {
        return finish(op, g, x, size_bytes, c, 0);
    }
    const double n = g.n;
    const double volume = (n - 1.0) / n * size_bytes;
    c.steps = g.n - 1;
    if (!spans_nodes(g)) {
        c.intra_s = volume / (intra_gbyte_s(g, x, false) * kGiga);
        return finish(op, g, x, size_bytes, c, 0);
    }
    c.cross_node = true;
    c.net_steps = g.nodes - 1;
    c.nic_s = volume / (ring_cross_gbyte_s(g, x) * kGiga);
    if (g.max_per_node > 1) {
        c.intra_s = volume / (intra_gbyte_s(g, x, false) * kGiga);
    }
    c.bottleneck = std::string(to_string(x.kind));
    return finish(op, g, x, size_bytes, c, x.alpha_us);
}

}  // namespace

CollectiveCost all_gather(const PlacedGroup& g, double size_bytes, const TransportModel& x) {
    return ring_gather_like(CollectiveOp::AllGather, g, size_bytes, x);
}

CollectiveCost reduce_scatter(const PlacedGroup& g, double size_bytes, const TransportModel& x) {
    return ring_gather_like(CollectiveOp::ReduceScatter, g, size_bytes, x);
}

// NCCL issues an all-to-all as grouped send/recv to every peer at once: each of its p2p channels
// carries up to NCCL_MAX_DEV_WORK_P2P_PER_BATCH (8, src/include/device.h) peers in one batch, and
// ncclTopoComputeP2pChannels (src/graph/connect.cc) sizes the channels per peer so that every peer
// fits in one round. network.p2p.channels (32): NCCL's MAXCHANNELS through 2.18 and an 8-NIC H100 node's
// multi-node figure (our 2 x H200 log, one node, NCCL 2.28.9: 64). Latency: one α per round.
constexpr int kP2pPeersInFlight = numbers::kP2pChannels.count() * numbers::kP2pPeersPerBatch.count();

int p2p_rounds(int peers) { return (peers + kP2pPeersInFlight - 1) / kP2pPeersInFlight; }

CollectiveCost all_to_all(const PlacedGroup& g, double size_bytes, const TransportModel& x) {
    CollectiveCost c;
    if (g.n <= 1) {
        return finish(CollectiveOp::AllToAll, g, x, size_bytes, c, 0);
    }
    const double n = g.n;
    c.steps = p2p_rounds(g.n - 1);
    if (!spans_nodes(g)) {
        c.intra_s = (n - 1.0) / n * size_bytes / (intra_gbyte_s(g, x, true) * kGiga);
        return finish(CollectiveOp::AllToAll, g, x, size_bytes, c, 0);
    }
    c.cross_node = true;
    // Node-local and remote peers are in flight together: the rounds over the network set the latency.
    c.net_steps = p2p_rounds(g.n - g.max_per_node);
    c.steps = c.net_steps;
    // One rank cannot spread its all-to-all over several NICs: it leaves by its own rail NIC
    // (or its share of the TCP interface), while the node-local part rides NVLink at once.
    const double g_local = g.max_per_node;
    c.nic_s = g.net_dedup * size_bytes * (n - g_local) / n / (cross_rank_gbyte_s(g, x, true) * kGiga);
    c.intra_s = size_bytes * (g_local - 1.0) / n / (intra_gbyte_s(g, x, true) * kGiga);
    c.bottleneck = std::string(to_string(x.kind));
    return finish(CollectiveOp::AllToAll, g, x, size_bytes, c, x.alpha_us);
}

CollectiveCost broadcast(const PlacedGroup& g, double size_bytes, const TransportModel& x) {
    CollectiveCost c;
    if (g.n <= 1) {
        return finish(CollectiveOp::Broadcast, g, x, size_bytes, c, 0);
    }
    c.steps = g.n - 1;  // pipelined ring: the last chunk reaches the last rank after n−1 hops
    if (!spans_nodes(g)) {
        c.intra_s = size_bytes / (intra_gbyte_s(g, x, false) * kGiga);
        return finish(CollectiveOp::Broadcast, g, x, size_bytes, c, 0);
    }
    c.cross_node = true;
    c.net_steps = g.nodes - 1;
    c.nic_s = size_bytes / (ring_cross_gbyte_s(g, x) * kGiga);
    if (g.max_per_node > 1) {
        c.intra_s = size_bytes / (intra_gbyte_s(g, x, false) * kGiga);
    }
    c.bottleneck = std::string(to_string(x.kind));
    return finish(CollectiveOp::Broadcast, g, x, size_bytes, c, x.alpha_us);
}

CollectiveCost sendrecv(const PlacedGroup& g, double size_bytes, const TransportModel& x) {
    CollectiveCost c;
    c.steps = 1;
    if (!spans_nodes(g)) {
        c.intra_s = size_bytes / (intra_gbyte_s(g, x, false) * kGiga);
        return finish(CollectiveOp::SendRecv, g, x, size_bytes, c, 0);
    }
    c.cross_node = true;
    c.net_steps = 1;
    c.nic_s = size_bytes / (cross_rank_gbyte_s(g, x, false) * kGiga);
    if (g.worst_cross == PathClass::Pxn && g.pxn) {
        // Cross rail with PXN: an NVLink hop to the GPU on the peer's rail, then its NIC.
        c.nic_s += size_bytes / (intra_gbyte_s(g, x, false) * kGiga);
    }
    c.bottleneck = std::string(to_string(x.kind));
    return finish(CollectiveOp::SendRecv, g, x, size_bytes, c, x.alpha_us);
}

PlacedGroup socket_endpoints(const PlacedGroup& g) {
    PlacedGroup s = g;
    if (g.n <= 1 || g.max_per_node <= 1) {
        return s;  // no two ranks share a node: nothing changes
    }
    s.concurrent_groups_per_node = g.max_per_node * std::max(1, g.concurrent_groups_per_node);
    s.nodes = g.n;
    s.max_per_node = 1;
    s.rails_per_node = 1;
    s.one_rank_per_node = true;
    s.worst_cross = g.nodes > 1 ? g.worst_cross : PathClass::Rail;
    s.two_node_tree_gain = 1.0;  // the tree gain comes from several GPUs per node
    return s;
}

namespace {

CollectiveCost dispatch(CollectiveOp op, const PlacedGroup& g, double size_bytes, const TransportModel& x) {
    switch (op) {
        case CollectiveOp::AllReduce:
            return all_reduce(g, size_bytes, x);
        case CollectiveOp::AllGather:
            return all_gather(g, size_bytes, x);
        case CollectiveOp::ReduceScatter:
            return reduce_scatter(g, size_bytes, x);
        case CollectiveOp::AllToAll:
            return all_to_all(g, size_bytes, x);
        case CollectiveOp::Broadcast:
            return broadcast(g, size_bytes, x);
        case CollectiveOp::SendRecv:
            break;
    }
    return sendrecv(g, size_bytes, x);
}

PlacedGroup cost_shape(const PlacedGroup& shape, const TransportModel& x) {
    return x.kind == Transport::Tcp && x.socket_inside_node ? socket_endpoints(shape) : shape;
}

FitsUsed fits_on(CollectiveOp op, const PlacedGroup& g, const TransportModel& x) {
    FitsUsed f;
    if (x.fits == nullptr || g.n <= 1) {
        return f;
    }
    if (spans_nodes(g)) {
        f.network = x.fits->network(x.kind, op, g.worst_cross);
    }
    if (g.max_per_node > 1 && !x.shm) {  // an NVLink/PCIe fit is P2P's, not SHM's
        f.intra = x.fits->intra(op, g.worst_intra);
    }
    if (g.max_per_node > 1 && x.shm) {
        f.shm = x.fits->shm(op);
    }
    return f;
}

}  // namespace

FitsUsed fits_used(CollectiveOp op, const PlacedGroup& shape, const TransportModel& x) {
    return fits_on(op, cost_shape(shape, x), x);
}

CollectiveCost collective_cost(CollectiveOp op, const PlacedGroup& shape, double size_bytes,
                               const TransportModel& x) {
    const PlacedGroup g = cost_shape(shape, x);
    const FitsUsed f = fits_on(op, g, x);
    if (f.network == nullptr && f.intra == nullptr && f.shm == nullptr) {
        return dispatch(op, g, size_bytes, x);
    }
    // The fitted efficiency at this size, alpha per step and floor, for this op only.
    TransportModel fx = x;
    PlacedGroup fg = g;
    double floor_us = 0;
    if (f.network != nullptr) {
        const double e = f.network->efficiency_at(size_bytes);
        if (op == CollectiveOp::AllToAll) {
            fx.alltoall_efficiency = e * x.alltoall_band;
        } else {
            fx.efficiency = e * x.ring_band;
        }
        fx.alpha_us = f.network->alpha_us;
        floor_us = std::max(floor_us, f.network->floor_us);
    }
    if (f.intra != nullptr) {
        fg.nvls = false;  // the fit measured whatever NCCL ran there (NVLS included)
        const double e = f.intra->efficiency_at(size_bytes);
        if (over_nvlink(fg.worst_intra)) {
            fg.nvlink_efficiency = e;
            fg.nvlink_alpha_us = f.intra->alpha_us;
        } else {
            fg.pcie_efficiency = e;
            fg.pcie_alpha_us = f.intra->alpha_us;
        }
        floor_us = std::max(floor_us, f.intra->floor_us);
    }
    if (f.shm != nullptr) {  // the SHM calibration's curve at this size, its alpha and floor
        const double e = f.shm->efficiency_at(size_bytes);
        (op == CollectiveOp::AllToAll ? fx.shm_alltoall_efficiency : fx.shm_efficiency) = e;
        fx.shm_alpha_us = f.shm->alpha_us;
        floor_us = std::max(floor_us, f.shm->floor_us);
    }
    CollectiveCost c = dispatch(op, fg, size_bytes, fx);
    if (floor_us > 0 && c.time_s > 0) {
        // One floor per call (launch and synchronisation), not per path: the larger one.
        c.floor_s = floor_us * kMicro;
        c.time_s += c.floor_s;
        if (c.alpha_s + c.floor_s > std::max(c.nic_s, c.intra_s)) {
            c.bottleneck = "latency";
        }
        c.algbw_gbyte_s = size_bytes / c.time_s / kGiga;
        c.busbw_gbyte_s = c.algbw_gbyte_s * bus_factor(op, fg.n);
    }
    return c;
}

}  // namespace planlayout
