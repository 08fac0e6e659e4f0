// Tests: the scheduler levels (analysis/sched_levels), fabric placement order, and the Slurm,
// Kueue and Volcano outputs (emit/sched_topology_emit), on a 4-node and a 32-node layout.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/sched_levels.hpp"
#include "planlayout/emit/sched_topology_emit.hpp"
#include "planlayout/emit/scheduler_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/ingest/slurm_topology.hpp"
#include "planlayout/plan.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

Report plan_text(const std::string& text) {
    PlanRequest request;
    request.layout_text = text;
    request.layout_name = "test.json";
    return plan(request);
}

// 4 nodes of 8 GPUs, two scalable units of 2 nodes; EP16 spans two nodes of one unit.
const char* const k4Node = R"({"cluster": {"nodes": 4, "node": "h100-hgx-8gpu-8nic",
    "fabric": {"rails": "aligned", "nodes_per_su": 2}}, "parallel": {"tp": 1, "ep": 16}})";

// 32 nodes, 4 units of 8 under 2 spine pods; TP8 PP4 EP8 (layouts/h100-32node-tp8-pp4-ep8.json's spec).
std::string layout_32(const std::string& placement = "") {
    return R"({"cluster": {"nodes": 32, "node": "h100-hgx-8gpu-8nic",
        "fabric": {"rails": "aligned", "nodes_per_su": 8, "sus_per_pod": 2}},
        "parallel": {"tp": 8, "pp": 4, "ep": 8, "etp": 1})" +
           (placement.empty() ? std::string() : ", \"placement\": " + placement) + "}";
}

const KindLevel& kind_of(const SchedulerLevels& s, const std::string& name) {
    for (const auto& k : s.kinds) {
        if (k.kind == name) {
            return k;
        }
    }
    FAIL("no kind " << name);
    return s.kinds.front();
}

}  // namespace

TEST_CASE("smallest_block: the smallest block of consecutive positions that holds every group") {
    CHECK(smallest_block({{0}, {1}, {2}, {3}}, 4) == 1);
    CHECK(smallest_block({{0, 1}, {2, 3}}, 4) == 2);
    CHECK(smallest_block({{1, 2}}, 4) == 4);       // straddles a block of 2: only the whole fits
    CHECK(smallest_block({{0, 2}, {1, 3}}, 4) == 4);
    CHECK(smallest_block({{0, 1, 2}}, 6) == 3);    // 3 divides 6, 2 does not hold it
    CHECK(smallest_block({}, 5) == 1);
}

TEST_CASE("scheduler levels, 4 nodes: ep must stay inside one leaf group, 2 nodes per group - the job prefers one pod") {
    const Report r = plan_text(k4Node);
    const SchedulerLevels s = scheduler_levels(r.cluster, r.placement, r.groups);
    CHECK(s.job_nodes.size() == 4);
    const KindLevel& ep = kind_of(s, "ep");
    CHECK(ep.required);
    CHECK(ep.span == SchedLevel::Leaf);
    CHECK(ep.slice_nodes == 2);
    CHECK(s.required == SchedLevel::Leaf);
    CHECK(s.slice_nodes == 2);
    CHECK(s.job_span == SchedLevel::Spine);  // two units under one spine tier
    CHECK_FALSE(s.job_required);
    CHECK(s.leaf_groups_used == 2);
    CHECK_FALSE(kind_is_required("dp"));
    CHECK_FALSE(kind_is_required("pp"));
    CHECK(kind_is_required("tp"));
}

TEST_CASE("scheduler levels, 32 nodes: tp and ep stay in a node, dp in a leaf group, pp crosses pods") {
    const Report r = plan_text(layout_32());
    const SchedulerLevels s = scheduler_levels(r.cluster, r.placement, r.groups);
    CHECK(kind_of(s, "tp").span == SchedLevel::Node);
    CHECK(kind_of(s, "ep").span == SchedLevel::Node);
    CHECK(kind_of(s, "dp").span == SchedLevel::Leaf);
    CHECK_FALSE(kind_of(s, "dp").required);
    CHECK(kind_of(s, "pp").span == SchedLevel::Cluster);  // stages 8 nodes apart: 2 units, 2 pods
    CHECK(s.required == SchedLevel::Node);
    CHECK(s.job_span == SchedLevel::Cluster);
    CHECK_FALSE(s.job_required);
    CHECK(s.pods_used == 2);
}

TEST_CASE("--placement fabric: hosts listed across units are filled leaf-major") {
    // node0, node8, node16, node24, node1, ...: each unit's nodes are 4 apart in the list.
    std::string hosts;
    for (int i = 0; i < 32; ++i) {
        hosts += std::string(i ? ", " : "") + "\"node" + std::to_string((i % 4) * 8 + i / 4) + "\"";
    }
    const Report listed = plan_text(layout_32("{\"hosts\": [" + hosts + "]}"));
    const Report fabric = plan_text(layout_32("{\"hosts\": [" + hosts + "], \"order\": \"fabric\"}"));
    CHECK(listed.placement.node[8] == 8);  // rank 8 is on the list's second host, node8
    for (std::int64_t rank = 0; rank < fabric.placement.world(); ++rank) {
        CHECK(fabric.placement.node[static_cast<std::size_t>(rank)] == rank / 8);  // leaf-major: node order again
    }
    CHECK(fabric.placement.description.rfind("fabric order (leaf-major) of", 0) == 0);
    const SchedulerLevels a = scheduler_levels(listed.cluster, listed.placement, listed.groups);
    const SchedulerLevels b = scheduler_levels(fabric.cluster, fabric.placement, fabric.groups);
    CHECK(kind_of(a, "dp").span == SchedLevel::Cluster);  // the listed order scatters dp over pods
    CHECK(kind_of(b, "dp").span == SchedLevel::Leaf);
    const auto j = nlohmann::json::parse(scheduler_json(fabric));
    CHECK(j["placement"]["order"] == "fabric");
    CHECK(j["placement"]["node_order"][1] == "node1");
    CHECK(hostfile_text(fabric).find("\nnode0 slots=8\nnode1 slots=8\n") != std::string::npos);
}

TEST_CASE("placement order: unknown names and an order over an explicit rank map are refused") {
    CHECK_THROWS_WITH_AS(plan_text(layout_32("{\"order\": \"leafy\"}")), doctest::Contains("unknown order 'leafy'"), Error);
    std::string ranks;
    for (int i = 0; i < 256; ++i) {
        ranks += std::string(i ? ", " : "") + "{\"host\": \"node" + std::to_string(i / 8) + "\", \"gpu\": " + std::to_string(i % 8) + "}";
    }
    CHECK_THROWS_WITH_AS(plan_text(layout_32("{\"ranks\": [" + ranks + "], \"order\": \"fabric\"}")),
                         doctest::Contains("no node order"), Error);
}

TEST_CASE("slurm_hostlist folds runs and expand_hostlist gives them back") {
    CHECK(slurm_hostlist({"node0", "node1", "node2", "node3"}) == "node[0-3]");
    CHECK(slurm_hostlist({"node0", "node2"}) == "node[0,2]");
    CHECK(slurm_hostlist({"gpu01", "gpu02", "gpu10"}) == "gpu[01-02,10]");
    CHECK(slurm_hostlist({"a", "b1"}) == "a,b1");
    CHECK(slurm_hostlist({"su0"}) == "su0");
    for (const std::vector<std::string>& hosts :
         {std::vector<std::string>{"n9", "n10", "n11"}, {"gpu008", "gpu009", "gpu010", "x"}, {"node3", "node1", "node2"},
          {"gpu09", "gpu10", "gpu12"}}) {
        CHECK(expand_hostlist(slurm_hostlist(hosts), "test") == hosts);
    }
}

TEST_CASE("topology.conf reads back through the Slurm reader as the cluster's tree") {
    const Report r = plan_text(layout_32());
    const std::string conf = slurm_topology_conf(r);
    const FabricTopology t = read_slurm_topology(conf, "generated");
    CHECK(t.plugin == "tree");
    CHECK(t.warnings.empty());
    REQUIRE(t.switches.size() == 4 + 2 + 1);  // units, pods, core
    CHECK(t.switches[0].name == "su0");
    CHECK(t.switches[0].nodes.size() == 8);
    CHECK(t.switches[4].children == std::vector<std::string>{"su0", "su1"});
    CHECK(t.switches[6].children == std::vector<std::string>{"pod0", "pod1"});
    CHECK(conf.find("# BlockName=su3 Nodes=node[24-31]\n") != std::string::npos);
    CHECK(conf.find("# BlockSizes=8,16\n") != std::string::npos);
    CHECK(conf.find("#SBATCH --switches=4@") != std::string::npos);
    // The block lines, uncommented, read back as a block topology.
    std::string blocks;
    for (std::size_t at = conf.find("# BlockName="); at != std::string::npos; at = conf.find("\n# Block", at + 1)) {
        const std::size_t from = conf[at] == '\n' ? at + 3 : at + 2;
        blocks += conf.substr(from, conf.find('\n', from) - from) + "\n";
    }
    const FabricTopology b = read_slurm_topology(blocks, "generated blocks");
    CHECK(b.plugin == "block");
    CHECK(b.blocks.size() == 4);
    CHECK(b.block_sizes == std::vector<int>{8, 16});
}

TEST_CASE("topology.yaml reads back through the Slurm topology.yaml reader: the tree and the blocks") {
    const Report r = plan_text(layout_32());
    const std::string yaml = slurm_topology_yaml(r);
    const FabricTopology conf = read_slurm_topology(slurm_topology_conf(r), "generated conf");
    const FabricTopology tree = read_slurm_topology_yaml(yaml, "generated yaml");  // the cluster default
    CHECK(tree.plugin == "tree");
    REQUIRE(tree.warnings.size() == 1);  // only the note that the file defines a second topology
    CHECK(tree.warnings[0].find("also defines block") != std::string::npos);
    REQUIRE(tree.switches.size() == conf.switches.size());
    for (std::size_t i = 0; i < conf.switches.size(); ++i) {
        CHECK(tree.switches[i].name == conf.switches[i].name);
        CHECK(tree.switches[i].tier == conf.switches[i].tier);
        CHECK(tree.switches[i].nodes == conf.switches[i].nodes);
        CHECK(tree.switches[i].children == conf.switches[i].children);
    }
    const FabricTopology blocks = read_slurm_topology_yaml(yaml, "generated yaml", "block");
    CHECK(blocks.plugin == "block");
    REQUIRE(blocks.blocks.size() == 4);
    CHECK(blocks.blocks[3].name == "su3");
    CHECK(blocks.blocks[3].nodes.size() == 8);
    CHECK(blocks.block_sizes == std::vector<int>{8, 16});
}

TEST_CASE("Kueue: required slices at the leaf level for the 4-node EP16 job, nothing required for 32-node TP8/EP8") {
    const std::string four = kueue_yaml(plan_text(k4Node));
    CHECK(four.find("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\n") != std::string::npos);
    CHECK(four.find("kueue.x-k8s.io/podset-preferred-topology: \"fabric.topograph.run/tier-1\"") != std::string::npos);
    CHECK(four.find("kueue.x-k8s.io/podset-slice-required-topology: \"fabric.topograph.run/tier-0\"") != std::string::npos);
    CHECK(four.find("kueue.x-k8s.io/podset-slice-size: \"2\"") != std::string::npos);
    const std::string big = kueue_yaml(plan_text(layout_32()));
    CHECK(big.find("podset-slice") == std::string::npos);
    CHECK(big.find("podset-preferred-topology: \"fabric.topograph.run/tier-1\"") != std::string::npos);
}

TEST_CASE("Kueue and Volcano: a job whose required kind spans all its nodes must stay in that domain") {
    // EP32 on 4 nodes of one unit: ep spans the whole job, inside one leaf group.
    const Report r = plan_text(R"({"cluster": {"nodes": 4, "node": "h100-hgx-8gpu-8nic",
        "fabric": {"rails": "aligned", "nodes_per_su": 4}}, "parallel": {"tp": 1, "ep": 32}})");
    const std::string k = kueue_yaml(r);
    CHECK(k.find("kueue.x-k8s.io/podset-required-topology: \"fabric.topograph.run/tier-0\"") != std::string::npos);
    const std::string v = volcano_yaml(r);
    CHECK(v.find("  networkTopology:\n    mode: hard\n    highestTierAllowed: 1\n") != std::string::npos);
    CHECK(slurm_topology_conf(r).find("#SBATCH --segment=4") != std::string::npos);
}

TEST_CASE("Volcano: one tier-1 HyperNode per unit with exact node members, tier 2 per pod, tier 3 above") {
    const std::string v = volcano_yaml(plan_text(layout_32()));
    CHECK(v.find("kind: HyperNode\nmetadata:\n  name: \"su0\"\nspec:\n  tier: 1\n  members:\n    - type: Node\n      selector:\n"
                 "        exactMatch:\n          name: \"node0\"\n") != std::string::npos);
    CHECK(v.find("  name: \"pod1\"\nspec:\n  tier: 2\n") != std::string::npos);
    CHECK(v.find("  name: \"core\"\nspec:\n  tier: 3\n") != std::string::npos);
    CHECK(v.find("mode: soft\n    highestTierAllowed: 3\n") != std::string::npos);
}

TEST_CASE("the outputs are deterministic") {
    const Report r = plan_text(k4Node);
    CHECK(slurm_topology_yaml(r) == slurm_topology_yaml(plan_text(k4Node)));
    CHECK(volcano_yaml(r) == volcano_yaml(plan_text(k4Node)));
}

TEST_CASE("an imported topology.conf written back by --format slurm-topology gives the same switches") {
    // topograph's simulated OCI tree: 12 leaves of 8 nodes, 6 spines of 2 leaves, one core switch.
    const std::string path = std::string(PLANLAYOUT_FIXTURES_DIR) + "/slurm-topology/topograph-expected-oci-sim-tree-topology.conf";
    const FabricTopology in = read_slurm_topology(read_text_file(path), "in");
    nlohmann::json layout = {{"cluster", {{"node", "h100-hgx-8gpu-8nic"}, {"topology", to_json(in)}}},
                             {"parallel", {{"tp", 8}, {"pp", 4}}}};
    const Report r = plan_text(layout.dump());
    const FabricTopology out = read_slurm_topology(slurm_topology_conf(r), "generated");
    auto key = [](const FabricTopology& f) {
        std::vector<std::tuple<std::string, int, std::vector<std::string>, std::vector<std::string>>> k;
        for (const auto& s : f.switches) {
            k.emplace_back(s.name, s.tier, s.children, s.nodes);
        }
        std::sort(k.begin(), k.end());
        return k;
    };
    CHECK(key(out) == key(in));
    CHECK(r.cluster.nodes.front().host == "srv1101");
}

// ---- issue 27 item 4: names put straight into a report (as a library caller could) ------------

namespace {

std::size_t count_lines_starting(const std::string& text, const std::string& prefix) {
    std::size_t n = 0;
    for (std::size_t at = 0; at < text.size();) {
        const auto nl = text.find('\n', at);
        n += text.compare(at, prefix.size(), prefix) == 0 ? 1 : 0;
        at = nl == std::string::npos ? text.size() : nl + 1;
    }
    return n;
}

}  // namespace

TEST_CASE("hostile switch names and label keys: topology.conf refuses them, YAML quotes them, comments stay one line") {
    const std::string evil = "evil\nSwitchName=evil Nodes=attacker[1-9]\napiVersion: evil\n";
    Report r = plan_text(layout_32());
    const Report clean = r;
    r.cluster.su_names = {evil, "su1", "su2", "su3"};
    r.cluster.pod_names = {"pod0\n# x\nkind: Evil", "pod1"};
    r.cluster.core_name = "core\"";
    // topology.conf has no quoting: the writer refuses (a bug: readers refuse such names at entry).
    CHECK_THROWS_AS((void)slurm_topology_conf(r), Error);
    try {
        (void)slurm_topology_conf(r);
    } catch (const Error& e) {
        CHECK(e.code() == ExitCode::Internal);
    }
    // The YAML formats: the same lines as for clean names, no line of the attacker's.
    for (const auto& [name, text, base] :
         {std::tuple{"slurm-topology-yaml", slurm_topology_yaml(r), slurm_topology_yaml(clean)},
          std::tuple{"volcano", volcano_yaml(r), volcano_yaml(clean)}}) {
        const std::string format = name;  // clang 14 cannot capture a structured binding
        CAPTURE(format);
        // The same lines but comments (a renamed name adds one comment line: issue 41 item 8).
        CHECK(std::count(text.begin(), text.end(), '\n') - count_lines_starting(text, "#") ==
              std::count(base.begin(), base.end(), '\n') - count_lines_starting(base, "#"));
        CHECK(count_lines_starting(text, "SwitchName=evil") == 0);
        CHECK(count_lines_starting(text, "apiVersion: evil") == 0);
        CHECK(count_lines_starting(text, "kind: Evil") == 0);
    }
    // Kueue: the node labels the nodes carry (k8s) in its Topology and its comments.
    r.cluster.node_labels = {"tier0\nkind: Evil", "tier1\"\n---\nkind: Evil"};
    Report labelled = clean;
    labelled.cluster.node_labels = {"tier0", "tier1"};
    const std::string k = kueue_yaml(r);
    const std::string kb = kueue_yaml(labelled);
    CHECK(std::count(k.begin(), k.end(), '\n') - count_lines_starting(k, "#") ==
          std::count(kb.begin(), kb.end(), '\n') - count_lines_starting(kb, "#"));
    CHECK(count_lines_starting(k, "kind: Evil") == 0);
    CHECK(count_lines_starting(k, "---") == 1);
    CHECK(k.find("nodeLabel: \"tier0\\x0Akind: Evil\"") != std::string::npos);
}
