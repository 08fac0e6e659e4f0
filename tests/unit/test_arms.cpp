// Tests: the arms compared follow the hardware of the used GPUs (analysis/arms.hpp), and the
// score, search and compare carry the same decision.
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/arms.hpp"
#include "planlayout/analysis/pipeline.hpp"
#include "planlayout/analysis/search.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/node_template_json.hpp"
#include "planlayout/ingest/read_file.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A 2-GPU box: GPU0 and GPU1 behind switch SW0 on CPU0; one 400G NIC whose parent and RDMA
// flag the test picks (SW0: PIX; CPU0: PHB; CPU1: SYS); optional gdr_level.
json box(const std::string& name, const std::string& nic_parent, bool rdma, const std::string& gdr_level = "") {
    json t = {{"name", name},
              {"cpus", {{{"name", "CPU0"}, {"numa", 0}}, {{"name", "CPU1"}, {"numa", 1}}}},
              {"pcie_switches", {{{"name", "SW0"}, {"parent", "CPU0"}}}},
              {"gpus", {{{"name", "GPU0"}, {"parent", "SW0"}, {"numa", 0}}, {{"name", "GPU1"}, {"parent", "SW0"}, {"numa", 0}}}},
              {"nics",
               {{{"name", "NIC0"}, {"device", "mlx5_0"}, {"parent", nic_parent}, {"numa", nic_parent == "CPU1" ? 1 : 0},
                 {"speed_gbit_s", 400}, {"rdma", rdma}}}},
              {"tcp", {{{"name", "eth0"}, {"speed_gbit_s", 100}, {"numa", 0}}}}};
    if (!gdr_level.empty()) {
        t["gdr_level"] = gdr_level;
    }
    return t;
}

Cluster cluster_of(const json& node, int nodes = 2) {
    return cluster_from_json(json{{"nodes", nodes}, {"node", node}}, "c.json", "/cluster", ".");
}

TransportSpec spec_of(const std::string& compare_json) {
    return transport_spec_from_json(json::parse(compare_json), "l.json");
}

ArmChoice arms_on(const Cluster& c, const TransportSpec& spec = {}) {
    return choose_arms(c, node_major_placement(c, c.total_gpus()), spec);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a GPU next to its RDMA NIC keeps the arms asked for, with nothing to say") {
    const ArmChoice a = arms_on(cluster_of(box("pix-box", "SW0", true)));
    CHECK(a.spans_nodes);
    CHECK(a.reach == NetworkReach::GpuDirect);
    CHECK(a.baseline == Transport::Tcp);
    CHECK(a.candidate == Transport::Gdrdma);
    CHECK_FALSE(a.single_arm());
    CHECK(a.reasons.empty());
    CHECK(a.warnings.empty());
    CHECK_FALSE(a.what_if.has_value());
}

TEST_CASE("no RDMA NIC: the TCP arm only, the reason names the template, and a what-if with rail NICs") {
    const Cluster c = cluster_of(box("eth-box", "SW0", false));
    const ArmChoice a = arms_on(c);
    CHECK(a.reach == NetworkReach::NoRdma);
    CHECK(a.single_arm());
    CHECK(a.baseline == Transport::Tcp);
    CHECK(a.candidate == Transport::Tcp);
    REQUIRE(a.reasons.size() == 1);
    CHECK(contains(a.reasons[0], "no RDMA NIC for compute traffic on eth-box (node0)"));
    CHECK(contains(a.reasons[0], "no RDMA benefit is claimed"));
    CHECK(a.warnings.empty());  // the layout did not name the arms: a reason, not a warning
    REQUIRE(a.what_if.has_value());
    CHECK(a.what_if->add_rail_nics);
    CHECK(a.what_if->transport == Transport::Gdrdma);
    // rdma was asked for as the candidate: tcp only too.
    CHECK(arms_on(c, spec_of(R"({"compare": ["tcp", "rdma"]})")).single_arm());
    // A storage RDMA NIC carries no compute traffic.
    json storage = box("storage-box", "SW0", true);
    storage["nics"][0]["role"] = "storage";
    CHECK(arms_on(cluster_of(storage)).reach == NetworkReach::NoRdma);
}

TEST_CASE("a NIC reached through the CPU makes the RDMA arm host-staged, and says which gdr_level would cover it") {
    const ArmChoice phb = arms_on(cluster_of(box("phb-box", "CPU0", true)));
    CHECK(phb.reach == NetworkReach::HostStaged);
    CHECK(phb.baseline == Transport::Tcp);
    CHECK(phb.candidate == Transport::Rdma);
    REQUIRE(phb.reasons.size() == 1);
    CHECK(contains(phb.reasons[0], "GPU0 of phb-box (node0) reaches its NIC mlx5_0 only through the CPU (PHB)"));
    CHECK(contains(phb.reasons[0], "gdr_level PXB, NCCL_NET_GDR_LEVEL's default"));
    CHECK(contains(phb.reasons[0], "set \"gdr_level\": \"PHB\""));
    REQUIRE(phb.what_if.has_value());
    CHECK_FALSE(phb.what_if->add_rail_nics);

    const ArmChoice sys = arms_on(cluster_of(box("sys-box", "CPU1", true)));
    CHECK(sys.candidate == Transport::Rdma);
    CHECK(contains(sys.reasons.at(0), "(SYS)"));
    // rdma against gdrdma: both arms are host-staged, so one arm.
    CHECK(arms_on(cluster_of(box("sys-box", "CPU1", true)), spec_of(R"({"compare": ["rdma", "gdrdma"]})")).single_arm());
    // tcp against rdma needs no GPUDirect: unchanged.
    const ArmChoice host = arms_on(cluster_of(box("sys-box", "CPU1", true)), spec_of(R"({"compare": ["tcp", "rdma"]})"));
    CHECK(host.candidate == Transport::Rdma);
    CHECK(host.reasons.empty());
}

TEST_CASE("the template's gdr_level says how far GPUDirect reaches") {
    CHECK(arms_on(cluster_of(box("sys-ok", "CPU1", true, "SYS"))).candidate == Transport::Gdrdma);
    CHECK(arms_on(cluster_of(box("phb-ok", "CPU0", true, "PHB"))).candidate == Transport::Gdrdma);
    CHECK(arms_on(cluster_of(box("phb-not-sys", "CPU1", true, "PHB"))).candidate == Transport::Rdma);
    const ArmChoice off = arms_on(cluster_of(box("gdr-off", "SW0", true, "LOC")));
    CHECK(off.candidate == Transport::Rdma);
    CHECK(contains(off.reasons.at(0), "GPUDirect RDMA is off on gdr-off (node0) (gdr_level LOC)"));
    CHECK_THROWS_WITH_AS((void)cluster_of(box("bad", "SW0", true, "RAIL")), doctest::Contains("gdr_level"), Error);
    CHECK_THROWS_WITH_AS((void)cluster_of(box("bad", "SW0", true, "NV")), doctest::Contains("LOC, PIX, PXB, PHB, NODE or SYS"),
                         Error);
}

TEST_CASE("a gdr_level written by import reads back - the default is not written") {
    const Cluster c = cluster_of(box("sys-ok", "CPU1", true, "SYS"));
    const json out = to_json(c.templates.front());
    CHECK(out.at("gdr_level") == "SYS");
    CHECK(node_template_from_json(out, "t.json").gdr_level == PathClass::Sys);
    CHECK_FALSE(to_json(cluster_of(box("pix", "SW0", true)).templates.front()).contains("gdr_level"));
}

TEST_CASE("an arm the layout names and the hardware cannot run is a warning naming the template") {
    const ArmChoice a = arms_on(cluster_of(box("eth-box", "SW0", false)), spec_of(R"({"compare": ["tcp", "gdrdma"]})"));
    REQUIRE(a.warnings.size() == 1);
    CHECK(a.warnings[0] ==
          "transport.compare asks for tcp with gdrdma, which the hardware cannot run: eth-box (node0) has no RDMA NIC for "
          "compute traffic; the score has the tcp arm only");
    const ArmChoice b = arms_on(cluster_of(box("phb-box", "CPU0", true)), spec_of(R"({"compare": ["tcp", "gdrdma"]})"));
    REQUIRE(b.warnings.size() == 1);
    CHECK(contains(b.warnings[0], "phb-box (node0): GPU0 reaches its NIC over PHB, beyond gdr_level PXB; comparing tcp "
                                  "with rdma instead"));
}

TEST_CASE("mixed nodes: the job's RDMA arm is only as good as the worst GPU it uses") {
    const json mixed = {{"nodes",
                         {{{"host", "good"}, {"node", box("pix-box", "SW0", true)}},
                          {{"host", "good2"}, {"node", box("pix-box", "SW0", true)}},
                          {{"host", "bad"}, {"node", box("eth-box", "SW0", false)}}}}};
    const Cluster c = cluster_from_json(mixed, "c.json", "/cluster", ".");
    const ArmChoice all = choose_arms(c, node_major_placement(c, 6), {});
    CHECK(all.single_arm());
    CHECK(contains(all.reasons.at(0), "eth-box (bad)"));
    // The first four GPUs are the two good nodes: the job never touches "bad".
    const ArmChoice good = choose_arms(c, node_major_placement(c, 4), {});
    CHECK(good.candidate == Transport::Gdrdma);
    CHECK(good.reasons.empty());
}

TEST_CASE("a job on one node crosses no NIC and keeps its arms (the one-host A/B of tcp.inside_node)") {
    const Cluster c = cluster_of(box("eth-box", "SW0", false), 1);
    const ArmChoice a = arms_on(c);
    CHECK_FALSE(a.spans_nodes);
    CHECK(a.candidate == Transport::Gdrdma);
    CHECK(a.reasons.empty());
}

namespace {

ScoreSetup seed_setup() {
    const std::string path = (fs::path(PLANLAYOUT_SOURCE_DIR) / "layouts/seed-2x8-ep16.json").string();
    const json j = parse_json_text(read_text_file(path), path);
    ScoreSetup s;
    s.model = model_spec_from_json(j.at("model"), path);
    s.training = training_spec_from_json(j.at("training"), path);
    s.transport = transport_spec_from_json(j.at("transport"), path);
    return s;
}

// The seed's layout A (EP=16, DP=16 over 2 × 8 GPUs) on the HGX template with its NICs changed.
Score seed_a_on(const std::function<void(json&)>& change) {
    json t = parse_json_text(read_text_file((fs::path(PLANLAYOUT_SOURCE_DIR) / "layouts/nodes/h100-hgx-8gpu-8nic.json").string()),
                             "t.json");
    change(t);
    const Cluster c = cluster_of(t);
    ParallelSpec spec;
    spec.world = 16;
    spec.ep = 16;
    const ResolvedSpec resolved = resolve_spec(spec, {"l.json", "/parallel"});
    return *evaluate(c, node_major_placement(c, 16), resolved, {}, seed_setup()).score;
}

}  // namespace

TEST_CASE("the score on nodes without RDMA NICs: one arm, no benefit, a what-if with rail NICs") {
    const Score rail = seed_a_on([](json&) {});
    const Score eth = seed_a_on([](json& t) {
        for (auto& n : t["nics"]) {
            n["rdma"] = false;
        }
    });
    CHECK(eth.single_arm);
    CHECK(eth.rdma_benefit == 0.0);
    CHECK(eth.band_low == 0.0);
    CHECK(eth.band_high == 0.0);
    CHECK(eth.throughput_gain == 0.0);
    CHECK(eth.requested_candidate == Transport::Gdrdma);
    CHECK(eth.step_time_s[0] == doctest::Approx(rail.step_time_s[0]));  // the TCP arm does not need the NICs
    CHECK(eth.cross_node_share > 0.3);  // the exposed all-to-all is still most of the step
    REQUIRE(eth.what_if.has_value());
    // One 400G NIC per GPU, rail-aligned: what the HGX template has.
    CHECK(eth.what_if->step_time_s == doctest::Approx(rail.step_time_s[1]).epsilon(1e-6));
    CHECK(eth.what_if->rdma_benefit == doctest::Approx(rail.rdma_benefit).epsilon(1e-6));
    REQUIRE(!eth.arm_notes.empty());
    CHECK(contains(eth.arm_notes.front(), "no RDMA NIC"));
    for (const auto& r : eth.reasons) {
        CHECK_FALSE(contains(r, "removes"));
    }
}

TEST_CASE("the score on NICs reached through the CPU: the rdma arm, a smaller benefit, a what-if with GPUDirect") {
    const Score pix = seed_a_on([](json&) {});
    const auto via_cpu = [](json& t) {
        for (auto& n : t["nics"]) {
            n["parent"] = n["numa"] == 0 ? "CPU0" : "CPU1";
        }
    };
    const Score staged = seed_a_on(via_cpu);
    CHECK(staged.candidate == Transport::Rdma);
    CHECK_FALSE(staged.single_arm);
    CHECK(staged.rdma_benefit > 0.2);
    CHECK(staged.rdma_benefit < pix.rdma_benefit);
    REQUIRE(staged.what_if.has_value());
    CHECK(staged.what_if->transport == Transport::Gdrdma);
    CHECK(staged.what_if->step_time_s == doctest::Approx(pix.step_time_s[1]).epsilon(1e-6));
    // The template says GPUDirect works through the CPU: gdrdma, costed as GPUDirect (not host-staged).
    const Score trusted = seed_a_on([&](json& t) {
        via_cpu(t);
        t["gdr_level"] = "SYS";
    });
    CHECK(trusted.candidate == Transport::Gdrdma);
    CHECK(trusted.step_time_s[1] == doctest::Approx(pix.step_time_s[1]).epsilon(1e-6));
    CHECK_FALSE(trusted.what_if.has_value());
}

TEST_CASE("search decides the arms once, as analyze does") {
    json t = box("eth-box", "SW0", false);
    const Cluster c = cluster_of(t, 2);
    SearchModel m;
    const ScoreSetup s = seed_setup();
    m.model = *s.model;
    m.model.experts = 4;  // a model small enough for 4 GPUs
    m.model.topk = 2;
    m.training = *s.training;
    m.training.global_batch = 4;
    m.transport = s.transport;
    SearchOptions o;
    o.memory_limits.gpu_memory_bytes = 1e15;
    const SearchResult r = search_layouts(c, m, o);
    REQUIRE(!r.layouts.empty());
    for (const auto& l : r.layouts) {
        CHECK(l.score.single_arm);
        CHECK(l.score.rdma_benefit == 0.0);
        CHECK(l.score.cross_node_share >= 0.0);
        CHECK(l.score.cross_node_share <= 1.0);
    }
}

TEST_CASE("p2p/shm arms: kept on every node - across nodes both use the best network the GPUs allow") {
    const TransportSpec spec = spec_of(R"({"compare": ["p2p", "shm"]})");
    const ArmChoice one = arms_on(cluster_of(box("eth-box", "SW0", false), 1), spec);
    CHECK(one.baseline == Transport::P2p);
    CHECK(one.candidate == Transport::Shm);
    CHECK(one.reasons.empty());
    const ArmChoice gdr = arms_on(cluster_of(box("pix-box", "SW0", true)), spec);
    CHECK(gdr.baseline == Transport::P2p);
    CHECK(gdr.candidate == Transport::Shm);
    CHECK(gdr.network == Transport::Gdrdma);
    REQUIRE(gdr.reasons.size() == 1);
    CHECK(contains(gdr.reasons.front(), "between nodes both arms use gdrdma"));
    CHECK_FALSE(gdr.what_if);
    CHECK(gdr.warnings.empty());
    CHECK(arms_on(cluster_of(box("phb-box", "CPU0", true)), spec).network == Transport::Rdma);
    CHECK(arms_on(cluster_of(box("eth-box", "SW0", false)), spec).network == Transport::Tcp);
}

TEST_CASE("a comparison mixes no intra-node arm with a network transport") {
    CHECK_THROWS_WITH_AS((void)spec_of(R"({"compare": ["tcp", "shm"]})"),
                         doctest::Contains("compares an intra-node arm with a network transport"), Error);
    const TransportSpec s = spec_of(R"({"compare": ["shm", "p2p"], "shm": {"efficiency": 0.3, "alpha_us": 8,
                                        "host_memory_gbyte_s": 200, "inter_socket_gbyte_s": 40,
                                        "sockets_per_node": 1}})");
    CHECK(s.baseline == Transport::Shm);
    CHECK(s.shm_params.efficiency.value == doctest::Approx(0.3));
    CHECK(s.shm_params.alpha_us == doctest::Approx(8));
    CHECK(s.shm.host_memory_gbyte_s == doctest::Approx(200));
    CHECK(s.shm.inter_socket_gbyte_s == doctest::Approx(40));
    CHECK(s.shm.sockets_per_node == 1);
    CHECK(parse_transport("shm") == Transport::Shm);
    CHECK(to_string(Transport::P2p) == "p2p");
}

TEST_CASE("the score of p2p vs shm on layout A: every kind with ranks on one node slows down, over SHM") {
    json t = parse_json_text(read_text_file((fs::path(PLANLAYOUT_SOURCE_DIR) / "layouts/nodes/h100-hgx-8gpu-8nic.json").string()),
                             "t.json");
    const Cluster c = cluster_of(t);
    ParallelSpec spec;
    spec.world = 16;
    spec.ep = 16;
    const ResolvedSpec resolved = resolve_spec(spec, {"l.json", "/parallel"});
    ScoreSetup setup = seed_setup();
    setup.transport.baseline = Transport::P2p;
    setup.transport.candidate = Transport::Shm;
    const Score s = *evaluate(c, node_major_placement(c, 16), resolved, {}, setup).score;
    CHECK(s.baseline == Transport::P2p);
    CHECK(s.candidate == Transport::Shm);
    CHECK(s.step_time_s[1] > s.step_time_s[0]);
    CHECK(s.rdma_benefit < 0);
    CHECK(s.cross_node_share > 0);  // the part of the p2p step the arms change
    CHECK(s.cross_node_share < 1);
    CHECK(s.eliminable == 0);       // a saving's factors: shm saves nothing
    CHECK(s.non_overlapped == 0);
    bool any = false;
    for (const auto& k : s.by_kind) {
        CHECK_FALSE(k.socket_inside);
        if (k.shm_inside) {
            any = true;
            CHECK(k.time_s[1] >= k.time_s[0]);
        }
    }
    CHECK(any);
    REQUIRE_FALSE(s.reasons.empty());
    CHECK(contains(s.reasons.front(), "over SHM"));
    CHECK(contains(s.arm_notes.front(), "gdrdma"));
}
