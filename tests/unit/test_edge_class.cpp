// Tests: used pairs per pattern and their classes on synthetic clusters.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
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
