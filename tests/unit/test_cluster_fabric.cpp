// Tests: an imported fabric (topology.conf, topology.yaml, k8s node labels, fabric JSON) as a cluster.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fixture_support.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_fabric.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/parallel/placement.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
using nlohmann::json;

namespace {
ImportedFabric mapped(const std::string& conf) { return map_fabric(read_fabric_text(conf, "t.conf"), "t.conf"); }
}  // namespace

TEST_CASE("a uniform three-tier tree: leaves are scalable units, spines pods, the root the core") {
    const ImportedFabric m = mapped(fixture::text("slurm-topology/topograph-expected-oci-sim-tree-topology.conf"));
    CHECK(m.hosts.size() == 96);
    CHECK(m.su_sizes == std::vector<std::int64_t>(12, 8));
    CHECK(m.pod_sizes == std::vector<std::int64_t>(6, 2));
    CHECK(m.su_names.front() == "switch.1.1");
    CHECK(m.su_names.size() == 12);
    CHECK(m.pod_names == std::vector<std::string>{"switch.2.1", "switch.2.2", "switch.2.3", "switch.2.4", "switch.2.5",
                                                  "switch.2.6"});
    CHECK(m.core_name == "switch.3.1");
    CHECK(m.notes.empty());
    // Fabric order: leaf after leaf, in the order the spines list them.
    CHECK(m.hosts[0] == "srv1101");
    CHECK(m.hosts[8] == "srv1201");
    CHECK(m.hosts[16] == "srv2101");
}

TEST_CASE("the fabric order follows the tree, not the file order of the leaves") {
    const ImportedFabric m = mapped("SwitchName=b Nodes=n[3-4]\nSwitchName=a Nodes=n[1-2]\nSwitchName=top Switches=a,b\n");
    CHECK(m.hosts == std::vector<std::string>{"n1", "n2", "n3", "n4"});
    CHECK(m.su_names == std::vector<std::string>{"a", "b"});
    CHECK(m.pod_names == std::vector<std::string>{"top"});
    CHECK(m.pod_sizes == std::vector<std::int64_t>{2});
    CHECK(m.core_name.empty());
}

TEST_CASE("irregular trees are taken as they are - leaves and spines of any size") {
    const ImportedFabric m = mapped("SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n[3-5]\nSwitchName=c Nodes=n[6-6]\n"
                                    "SwitchName=p Switches=a,b\nSwitchName=q Switches=c\nSwitchName=t Switches=p,q\n");
    CHECK(m.hosts == std::vector<std::string>{"n1", "n2", "n3", "n4", "n5", "n6"});
    CHECK(m.su_sizes == std::vector<std::int64_t>{2, 3, 1});
    CHECK(m.pod_sizes == std::vector<std::int64_t>{2, 1});
    CHECK(m.core_name == "t");
    REQUIRE(m.notes.size() == 2);
    CHECK(m.notes[0] == "irregular: leaf switches of 1 to 3 hosts, each classified by its own leaf and spine");
    CHECK(m.notes[1] == "irregular: spine switches of 1 to 2 leaves, each classified by its own leaf and spine");
}

TEST_CASE("shapes the model cannot hold are refused, naming what is wrong") {
    // The real circe file lists circe-n051 under s2 and s4 (its leaves of 18 and 8 are fine now).
    CHECK_THROWS_WITH_AS(mapped(fixture::text("slurm-topology/dgx-superpod-circe-leaf-only-topology.conf")),
                         doctest::Contains("host 'circe-n051' is under two leaf switches or blocks (s2 and s4)"), Error);
    CHECK_THROWS_WITH_AS(mapped("SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n[2-3]\n"),
                         doctest::Contains("host 'n2' is under two leaf switches or blocks (a and b)"), Error);
    CHECK_THROWS_WITH_AS(mapped("SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n[3-4]\nSwitchName=p Switches=a\n"),
                         doctest::Contains("leaf a has a parent switch, leaf b has none"), Error);
}

TEST_CASE("an irregular tree is classified by each node's real leaf and spine") {
    const json c = {{"node", "h100-hgx-8gpu-8nic"}, {"topology", "superpod-partial-topology.conf"}};
    const Cluster cl = cluster_from_json(c, "c.json", "", std::string(PLANLAYOUT_TEST_DATA_DIR) + "/irregular");
    REQUIRE(cl.node_count() == 44);
    CHECK_FALSE(cl.regular_units());
    CHECK(cl.su_sizes() == std::vector<std::int64_t>{18, 8, 18});
    CHECK(cl.su_size_text() == "scalable units of 8 to 18 nodes");
    CHECK(cl.su_of(17) == 0);
    CHECK(cl.su_of(18) == 1);   // h100-019, the first node of the short leaf
    CHECK(cl.su_of(25) == 1);
    CHECK(cl.su_of(26) == 2);   // h100-027: arithmetic with 18 per unit would say 1
    CHECK(cl.pod_of_leaf(cl.leaf_of(25, 3)) == 0);
    CHECK(cl.pod_of_leaf(cl.leaf_of(26, 3)) == 1);
    CHECK(cl.leaf_of(26, 3) == 2 * 8 + 3);
    CHECK(cl.su_name(2) == "su2");
    CHECK(cl.pod_name(1) == "spine1");
    const FabricDomains d = fabric_domains(cl);
    CHECK(d.leaf_group[25] == 1);
    CHECK(d.leaf_group[26] == 2);
    CHECK(d.pod[26] == 1);
    CHECK(d.pods == 2);
}

TEST_CASE("an irregular cluster fabric from size lists - sums checked") {
    json c = {{"nodes", 6}, {"node", "h100-hgx-8gpu-8nic"},
              {"fabric", {{"nodes_per_su", {2, 3, 1}}, {"sus_per_pod", {2, 1}}}}};
    const Cluster cl = cluster_from_json(c, "c.json", "", std::string("/"));
    CHECK(cl.su_sizes() == std::vector<std::int64_t>{2, 3, 1});
    CHECK(cl.su_of(4) == 1);
    CHECK(cl.su_of(5) == 2);
    CHECK(cl.pod_of_su(2) == 1);
    c["fabric"]["nodes_per_su"] = {2, 3};
    CHECK_THROWS_WITH_AS(cluster_from_json(c, "c.json", "", std::string("/")),
                         doctest::Contains("c.json (/fabric/nodes_per_su): the sizes add up to 5 nodes, the cluster has 6"),
                         Error);
    // A count stays the regular arithmetic (the last unit short).
    c["fabric"] = {{"nodes_per_su", 4}, {"sus_per_pod", 1}};
    const Cluster r = cluster_from_json(c, "c.json", "", std::string("/"));
    CHECK(r.regular_units());
    CHECK(r.fabric.nodes_per_su == 4);
    CHECK(r.su_of(5) == 1);
    CHECK(r.pod_of_su(1) == 1);
}

TEST_CASE("blocks become scalable units - leaves without a parent one spine tier (noted)") {
    const ImportedFabric b = mapped(fixture::text("slurm-topology/topograph-expected-dra-block-topology.conf"));
    CHECK(b.su_sizes.front() == 8);
    CHECK(b.pod_sizes.empty());
    CHECK(b.su_names.front() == "rack11");
    const ImportedFabric l = mapped("SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n[3-4]\n");
    CHECK(l.pod_sizes.empty());
    REQUIRE(l.notes.size() == 1);
    CHECK(l.notes[0].find("no common parent switch") != std::string::npos);
}

TEST_CASE("the fabric JSON of import reads back to the same mapping") {
    const FabricTopology f = read_fabric_text(fixture::text("slurm-topology/topograph-expected-oci-sim-tree-topology.conf"), "t");
    const FabricTopology back = read_fabric_text(to_json(f).dump(), "f.json");
    const ImportedFabric a = map_fabric(f, "t");
    const ImportedFabric b = map_fabric(back, "f.json");
    CHECK(a.hosts == b.hosts);
    CHECK(a.su_names == b.su_names);
    CHECK(a.pod_names == b.pod_names);
    CHECK(a.core_name == b.core_name);
    CHECK_THROWS_WITH_AS(read_fabric_text("{\"switches\": [{\"name\": \"a\", \"nodes\": \"n1\"}], \"blocks\": []}", "f.json"),
                         doctest::Contains("f.json (/switches/0/nodes)"), Error);
    CHECK_THROWS_WITH_AS(read_fabric_text("{\"kind\": \"Pod\"}", "f.json"), doctest::Contains("not a cluster topology"),
                         Error);
}

TEST_CASE("a cluster with an inline topology: hosts in fabric order, named units and pods, first N hosts") {
    const FabricTopology f =
        read_fabric_text("SwitchName=l1 Nodes=g[1-2]\nSwitchName=l2 Nodes=g[3-4]\nSwitchName=sp Switches=l[1-2]\n", "t");
    json j = {{"node", "h100-hgx-8gpu-8nic"}, {"topology", to_json(f)}};
    const Cluster c = cluster_from_json(j, "c.json", "/cluster", ".");
    REQUIRE(c.node_count() == 4);
    CHECK(c.nodes[2].host == "g3");
    CHECK(c.fabric.nodes_per_su == 2);
    CHECK(c.fabric.sus_per_pod == 2);
    CHECK(c.su_name(1) == "l2");
    CHECK(c.pod_name(0) == "sp");
    const FabricDomains d = fabric_domains(c);
    CHECK(d.leaf_group_names == std::vector<std::string>{"l1", "l2"});
    j["nodes"] = 3;
    const Cluster first = cluster_from_json(j, "c.json", "/cluster", ".");
    CHECK(first.node_count() == 3);
    CHECK(first.warnings.back().find("the first 3 of the 4 hosts") != std::string::npos);
    j["nodes"] = 5;
    CHECK_THROWS_WITH_AS((void)cluster_from_json(j, "c.json", "/cluster", "."),
                         doctest::Contains("5 nodes, but the topology has 4 hosts"), Error);
    j.erase("nodes");
    j["fabric"] = {{"nodes_per_su", 2}};
    CHECK_THROWS_WITH_AS((void)cluster_from_json(j, "c.json", "/cluster", "."),
                         doctest::Contains("\"nodes_per_su\" is given beside \"topology\""), Error);
}

TEST_CASE("fabric JSON: switch, block and host names and label keys are checked as the topology readers check them") {
    const std::string head = R"({"switches": [{"name": )";
    CHECK_THROWS_WITH_AS(read_fabric_text(head + R"("evil\nSwitchName=evil", "nodes": ["n1"]}], "blocks": []})", "f.json"),
                         doctest::Contains("f.json (/switches/0/name): switch name 'evil\\x0ASwitchName=evil' has byte \\x0A"), Error);
    CHECK_THROWS_WITH_AS(read_fabric_text(head + R"("s", "switches": ["a b"]}], "blocks": []})", "f.json"),
                         doctest::Contains("f.json (/switches/0/switches): switch name 'a b' has ' '"), Error);
    CHECK_THROWS_WITH_AS(read_fabric_text(head + R"("s", "nodes": ["n1\"x"]}], "blocks": []})", "f.json"),
                         doctest::Contains("f.json (/switches/0/nodes): host name 'n1\"x'"), Error);
    CHECK_THROWS_WITH_AS(read_fabric_text(R"({"switches": [], "blocks": [{"name": "b<1>", "nodes": ["n1"]}]})", "f.json"),
                         doctest::Contains("f.json (/blocks/0/name): block name 'b<1>'"), Error);
    CHECK_THROWS_WITH_AS(read_fabric_text(head + R"("s", "nodes": ["n1"]}], "blocks": [], "tier_labels": ["a\nkind: x"]})",
                                          "f.json"),
                         doctest::Contains("f.json (/tier_labels): label key 'a\\x0Akind: x'"), Error);
    CHECK(read_fabric_text(head + R"("leaf:1", "nodes": ["n1"]}], "blocks": []})", "f.json").switches.at(0).name == "leaf:1");
}

// Issue 41 items 8 and 9: a switch below itself said "no switch lists nodes" (or passed, when
// another root held the hosts); a switch or block named twice, or listed twice below one switch,
// passed and gave two HyperNodes of one name downstream.
TEST_CASE("cycles, a switch below itself and names given twice are refused, naming them") {
    CHECK_THROWS_WITH_AS(mapped("SwitchName=a Switches=b\nSwitchName=b Switches=c,l0\nSwitchName=c Switches=a\nSwitchName=l0 Nodes=n0\n"),
                         "t.conf:3: switch 'a' is its own ancestor (a -> b -> c -> a); remove the cycle from the Switches= lists",
                         Error);  // the topology.conf reader names it first (the fabric JSON's own check: bad-inputs fabric-json-switch-cycle)
    CHECK_THROWS_WITH_AS(mapped("SwitchName=l0 Nodes=n0\nSwitchName=a Switches=a,l0\n"),
                         doctest::Contains("t.conf:2: switch 'a' lists itself among the switches below it"), Error);
    CHECK_THROWS_WITH_AS(mapped("SwitchName=l0 Nodes=n0\nSwitchName=l1 Nodes=n1\nSwitchName=a Switches=l[0,0]\n"),
                         doctest::Contains("t.conf:3: switch 'a' lists switch 'l0' twice"), Error);
    CHECK_THROWS_WITH_AS(mapped("BlockName=b0 Nodes=n[0-1]\nBlockName=b0 Nodes=n[2-3]\n"),
                         doctest::Contains("t.conf:2: block 'b0' is defined twice"), Error);
    CHECK_THROWS_WITH_AS(mapped("SwitchName=s0 Nodes=n[0-1] Nodes=n[2-3]\n"),
                         doctest::Contains("t.conf:1: 'Nodes=' is given twice on one line"), Error);
    CHECK_THROWS_WITH_AS(mapped("SwitchName=s0 nodes=n[0-1] NODES=n[2-3]\n"),
                         doctest::Contains("t.conf:1: 'NODES=' is given twice on one line"), Error);  // keys ignore case
    CHECK_THROWS_WITH_AS(mapped("- topology: a\n  block:\n    blocks:\n    - block: b\n      nodes: n1\n    - block: b\n      nodes: n2\n"),
                         doctest::Contains("t.conf:6: block 'b' is defined twice"), Error);
    CHECK_THROWS_WITH_AS(mapped("- topology: a\n  tree:\n    switches:\n    - switch: l0\n      nodes: n0\n    - switch: s\n      children: l[0,0]\n"),
                         doctest::Contains("t.conf:6: switch 's' lists switch 'l0' twice"), Error);
    // The same fabric without the repeats is read.
    CHECK(mapped("SwitchName=l0 Nodes=n0\nSwitchName=l1 Nodes=n1\nSwitchName=a Switches=l[0-1]\n").su_names.size() == 2);
}
