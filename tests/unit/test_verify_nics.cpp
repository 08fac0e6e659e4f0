// Tests: verify on nodes with fewer NICs than GPUs (one shared NIC, a NIC per GPU pair) against
// NCCL's local-NIC rule, and the job-wide port findings (mixed link layers, mixed speeds), on the
// logs of tests/data/verify/make_fewer_nics.py (its header names the NCCL sources).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/verify/verify.hpp"

using namespace planlayout;          // NOLINT(google-build-using-namespace)
using namespace planlayout::verify;  // NOLINT(google-build-using-namespace)

namespace {

NcclLog log_of(const std::string& name) {
    const std::string path = std::string(PLANLAYOUT_TEST_DATA_DIR) + "/verify/" + name;
    return parse_nccl_log(planlayout::read_text_file(path), name);
}

VerifyExpectation with_nics(const std::vector<std::string>& names) {
    return expectation_from_placement(node_major_placement(2, 8, nic_list(names, 8, "--nics")), {},
                                      ExpectedTransport::GdrDma);
}

std::vector<std::string> codes(const VerifyReport& r) {
    std::vector<std::string> out;
    for (const auto& f : r.findings) {
        out.push_back(f.code);
    }
    return out;
}

bool has(const VerifyReport& r, const std::string& code) {
    const auto c = codes(r);
    return std::find(c.begin(), c.end(), code) != c.end();
}

}  // namespace

TEST_CASE("--nics lists: one per GPU, one shared NIC, one NIC per GPU pair") {
    const auto shared = nic_list({"mlx5_0"}, 8, "--nics");
    CHECK(shared.names == std::vector<std::string>{"mlx5_0"});
    CHECK(shared.gpu_nic == std::vector<int>(8, 0));
    const auto pairs = nic_list({"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}, 8, "--nics");
    CHECK(pairs.gpu_nic == std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3});
    // A shared NIC repeated per GPU is one NIC (index by first appearance), not NIC 3 for GPU 3.
    const auto repeated = nic_list(std::vector<std::string>(8, "mlx5_0"), 8, "--nics");
    CHECK(repeated.names.size() == 1);
    CHECK(repeated.gpu_nic[3] == 0);
    CHECK_THROWS_WITH_AS((void)nic_list({"a", "b", "c"}, 8, "plan-layout verify --nics a,b,c"),
                         "plan-layout verify --nics a,b,c: names 3 NICs for 8 GPUs per node, which do not split "
                         "evenly; list one NIC per GPU in GPU order (repeat a shared NIC: mlx5_0,mlx5_0,mlx5_1,...), or "
                         "a number of NICs that divides the GPUs (one shared NIC, one per GPU pair)",
                         planlayout::Error);
    CHECK_THROWS_AS((void)nic_list({"mlx5_0", ""}, 8, "--nics"), planlayout::Error);
}

TEST_CASE("one NIC shared by all GPUs: NCCL's only local NIC for each, no wrong-nic") {
    const auto r = verify_log(log_of("2x8-one-shared-nic.log"), with_nics({"mlx5_0"}));
    CHECK(r.errors == 0);
    CHECK_FALSE(has(r, "wrong-nic"));
    // The same node described as a rail per GPU (the default) reads every channel but 0 as wrong.
    const auto wrong = verify_log(log_of("2x8-one-shared-nic.log"),
                                  expectation_from_placement(rail_aligned_placement(2, 8), {}, ExpectedTransport::GdrDma));
    CHECK(has(wrong, "wrong-nic"));
    // Repeating the name per GPU (mlx5_0,mlx5_0,…) means the same.
    CHECK(verify_log(log_of("2x8-one-shared-nic.log"), with_nics(std::vector<std::string>(8, "mlx5_0"))).errors == 0);
}

TEST_CASE("a NIC per GPU pair: each GPU on its pair's NIC - another pair's NIC is wrong-nic") {
    const auto r = verify_log(log_of("2x8-nic-per-gpu-pair.log"), with_nics({"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
    CHECK(r.errors == 0);
    CHECK(r.warnings == 0);
    // Described as one shared NIC, NIC 1..3 are not GPU 2..7's NIC.
    const auto shared = verify_log(log_of("2x8-nic-per-gpu-pair.log"), with_nics({"mlx5_0"}));
    REQUIRE(has(shared, "wrong-nic"));
    const auto it = std::find_if(shared.findings.begin(), shared.findings.end(),
                                 [](const Finding& f) { return f.code == "wrong-nic"; });
    // send and receive lines of one rank and NIC are one finding; the log order picks the verb
    CHECK(it->message.find("rank 2 ") == 0);
    CHECK(it->message.find("s through NIC 1 (mlx5_1) but its rail is NIC 0 (mlx5_0) (channel 2)") != std::string::npos);
}

TEST_CASE("equally near NICs: any of them is NCCL's choice") {
    // GPU 0 and 1 share two NICs under one switch: NCCL may put GPU 0 on either (topo.cc rotation).
    std::vector<RankPlacement> placement = rail_aligned_placement(2, 8);
    for (auto& p : placement) {
        p.nic_index = p.local_gpu / 2;
        p.nic_device = "mlx5_" + std::to_string(p.local_gpu / 2);
    }
    placement[2].other_nic_indices = {0};  // rank 2 (GPU 2) is as near to NIC 0 as to NIC 1
    placement[2].other_nic_devices = {"mlx5_0"};
    const auto e = expectation_from_placement(placement, {}, ExpectedTransport::GdrDma);
    CHECK(e.ranks[2].nic_devices == std::vector<std::string>{"mlx5_1", "mlx5_0"});
    CHECK(e.ranks[2].nic_indices == std::vector<int>{1, 0});
    CHECK(verify_log(log_of("2x8-nic-per-gpu-pair.log"), e).errors == 0);
    // Told GPU 2 may use NIC 0 or 2 only, NIC 1 is wrong and the message names both.
    placement[2].nic_index = 2;
    placement[2].nic_device = "mlx5_2";
    const auto e2 = expectation_from_placement(placement, {}, ExpectedTransport::GdrDma);
    const auto r = verify_log(log_of("2x8-nic-per-gpu-pair.log"), e2);
    REQUIRE(has(r, "wrong-nic"));
    CHECK(r.findings.front().message.find("through NIC 1 (mlx5_1) but its nearest NICs are NIC 2 (mlx5_2), NIC 0 "
                                          "(mlx5_0) (channel 2)") != std::string::npos);
}

TEST_CASE("NET/IB per-port lines give each port's link layer and speed") {
    const auto log = log_of("2x8-mixed-nic-speed.log");
    const auto& proc = log.processes.begin()->second;
    REQUIRE(proc.ib_devices.size() == 4);
    CHECK(proc.ib_devices[3].name == "mlx5_3");
    CHECK(proc.ib_devices[3].link_layer == "IB");
    CHECK(proc.ib_devices[3].speed_mbit_s == 200000);
    CHECK(proc.ib_devices[0].speed_mbit_s == 400000);
    // A real line (NCCL 2.27.5, RoCE): provider, context and pciPath are read through.
    const auto one = parse_nccl_log(
        "tpgds-aihub0007:177790:177790 [3] NCCL INFO NET/IB: [2] mlx5_2:uverbs2:1/RoCE provider=Mlx5 speed=400000 "
        "context=0x5563d0080110 pciPath=/sys/devices/pci0000:37/0000:37:01.0/0000:38:00.0/0000:39:01.0/0000:3b:00.0 ar=0\n",
        "one.log");
    REQUIRE(one.processes.size() == 1);
    const auto& d = one.processes.begin()->second.ib_device_lines.at(0);
    CHECK(d.index == 2);
    CHECK(d.name == "mlx5_2");
    CHECK(d.port == "1");
    CHECK(d.link_layer == "RoCE");
    CHECK(d.speed_mbit_s == 400000);
}

TEST_CASE("IB and RoCE ports in one job: mixed-link-layer") {
    const auto r = verify_log(log_of("2x8-mixed-ib-roce.log"), with_nics({"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
    REQUIRE(has(r, "mixed-link-layer"));
    CHECK_FALSE(has(r, "mixed-nic-speed"));
    const auto it = std::find_if(r.findings.begin(), r.findings.end(),
                                 [](const Finding& f) { return f.code == "mixed-link-layer"; });
    CHECK(it->severity == Severity::Warning);
    CHECK(it->message ==
          "the job's RDMA ports use different link layers (IB: node-a mlx5_0:1, node-a mlx5_1:1, node-a mlx5_2:1 and "
          "4 more; RoCE: node-b mlx5_1:1): an InfiniBand port cannot reach a RoCE (Ethernet) port, so rings across "
          "them fail or take another NIC");
    // The `Using` list alone (no per-port lines, older NCCL) carries the link layers too.
    const auto older = parse_nccl_log("h1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n",
                                      "old.log");
    const auto f = port_findings(older);
    REQUIRE(f.size() == 1);
    CHECK(f[0].code == "mixed-link-layer");
}

TEST_CASE("ports of different speeds in one job: mixed-nic-speed") {
    const auto r = verify_log(log_of("2x8-mixed-nic-speed.log"), with_nics({"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
    REQUIRE(has(r, "mixed-nic-speed"));
    CHECK_FALSE(has(r, "mixed-link-layer"));
    CHECK(r.errors == 0);
    const auto it = std::find_if(r.findings.begin(), r.findings.end(),
                                 [](const Finding& f) { return f.code == "mixed-nic-speed"; });
    CHECK(it->message ==
          "the job's RDMA ports run at different speeds (200 Gb/s: node-a mlx5_3:1; 400 Gb/s: node-a mlx5_0:1, "
          "node-a mlx5_1:1, node-a mlx5_2:1 and 4 more): a ring or tree through the slower ports runs at their speed");
    CHECK(port_findings(log_of("2x8-nic-per-gpu-pair.log")).empty());
}
