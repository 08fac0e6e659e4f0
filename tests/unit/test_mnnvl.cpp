// Tests: multi-node NVLink domains (issue 30): the MNNVL class, its cost, and the domains read from
// the cluster's "nvlink_domain", nvidia-smi -q captures and Kubernetes clique labels.
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/analysis/placed_group.hpp"
#include "planlayout/analysis/search.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/nvidia_smi_fabric.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/plan.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
using nlohmann::json;

namespace {

const std::string kData = PLANLAYOUT_TEST_DATA_DIR;

Cluster cluster(const std::string& text, const std::string& dir = ".") {
    return cluster_from_json(json::parse(text), "c.json", "/cluster", FileScope{dir, dir, false});
}

struct Job {
    Cluster cluster;
    Placement placement;
    Groups groups;
};

// Two racks' worth of GB200 trays, node-major, EP 64 (tp 1, pp 1, world = every GPU).
Job ep64(const std::string& cluster_text) {
    Job j;
    j.cluster = cluster(cluster_text);
    ParallelSpec spec;
    spec.world = j.cluster.total_gpus();
    spec.ep = 64;
    j.groups = build_groups(resolve_spec(spec));
    j.placement = node_major_placement(j.cluster, spec.world);
    return j;
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

// 32 trays in two NVL72 racks, 16 of each rack's 18 allocated: one domain of 16 trays per rack.
const char* kTwoRacks = R"({"nodes": 32, "node": "gb200-nvl72-tray", "nvlink_domain": {"nodes_per_domain": 16}})";
const char* kNoDomains = R"({"nodes": 32, "node": "gb200-nvl72-tray"})";

}  // namespace

TEST_CASE("GPUs on two trays of one NVLink domain pair over MNNVL at the domain's NVLink rate") {
    const Cluster c = cluster(R"({"nodes": 36, "node": "gb200-nvl72-tray", "nvlink_domain": {"nodes_per_domain": 18}})");
    REQUIRE(c.nvlink.names == std::vector<std::string>{"nvl0", "nvl1"});
    CHECK(c.domain_of(17) == 0);
    CHECK(c.domain_of(18) == 1);
    const Placement p = node_major_placement(c, c.total_gpus());
    const PairClassifier pc(c, p);
    CHECK(pc.classify(0, 1) == PathClass::Nv);      // one tray
    CHECK(pc.classify(0, 4) == PathClass::Mnnvl);   // trays 0 and 1 of rack 0
    CHECK(pc.classify(0, 71) == PathClass::Mnnvl);  // tray 17, still rack 0
    CHECK(pc.classify(0, 72) == PathClass::Rail);   // rack 1, the same rail
    CHECK(pc.classify(1, 72) == PathClass::Pxn);    // rack 1, another rail: NVLink hop to GPU0's NIC
    CHECK(pc.bandwidth_gbyte_s(0, 4, PathClass::Mnnvl) == doctest::Approx(900));  // 18 x 50 GB/s each way
    CHECK(pc.bandwidth_gbyte_s(0, 72, PathClass::Rail) == doctest::Approx(400.0 / 8));
    CHECK(pc.island_of(4) == pc.island_of(70));
    CHECK(pc.island_of(4) != pc.island_of(72));
}

TEST_CASE("EP 64 inside one NVL72 rack has no network pairs while its expert DP between the racks does") {
    const Job j = ep64(kTwoRacks);
    const auto kinds = classify_groups(j.groups, j.cluster, j.placement, {"ep", "expt_dp"});
    const KindEdges& ep = kind(kinds, "ep");
    CHECK(ep.groups == 2);
    CHECK(ep.cross_pairs() == 0);
    // 64 * 63 / 2 = 2016 pairs per group, 16 trays x 6 inside a tray on NV, the rest MNNVL.
    CHECK(count(ep, PathClass::Nv) == 2 * 96);
    CHECK(count(ep, PathClass::Mnnvl) == 2 * (2016 - 96));
    const KindEdges& edp = kind(kinds, "expt_dp");
    CHECK(edp.groups == 64);
    CHECK(edp.cross_pairs() == 64);  // {r, r + 64}: one rank in each rack
    CHECK(count(edp, PathClass::Rail) == 64);
    REQUIRE(ep.footprints.size() == 1);
    const GroupFootprint& f = ep.footprints.front();
    CHECK(f.nodes == 16);
    CHECK(f.islands == 1);
    CHECK(f.max_per_island == 64);
    CHECK(f.min_nics_per_island == 64);
    CHECK(f.max_nodes_per_island == 16);
}

TEST_CASE("without NVLink domains the same EP 64 crosses the network at every tray boundary") {
    const Job j = ep64(kNoDomains);
    const auto kinds = classify_groups(j.groups, j.cluster, j.placement, {"ep"});
    const KindEdges& ep = kind(kinds, "ep");
    CHECK(count(ep, PathClass::Mnnvl) == 0);
    CHECK(ep.cross_pairs() == 2 * (2016 - 96));
    CHECK(ep.footprints.front().islands == 16);
}

TEST_CASE("an all-to-all inside one domain is costed on NVLink alone, as one NCCL node of 64 ranks") {
    const Job j = ep64(kTwoRacks);
    const auto kinds = classify_groups(j.groups, j.cluster, j.placement, {"ep"});
    const KindEdges& ep = kind(kinds, "ep");
    const PlacedGroup g = placed_group_of(ep.footprints.front(), node_hardware(j.cluster));
    CHECK(g.nodes == 1);
    CHECK(g.max_per_node == 64);
    CHECK(g.worst_intra == PathClass::Mnnvl);
    const TransportModel x;  // the prior RDMA model: the NIC terms do not apply
    const double size = 1e9;
    const CollectiveCost a2a = all_to_all(g, size, x);
    CHECK_FALSE(a2a.cross_node);
    CHECK(a2a.nic_s == 0);
    // (n-1)/n of the buffer over each GPU's NVLink: 900 GB/s x the 0.8 NVLink efficiency prior.
    CHECK(a2a.intra_s == doctest::Approx(size * 63.0 / 64.0 / (900e9 * 0.8)));
    CHECK(a2a.bottleneck == "NVLink");
    // The same group without domains: 16 nodes, each rank's own 400G NIC for 60 of its 63 peers.
    const Job n = ep64(kNoDomains);
    const auto nkinds = classify_groups(n.groups, n.cluster, n.placement, {"ep"});
    const KindEdges& nep = kind(nkinds, "ep");
    const CollectiveCost net = all_to_all(placed_group_of(nep.footprints.front(), node_hardware(n.cluster)), size, x);
    CHECK(net.cross_node);
    CHECK(net.time_s > 5 * a2a.time_s);
}

TEST_CASE("a ring across two domains has one island per rack, every NIC of the rack a rail of it") {
    const Job j = ep64(kTwoRacks);
    const auto kinds = classify_groups(j.groups, j.cluster, j.placement, {"dp"});
    const KindEdges& dp = kind(kinds, "dp");
    const GroupFootprint& f = dp.footprints.front();
    CHECK(f.nodes == 32);
    CHECK(f.islands == 2);
    const PlacedGroup g = placed_group_of(f, node_hardware(j.cluster));
    CHECK(g.nodes == 2);
    CHECK(g.max_per_node == 64);
    CHECK(g.rails_per_node == 64);
    CHECK(g.tcp_interfaces_per_node == 16);  // one front-end interface per tray of the rack
}

TEST_CASE("nvidia-smi -q Fabric: the clique of a GB200 excerpt, N/A on a GPU without a fabric") {
    const std::string dir = kData + "/fixtures/nvidia-smi-q/";
    const auto gb200 = read_nvidia_smi_fabric(read_text_file(dir + "gb200-fabric-grep-c3-dra-driver-issue-626.txt"), "a.txt");
    REQUIRE(gb200.size() == 1);
    CHECK(gb200[0].state == "Completed");
    CHECK(gb200[0].status == "Success");
    CHECK(gb200[0].clique_id == "2");
    CHECK(gb200[0].line == 1);
    CHECK(node_clique(gb200, "a.txt") == "dc6e40c4-d722-4357-9ba6-5291dd461278.2");
    const auto l4 = read_nvidia_smi_fabric(read_text_file(dir + "l4-driver550-fabric-na-excerpt.txt"), "l4.txt");
    REQUIRE(l4.size() == 1);
    CHECK(l4[0].state == "N/A");
    CHECK(node_clique(l4, "l4.txt").empty());
    CHECK_THROWS_WITH_AS(node_clique(read_nvidia_smi_fabric(read_text_file(dir + "fabric-insufficient-resources-azhpc-pr-506.txt"), "z.txt"), "z.txt"),
                         "z.txt:1: a GPU: NVLink fabric status 'Insufficient Resources', not Success; repair the node's NVLink fabric "
                         "(nvidia-smi -q shows why), or leave it out of the domain",
                         Error);
    CHECK_THROWS_WITH_AS(read_nvidia_smi_fabric("GPU0 NV18 X\n", "t.txt"),
                         "t.txt: no Fabric section: not the output of nvidia-smi -q; capture it on the node with: nvidia-smi -q > "
                         "node.txt (driver 550 or later)",
                         Error);
}

// Issue 41 item 4: a CliqueId or ClusterUUID that nvidia-smi does not print reached the
// topology.conf writer (exit 4) or made a block / HyperNode name with a space or a quote.
TEST_CASE("nvidia-smi -q Fabric: only a decimal CliqueId and a UUID make a clique") {
    const std::string gb200 = read_text_file(kData + "/fixtures/nvidia-smi-q/gb200-fabric-grep-c3-dra-driver-issue-626.txt");
    auto with = [&](const std::string& from, const std::string& to) {
        std::string t = gb200;
        const auto at = t.find(from);
        REQUIRE(at != std::string::npos);
        return t.replace(at, from.size(), to);
    };
    const std::string clique = "CliqueId                          : 2";
    for (const char* bad : {"2 3", "abc", "-1", "+2", "0x10", "99999999999999999999", "4294967296", "2.0"}) {
        CAPTURE(bad);
        const auto gpus = read_nvidia_smi_fabric(with(clique, std::string("CliqueId                          : ") + bad), "a.txt");
        const std::string expected = "a.txt:1: a GPU: CliqueId '" + std::string(bad) +
                                     "' is not a decimal number from 0 to 4294967295; nvidia-smi -q prints";
        CHECK_THROWS_WITH_AS(node_clique(gpus, "a.txt"), doctest::Contains(expected.c_str()), Error);
    }
    CHECK(node_clique(read_nvidia_smi_fabric(with(clique, "CliqueId : 4294967295"), "a.txt"), "a.txt") ==
          "dc6e40c4-d722-4357-9ba6-5291dd461278.4294967295");
    CHECK(node_clique(read_nvidia_smi_fabric(with(clique, "CliqueId : 007"), "a.txt"), "a.txt") ==
          "dc6e40c4-d722-4357-9ba6-5291dd461278.7");
    const std::string uuid = "dc6e40c4-d722-4357-9ba6-5291dd461278";
    for (const char* bad : {"dc6e40c4-d722-4357-9ba6-5291dd46127\"", "dc6e40c4-d722-4357-9ba6-5291dd46'278", "dc6e40c4: d722-4357-9ba6-5291dd461278",
                            "dc6e40c4d7224357-9ba6-5291dd461278-", "N/A", "dc6e40c4-d722-4357-9ba6-5291dd4612780"}) {
        CAPTURE(bad);
        CHECK_THROWS_WITH_AS(node_clique(read_nvidia_smi_fabric(with(uuid, bad), "a.txt"), "a.txt"),
                             doctest::Contains("a.txt:1: a GPU: ClusterUUID '"), Error);
    }
    CHECK(node_clique(read_nvidia_smi_fabric(with(uuid, "DC6E40C4-D722-4357-9BA6-5291DD461278"), "a.txt"), "a.txt") ==
          "dc6e40c4-d722-4357-9ba6-5291dd461278.2");
}

TEST_CASE("nvidia-smi -q captures per host give the cluster's NVLink domains - partitions are cliques") {
    const std::string dir = kData + "/mnnvl";
    const Cluster c = cluster(R"({"nodes": [{"host": "tray-a"}, {"host": "tray-b"}, {"host": "tray-c"}, {"host": "tray-d"}],
        "node": "gb200-nvl72-tray", "nvlink_domain": {"nvidia_smi": {"tray-a": "tray-a-smi-q.txt",
        "tray-b": "tray-b-smi-q.txt", "tray-c": "tray-c-smi-q.txt"}}})",
                              dir);
    CHECK(c.same_nvlink_domain(0, 1));
    CHECK_FALSE(c.same_nvlink_domain(1, 2));  // clique 3: another partition of the rack
    CHECK(c.domain_of(3) == -1);              // no capture: in no domain
    CHECK(c.nvlink.names.front() == "dc6e40c4-d722-4357-9ba6-5291dd461278.2");
    CHECK(c.files.size() >= 3);
    CHECK_THROWS_WITH_AS(cluster(R"({"nodes": [{"host": "t"}], "node": "gb200-nvl72-tray",
        "nvlink_domain": {"nvidia_smi": {"t": "tray-split-smi-q.txt"}}})", dir),
                         doctest::Contains("tray-split-smi-q.txt:36: GPU 00000009:04:00.0 is in clique "
                                           "dc6e40c4-d722-4357-9ba6-5291dd461278.3, another GPU of the node in "
                                           "dc6e40c4-d722-4357-9ba6-5291dd461278.2"),
                         Error);
    CHECK_THROWS_WITH_AS(cluster(R"({"nodes": [{"host": "t"}], "node": "gb200-nvl72-tray",
        "nvlink_domain": {"nvidia_smi": {"t": "tray-registering-smi-q.txt"}}})", dir),
                         doctest::Contains("NVLink fabric state 'In Progress', not Completed"), Error);
}

TEST_CASE("Kubernetes clique labels of an imported node list become the NVLink domains") {
    const std::string dir = kData + "/k8s-nodes";
    const Cluster c = cluster(R"({"topology": "topograph-v1-gb200.json", "node": "gb200-nvl72-tray"})", dir);
    REQUIRE(c.node_count() == 4);
    CHECK(c.same_nvlink_domain(0, 1));
    CHECK_FALSE(c.same_nvlink_domain(1, 2));
    CHECK(c.nvlink.source == "topology topograph-v1-gb200.json: label nvidia.com/gpu.clique");
    const Cluster own = cluster(R"({"topology": "topograph-v1-gb200.json", "node": "gb200-nvl72-tray",
        "nvlink_domain": {"nodes_per_domain": 4}})", dir);
    CHECK(own.same_nvlink_domain(1, 2));  // the cluster's own word wins, and says so
    CHECK(std::any_of(own.warnings.begin(), own.warnings.end(),
                      [](const std::string& w) { return w.find("labels are not used") != std::string::npos; }));
}

TEST_CASE("bad nvlink_domain entries are refused naming the place and the fix") {
    CHECK_THROWS_WITH_AS(cluster(R"({"nodes": 2, "node": "gb200-nvl72-tray",
        "nvlink_domain": {"nodes_per_domain": 2, "cliques": {"node0": "a"}}})"),
                         "c.json (/cluster/nvlink_domain): \"nvlink_domain\" gives its domains two ways; give one of "
                         "\"nodes_per_domain\": 18 (an NVL72 rack of 4-GPU trays), \"cliques\": {host: clique}, "
                         "\"nvidia_smi\": {host: \"nvidia-smi -q capture\"} or \"topology_blocks\": true",
                         Error);
    CHECK_THROWS_WITH_AS(cluster(R"({"nodes": 2, "node": "gb200-nvl72-tray", "nvlink_domain": {"cliques": {"node7": "a"}}})"),
                         "c.json (/cluster/nvlink_domain/cliques/node7): no node of the cluster is named 'node7'; use the "
                         "cluster's host names (\"nodes\" or its topology)",
                         Error);
    CHECK_THROWS_WITH_AS(cluster(R"({"nodes": 2, "node": "pcie-8gpu-4nic", "nvlink_domain": {"nodes_per_domain": 2}})"),
                         "c.json (/cluster/nvlink_domain): node node0 is in NVLink domain nvl0 but its template "
                         "pcie-8gpu-4nic has no NVLink; leave the node out of the domain, or give it a template with "
                         "\"nvlink\" (e.g. gb200-nvl72-tray)",
                         Error);
    const Cluster c = cluster(R"({"nodes": 3, "node": "gb200-nvl72-tray", "nvlink_domain": {"cliques": {"node0": "r0", "node2": "r0"}}})");
    CHECK(c.same_nvlink_domain(0, 2));
    CHECK(c.domain_of(1) == -1);
}

namespace {

SearchModel gb200_model() {
    const std::string path = std::string(PLANLAYOUT_SOURCE_DIR) + "/layouts/gb200-2rack-ep64.json";
    const json j = parse_json_text(read_text_file(path), path);
    SearchModel m;
    m.model = model_spec_from_json(j.at("model"), path);
    m.training = training_spec_from_json(j.at("training"), path);
    m.transport = transport_spec_from_json(j.at("transport"), path);
    return m;
}

const KindReach& reach(const SearchLayout& l, const std::string& name) {
    for (const auto& k : l.kinds) {
        if (k.kind == name) {
            return k;
        }
    }
    FAIL("no kind " << name);
    return l.kinds.front();
}

}  // namespace

TEST_CASE("search on two racks keeps EP inside an NVLink domain, and inside a 4-GPU tray without domains") {
    const SearchModel m = gb200_model();
    const SearchResult with = search_layouts(cluster(kTwoRacks), m, SearchOptions{});
    REQUIRE_FALSE(with.layouts.empty());
    const KindReach& ep = reach(with.layouts.front(), "ep");
    CAPTURE(with.layouts.front().name());
    CHECK(ep.size >= 8);  // more than a tray holds
    CHECK(ep.worst == PathClass::Mnnvl);
    const SearchResult without = search_layouts(cluster(kNoDomains), m, SearchOptions{});
    REQUIRE_FALSE(without.layouts.empty());
    CAPTURE(without.layouts.front().name());
    const KindReach& tray = reach(without.layouts.front(), "ep");
    CHECK(tray.size <= 4);
    CHECK_FALSE(is_cross_node(tray.worst));
    // The domain is worth it: the best layout with domains is faster on the same transport.
    CHECK(with.layouts.front().score.step_time_s[1] < without.layouts.front().score.step_time_s[1]);
}

TEST_CASE("interleaved domains are warned about, and the fabric order fills one domain before the next") {
    const Cluster c = cluster(R"({"nodes": 4, "node": "gb200-nvl72-tray",
        "nvlink_domain": {"cliques": {"node0": "r0", "node1": "r1", "node2": "r0", "node3": "r1"}}})");
    REQUIRE(c.warnings.size() == 1);
    CHECK(c.warnings.front() ==
          "the node order interleaves NVLink domains (node2 of r0 comes after another domain began): node-major placement "
          "splits them; list each domain's nodes together, or place with \"placement\": {\"order\": \"fabric\"}");
    CHECK(fabric_node_order(c, {}) == std::vector<std::int32_t>{0, 2, 1, 3});
    const Cluster together = cluster(R"({"nodes": 4, "node": "gb200-nvl72-tray", "nvlink_domain": {"nodes_per_domain": 2}})");
    CHECK(together.warnings.empty());
    CHECK(fabric_node_order(together, {}) == std::vector<std::int32_t>{0, 1, 2, 3});
}

namespace {

Report plan_json(const json& layout) {
    PlanRequest r;
    r.layout_text = layout.dump();
    r.layout_name = "gb200.json";
    r.base_dir = PLANLAYOUT_SOURCE_DIR;
    return plan(r);
}

}  // namespace

TEST_CASE("the domain what-if is the same layout planned without its NVLink domains") {
    const std::string path = std::string(PLANLAYOUT_SOURCE_DIR) + "/layouts/gb200-2rack-ep64.json";
    json layout = parse_json_text(read_text_file(path), path);
    const Report with = plan_json(layout);
    REQUIRE(with.score.has_value());
    REQUIRE(with.score->domain_what_if.has_value());
    layout["cluster"].erase("nvlink_domain");
    const Report without = plan_json(layout);
    REQUIRE(without.score.has_value());
    CHECK_FALSE(without.score->domain_what_if.has_value());  // no domains, nothing to compare
    for (std::size_t arm = 0; arm < 2; ++arm) {
        CAPTURE(arm);
        CHECK(with.score->domain_what_if->step_time_s[arm] == doctest::Approx(without.score->step_time_s[arm]));
    }
    // EP 64 off NVLink: every tray boundary on the 400G rails instead of NVLink 5.
    CHECK(without.score->step_time_s[1] > 2 * with.score->step_time_s[1]);
}

TEST_CASE("Slurm topology/block blocks are NVLink domains only when the cluster says so") {
    const std::string dir = kData + "/fixtures/slurm-topology";
    const std::string topo = R"("topology": "topograph-expected-dra-block-topology.conf", "node": "gb200-nvl72-tray")";
    const Cluster plain = cluster("{" + topo + "}", dir);
    CHECK(plain.nvlink.empty());  // blocks are scalable units, not NVLink, unless asked
    const Cluster c = cluster("{" + topo + R"(, "nvlink_domain": {"topology_blocks": true}})", dir);
    REQUIRE(c.node_count() == 96);
    CHECK(c.nvlink.names.size() == 12);
    CHECK(c.nvlink.names.front() == "rack11");
    CHECK(c.same_nvlink_domain(0, 7));
    CHECK_FALSE(c.same_nvlink_domain(7, 8));
    CHECK_THROWS_WITH_AS(cluster(R"({"nodes": 2, "node": "gb200-nvl72-tray", "nvlink_domain": {"topology_blocks": true}})"),
                         "c.json (/cluster/nvlink_domain/topology_blocks): the cluster's \"topology\" has no blocks (no "
                         "topology); give a Slurm topology/block file as \"topology\", or the domains as "
                         "\"nodes_per_domain\" or \"cliques\"",
                         Error);
}
