// Tests: an allocation on an irregular tree (leaves of 18, 8 and 18 nodes) - the groups that
// straddle leaves and the compact allocation it is compared with, worked out by hand.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/allocation.hpp"
#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/parallel/groups.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
using nlohmann::json;

namespace {

Cluster superpod() {
    const json c = {{"node", "h100-hgx-8gpu-8nic"}, {"topology", "superpod-partial-topology.conf"}};
    return cluster_from_json(c, "c.json", "", std::string(PLANLAYOUT_TEST_DATA_DIR) + "/irregular");
}

Groups ep16_groups() {
    ParallelSpec spec;
    spec.world = 64;
    spec.ep = 16;
    return build_groups(resolve_spec(spec));
}

// Nodes first..first+7 (h100-0NN is node NN-1).
Placement on_nodes(const Cluster& c, std::int32_t first) {
    std::vector<std::int32_t> order;
    for (std::int32_t i = 0; i < 8; ++i) {
        order.push_back(first + i);
    }
    return node_major_placement(c, 64, order);
}

const KindStraddle& kind(const std::vector<KindStraddle>& v, const std::string& name) {
    for (const auto& k : v) {
        if (k.kind == name) {
            return k;
        }
    }
    FAIL("no kind " << name);
    return v.front();
}

}  // namespace

TEST_CASE("h100-012..019 straddles su0 and su1 - the last EP group of two nodes and every DP group") {
    const Cluster c = superpod();
    const Placement p = on_nodes(c, 11);  // h100-012 .. h100-019
    const Groups g = ep16_groups();
    const auto s = straddles(c, p, g, {});
    // EP 16 = two nodes per group: (012,013) (014,015) (016,017) (018,019): only the last crosses.
    const KindStraddle& ep = kind(s, "ep");
    CHECK(ep.groups == 4);
    CHECK(ep.over_leaves == 1);
    CHECK(ep.over_pods == 0);  // su0 and su1 share spine0
    CHECK(ep.example == "group 3 (ranks 48..63): su0 h100-018, su1 h100-019");
    CHECK(kind(s, "dp").over_leaves == 1);        // one group of 64
    // expt_dp: 16 groups {i, i+16, i+32, i+48}; i+48 is on h100-019 (su1) for i = 8..15 only.
    CHECK(kind(s, "expt_dp").groups == 16);
    CHECK(kind(s, "expt_dp").over_leaves == 8);
    CHECK(kind(s, "tp").over_leaves == 0);
    const FabricDomains d = fabric_domains(c);
    const Span sp = span_of(c, d, allocation_nodes(p));
    CHECK(sp.nodes == 8);
    CHECK(sp.leaves == 2);
    CHECK(sp.pods == 1);
}

TEST_CASE("the compact allocation is the first nodes of one leaf group, keeping each rank's GPU") {
    const Cluster c = superpod();
    std::string where;
    const auto compact = compact_placement(c, on_nodes(c, 11), where);
    REQUIRE(compact);
    CHECK(where == "one leaf group (su0)");
    CHECK(allocation_nodes(*compact) == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7});
    CHECK(compact->gpu == on_nodes(c, 11).gpu);
    CHECK(straddles(c, *compact, ep16_groups(), {"ep"}).front().over_leaves == 0);
}

TEST_CASE("an allocation larger than the short leaf is compacted into a full one") {
    const Cluster c = superpod();
    std::vector<std::int32_t> order;
    for (std::int32_t i = 18; i < 28; ++i) {  // su1's 8 nodes and two of su2: 10 nodes over 2 pods
        order.push_back(i);
    }
    const Placement p = node_major_placement(c, 80, order);
    const FabricDomains d = fabric_domains(c);
    const Span sp = span_of(c, d, allocation_nodes(p));
    CHECK(sp.leaves == 2);
    CHECK(sp.pods == 2);
    std::string where;
    const auto compact = compact_placement(c, p, where);
    REQUIRE(compact);
    CHECK(where == "one leaf group (su0)");  // su0's 18 nodes hold 10; su1's 8 do not
    CHECK(allocation_nodes(*compact).front() == 0);
}
