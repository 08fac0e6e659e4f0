// Tests: issue 30's remaining items - the schedulers asked for the NVLink domain level (Slurm
// topology/block + --segment, a Kueue clique level, a Volcano tier), verify's MNNVL checks on NCCL
// logs written from NCCL's own format strings (tests/data/mnnvl/SOURCES.md), NVLS all-reduce
// inside a domain, and the leaf uplinks' oversubscription priced in the cost model.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/sched_levels.hpp"
#include "planlayout/emit/sched_topology_emit.hpp"
#include "planlayout/emit/scheduler_emit.hpp"
#include "planlayout/ingest/nccl_log.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/ingest/slurm_topology.hpp"
#include "planlayout/model/cost.hpp"
#include "planlayout/plan.hpp"
#include "planlayout/verify/verify.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
using nlohmann::json;

namespace {

const std::string kSrc = PLANLAYOUT_TEST_DATA_DIR;  // tests/data

Report plan_file(const std::string& path, const std::function<void(json&)>& edit = {}) {
    PlanRequest request;
    json layout = parse_json_text(read_text_file(path), path);
    if (edit) {
        edit(layout);
    }
    request.layout_json = layout;
    request.layout_name = path;
    request.base_dir = path.substr(0, path.rfind('/'));
    return plan(request);
}

Report gb200() { return plan_file(kSrc + "/../../layouts/gb200-2rack-ep64.json"); }

const KindLevel& kind_of(const SchedulerLevels& s, const std::string& name) {
    for (const auto& k : s.kinds) {
        if (k.kind == name) {
            return k;
        }
    }
    FAIL("no kind " << name);
    return s.kinds.front();
}

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

}  // namespace

TEST_CASE("scheduler levels on two GB200 racks: EP 64 must stay inside one NVLink domain, 16 trays a slice") {
    const Report r = gb200();
    const SchedulerLevels s = scheduler_levels(r.cluster, r.placement, r.groups);
    CHECK(s.domain_level);
    CHECK(s.domains_used == 2);
    CHECK(kind_of(s, "ep").span == SchedLevel::Domain);
    CHECK(kind_of(s, "ep").slice_nodes == 16);
    CHECK(kind_of(s, "dp").span == SchedLevel::Leaf);  // both racks under one leaf group
    CHECK(s.required == SchedLevel::Domain);
    CHECK(s.slice_nodes == 16);
    CHECK(s.job_span == SchedLevel::Leaf);
    CHECK_FALSE(s.job_required);
    CHECK(std::string(to_string(SchedLevel::Domain)) == "nvlink-domain");
    // Without the domains the same EP 64 spans the leaf group, and there is no domain level.
    const Report flat = plan_file(kSrc + "/../../layouts/gb200-2rack-ep64.json", [](json& l) { l["cluster"].erase("nvlink_domain"); });
    const SchedulerLevels f = scheduler_levels(flat.cluster, flat.placement, flat.groups);
    CHECK_FALSE(f.domain_level);
    CHECK(kind_of(f, "ep").span == SchedLevel::Leaf);
}

TEST_CASE("Slurm: topology/block with one block per NVLink domain leads, --segment keeps each EP group in one") {
    const Report r = gb200();
    const std::string conf = slurm_topology_conf(r);
    CHECK(has(conf, "(TopologyPlugin=topology/block, one block per NVLink domain)"));
    CHECK(has(conf, "\nBlockName=nvl0 Nodes=r0-tray[0-17]\nBlockName=nvl1 Nodes=r1-tray[18-35]\nBlockSizes=18\n"));
    CHECK(has(conf, "#   #SBATCH --segment=16   # topology/block: each 16 node(s) inside one block (one NVLink domain)"));
    CHECK(has(conf, "# SwitchName=su0 Nodes=r0-tray[0-17],r1-tray[18-35]\n"));  // the tree, commented
    // The block lines read back through the Slurm reader.
    const FabricTopology b = read_slurm_topology(conf, "generated");
    CHECK(b.plugin == "block");
    REQUIRE(b.blocks.size() == 2);
    CHECK(b.blocks[1].name == "nvl1");
    CHECK(b.blocks[1].nodes.size() == 18);
    CHECK(b.block_sizes == std::vector<int>{18});
    const std::string yaml = slurm_topology_yaml(r);
    const FabricTopology y = read_slurm_topology_yaml(yaml, "generated yaml");  // the cluster default
    CHECK(y.plugin == "block");
    CHECK(y.blocks.size() == 2);
    CHECK(read_slurm_topology_yaml(yaml, "generated yaml", "tree").plugin == "tree");
}

TEST_CASE("the launch script names the same --segment for topology/block") {
    const std::string script = launch_text(gb200());
    CHECK(has(script, "#SBATCH --switches=1\n# with TopologyPlugin=topology/block (one block per NVLink domain) use instead of "
                      "--switches:\n#   #SBATCH --segment=16   (each 16 node(s) inside one NVLink domain)\n"));
}

TEST_CASE("Kueue: a clique level under the leaf, the EP slices required there") {
    const std::string k = kueue_yaml(gb200());
    CHECK(has(k, "    - nodeLabel: \"fabric.topograph.run/tier-0\"\n    - nodeLabel: \"nvidia.com/gpu.clique\"\n"
                 "    - nodeLabel: \"kubernetes.io/hostname\"\n"));
    CHECK(has(k, "kueue.x-k8s.io/podset-preferred-topology: \"fabric.topograph.run/tier-0\"\n"));
    CHECK(has(k, "kueue.x-k8s.io/podset-slice-required-topology: \"nvidia.com/gpu.clique\"\n"));
    CHECK(has(k, "kueue.x-k8s.io/podset-slice-size: \"16\"\n"));
}

TEST_CASE("Volcano: the NVLink domains are tier 1, the EP partitions hard at tier 1") {
    const std::string v = volcano_yaml(gb200());
    CHECK(has(v, "  name: \"nvl0\"\nspec:\n  tier: 1\n  members:\n    - type: Node\n"));
    CHECK(has(v, "  name: \"su0\"\nspec:\n  tier: 2\n  members:\n    - type: HyperNode\n      selector:\n        exactMatch:\n"
                 "          name: \"nvl0\"\n"));
    CHECK(has(v, "  networkTopology:\n    mode: soft\n    highestTierAllowed: 2\n"));
    CHECK(has(v, "        totalPartitions: 2\n        partitionSize: 16\n        networkTopology:\n          mode: hard\n"
                 "          highestTierAllowed: 1\n"));
}

namespace {

// verify-4tray-ep8.json's placement: rank r on tray r/4, GPU r%4, NIC r%4; trays 0-1 and 2-3 one domain each.
verify::VerifyExpectation four_trays(bool domains) {
    std::vector<verify::RankPlacement> placement;
    for (int r = 0; r < 16; ++r) {
        verify::RankPlacement p;
        p.rank = r;
        p.node = r / 4;
        p.local_gpu = r % 4;
        p.nic_index = r % 4;
        p.domain = domains ? r / 8 : -1;
        placement.push_back(p);
    }
    return verify::expectation_from_placement(placement, {}, verify::ExpectedTransport::GdrDma);
}

verify::VerifyReport verify_file(const std::string& name, bool domains) {
    const std::string path = kSrc + "/mnnvl/" + name;
    return verify::verify_log(parse_nccl_log(read_text_file(path), name), four_trays(domains));
}

const Finding* finding(const verify::VerifyReport& r, const std::string& code) {
    for (const auto& f : r.findings) {
        if (f.code == code) {
            return &f;
        }
    }
    return nullptr;
}

}  // namespace

TEST_CASE("NCCL log: the MNNVL, comm and NVLS lines are read as NCCL prints them") {
    const NcclLog on = parse_nccl_log(read_text_file(kSrc + "/mnnvl/4tray-mnnvl-on.log"), "on");
    REQUIRE(on.mnnvl_lines.size() == 16);
    CHECK(on.mnnvl_lines[5].enabled);
    CHECK(on.mnnvl_lines[5].clique_id == "2");
    CHECK(on.mnnvl_lines[5].clique_size == 8);
    CHECK(on.mnnvl_lines[5].clique_rank == 5);
    CHECK(on.mnnvl_lines[5].nvl_domain_size == 8);
    CHECK(on.mnnvl_lines[9].clique_id == "3");
    CHECK(on.ranks.at(9).mnnvl == 1);
    REQUIRE(on.nvls_lines.size() == 16);
    CHECK(on.nvls_lines[3].available);
    CHECK(on.nvls_lines[3].dev == 3);
    // 2.21's form: a trailing space, no nvlDomainSize; and NVLS not available.
    const NcclLog off = parse_nccl_log(read_text_file(kSrc + "/mnnvl/4tray-mnnvl-off.log"), "off");
    REQUIRE(off.mnnvl_lines.size() == 16);
    CHECK_FALSE(off.mnnvl_lines[0].enabled);
    CHECK(off.mnnvl_lines[0].nvl_domain_size == -1);
    CHECK(off.ranks.at(0).mnnvl == 0);
    CHECK_FALSE(off.nvls_lines[0].available);
    // The fabric dump's 'MNNVL busId ...' line is not a decision line.
    CHECK(parse_nccl_log("h:1:1 [0] NCCL INFO MNNVL busId 0x1b000 fabric UUID 1.2 cliqueId 0x2 state 3 healthMask 0x0\n", "x")
              .mnnvl_lines.empty());
}

TEST_CASE("verify: MNNVL on - P2P between the trays of a domain passes, NET only between domains") {
    const verify::VerifyReport r = verify_file("4tray-mnnvl-on.log", true);
    CHECK(r.errors == 0);
    const Finding* on = finding(r, "mnnvl-on");
    REQUIRE(on != nullptr);
    // Two channels, two tray boundaries inside a domain each: 4 connections over P2P/MNNVL.
    CHECK(has(on->message, "4 connection(s) between nodes of one NVLink domain over NVLink (P2P)"));
    CHECK(finding(r, "nvls-available") != nullptr);
    CHECK(finding(r, "mnnvl-over-network") == nullptr);
    // The plan without domains: P2P between trays is a placement mismatch, and MNNVL is unplanned.
    const verify::VerifyReport flat = verify_file("4tray-mnnvl-on.log", false);
    CHECK(finding(flat, "placement-mismatch") != nullptr);
    CHECK(finding(flat, "mnnvl-unplanned") != nullptr);
}

TEST_CASE("verify: MNNVL off - the domain's trays joined over the network are errors") {
    const verify::VerifyReport r = verify_file("4tray-mnnvl-off.log", true);
    const Finding* off = finding(r, "mnnvl-off");
    REQUIRE(off != nullptr);
    CHECK(off->severity == Severity::Error);
    CHECK(has(off->message, "NCCL logged MNNVL 0 (16 MNNVL line(s), 16 comm line(s); first: 4tray-mnnvl-off.log:4 (tray0:5100))"));
    const Finding* net = finding(r, "mnnvl-over-network");
    REQUIRE(net != nullptr);
    CHECK(net->severity == Severity::Error);
    CHECK(has(net->message, "ranks 3->4 are on nodes 0 and 1 of one NVLink domain (MNNVL) but NCCL connected them over the network"));
    CHECK(finding(r, "nvls-unavailable") != nullptr);
    // The same log against a plan without domains: the network between trays is what it expects.
    const verify::VerifyReport flat = verify_file("4tray-mnnvl-off.log", false);
    CHECK(flat.errors == 0);
    CHECK(finding(flat, "mnnvl-off") == nullptr);
}

TEST_CASE("NVLS: an all-reduce inside one NVLink domain runs at 2 x 0.74 x 23/24 of NVLink, not the ring's 0.8") {
    PlacedGroup g;
    g.n = 8;
    g.nodes = 1;  // one island: two trays of one domain
    g.max_per_node = 8;
    g.worst_intra = PathClass::Mnnvl;
    g.worst_cross = PathClass::Loc;
    g.nvlink_gbyte_s = 900.0;
    const TransportModel x = transport_model(TransportSpec{}, Transport::Gdrdma);
    const double size = 1e9;
    const double volume = 2.0 * 7.0 / 8.0 * size;
    CHECK(nvls_busbw_factor() == doctest::Approx(2.0 * 0.74 * 23.0 / 24.0));
    const CollectiveCost nvls = all_reduce(g, size, x);
    CHECK(nvls.intra_s == doctest::Approx(volume / (nvls_busbw_factor() * 900e9)));
    CHECK(nvls.alpha_s == doctest::Approx(25e-6));
    CHECK(nvls.bottleneck == "NVLS");
    // Inside one HGX node (NV), or with NVLS off, the ring: 0.8 x NVLink, 2(n-1) steps.
    g.worst_intra = PathClass::Nv;
    CHECK(all_reduce(g, size, x).intra_s == doctest::Approx(volume / (0.8 * 900e9)));
    g.worst_intra = PathClass::Mnnvl;
    g.nvls = false;
    CHECK(all_reduce(g, size, x).intra_s == doctest::Approx(volume / (0.8 * 900e9)));
    // Two ranks and a small message: the ring's 2 steps of 3.4 us beat NVLS's 25 us; at 8 ranks
    // (14 steps, 47.6 us) NVLS wins at any size.
    g.nvls = true;
    CHECK(all_reduce(g, 1024, x).alpha_s == doctest::Approx(25e-6));
    g.n = 2;
    g.max_per_node = 2;
    CHECK(all_reduce(g, 1024, x).alpha_s == doctest::Approx(2 * 3.4e-6));
}

TEST_CASE("leaf oversubscription prices the straddle: 8 nodes over two leaves cost more at 2:1 than at 1:1") {
    const std::string layout = kSrc + "/irregular/superpod-partial-ep16.json";
    const auto straddle = [&](double oversubscription) {
        return plan_file(layout, [&](json& l) {
            l["cluster"]["fabric"] = {{"oversubscription", oversubscription}};
            l["placement"] = {{"hosts", {"h100-012", "h100-013", "h100-014", "h100-015", "h100-016", "h100-017", "h100-018", "h100-019"}}};
        });
    };
    const Report flat = straddle(1.0);
    const Report over = straddle(2.0);
    REQUIRE(flat.score);
    REQUIRE(over.score);
    // The last EP group and every DP group cross the spine (XRAIL): half the NIC bandwidth at 2:1.
    CHECK(over.score->step_time_s[1] > flat.score->step_time_s[1]);
    CHECK(over.score->step_time_s[0] == doctest::Approx(flat.score->step_time_s[0]));  // TCP does not ride the rails
    // Inside one leaf nothing changes.
    const auto inside = [&](double oversubscription) {
        return plan_file(layout, [&](json& l) { l["cluster"]["fabric"] = {{"oversubscription", oversubscription}}; });
    };
    CHECK(inside(2.0).score->step_time_s[1] == doctest::Approx(inside(1.0).score->step_time_s[1]));
}
