// Tests: one collective on one placement, against hand-computed values (docs/cost-model.md §2–§4).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "planlayout/model/cost.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

// 2 nodes × 8 GPUs, NVLink 450 GB/s × 0.8 = 360 GB/s, rail NICs 400 Gbit/s = 50 GB/s.
PlacedGroup two_by_eight(double nic_gbit = 400) {
    NodeHardware hw;
    hw.nic_gbit_s = nic_gbit;
    return make_placed_group(2, 8, hw);
}

TransportModel gdr() { return transport_model(TransportSpec{}, Transport::Gdrdma); }  // 0.9 / 0.8 / 14 us
TransportModel tcp() { return transport_model(TransportSpec{}, Transport::Tcp); }     // 0.4 / 0.4 / 20 us

constexpr double kGB = 1e9;

}  // namespace

TEST_CASE("make_placed_group places every GPU of K nodes rail aligned") {
    const PlacedGroup g = two_by_eight();
    CHECK(g.n == 16);
    CHECK(g.max_per_node == 8);
    CHECK(g.rails_per_node == 8);
    CHECK(g.worst_intra == PathClass::Nv);
    CHECK(g.worst_cross == PathClass::Rail);
    CHECK_FALSE(g.one_rank_per_node);
    CHECK(make_placed_group(4, 1, {}).one_rank_per_node);
}

TEST_CASE("all_reduce inside one node: 2(n-1)/n S over NVLink, 2(n-1) NVLink steps") {
    const PlacedGroup g = make_placed_group(1, 8, {});
    const CollectiveCost c = all_reduce(g, kGB, gdr());
    CHECK(c.intra_s == doctest::Approx(1.75 / 360.0));
    CHECK(c.alpha_s == doctest::Approx(14 * 3.4e-6));
    CHECK(c.time_s == doctest::Approx(1.75 / 360.0 + 47.6e-6));
    CHECK(c.busbw_gbyte_s == doctest::Approx(c.algbw_gbyte_s * 1.75));
    CHECK(c.bottleneck == "NVLink");
    // The transport does not matter inside a node.
    CHECK(all_reduce(g, kGB, tcp()).time_s == doctest::Approx(c.time_s));
}

TEST_CASE("all_reduce over two nodes: the slowest of NVLink and the rail NICs (tree gain on k=2)") {
    const PlacedGroup g = two_by_eight();
    const CollectiveCost r = all_reduce(g, kGB, gdr());
    // NIC: 1.875 GB / (8 rails × 45 GB/s × 1.5) = 3.472 ms; NVLink: 1.875/360 = 5.208 ms → NVLink wins.
    CHECK(r.nic_s == doctest::Approx(1.875 / 540.0));
    CHECK(r.intra_s == doctest::Approx(1.875 / 360.0));
    CHECK(r.net_steps == 2);
    CHECK(r.alpha_s == doctest::Approx((28 * 3.4 + 2 * 14) * 1e-6));
    CHECK(r.time_s == doctest::Approx(1.875 / 360.0 + 123.2e-6));
    CHECK(r.bottleneck == "NVLink");
    // TCP: one 100 Gbit/s interface × 0.4 = 5 GB/s for the whole node, × 1.5 tree gain.
    const CollectiveCost t = all_reduce(g, kGB, tcp());
    CHECK(t.nic_s == doctest::Approx(1.875 / 7.5));
    CHECK(t.intra_s == doctest::Approx(r.intra_s));  // NVLink terms unchanged across transports
    CHECK(t.time_s == doctest::Approx(0.25 + (28 * 3.4 + 2 * 20) * 1e-6));
    CHECK(t.bottleneck == "TCP interface");
}

TEST_CASE("the two-node tree gain is bounded to [1, 2] and absent beyond two nodes") {
    PlacedGroup g = two_by_eight(100);  // 12.5 GB/s NICs: NIC bound
    g.two_node_tree_gain = 5.0;
    const double nic2 = all_reduce(g, kGB, gdr()).nic_s;
    CHECK(nic2 == doctest::Approx(1.875 / (8 * 11.25 * 2.0)));
    PlacedGroup g3 = make_placed_group(3, 8, NodeHardware{450, 64, true, 100, 0, 100, 1});
    g3.two_node_tree_gain = 5.0;
    const double v = 2.0 * 23.0 / 24.0;
    CHECK(all_reduce(g3, kGB, gdr()).nic_s == doctest::Approx(v / (8 * 11.25)));
}

TEST_CASE("all_gather and reduce_scatter: (n-1)/n S over min(NVLink, r x NIC)") {
    const PlacedGroup g = two_by_eight(200);  // 8 × 22.5 = 180 GB/s per node
    for (const auto& c : {all_gather(g, kGB, gdr()), reduce_scatter(g, kGB, gdr())}) {
        CHECK(c.nic_s == doctest::Approx(0.9375 / 180.0));
        CHECK(c.steps == 15);
        CHECK(c.net_steps == 1);
        CHECK(c.time_s == doctest::Approx(0.9375 / 180.0 + (14 * 3.4 + 14) * 1e-6));
        CHECK(c.busbw_gbyte_s == doctest::Approx(c.algbw_gbyte_s * 15.0 / 16.0));
    }
}

TEST_CASE("all_to_all leaves by each GPU's own rail NIC - busbw tends to B_nic (n-1)/(n-g)") {
    const PlacedGroup g = two_by_eight();
    const CollectiveCost c = all_to_all(g, kGB, gdr());
    CHECK(c.nic_s == doctest::Approx(0.5 / 40.0));           // half the buffer, 50 GB/s × 0.8
    CHECK(c.intra_s == doctest::Approx(7.0 / 16.0 / 360.0));
    // Every peer in flight at once (NCCL's grouped p2p, up to 32 channels x 8 peers per round):
    // one network α, not one per remote peer.
    CHECK(c.alpha_s == doctest::Approx(14 * 1e-6));
    TransportModel no_alpha = gdr();
    no_alpha.alpha_us = 0;
    PlacedGroup g0 = g;
    g0.nvlink_alpha_us = 0;
    CHECK(all_to_all(g0, kGB, no_alpha).busbw_gbyte_s == doctest::Approx(40.0 * 15.0 / 8.0));
    // TCP: 8 GPUs share one interface: 12.5 × 0.4 / 8 = 0.625 GB/s each.
    CHECK(all_to_all(g, kGB, tcp()).nic_s == doctest::Approx(0.5 / 0.625));
}

TEST_CASE("broadcast pipelines S through the ring") {
    const PlacedGroup g = two_by_eight(200);
    const CollectiveCost c = broadcast(g, kGB, gdr());
    CHECK(c.time_s == doctest::Approx(1.0 / 180.0 + 61.6e-6));
    CHECK(c.busbw_gbyte_s == doctest::Approx(c.algbw_gbyte_s));
}

TEST_CASE("sendrecv: NVLink inside a node, the rail NIC across, plus an NVLink hop with PXN") {
    const double s = 4194304;
    PlacedGroup pair = make_placed_group(2, 1, {});
    CHECK(sendrecv(pair, s, gdr()).time_s == doctest::Approx(s / 45e9 + 14e-6));
    pair.worst_cross = PathClass::Pxn;
    CHECK(sendrecv(pair, s, gdr()).time_s == doctest::Approx(s / 45e9 + s / 360e9 + 14e-6));
    PlacedGroup local = make_placed_group(1, 2, {});
    CHECK(sendrecv(local, s, tcp()).time_s == doctest::Approx(s / 360e9 + 3.4e-6));
    // Eight pp pairs at once share the node's TCP interface.
    PlacedGroup shared = make_placed_group(2, 1, {});
    shared.concurrent_groups_per_node = 8;
    CHECK(sendrecv(shared, s, tcp()).time_s == doctest::Approx(s / 0.625e9 + 20e-6));
}

TEST_CASE("the slowest path decides: one SYS-distance GPU-NIC pair makes the group host-staged") {
    PlacedGroup g = two_by_eight();
    g.gpu_nic_sys = true;
    // host-staged 0.45 × (0.8 / 0.9) for all-to-all = 0.4 of 50 GB/s.
    CHECK(all_to_all(g, kGB, gdr()).nic_s == doctest::Approx(0.5 / 20.0));
}

TEST_CASE("across leaves the NIC pays the spine oversubscription, with PXN on or off") {
    PlacedGroup g = two_by_eight();
    g.worst_cross = PathClass::Xrail;
    g.pxn = false;
    g.spine_oversubscription = 2.0;
    CHECK(all_to_all(g, kGB, gdr()).nic_s == doctest::Approx(0.5 / 20.0));
    // PXN relays a pair inside one leaf group (class PXN); an XRAIL pair with PXN on is between leaf
    // groups and still climbs the spine.
    g.pxn = true;
    CHECK(all_to_all(g, kGB, gdr()).nic_s == doctest::Approx(0.5 / 20.0));
    g.worst_cross = PathClass::Pxn;
    CHECK(all_to_all(g, kGB, gdr()).nic_s == doctest::Approx(0.5 / 40.0));
    g.worst_cross = PathClass::Xrail;
    g.spine_oversubscription = 1.0;  // non-blocking: the default
    CHECK(all_to_all(g, kGB, gdr()).nic_s == doctest::Approx(0.5 / 40.0));
}

TEST_CASE("the TCP per-stream cap limits each rank") {
    TransportSpec spec;
    spec.tcp.per_stream_gbit_s = 2.0;  // 2 Gbit/s × 0.4 efficiency = 0.1 GB/s per rank
    const PlacedGroup g = two_by_eight();
    CHECK(all_to_all(g, kGB, transport_model(spec, Transport::Tcp)).nic_s == doctest::Approx(0.5 / 0.1));
}

TEST_CASE("a singleton group costs nothing") {
    const PlacedGroup g = make_placed_group(1, 1, {});
    CHECK(all_reduce(g, kGB, gdr()).time_s == 0);
    CHECK(collective_cost(CollectiveOp::AllToAll, g, kGB, tcp()).time_s == 0);
}

TEST_CASE("collective names and bus factors follow nccl-tests") {
    CHECK(parse_collective_op("alltoall_perf") == CollectiveOp::AllToAll);
    CHECK(parse_collective_op("all_reduce") == CollectiveOp::AllReduce);
    CHECK_FALSE(parse_collective_op("gather").has_value());
    CHECK(bus_factor(CollectiveOp::AllReduce, 16) == doctest::Approx(1.875));
    CHECK(bus_factor(CollectiveOp::AllToAll, 16) == doctest::Approx(0.9375));
    CHECK(bus_factor(CollectiveOp::SendRecv, 2) == 1.0);
    CHECK(count_for_size(CollectiveOp::AllToAll, 268435456, 64, 4) == 1048576);
}

#include "planlayout/analysis/placed_group.hpp"

TEST_CASE("placed_group_of carries the classified shape over, with TCP sharing per node") {
    GroupFootprint e;
    e.n = 2;
    e.nodes = 2;
    e.max_per_node = 1;
    e.min_rails_per_node = 1;
    e.worst_intra = PathClass::Loc;
    e.worst_cross = PathClass::Rail;
    e.worst_gpu_nic = PathClass::Sys;
    e.gpus_per_node = 8;
    const PlacedGroup c = placed_group_of(e, {});
    CHECK(c.n == 2);
    CHECK(c.one_rank_per_node);
    CHECK(c.concurrent_groups_per_node == 8);
    CHECK(c.gpu_nic_sys);
    e.max_per_node = 2;  // two ranks of each group per node: 8 / 2 groups share the node
    CHECK(placed_group_of(e, {}).concurrent_groups_per_node == 4);
    CHECK(c.worst_cross == PathClass::Rail);
}

TEST_CASE("sockets inside the node (P2P and SHM off): every rank a socket endpoint sharing the interface") {
    const PlacedGroup g = make_placed_group(1, 2, {});
    const PlacedGroup s = socket_endpoints(g);
    CHECK(s.nodes == 2);
    CHECK(s.max_per_node == 1);
    CHECK(s.concurrent_groups_per_node == 2);  // both ranks share the node's interface
    CHECK(s.worst_cross == PathClass::Rail);
    CHECK(s.two_node_tree_gain == 1.0);
    TransportSpec spec;
    spec.tcp.inside_node = true;
    const TransportModel x = transport_model(spec, Transport::Tcp);
    CHECK(x.socket_inside_node);
    // all_to_all of 1 GB over 2 ranks: half leaves by the socket, 100 Gbit/s × 0.4 shared by 2.
    const CollectiveCost a = collective_cost(CollectiveOp::AllToAll, g, kGB, x);
    CHECK(a.cross_node);
    CHECK(a.nic_s == doctest::Approx(0.5 / 2.5));
    CHECK(a.alpha_s == doctest::Approx(20e-6));
    CHECK(a.bottleneck == "TCP interface");
    // all_reduce: ring of 2 endpoints, 2(n-1)/n S = 1 GB, no tree gain.
    CHECK(collective_cost(CollectiveOp::AllReduce, g, kGB, x).nic_s == doctest::Approx(1.0 / 2.5));
    // Without the flag, or for GPUDirect, the pair stays on NVLink.
    CHECK_FALSE(collective_cost(CollectiveOp::AllToAll, g, kGB, tcp()).cross_node);
    CHECK_FALSE(transport_model(spec, Transport::Gdrdma).socket_inside_node);
    // Across nodes, the ranks of a node become endpoints too: 2 × 4 → 8 endpoints, 4 per interface.
    const PlacedGroup w = socket_endpoints(make_placed_group(2, 4, {}));
    CHECK(w.nodes == 8);
    CHECK(w.concurrent_groups_per_node == 4);
    // One rank per node already: nothing to change.
    CHECK(socket_endpoints(make_placed_group(4, 1, {})).nodes == 4);
}

// ---------------------------------------------------------------------------- SHM (§4, "SHM")

namespace {

TransportModel arm(Transport t, const TransportSpec& spec = {}) { return transport_model(spec, t); }

}  // namespace

TEST_CASE("p2p and shm keep the network the spec names - only shm stages through host memory") {
    TransportSpec spec;
    spec.network = Transport::Tcp;
    const TransportModel p2p = arm(Transport::P2p, spec);
    const TransportModel shm = arm(Transport::Shm, spec);
    CHECK(p2p.kind == Transport::Tcp);
    CHECK(shm.kind == Transport::Tcp);
    CHECK_FALSE(p2p.shm);
    CHECK(shm.shm);
    CHECK(shm.shm_efficiency == doctest::Approx(0.42));
    CHECK(shm.shm_alpha_us == doctest::Approx(5.7));
    spec.tcp.inside_node = true;  // sockets inside the node belong to the tcp arm only
    CHECK_FALSE(arm(Transport::Shm, spec).socket_inside_node);
    // the p2p arm costs exactly what the network arm costs
    const PlacedGroup g = two_by_eight();
    CHECK(all_reduce(g, kGB, arm(Transport::P2p)).time_s == doctest::Approx(all_reduce(g, kGB, gdr()).time_s));
}

TEST_CASE("SHM bound: the PCIe link, the socket's host memory shared by its ranks, the inter-socket link") {
    TransportModel x = arm(Transport::Shm);
    // tp=4 on an 8-GPU, two-socket node: two groups at once, 4 ranks a socket, no group spans
    PlacedGroup tp4 = make_placed_group(1, 4, {});
    tp4.concurrent_groups_per_node = 2;
    CHECK(shm_line_gbyte_s(tp4, x, false) == doctest::Approx(307.2 / 8));  // memory: min(64, 307.2 / 2·4)
    // all 8 GPUs in one group: it spans the sockets, the link binds
    const PlacedGroup eight = make_placed_group(1, 8, {});
    CHECK(shm_line_gbyte_s(eight, x, false) == doctest::Approx(22.0));
    CHECK(shm_line_gbyte_s(eight, x, true) == doctest::Approx(22.0 * 7 / 16));
    PlacedGroup sys = make_placed_group(1, 4, {});
    sys.worst_intra = PathClass::Sys;  // a SYS pair spans sockets whatever the counts
    sys.concurrent_groups_per_node = 2;  // and the two groups share the link
    CHECK(shm_line_gbyte_s(sys, x, false) == doctest::Approx(11.0));
    // one socket: every rank of the node shares its memory
    x.sockets_per_node = 1;
    CHECK(shm_line_gbyte_s(eight, x, false) == doctest::Approx(307.2 / 16));
    // Not given: one socket per NUMA node the template's GPUs hang off. Two GPUs of a one-NUMA
    // host (the lent 2 x H200 VM: both on NUMA 0) share one socket's memory and never cross a
    // socket link, even at a SYS path; unknown NUMA keeps HGX's 2.
    x.sockets_per_node = 0;
    PlacedGroup pair = make_placed_group(1, 2, {});
    pair.worst_intra = PathClass::Sys;
    CHECK(shm_line_gbyte_s(pair, x, false) == doctest::Approx(22.0));
    pair.gpu_numa_nodes = 1;
    CHECK(shm_line_gbyte_s(pair, x, false) == doctest::Approx(std::min(64.0, 307.2 / 4)));
    x.sockets_per_node = 2;
    // Effective bandwidth never exceeds PCIe × the SHM efficiency
    for (int gpus : {2, 4, 8}) {
        const PlacedGroup g = make_placed_group(1, gpus, {});
        CHECK(intra_gbyte_s(g, x, false) <= 64.0 * x.shm_efficiency + 1e-12);
    }
}

TEST_CASE("SHM collectives: slower than NVLink P2P, monotone in size, busbw bounded by PCIe") {
    const PlacedGroup g = make_placed_group(1, 8, {});
    const TransportModel shm = arm(Transport::Shm);
    double last = 0;
    for (int e = 16; e <= 33; e += 2) {
        const double s = std::ldexp(1.0, e);
        for (CollectiveOp op : {CollectiveOp::AllReduce, CollectiveOp::AllGather, CollectiveOp::AllToAll, CollectiveOp::SendRecv}) {
            const CollectiveCost c = collective_cost(op, g, s, shm);
            CHECK(c.time_s > collective_cost(op, g, s, arm(Transport::P2p)).time_s);
            CHECK(c.busbw_gbyte_s <= 64.0);
        }
        const double t = all_reduce(g, s, shm).time_s;
        CHECK(t > last);
        last = t;
    }
    const CollectiveCost big = all_reduce(g, 8 * kGB, shm);
    CHECK(big.bottleneck == "SHM");
    CHECK(big.alpha_s == doctest::Approx(14 * 5.7e-6));
    CHECK(big.intra_s == doctest::Approx(1.75 * 8 / (22.0 * 0.42)));
    // Across nodes only the node-local part changes: the NIC term is the network's
    const PlacedGroup two = two_by_eight();
    CHECK(all_reduce(two, kGB, shm).nic_s == doctest::Approx(all_reduce(two, kGB, gdr()).nic_s));
    CHECK(all_reduce(two, kGB, shm).intra_s > all_reduce(two, kGB, gdr()).intra_s);
}

TEST_CASE("fewer rail NICs than ranks: the ranks of a node share its NICs, by hand") {
    // 2 nodes × 8 GPUs with 4 rail NICs of 400 Gbit/s: two ranks per NIC.
    NodeHardware hw;
    hw.nics_per_node = 4;
    const PlacedGroup g = make_placed_group(2, 8, hw);
    CHECK(g.rails_per_node == 4);
    // All-to-all: each rank sends the half of the buffer bound for the other node through half a
    // NIC: 50 GB/s × 0.8 / 2 = 20 GB/s.
    CHECK(all_to_all(g, kGB, gdr()).nic_s == doctest::Approx(0.5 / 20.0));
    // Ring all-gather: (n − 1)/n S over the node's 4 NICs × 45 GB/s.
    CHECK(all_gather(g, kGB, gdr()).nic_s == doctest::Approx(15.0 / 16.0 / (4 * 45.0)));
}

TEST_CASE("all_to_all latency as NCCL issues it: one round per 256 peers in flight, not one step per remote peer") {
    // 32 nodes x 8 GPUs: 248 remote peers fit in one round (32 p2p channels x 8 peers per batch):
    // one network alpha. 64 nodes: 504 remote peers, two rounds.
    NodeHardware hw;
    hw.nic_gbit_s = 400;
    PlacedGroup g = make_placed_group(32, 8, hw);
    CHECK(all_to_all(g, 32.0 * 1024 * 1024, gdr()).alpha_s == doctest::Approx(14e-6));
    g = make_placed_group(64, 8, hw);
    CHECK(all_to_all(g, 32.0 * 1024 * 1024, gdr()).alpha_s == doctest::Approx(2 * 14e-6));
}
