// Tests: Slurm topology.yaml (Slurm 25.05+) → FabricTopology, on the EXAMPLE of topology.yaml(5)
// (tests/data/fixtures/slurm-topology-yaml/slurm-man-example-topology.yaml, source in SOURCES.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>

#include "fixture_support.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/detect_format.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/ingest/slurm_topology.hpp"

using planlayout::read_slurm_topology_yaml;

namespace {

const char* const kMan = "slurm-topology-yaml/slurm-man-example-topology.yaml";

bool warned(const planlayout::FabricTopology& f, const std::string& part) {
    return std::any_of(f.warnings.begin(), f.warnings.end(),
                       [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("the man page example: cluster_default picks the tree - --topology picks block or flat") {
    const std::string text = fixture::text(kMan);
    const auto tree = read_slurm_topology_yaml(text, "t.yaml");
    CHECK(tree.topology == "topo1");
    CHECK(tree.plugin == "tree");
    REQUIRE(tree.switches.size() == 1);
    CHECK(tree.switches[0].name == "sw_root");
    CHECK(tree.switches[0].nodes.size() == 4);
    CHECK(tree.switches[0].nodes[3] == "node04");
    CHECK(warned(tree, "the file also defines topo2 (block), topo3 (flat); read another with --topology NAME"));

    const auto block = read_slurm_topology_yaml(text, "t.yaml", "topo2");
    CHECK(block.plugin == "block");
    CHECK(block.block_sizes == std::vector<int>{4, 16});
    REQUIRE(block.blocks.size() == 4);
    CHECK(block.blocks[3].name == "b4");
    CHECK(block.blocks[3].nodes.front() == "node13");

    const auto flat = read_slurm_topology_yaml(text, "t.yaml", "topo3");
    CHECK(flat.plugin == "flat");
    CHECK(flat.switches.empty());
    CHECK(warned(flat, "is flat"));

    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml(text, "t.yaml", "topo9"),
                         "t.yaml: no topology named 'topo9'; pick one of: topo1, topo2, topo3", planlayout::Error);
    CHECK(planlayout::detect_format(text) == planlayout::CaptureFormat::SlurmYaml);
}

TEST_CASE("a two-tier tree: children as a hostlist, nodes as a YAML list, tiers as topology.conf gives") {
    const auto f = read_slurm_topology_yaml(
        planlayout::read_text_file(std::string(PLANLAYOUT_TEST_DATA_DIR) + "/slurm-yaml/two-tier-tree-topology.yaml"),
        "two.yaml");
    REQUIRE(f.switches.size() == 4);
    CHECK(f.switches[2].nodes.size() == 6);
    CHECK(f.switches[2].nodes[1] == "dev13");
    CHECK(f.switches[3].children == std::vector<std::string>{"s0", "s1", "s2"});
    CHECK(f.switches[3].tier == 1);
    CHECK(f.switches[0].tier == 0);
    CHECK(f.warnings.empty());
}

TEST_CASE("bad topology.yaml: one line naming file:line, what and the fix") {
    using planlayout::Error;
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml("- topology: a\n  tree:\n    switches:\n    - switch: s\n      nodes: n[1-\n",
                                                  "b.yaml"),
                         "b.yaml:5: '[' without ']' in hostlist 'n[1-'; close the range: name[01-16]", Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml("- topology: a\n  tree:\n   switches: [\n", "b.yaml"),
                         doctest::Contains("b.yaml:4: YAML: "), Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml("- topology: a\n  flat: true\n  tree: {switches: []}\n", "b.yaml"),
                         "b.yaml:3: topology has both 'flat' and 'tree'; each topology is exactly one of tree, block or flat",
                         Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml("- topology: a\n  trees: {}\n", "b.yaml"),
                         "b.yaml:2: unknown key 'trees' in a topology; use topology, cluster_default, tree, block, flat",
                         Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml("- cluster_default: true\n  topology: a\n  flat: true\n", "b.yaml"),
                         doctest::Contains("b.yaml:1: topology 'a' does not start with its name"), Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml("- topology: a\n  cluster_default: maybe\n  flat: true\n", "b.yaml"),
                         "b.yaml:2: cluster_default is 'maybe', not true or false; write cluster_default: true", Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml("- topology: a\n  block:\n    block_sizes: [0]\n    blocks:\n    - block: b\n      nodes: n1\n",
                                                  "b.yaml"),
                         doctest::Contains("b.yaml:3: block size '0' is not a positive node count"), Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml("- topology: a\n  tree:\n    switches:\n    - nodes: n1\n", "b.yaml"),
                         "b.yaml:4: a switch without 'switch:' (its name); add switch: NAME", Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml("topology: a\n", "b.yaml"),
                         doctest::Contains("b.yaml:1: the file is not a list"), Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml("- topology: a\n  tree:\n    switches:\n    - switch: s1\n      children: s2\n    - switch: s2\n      children: s1\n",
                                                  "b.yaml"),
                         doctest::Contains("b.yaml:"), Error);
}

TEST_CASE("YAML nested deeper than kMaxYamlDepth is refused on libyaml's events, fast (issue 27 item 8)") {
    using planlayout::Error;
    // 100,000 nested flow sequences took 55 s in libyaml's loader before this check.
    const std::string flow = "- topology: a\n  tree: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
    const auto start = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml(flow, "deep.yaml"),
                         doctest::Contains("deep.yaml:2: YAML nested more than 256 levels deep (kMaxYamlDepth)"), Error);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
    // Block mappings count too; 250 levels are read (and refused for what they hold, not their depth).
    std::string block = "- topology: a\n  tree:\n";
    for (int i = 0; i < 300; ++i) {
        block += std::string(static_cast<std::size_t>(4 + 2 * i), ' ') + "k:\n";
    }
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml(block, "b.yaml"), doctest::Contains("levels deep"), Error);
    const std::string ok = "- topology: a\n  tree: " + std::string(250, '[') + std::string(250, ']') + "\n";
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml(ok, "ok.yaml"), doctest::Contains("ok.yaml:2: tree is not a mapping"), Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology_yaml(std::string(planlayout::kMaxCaptureBytes + 1, '#'), "big.yaml"),
                         doctest::Contains("(kMaxCaptureBytes)"), Error);
}
