// Tests: large-but-legal inputs (issue #20 item 7) still give the right answer. Functional, not
// timed: the speed goals live in planlayout_bench (docs/performance.md); the limits past which
// inputs are refused are pinned in tests/bad-inputs/.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generated_inputs.hpp"

#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/analysis/lint.hpp"
#include "planlayout/cli/run.hpp"
#include "planlayout/emit/verify_emit.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/nccl_log.hpp"
#include "planlayout/ingest/nccl_topo_xml.hpp"
#include "planlayout/ingest/node_template_json.hpp"
#include "planlayout/ingest/nvidia_smi_topo.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/parallel/groups.hpp"
#include "planlayout/parallel/parallel_spec.hpp"
#include "planlayout/parallel/placement.hpp"
#include "planlayout/verify/verify.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

using planlayout::testing::nccl_xml;
using planlayout::testing::smi_matrix;

bool has_error(const std::vector<Finding>& findings) {
    for (const auto& f : findings) {
        if (f.severity == Severity::Error) {
            return true;
        }
    }
    return false;
}

}  // namespace

TEST_CASE("a 256-GPU, 256-NIC nvidia-smi capture: each GPU's nearest NIC is its own, lint finds no error") {
    const NodeTemplate t = read_nvidia_smi_topo(smi_matrix(256), "wide.txt");
    REQUIRE(t.gpus.size() == 256);
    REQUIRE(t.nics.size() == 256);
    CHECK(t.paths.size() == 512 * 511 / 2);
    CHECK(nearest_nic(t, "GPU0") == "NIC0");
    CHECK(nearest_nic(t, "GPU255") == "NIC255");
    CHECK(t.nics[255].numa == 1);  // from GPU255, its PIX neighbour
    CHECK_FALSE(has_error(lint_node(t)));
}

TEST_CASE("a 400-GPU, 400-NIC NCCL topology: derived pairs are PIX to the own NIC, SYS across CPUs") {
    const NodeTemplate t = read_nccl_topo_xml(nccl_xml(400), "big.xml");
    REQUIRE(t.gpus.size() == 400);
    REQUIRE(t.nics.size() == 400);
    CHECK(t.paths.size() == 800 * 799 / 2);
    const auto classes = gpu_nic_classes(t);
    CHECK(classes[0 * 400 + 0] == PathClass::Pix);
    CHECK(classes[0 * 400 + 1] == PathClass::Phb);    // same CPU, another switch
    CHECK(classes[0 * 400 + 399] == PathClass::Sys);  // the other CPU
    CHECK(nearest_nic(t, "GPU399") == "NIC399");
    CHECK_FALSE(has_error(lint_node(t)));
}

TEST_CASE("a ring visits nodes in order of first appearance, whatever the rank order") {
    const Cluster c = cluster_from_json(nlohmann::json::parse(R"({"nodes": 2, "node": "h100-hgx-8gpu-8nic"})"), "c.json",
                                        "/cluster", ".");
    const Placement p = node_major_placement(c, 16);
    const PairClassifier classifier(c, p);
    // Node 1 appears first; within a node the ring follows the local GPU; one crossing per rail.
    const auto pairs = used_pairs(Pattern::Ring, {9, 0, 8, 1}, classifier, p);
    const std::vector<std::pair<std::int64_t, std::int64_t>> expected = {{0, 1}, {0, 8}, {1, 9}, {8, 9}};
    CHECK(pairs == expected);
}

TEST_CASE("a ring over three nodes gives each pair once, sorted, whatever the rank order") {
    const Cluster c = cluster_from_json(nlohmann::json::parse(R"({"nodes": 3, "node": "h100-hgx-8gpu-8nic"})"), "c.json",
                                        "/cluster", ".");
    const Placement p = node_major_placement(c, 24);
    const PairClassifier classifier(c, p);
    // Nodes 2, 1, 0 in order of first appearance; each node's two ranks on rails 0 and 1, so every
    // node boundary is crossed once per rail: 3 pairs inside nodes, 6 across.
    const auto pairs = used_pairs(Pattern::Ring, {17, 9, 0, 8, 1, 16}, classifier, p);
    const std::vector<std::pair<std::int64_t, std::int64_t>> expected = {{0, 1},  {0, 8},  {0, 16}, {1, 9}, {1, 17},
                                                                         {8, 9},  {8, 16}, {9, 17}, {16, 17}};
    CHECK(pairs == expected);
    // A rank given twice: the same pairs, each once.
    CHECK(used_pairs(Pattern::Ring, {17, 9, 0, 8, 1, 16, 0}, classifier, p) == expected);
}

TEST_CASE("262,144 ranks with TP8: every dp ring spans all 32,768 nodes, every tp group one node") {
    const Cluster c = cluster_from_json(nlohmann::json::parse(R"({"nodes": 32768, "node": "h100-hgx-8gpu-8nic"})"),
                                        "c.json", "/cluster", ".");
    ParallelSpec spec;
    spec.world = c.total_gpus();
    spec.tp = 8;
    const Groups groups = build_groups(resolve_spec(spec));
    const Placement p = node_major_placement(c, spec.world);
    const auto kinds = classify_groups(groups, c, p, {"dp", "tp"});
    REQUIRE(kinds.size() == 2);
    for (const auto& k : kinds) {
        if (k.kind == "dp") {
            CHECK(k.groups == 8);
            CHECK(k.max_nodes == 32768);
            CHECK(k.total_pairs() == 8 * 32768);  // one crossing per node boundary of each ring
        } else {
            CHECK(k.groups == 32768);
            CHECK(k.max_nodes == 1);
            CHECK(k.pairs[static_cast<std::size_t>(PathClass::Nv)] == 32768 * 8);
        }
    }
}

TEST_CASE("groups of a 2^31-rank world in text: the one dp group is printed by its ends, not built") {
    std::ostringstream out;
    std::ostringstream err;
    const int rc = run_cli({"plan-layout", "groups", "--world", "2147483648", "--kinds", "dp"}, out, err);
    CHECK(rc == 0);
    CHECK(out.str().find("1 x 2147483648  [0 1 2 3 4 5 6 7 ... 2147483647]") != std::string::npos);
}

TEST_CASE("verify JSON streamed one connection at a time is byte-identical to the whole document") {
    const std::string dir = std::string(PLANLAYOUT_TEST_DATA_DIR) + "/verify";
    int logs = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (e.path().extension() != ".log") {
            continue;
        }
        ++logs;
        const NcclLog log = parse_nccl_log(read_text_file(e.path().string()), e.path().filename().string());
        const auto expectation = verify::expectation_from_placement(verify::rail_aligned_placement(2, 8), {},
                                                                    verify::ExpectedTransport::GdrDma);
        const auto report = verify::verify_log(log, expectation);
        CHECK(verify::to_json_text(report) ==
              verify::to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    }
    CHECK(logs >= 4);
    // No connections and no plan: the empty arrays stay "[]".
    const auto empty = verify::verify_log(NcclLog{}, verify::VerifyExpectation{});
    CHECK(verify::to_json_text(empty) ==
          verify::to_json(empty).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

TEST_CASE("a log read line by line in 1 MiB chunks gives the same lines and the same parse as the whole text") {
    // About 3 MiB: lines cross the chunk boundaries; empty lines and a last line without '\n'.
    std::string text;
    for (int i = 0; text.size() < (std::size_t{3} << 20U); ++i) {
        text += "gpu" + std::to_string(i % 7) + ":" + std::to_string(100 + i % 13) + ":1 [0] NCCL INFO Channel " +
                std::to_string(i % 32) + "/0 : " + std::to_string(i % 64) + "[0] -> " + std::to_string((i + 1) % 64) +
                "[1] via P2P/CUMEM/read\n";
        if (i % 1000 == 0) {
            text += "\n";
        }
    }
    text += "no newline at the end";
    std::vector<std::string> want;
    for (std::size_t start = 0; start < text.size();) {
        const auto end = std::min(text.find('\n', start), text.size());
        want.emplace_back(text.substr(start, end - start));
        start = end + 1;
    }
    std::istringstream in(text);
    std::vector<std::string> got;
    std::size_t last_total = 0;
    const std::size_t total = for_each_line(
        in, [&](std::size_t so_far) { last_total = so_far; }, [&](std::string_view l) { got.emplace_back(l); });
    CHECK(total == text.size());
    CHECK(last_total == text.size());
    CHECK(got == want);

    const NcclLog whole = parse_nccl_log(text, "a.log");
    NcclLog streamed;
    NcclLogParser parser(streamed, "a.log");
    for (const auto& l : got) {
        parser.line(l);
    }
    parser.finish();
    resolve_nic_names(streamed);
    CHECK(streamed.lines == whole.lines);
    CHECK(streamed.duplicate_connections == whole.duplicate_connections);
    REQUIRE(streamed.connections.size() == whole.connections.size());
    const auto expectation = verify::expectation_from_placement(verify::rail_aligned_placement(8, 8), {},
                                                                verify::ExpectedTransport::GdrDma);
    CHECK(verify::to_json_text(verify::verify_log(streamed, expectation)) ==
          verify::to_json_text(verify::verify_log(whole, expectation)));
}

TEST_CASE("a node template written pair by pair is byte-identical to its JSON document") {
    for (const int gpus : {1, 2, 16}) {
        const NodeTemplate t = read_nvidia_smi_topo(smi_matrix(gpus), "m.txt");
        std::ostringstream out;
        write_json(t, {{"schema_version", 1}}, out);
        nlohmann::json j = to_json(t);
        j["schema_version"] = 1;
        CHECK(out.str() == j.dump(2) + "\n");
    }
}
