// Tests: Slurm topology.conf (tree and block) and hostlist expansion.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fixture_support.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/slurm_topology.hpp"

using planlayout::expand_hostlist;
using planlayout::read_slurm_topology;

TEST_CASE("hostlists expand in order with zero padding and several groups") {
    CHECK(expand_hostlist("node[01-03,7]", "x") ==
          std::vector<std::string>{"node01", "node02", "node03", "node7"});
    CHECK(expand_hostlist("circe-n[001-002],n[019-020]", "x") ==
          std::vector<std::string>{"circe-n001", "circe-n002", "n019", "n020"});
    CHECK(expand_hostlist("switch.1.[1-2]", "x") == std::vector<std::string>{"switch.1.1", "switch.1.2"});
    CHECK(expand_hostlist("r[1-2]n[1-2]", "x") ==
          std::vector<std::string>{"r1n1", "r1n2", "r2n1", "r2n2"});
    CHECK(expand_hostlist("a,b", "x") == std::vector<std::string>{"a", "b"});
    CHECK_THROWS_WITH_AS(expand_hostlist("n[1-3", "t.conf:4"),
                         "t.conf:4: '[' without ']' in hostlist 'n[1-3'; close the range: name[01-16]",
                         planlayout::Error);
    CHECK_THROWS_WITH_AS(expand_hostlist("n[5-3]", "t.conf:4"),
                         doctest::Contains("range '5-3' in hostlist 'n[5-3]' runs backwards"),
                         planlayout::Error);
    CHECK_THROWS_WITH_AS(expand_hostlist("n[0-9999999]", "t"), doctest::Contains("more than 1000000"),
                         planlayout::Error);
}

TEST_CASE("circe SuperPOD: five leaves, no parent, a node under two leaves, a missing prefix") {
    const auto f = read_slurm_topology(fixture::text("slurm-topology/dgx-superpod-circe-leaf-only-topology.conf"), "c.conf");
    CHECK(f.plugin == "tree");
    REQUIRE(f.switches.size() == 5);
    CHECK(f.switches[0].nodes.size() == 18);
    CHECK(f.switches[0].nodes.back() == "n020");
    CHECK(f.switches[4].nodes.size() == 8);
    for (const auto& s : f.switches) {
        CHECK(s.tier == 0);
    }
    REQUIRE(f.warnings.size() == 3);
    CHECK(f.warnings[0] == "switches s0, s1, s2, s3, s4 have no common parent: Slurm cannot place one job across them");
    CHECK(f.warnings[1] == "node 'circe-n051' is listed under s2 and s4");
    CHECK(f.warnings[2] == "2 host name(s) start with 'n' while 78 start with 'circe-n': a missing prefix in a hostlist?");
}

TEST_CASE("topograph tree: core → 6 spines → 12 leaves of 8 nodes, labels from comments") {
    const auto f = read_slurm_topology(fixture::text("slurm-topology/topograph-expected-oci-sim-tree-topology.conf"), "t.conf");
    REQUIRE(f.switches.size() == 19);
    CHECK(f.switches[0].name == "switch.3.1");
    CHECK(f.switches[0].label == "core");
    CHECK(f.switches[0].tier == 2);
    CHECK(f.switches[0].children.size() == 6);
    CHECK(f.switches[1].tier == 1);
    CHECK(f.switches[1].label == "spine-1");
    CHECK(f.switches[7].tier == 0);
    CHECK(f.switches[7].nodes.front() == "srv1101");
    CHECK(f.switches[18].label == "leaf-6-2");
    CHECK(f.warnings.empty());
    const auto j = planlayout::to_json(f);
    CHECK(j["node_entries"] == 96);
}

TEST_CASE("topograph block: 12 NVL racks of 8, block sizes 8,16,32") {
    const auto f = read_slurm_topology(fixture::text("slurm-topology/topograph-expected-dra-block-topology.conf"), "b.conf");
    CHECK(f.plugin == "block");
    REQUIRE(f.blocks.size() == 12);
    CHECK(f.blocks[0].label == "nvl-1-1");
    CHECK(f.blocks[11].nodes.back() == "srv6208");
    CHECK(f.block_sizes == std::vector<int>{8, 16, 32});
    CHECK(f.warnings.empty());
}

TEST_CASE("bad topology.conf lines name file:line") {
    using planlayout::Error;
    CHECK_THROWS_WITH_AS(read_slurm_topology("SwitchName=s0 Nodes=a[1-2]\nFooName=x\n", "t.conf"),
                         "t.conf:2: unknown line type 'fooname='; topology.conf lines start with "
                         "SwitchName=, BlockName= or BlockSizes=",
                         Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology("SwitchName=s0 Nodes=a[1-2]\nBlockName=b Nodes=a1\n", "t.conf"),
                         doctest::Contains("t.conf:2: BlockName in a file with SwitchName lines"), Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology("SwitchName=a Switches=b\nSwitchName=b Switches=a\n", "t.conf"),
                         "t.conf:2: switch 'a' is its own ancestor (a -> b -> a); remove the cycle from the "
                         "Switches= lists",
                         Error);
    CHECK_THROWS_WITH_AS(read_slurm_topology("# only a comment\n", "t.conf"),
                         doctest::Contains("t.conf: no SwitchName or BlockName lines"), Error);
}

// Reliability round 2: a 50,000-switch chain was a stack overflow (SIGSEGV) in the recursive tier
// walk, and a 100,000-switch cycle crashed instead of being reported. Generated here, not checked in.
namespace {
std::string switch_chain(int length, bool closed) {
    std::string text;
    for (int i = 0; i < length; ++i) {
        text += "SwitchName=s" + std::to_string(i) + " Switches=s" + std::to_string(i + 1) + "\n";
    }
    text += closed ? "SwitchName=s" + std::to_string(length) + " Switches=s0\n"
                   : "SwitchName=s" + std::to_string(length) + " Nodes=n[1-2]\n";
    return text;
}
}  // namespace

TEST_CASE("a 100,000-switch chain gets its tiers without recursion") {
    const auto f = read_slurm_topology(switch_chain(100000, false), "chain.conf");
    REQUIRE(f.switches.size() == 100001);
    CHECK(f.switches.back().tier == 0);
    CHECK(f.switches.front().tier == 100000);
    CHECK(f.switches[50000].tier == 50000);
}

TEST_CASE("a 100,000-switch cycle is reported with the line where it closes") {
    using planlayout::Error;
    CHECK_THROWS_WITH_AS(read_slurm_topology(switch_chain(100000, true), "cycle.conf"),
                         "cycle.conf:100001: switch 's0' is its own ancestor (s0 -> s1 -> s2 -> s3 -> s4 -> s5 -> "
                         "... (99995 more) -> s0); remove the cycle from the Switches= lists",
                         Error);
}
