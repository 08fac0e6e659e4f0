// Tests: cluster spec reading, template facts (NIC choice), placement.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "planlayout/ingest/hostfile.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/parallel/placement.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
using nlohmann::json;

namespace {
Cluster cluster(const std::string& text) { return cluster_from_json(json::parse(text), "c.json", "/cluster", "."); }
}  // namespace

TEST_CASE("the built-in templates have the documented GPU/NIC layouts") {
    const auto names = builtin_node_template_names();
    CHECK(names == std::vector<std::string>{"a100-dgx-8gpu-8nic", "gb200-nvl72-tray", "gb300-nvl72-tray", "h100-hgx-8gpu-8nic",
                                            "hgx-b200-8gpu-8nic", "hgx-b300-8gpu-8nic", "hgx-h200-8gpu-8nic", "pcie-8gpu-4nic"});
    SUBCASE("H100 HGX: GPU i uses NIC i at PIX, NVSwitch with 18 links") {
        const TemplateFacts f = template_facts(builtin_node_template("h100-hgx-8gpu-8nic", "t"));
        CHECK(f.gpu_count == 8);
        CHECK(f.rail_nics.size() == 8);
        for (int g = 0; g < 8; ++g) {
            CHECK(f.gpu_rail[static_cast<std::size_t>(g)] == g);
            CHECK(f.gpu_nic_class[static_cast<std::size_t>(g)] == PathClass::Pix);
        }
        CHECK(f.gpu_gpu[0 * 8 + 5] == PathClass::Nv);
        CHECK(f.nvlink_gbyte_s == doctest::Approx(450));
    }
    SUBCASE("DGX A100: two equally near NICs per GPU pair are spread, one per GPU (PXB)") {
        const TemplateFacts f = template_facts(builtin_node_template("a100-dgx-8gpu-8nic", "t"));
        CHECK(f.rail_nics.size() == 8);  // the storage NICs are not rails
        CHECK(f.gpu_rail == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
        CHECK(f.gpu_nic_class[3] == PathClass::Pxb);
    }
    SUBCASE("PCIe box: no NVLink, GPUs share a NIC per switch") {
        const TemplateFacts f = template_facts(builtin_node_template("pcie-8gpu-4nic", "t"));
        CHECK(f.gpu_rail == std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3});
        CHECK(f.gpu_gpu[0 * 8 + 1] == PathClass::Pix);
        CHECK(f.gpu_gpu[0 * 8 + 2] == PathClass::Phb);
        CHECK(f.gpu_gpu[0 * 8 + 5] == PathClass::Sys);
        CHECK(f.nvlink_gbyte_s == 0);
    }
}

TEST_CASE("a GPU whose only NIC is across the socket gets that NIC at SYS distance") {
    const Cluster c = cluster(R"({"nodes": 1, "node": {
        "name": "one-nic", "cpus": [{"name": "CPU0", "numa": 0}, {"name": "CPU1", "numa": 1}],
        "gpus": [{"name": "GPU0", "parent": "CPU0", "numa": 0}, {"name": "GPU1", "parent": "CPU1", "numa": 1}],
        "nics": [{"name": "NIC0", "device": "mlx5_0", "parent": "CPU1", "numa": 1, "speed_gbit_s": 200}]}})");
    const TemplateFacts& f = c.facts.front();
    CHECK(f.gpu_rail == std::vector<int>{0, 0});
    CHECK(f.gpu_nic_class[0] == PathClass::Sys);
    CHECK(f.gpu_nic_class[1] == PathClass::Phb);
    CHECK(f.gpu_numa_nodes == 2);  // SHM's sockets: the GPUs hang off NUMA 0 and 1
    const Cluster unknown = cluster(R"({"nodes": 1, "node": {"name": "no-numa",
        "gpus": [{"name": "GPU0"}, {"name": "GPU1", "numa": 0}]}})");
    CHECK(unknown.facts.front().gpu_numa_nodes == 0);  // one GPU without a NUMA node: unknown
}

TEST_CASE("cluster specs: counts, host lists, fabric, and errors with JSON pointers") {
    const Cluster c = cluster(R"({"nodes": [{"count": 3, "host_prefix": "gpu-a", "node": "h100-hgx-8gpu-8nic"},
                                            {"host": "gpu-b0", "node": "pcie-8gpu-4nic"}],
                                 "fabric": {"rails": "aligned", "nodes_per_su": 2, "sus_per_pod": 1, "pxn": false}})");
    CHECK(c.node_count() == 4);
    CHECK(c.nodes[2].host == "gpu-a2");
    CHECK(c.nodes[3].host == "gpu-b0");
    CHECK(c.templates.size() == 2);
    CHECK(!c.homogeneous());
    CHECK(c.total_gpus() == 32);
    CHECK(c.rails == 8);
    CHECK(c.leaf_of(3, 1) == 9);  // SU 1, rail 1
    CHECK(c.pod_of_leaf(9) == 1);
    CHECK_THROWS_WITH_AS(cluster(R"({"nodes": 2, "node": "h200-magic"})"),
                         "c.json (/cluster/node): unknown node template 'h200-magic'; use a built-in template (a100-dgx-8gpu-8nic, gb200-nvl72-tray, gb300-nvl72-tray, h100-hgx-8gpu-8nic, hgx-b200-8gpu-8nic, hgx-b300-8gpu-8nic, hgx-h200-8gpu-8nic, pcie-8gpu-4nic) or a path to a template JSON",
                         Error);
    CHECK_THROWS_WITH_AS(cluster(R"({"nodes": 2, "node": "h100-hgx-8gpu-8nic", "fabric": {"rails": "crossed"}})"),
                         "c.json (/cluster/fabric/rails): rails must be \"aligned\" or \"explicit\", got \"crossed\"; use \"aligned\" (NIC i on leaf i) or \"explicit\" with a \"wiring\" map",
                         Error);
    CHECK_THROWS_WITH_AS(cluster(R"({"nodes": 2, "node": "h100-hgx-8gpu-8nic", "fabric": {"rails": "explicit", "wiring": {"node0": ["l0"]}}})"),
                         "c.json (/cluster/fabric/wiring/node0): expected a list of 8 leaf names (one per rail NIC); write one leaf name per compute NIC, in NIC order",
                         Error);
    CHECK_THROWS_WITH_AS(cluster(R"({"nodes": 0, "node": "h100-hgx-8gpu-8nic"})"),
                         "c.json (/cluster/nodes): nodes = 0 is smaller than 1; give a value of at least 1", Error);
    CHECK_THROWS_WITH_AS(cluster(R"({"nodes": 2, "nodee": 1})"),
                         "c.json (/cluster/nodee): unknown key \"nodee\"; did you mean \"node\"? known keys here: name, node, nodes, topology, fabric, nvlink_domain (keys starting with _ are comments)", Error);
}

TEST_CASE("placement: node-major, host order, local GPU permutation, explicit maps") {
    const Cluster c = cluster(R"({"nodes": 2, "node": "h100-hgx-8gpu-8nic"})");
    const Placement p = node_major_placement(c, 16);
    CHECK(p.node[9] == 1);
    CHECK(p.gpu[9] == 1);
    const Placement q = placement_from_json(json::parse(R"({"hosts": ["node1", "node0"], "local_order": [1, 0, 3, 2, 5, 4, 7, 6]})"),
                                            "l.json", "/placement", c, 16);
    CHECK(q.node[0] == 1);
    CHECK(q.gpu[0] == 1);
    CHECK(q.node[8] == 0);
    CHECK_THROWS_WITH_AS(placement_from_json(json::parse(R"({"hosts": ["node7"]})"), "l.json", "/placement", c, 16),
                         "l.json (/placement/hosts/0): unknown host 'node7'; use a host of the cluster (node0, node1)", Error);
    CHECK_THROWS_AS(placement_from_json(json::parse(R"({"local_order": [0, 0, 1, 2, 3, 4, 5, 6]})"), "l.json", "/placement", c, 16),
                    Error);
    CHECK_THROWS_AS(node_major_placement(c, 17), Error);
    const NamedHostfile hf{"hosts.txt", "dir/hosts.txt", {"node1", "node0"}};
    const Placement h = placement_from_json(json::parse(R"({"hostfile": "hosts.txt"})"), "l.json", "/placement", c, 16, hf);
    CHECK(h.node[0] == 1);
    CHECK(h.description == "node-major in hostfile order (hosts.txt)");
    CHECK_THROWS_WITH_AS(placement_from_json(json::parse(R"({"hostfile": "hosts.txt"})"), "l.json", "/placement", c, 16,
                                             NamedHostfile{"hosts.txt", "dir/hosts.txt", {"node9"}}),
                         "dir/hosts.txt: unknown host 'node9'; use a host of the cluster (node0, node1)", Error);
    CHECK(parse_hostfile("node0 slots=8\n# comment\nnode1:4\nnode2\n", "h") ==
          std::vector<std::pair<std::string, int>>{{"node0", 8}, {"node1", 4}, {"node2", 0}});
}

// Issue 41 item 8: `slots=4` was read and thrown away (8 ranks planned per node, no note);
// `a slots = 8` and `host:abc` were accepted as hosts without slots.
TEST_CASE("hostfile slots: malformed ones refused, ones that differ from the ranks per node noted") {
    CHECK_THROWS_WITH_AS(parse_hostfile("a slots = 8\n", "h"),
                         "h:1: 'slots' is not slots=N (no spaces around '='); write host slots=N (DeepSpeed, Open MPI; "
                         "max_slots=N beside it) or host:N (MPICH), N from 1 to 4096",
                         Error);
    CHECK_THROWS_WITH_AS(parse_hostfile("a slots= 8\n", "h"), doctest::Contains("h:1: bad slot count 'slots='"), Error);
    CHECK_THROWS_WITH_AS(parse_hostfile("node0\nhost:abc\n", "h"), doctest::Contains("h:2: bad slot count 'abc' after 'host:'"), Error);
    for (const char* bad : {"host:0", "host:-1", "host:4097", "host:", "host:+4", "host slots=0", "host slots=8x", "host max_slots=abc"}) {
        CAPTURE(bad);
        CHECK_THROWS_WITH_AS(parse_hostfile(bad, "h"), doctest::Contains("h:1: bad slot count"), Error);
    }
    CHECK_THROWS_WITH_AS(parse_hostfile("host cpus=8\n", "h"), doctest::Contains("h:1: 'cpus=8' is not slots=N;"), Error);
    CHECK(parse_hostfile("host slots=8 max_slots=16\nb:4096\n", "h") ==
          std::vector<std::pair<std::string, int>>{{"host", 8}, {"b", 4096}});
    const auto hosts = parse_hostfile("node0 slots=4\nnode1 slots=4\nnode2 slots=8\nnode3\n", "hosts.txt");
    CHECK(hostfile_slots_note(hosts, 8, "hosts.txt") ==
          "hosts.txt gives node0 and 1 more slots=4, but the plan puts 8 ranks on each node (one per GPU of the node "
          "template): a launcher that reads the slots starts 4 there; give slots=8, or a node template of 4 GPUs");
    CHECK(hostfile_slots_note(parse_hostfile("node0 slots=8\nnode1\n", "h"), 8, "h").empty());
    CHECK(hostfile_slots_note(hosts, 0, "h").empty());  // ranks per node unknown
}
