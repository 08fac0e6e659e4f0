// Tests: used pairs per pattern and their classes on synthetic clusters.
#include <doctest/doctest.h>

#include <array>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/topology/path_class.hpp"
#include "planlayout/topology/topology.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
using nlohmann::json;

namespace {

struct Setup {
    Cluster cluster;
    Placement placement;
    Groups groups;
};

Setup setup(const std::string& cluster_text, std::int64_t tp, std::int64_t pp, std::int64_t ep) {
    Setup s;
    s.cluster = cluster_from_json(json::parse(cluster_text), "c.json", "/cluster", ".");
    ParallelSpec spec;
    spec.world = s.cluster.total_gpus();
    spec.tp = tp;
    spec.pp = pp;
    spec.ep = ep;
    s.groups = build_groups(resolve_spec(spec));
    s.placement = node_major_placement(s.cluster, spec.world);
    return s;
}

const KindEdges& kind(const std::vector<KindEdges>& v, const std::string& name) {
    for (const auto& k : v) {
        if (k.kind == name) {
            return k;
        }
    }
    FAIL("no kind " << name);
    return v.front();
}

std::int64_t count(const KindEdges& k, PathClass c) { return k.pairs[static_cast<std::size_t>(c)]; }

const char* kTwoH100 = R"({"nodes": 2, "node": "h100-hgx-8gpu-8nic"})";

}  // namespace

TEST_CASE("seed layout A: ep all-to-all crosses nodes (RAIL for the same rail, PXN otherwise)") {
    const Setup s = setup(kTwoH100, 1, 1, 16);
    const auto kinds = classify_groups(s.groups, s.cluster, s.placement, {});
    const KindEdges& ep = kind(kinds, "ep");
    CHECK(ep.total_pairs() == 120);
    CHECK(count(ep, PathClass::Nv) == 56);
    CHECK(count(ep, PathClass::Rail) == 8);
    CHECK(count(ep, PathClass::Pxn) == 56);
    CHECK(ep.max_nodes == 2);
    CHECK(ep.worst == PathClass::Pxn);
    // dp ring: 7 NVLink hops per node, one crossing per rail.
    const KindEdges& dp = kind(kinds, "dp");
    CHECK(count(dp, PathClass::Nv) == 14);
    CHECK(count(dp, PathClass::Rail) == 8);
    REQUIRE(dp.footprints.size() == 1);
    CHECK(dp.footprints[0].max_per_node == 8);
    CHECK(dp.footprints[0].min_rails_per_node == 8);
    CHECK(dp.footprints[0].bottleneck_gbyte_s == doctest::Approx(50));
    // Invariant: per-kind pair counts add up over shapes.
    for (const auto& k : kinds) {
        ClassCounts sum{};
        std::int64_t groups = 0;
        for (const auto& sh : k.footprints) {
            groups += sh.groups;
            for (std::size_t c = 0; c < sum.size(); ++c) {
                sum[c] += sh.pairs[c] * sh.groups;
            }
        }
        CHECK(sum == k.pairs);
        CHECK(groups == k.groups);
    }
}

TEST_CASE("seed layout B: ep and dp stay on NVLink, pp crosses on RAIL") {
    const Setup s = setup(kTwoH100, 1, 2, 8);
    const auto kinds = classify_groups(s.groups, s.cluster, s.placement, {});
    for (const char* k : {"ep", "dp", "dp_cp", "tp_ep"}) {
        CAPTURE(k);
        CHECK(kind(kinds, k).cross_pairs() == 0);
        CHECK(kind(kinds, k).worst == PathClass::Nv);
    }
    const KindEdges& pp = kind(kinds, "pp");
    CHECK(pp.groups == 8);
    CHECK(count(pp, PathClass::Rail) == 8);
    CHECK(pp.total_pairs() == 8);
}

TEST_CASE("non-aligned wiring turns RAIL pairs into XRAIL (PXN off) or PXN (PXN on)") {
    const std::string wiring = R"("wiring": {"node0": ["l0","l1","l2","l3","l4","l5","l6","l7"],
                                             "node1": ["l7","l6","l5","l4","l3","l2","l1","l0"]})";
    const Setup off = setup(R"({"nodes": 2, "node": "h100-hgx-8gpu-8nic", "fabric": {"rails": "explicit", "pxn": false, )" + wiring + "}}",
                            1, 2, 8);
    const auto k_off = classify_groups(off.groups, off.cluster, off.placement, {"pp"});
    CHECK(count(k_off.front(), PathClass::Xrail) == 8);
    CHECK(count(k_off.front(), PathClass::Rail) == 0);
    const Setup on = setup(R"({"nodes": 2, "node": "h100-hgx-8gpu-8nic", "fabric": {"rails": "explicit", "pxn": true, )" + wiring + "}}",
                           1, 2, 8);
    const auto k_on = classify_groups(on.groups, on.cluster, on.placement, {"pp"});
    CHECK(count(k_on.front(), PathClass::Pxn) == 8);
}

TEST_CASE("scalable units and pods: same rail in another SU crosses the spine, another pod is XPOD") {
    const Setup s = setup(R"({"nodes": 4, "node": "h100-hgx-8gpu-8nic",
                              "fabric": {"nodes_per_su": 1, "sus_per_pod": 2}})", 8, 4, 1);
    const PairClassifier c(s.cluster, s.placement);
    CHECK(c.classify(0, 8) == PathClass::Xrail);   // node0 gpu0 → node1 gpu0: SU 0 → SU 1, one pod
    CHECK(c.classify(0, 16) == PathClass::Xpod);   // node0 → node2: pod 0 → pod 1
    CHECK(c.classify(0, 3) == PathClass::Nv);
    const auto pp = classify_groups(s.groups, s.cluster, s.placement, {"pp"});
    CHECK(pp.front().worst == PathClass::Xpod);
}

TEST_CASE("a ring with one rank per node crosses once per node boundary") {
    const Setup s = setup(R"({"nodes": 4, "node": "h100-hgx-8gpu-8nic"})", 8, 1, 1);
    const auto kinds = classify_groups(s.groups, s.cluster, s.placement, {"dp", "tp"});
    const KindEdges& dp = kinds[0].kind == "dp" ? kinds[0] : kinds[1];
    CHECK(dp.groups == 8);
    CHECK(count(dp, PathClass::Rail) == 32);  // 8 rings × 4 boundaries
    CHECK(dp.footprints.front().max_per_node == 1);
    const KindEdges& tp = kinds[0].kind == "tp" ? kinds[0] : kinds[1];
    CHECK(count(tp, PathClass::Nv) == 32);  // 4 rings of 8 on NVSwitch
}

TEST_CASE("the device graph gives widest paths: NVLink inside, the NIC across") {
    const Cluster c = cluster_from_json(json::parse(kTwoH100), "c.json", "/cluster", ".");
    const Topology node = build_node_topology(c.templates.front(), "node0");
    CHECK(node.contains("node0/gpu3"));
    CHECK(node.contains("node0/mlx5_3"));
    CHECK(node.contains("node0/nvswitch"));
    CHECK(*widest_path_gbyte_s(node, "node0/gpu0", "node0/gpu5", LinkKind::NvLink) == doctest::Approx(450));
    CHECK(*widest_path_gbyte_s(node, "node0/gpu0", "node0/mlx5_0") == doctest::Approx(63.008));
    CHECK(!widest_path_gbyte_s(node, "node0/gpu0", "node0/mlx5_0", LinkKind::NvLink).has_value());
    const Topology all = build_cluster_topology(c);
    CHECK(all.contains("leaf7"));
    CHECK(all.contains("spine0"));
    CHECK(*widest_path_gbyte_s(all, "node0/gpu2", "node1/gpu2") == doctest::Approx(50));
    CHECK_THROWS_AS((void)all.at("node9/gpu0"), Error);
}

namespace {

// Two nodes of different templates: node0 an H100 HGX (NVSwitch, GPU g on rail g), node1 eight
// PCIe GPUs without NVLink, one NIC per GPU pair (GPU h on rail h/2). Ranks 0-7 on node0, 8-15 on
// node1. Every fixture above uses uniform NVSwitch nodes, where both ends of a pair can always
// relay; here only node0's end can (issue 32, item 4).
Setup mixed(const std::string& fabric) {
    return setup(R"({"nodes": [{"host": "node0", "node": "h100-hgx-8gpu-8nic"}, {"host": "node1", "node": "pcie-8gpu-4nic"}],
                     "fabric": )" + fabric + "}",
                 1, 1, 1);
}

// The class of a pair across the two nodes, by hand: the same leaf is RAIL; otherwise node0's
// GPU g can relay over NVLink to its GPU on the peer's leaf (PXN) when PXN is on, and node1
// cannot relay at all (no NVLink); without PXN it is XRAIL.
PathClass hand_class(int leaf0, int leaf1, bool pxn) {
    if (leaf0 == leaf1) {
        return PathClass::Rail;
    }
    return pxn ? PathClass::Pxn : PathClass::Xrail;
}

}  // namespace

TEST_CASE("PXN rail-aligned: a pair is PXN when either end can relay over NVLink, in both orders") {
    const Setup s = mixed(R"({"rails": "aligned", "pxn": true})");
    // The premises of the hand table: node1 has no NVLink and puts GPU pairs on one rail.
    const TemplateFacts& f1 = s.cluster.facts_of(1);
    CHECK(f1.gpu_rail == std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3});
    CHECK(f1.gpu_gpu[0 * 8 + 2] != PathClass::Nv);
    CHECK(s.cluster.facts_of(0).gpu_rail == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
    const PairClassifier c(s.cluster, s.placement);
    int pxn = 0;
    for (int g = 0; g < 8; ++g) {
        for (int h = 0; h < 8; ++h) {
            CAPTURE(g);
            CAPTURE(h);
            const PathClass want = hand_class(g, h / 2, true);
            CHECK(c.classify(g, 8 + h) == want);  // node0's end first
            CHECK(c.classify(8 + h, g) == want);  // node1's end first: the relay is still node0's
            pxn += want == PathClass::Pxn ? 1 : 0;
        }
    }
    CHECK(pxn == 56);  // 64 pairs, 8 of them on a shared leaf
    CHECK(c.classify(0, 8) == PathClass::Rail);
    CHECK(c.classify(0, 10) == PathClass::Pxn);   // GPU0 relays to GPU1 (rail 1), node1's GPU2 is on rail 1
    CHECK(c.classify(10, 0) == PathClass::Pxn);
    CHECK(c.classify(7, 14) == PathClass::Pxn);   // leaf 7 against leaf 3: node1 has no rail 7 to relay to
    CHECK(c.classify(9, 8) == PathClass::Pix);    // inside node1: both GPUs under PLX0
    // A pair runs at its slower NIC: node0's 400 Gbit/s against node1's 200 Gbit/s = 25 GB/s.
    CHECK(c.bandwidth_gbyte_s(0, 8, PathClass::Rail) == doctest::Approx(200.0 / 8));
    CHECK(c.bandwidth_gbyte_s(8, 0, PathClass::Pxn) == doctest::Approx(200.0 / 8));
}

TEST_CASE("PXN off on the same mixed pair: every cross-leaf pair is XRAIL whichever end could relay") {
    const Setup s = mixed(R"({"rails": "aligned", "pxn": false, "oversubscription": 2.0})");
    const PairClassifier c(s.cluster, s.placement);
    // XRAIL crosses the spine: the slower NIC (200 Gbit/s) over the 2:1 oversubscription; RAIL stays on its leaf.
    CHECK(c.bandwidth_gbyte_s(0, 10, PathClass::Xrail) == doctest::Approx(200.0 / 8 / 2));
    CHECK(c.bandwidth_gbyte_s(0, 8, PathClass::Rail) == doctest::Approx(200.0 / 8));
    for (int g = 0; g < 8; ++g) {
        for (int h = 0; h < 8; ++h) {
            CAPTURE(g);
            CAPTURE(h);
            CHECK(c.classify(g, 8 + h) == hand_class(g, h / 2, false));
            CHECK(c.classify(8 + h, g) == hand_class(g, h / 2, false));
        }
    }
}

TEST_CASE("PXN on an explicitly wired fabric: only node0's end can relay, in either order") {
    // node1's four NICs wired in reverse: its rail r on leaf l(3 - r).
    const Setup s = mixed(R"({"rails": "explicit", "pxn": true,
        "wiring": {"node0": ["l0","l1","l2","l3","l4","l5","l6","l7"], "node1": ["l3","l2","l1","l0"]}})");
    const PairClassifier c(s.cluster, s.placement);
    for (int g = 0; g < 8; ++g) {
        for (int h = 0; h < 8; ++h) {
            CAPTURE(g);
            CAPTURE(h);
            const PathClass want = hand_class(g, 3 - h / 2, true);
            CHECK(c.classify(g, 8 + h) == want);
            CHECK(c.classify(8 + h, g) == want);
        }
    }
    CHECK(c.classify(0, 14) == PathClass::Rail);  // node1 GPU6: rail 3 on l0, node0 GPU0's leaf
    CHECK(c.classify(14, 0) == PathClass::Rail);
    CHECK(c.classify(0, 8) == PathClass::Pxn);    // node1 GPU0 on l3: node0 relays through GPU3
    CHECK(c.classify(8, 0) == PathClass::Pxn);
    // Partially wired: node1 reaches only leaves l0-l3, so node0's GPU5 can still relay to them
    // (through GPU0-GPU3), but nothing of node1 can reach l5.
    CHECK(c.classify(5, 15) == PathClass::Pxn);
    CHECK(c.classify(15, 5) == PathClass::Pxn);
}

TEST_CASE("hand-classified pair table: two H100 nodes, rail-aligned, every pair of the 16 GPUs") {
    // Closed form, not the code: the same node is NVLink (NVSwitch); across nodes the same GPU
    // index is the same rail (RAIL), any other is PXN (relay over NVLink to the peer's rail), or
    // XRAIL with PXN off.
    for (const bool pxn_on : {true, false}) {
        CAPTURE(pxn_on);
        const Setup s = setup(std::string(R"({"nodes": 2, "node": "h100-hgx-8gpu-8nic", "fabric": {"pxn": )") +
                                  (pxn_on ? "true" : "false") + "}}",
                              1, 1, 1);
        const PairClassifier c(s.cluster, s.placement);
        std::array<int, kPathClassCount> tally{};
        for (std::int64_t a = 0; a < 16; ++a) {
            for (std::int64_t b = 0; b < 16; ++b) {
                if (a == b) {
                    continue;
                }
                CAPTURE(a);
                CAPTURE(b);
                const PathClass want = a / 8 == b / 8         ? PathClass::Nv
                                       : a % 8 == b % 8       ? PathClass::Rail
                                       : pxn_on               ? PathClass::Pxn
                                                              : PathClass::Xrail;
                CHECK(c.classify(a, b) == want);
                ++tally[static_cast<std::size_t>(want)];
            }
        }
        CHECK(tally[static_cast<std::size_t>(PathClass::Nv)] == 2 * 8 * 7);
        CHECK(tally[static_cast<std::size_t>(PathClass::Rail)] == 2 * 8);
        CHECK(tally[static_cast<std::size_t>(pxn_on ? PathClass::Pxn : PathClass::Xrail)] == 2 * 8 * 7);
    }
}

TEST_CASE("parse_path_class: the names, X as LOC, NV<n> and NVB as NVLink - nothing else") {
    CHECK(parse_path_class("PIX") == PathClass::Pix);
    CHECK(parse_path_class("X") == PathClass::Loc);
    CHECK(parse_path_class("NV") == PathClass::Nv);
    CHECK(parse_path_class("NV18") == PathClass::Nv);
    CHECK(parse_path_class("NVB") == PathClass::Nv);
    CHECK_FALSE(parse_path_class("PXQ").has_value());  // three letters, not NV-prefixed
    CHECK_FALSE(parse_path_class("N").has_value());
    CHECK_FALSE(parse_path_class("").has_value());
}
