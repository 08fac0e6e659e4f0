// Tests: verify checks on synthetic 2x8 logs (one broken rule each) and on real fixtures.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "planlayout/emit/verify_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/verify/verify.hpp"

using namespace planlayout;          // NOLINT(google-build-using-namespace)
using namespace planlayout::verify;  // NOLINT(google-build-using-namespace)

namespace {

NcclLog synthetic(const std::string& name) {
    const std::string path = std::string(PLANLAYOUT_TEST_DATA_DIR) + "/verify/" + name;
    return parse_nccl_log(planlayout::read_text_file(path), name);
}

VerifyExpectation rails(int nodes, int gpus, ExpectedTransport t, std::vector<std::string> nics = {}) {
    return expectation_from_placement(rail_aligned_placement(nodes, gpus), nics, t);
}

std::vector<std::string> codes(const VerifyReport& r, Severity s) {
    std::vector<std::string> out;
    for (const auto& f : r.findings) {
        if (f.severity == s) {
            out.push_back(f.code);
        }
    }
    return out;
}

const Finding* find(const VerifyReport& r, const std::string& code) {
    const auto it = std::find_if(r.findings.begin(), r.findings.end(),
                                 [&](const Finding& f) { return f.code == code; });
    return it == r.findings.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("the rail-aligned expectation puts rank r on node r/G, GPU and NIC r%G") {
    const auto e = rails(2, 8, ExpectedTransport::GdrDma, {"a", "b", "c", "d", "e", "f", "g", "h"});
    REQUIRE(e.ranks.size() == 16);
    CHECK(e.ranks[13].node == 1);
    CHECK(e.ranks[13].local_gpu == 5);
    CHECK(e.ranks[13].nic_index == 5);
    CHECK(e.ranks[13].nic_device == "f");
    CHECK(rails(1, 2, ExpectedTransport::Tcp).ranks[1].nic_device == "mlx5_1");
    CHECK_THROWS_AS((void)rail_aligned_placement(0, 8), planlayout::Error);
    CHECK_THROWS_WITH_AS((void)expectation_from_placement({{0, 0, 0, 0, {}, {}, {}}, {0, 1, 0, 0, {}, {}, {}}}, {},
                                                          ExpectedTransport::Tcp),
                         "placement rank 0: rank listed twice; give each rank one placement",
                         planlayout::Error);
    CHECK(parse_expected_transport("rdma", "x") == ExpectedTransport::Rdma);
    CHECK_THROWS_WITH_AS((void)parse_expected_transport("ib", "--expect"),
                         "--expect: unknown transport 'ib'; use gdrdma, rdma or tcp", planlayout::Error);
}

TEST_CASE("a rail-aligned GDRDMA log passes") {
    const auto r = verify_log(synthetic("2x8-gdrdma-pass.log"), rails(2, 8, ExpectedTransport::GdrDma));
    CHECK(r.passed());
    CHECK(r.errors == 0);
    CHECK(r.warnings == 0);
    CHECK(r.ranks_seen == 16);
    CHECK(r.log.channel_count() == 8);
    CHECK(r.log.connections.size() == 144);
    CHECK(r.rank_hosts.at(9) == "node-b");
    CHECK(summary_line(r) == "verify: PASS 0 errors 0 warnings 16 ranks 8 channels");
    const auto j = to_json(r);
    CHECK(j["schema_version"] == 1);
    CHECK(j["summary"]["status"] == "PASS");
    CHECK(j["connections"].size() == 144);
}

TEST_CASE("the same log fails the rdma and tcp expectations") {
    const auto log = synthetic("2x8-gdrdma-pass.log");
    const auto rdma = verify_log(log, rails(2, 8, ExpectedTransport::Rdma));
    CHECK(rdma.passed());  // GDR on in an rdma arm is a warning
    CHECK(find(rdma, "cross-node-gdr") != nullptr);
    CHECK(find(rdma, "gdr-enabled") != nullptr);
    const auto tcp = verify_log(log, rails(2, 8, ExpectedTransport::Tcp));
    CHECK_FALSE(tcp.passed());
    CHECK(find(tcp, "cross-node-not-tcp") != nullptr);
    CHECK(find(tcp, "network-not-tcp") != nullptr);
}

TEST_CASE("a rank on the wrong NIC is an error naming the rank, channel and both NICs") {
    const auto r = verify_log(synthetic("2x8-wrong-nic.log"), rails(2, 8, ExpectedTransport::GdrDma));
    CHECK_FALSE(r.passed());
    REQUIRE(r.errors == 1);
    const Finding& f = r.findings.front();
    CHECK(f.code == "wrong-nic");
    CHECK(f.rank == 5);
    CHECK(f.channel == 5);
    CHECK(f.message == "rank 5 sends through NIC 4 (mlx5_4) but its rail is NIC 5 (mlx5_5) (channel 5)");
    CHECK(f.fix.find("NCCL_CROSS_NIC=0") != std::string::npos);
}

TEST_CASE("socket where GDRDMA was expected fails - the same log passes as the TCP arm") {
    const auto log = synthetic("2x8-socket-fallback.log");
    const auto r = verify_log(log, rails(2, 8, ExpectedTransport::GdrDma));
    CHECK_FALSE(r.passed());
    CHECK(find(r, "network-socket") != nullptr);
    const Finding* f = find(r, "cross-node-socket");
    REQUIRE(f != nullptr);
    CHECK(f->rank == 0);
    CHECK(f->message == "cross-node traffic goes over TCP (NET/Socket/0) where gdrdma was expected (channel 0)");
    CHECK(r.errors == 17);  // the network line + 16 ranks
    CHECK(find(r, "rings-gdr-0") != nullptr);
    CHECK(find(r, "wrong-nic") == nullptr);  // socket interfaces are not rails
    const auto tcp = verify_log(log, rails(2, 8, ExpectedTransport::Tcp));
    CHECK(tcp.passed());
    CHECK(tcp.warnings == 0);
}

TEST_CASE("SHM between GPUs of one node is an error") {
    const auto r = verify_log(synthetic("2x8-shm-inside-node.log"), rails(2, 8, ExpectedTransport::GdrDma));
    REQUIRE(r.errors == 1);
    const Finding& f = r.findings.front();
    CHECK(f.code == "intra-node-shm");
    CHECK(f.rank == 12);
    CHECK(f.channel == 2);
}

TEST_CASE("real fixtures: what verify says about them") {
    const auto read = [](const std::string& name) {
        const std::string path = std::string(PLANLAYOUT_FIXTURES_DIR) + "/nccl-debug-log/" + name;
        return parse_nccl_log(planlayout::read_text_file(path), name);
    };
    SUBCASE("2.7.8 over sockets passes as TCP only if P2P is used inside nodes: SHM is flagged") {
        const auto r = verify_log(read("nccl2.7.8-2node-4gpu-socket-p2p-ipc-direct-shm-old-grammar.log"),
                                  rails(2, 4, ExpectedTransport::Tcp));
        CHECK(codes(r, Severity::Error) == std::vector<std::string>{"intra-node-shm", "intra-node-shm"});
        CHECK(find(r, "cross-node-socket") == nullptr);
        CHECK(r.rank_hosts.at(0) == "tesla-105");
    }
    SUBCASE("2.2x without GDR fails gdrdma but passes rdma, with rank 5 off its rail") {
        const auto log = read("nccl2.2x-single-process-8gpu-p2p-direct-pointer-ib-nogdr-issue1412.log");
        const auto g = verify_log(log, rails(2, 8, ExpectedTransport::GdrDma));
        CHECK(find(g, "cross-node-no-gdr") != nullptr);
        const auto r = verify_log(log, rails(2, 8, ExpectedTransport::Rdma));
        CHECK(find(r, "cross-node-no-gdr") == nullptr);
        CHECK(codes(r, Severity::Error) == std::vector<std::string>{"wrong-nic", "wrong-nic"});
    }
    SUBCASE("2.23.4 PXN: relays are reported and checked against the relay's rail") {
        const auto r = verify_log(read("nccl2.23.4-4node-a100-ibext-pxn-cumem-channels-nccltests-issue311.log"),
                                  rails(4, 2, ExpectedTransport::GdrDma));
        CHECK(codes(r, Severity::Info).size() == 3);
        const Finding* f = find(r, "pxn-relay");
        REQUIRE(f != nullptr);
        CHECK(f->rank == 3);
        CHECK(f->message == "rank 3 sends to rank 4 through rank 2 (GPU 0)'s NIC 5 (PXN) (channels 0,1,2)");
        CHECK(find(r, "cross-node-no-gdr") == nullptr);
        CHECK(find(r, "placement-mismatch") == nullptr);
    }
    SUBCASE("a log without connection lines cannot pass") {
        const auto r = verify_log(read("nccl2.23.4-4node-a100-net-ib-sharp-using-line-nccltests-issue311.log"),
                                  rails(4, 2, ExpectedTransport::GdrDma));
        CHECK(codes(r, Severity::Error) == std::vector<std::string>{"no-connections"});
    }
    SUBCASE("ranks on other hosts than the plan says are a placement mismatch") {
        const auto r = verify_log(read("nccl2.23.4-4node-a100-ib-sharp-plugin-rings-trees-nccltests-issue311.log"),
                                  rails(2, 4, ExpectedTransport::GdrDma));
        const Finding* f = find(r, "placement-mismatch");
        REQUIRE(f != nullptr);
        CHECK(f->rank == 2);
    }
}

TEST_CASE("text output carries the table, findings with fixes and the summary last") {
    const auto r = verify_log(synthetic("2x8-wrong-nic.log"), rails(2, 8, ExpectedTransport::GdrDma));
    const std::string text = render_text(r);
    CHECK(text.find("rank  host") != std::string::npos);
    CHECK(text.find("error   wrong-nic rank 5") != std::string::npos);
    const std::string last = "\nverify: FAIL 1 errors 0 warnings 16 ranks 8 channels\n";
    CHECK(text.compare(text.size() - last.size(), last.size(), last) == 0);
}

TEST_CASE("each rank's NIC device comes from its own node when the plan names it (mixed clusters)") {
    const VerifyExpectation e = expectation_from_placement(
        {{0, 0, 0, 0, "mlx5_0", {}, {}}, {1, 1, 0, 0, "ibp12s0", {}, {}}, {2, 1, 1, 1, "", {}, {}}}, {"from-list-0", "from-list-1"},
        ExpectedTransport::GdrDma);
    REQUIRE(e.ranks.size() == 3);
    CHECK(e.ranks[0].nic_device == "mlx5_0");
    CHECK(e.ranks[1].nic_device == "ibp12s0");   // same rail index, another node's name
    CHECK(e.ranks[2].nic_device == "from-list-1");  // no name from the plan: the list, then mlx5_<i>
}

TEST_CASE("the shm arm: SHM lines inside a node pass, P2P lines are the finding") {
    // NCCL 2.13-2.30.4 write "via SHM/<send: CE or direct>/<recv: CE or direct>" (src/transport/shm.cc)
    const NcclLog log = synthetic("1x4-shm-p2p-disabled.log");
    REQUIRE(log.connections.size() == 8);
    CHECK(log.connections.front().kind == TransportKind::Shm);
    VerifyExpectation shm = rails(1, 4, ExpectedTransport::GdrDma);
    shm.intra = ExpectedIntra::Shm;
    const auto pass = verify_log(log, shm);
    CHECK(pass.passed());
    CHECK(pass.warnings == 0);
    // the same log where the plan expects P2P: one error per rank, with the fix
    const auto p2p = verify_log(log, rails(1, 4, ExpectedTransport::GdrDma));
    CHECK(p2p.errors == 4);
    const Finding* f = find(p2p, "intra-node-shm");
    REQUIRE(f != nullptr);
    CHECK(f->fix.find("NCCL_P2P_DISABLE") != std::string::npos);
    // a P2P log in the shm arm
    const auto wrong = verify_log(synthetic("2x8-gdrdma-pass.log"), [] {
        VerifyExpectation e = rails(2, 8, ExpectedTransport::GdrDma);
        e.intra = ExpectedIntra::Shm;
        return e;
    }());
    const Finding* p = find(wrong, "intra-node-p2p");
    REQUIRE(p != nullptr);
    CHECK(p->fix.find("NCCL_P2P_DISABLE=1") != std::string::npos);
    CHECK(std::string(to_string(ExpectedIntra::Shm)) == "shm");
}

TEST_CASE("SHM line grammars of every generation read as SHM") {
    for (const char* via : {"SHM/direct/direct", "SHM/CE/direct", "SHM/direct", "direct shared memory"}) {
        const std::string line = std::string("h:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via ") + via + "\n";
        const NcclLog log = parse_nccl_log(line, "x.log");
        REQUIRE(log.connections.size() == 1);
        CHECK(log.connections.front().kind == TransportKind::Shm);
    }
}
