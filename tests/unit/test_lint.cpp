// Tests: node-level lint on synthetic templates and on real captures.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fixture_support.hpp"
#include "planlayout/ingest/node_template_json.hpp"
#include "planlayout/analysis/lint.hpp"
#include "planlayout/ingest/nccl_topo_xml.hpp"
#include "planlayout/ingest/nvidia_smi_topo.hpp"

using planlayout::Finding;
using planlayout::lint_node;
using planlayout::Severity;

namespace {

std::vector<std::string> codes(const std::vector<Finding>& f) {
    std::vector<std::string> out;
    for (const auto& x : f) {
        out.push_back(std::string(planlayout::to_string(x.severity)) + ":" + x.code);
    }
    return out;
}

// Two sockets, one switch each with 2 GPUs; NIC0 (400G) on switch 0; NIC1 (200G) on socket 1's
// root complex; NIC2 a storage HCA.
planlayout::NodeTemplate synthetic() {
    return planlayout::node_template_from_json(nlohmann::json::parse(R"({
      "cpus": [{"name": "CPU0", "numa": 0}, {"name": "CPU1", "numa": 1}],
      "pcie_switches": [{"name": "SW0", "parent": "CPU0"}, {"name": "SW1", "parent": "CPU1"}],
      "gpus": [{"name": "GPU0", "parent": "SW0", "numa": 0,
                "pcie": {"gen": 4, "width": 8, "max_gen": 4, "max_width": 16}},
               {"name": "GPU1", "parent": "SW0", "numa": 0},
               {"name": "GPU2", "parent": "SW1", "numa": 1}],
      "nics": [{"name": "NIC0", "device": "mlx5_0", "parent": "SW0", "numa": 0, "speed_gbit_s": 400},
               {"name": "NIC1", "device": "mlx5_1", "parent": "CPU1", "numa": 1, "speed_gbit_s": 200},
               {"name": "NIC2", "device": "mlx5_2", "parent": "CPU0", "numa": 0, "role": "storage"}]
    })"), "synthetic");
}

}  // namespace

TEST_CASE("each node-level check fires on the device it is about") {
    const auto f = lint_node(synthetic());
    CHECK(codes(f) == std::vector<std::string>{"warning:gpu-no-near-nic", "warning:nic-shared",
                                               "warning:nic-speed-mixed", "warning:pcie-degraded",
                                               "info:nic-non-compute"});
    CHECK(f[0].message == "GPU2's nearest RDMA NIC NIC1 (mlx5_1) is PHB, not PIX/PXB: NCCL will not "
                          "use GPUDirect RDMA by default");
    CHECK(f[1].message.find("GPU0, GPU1 share NIC0") == 0);
    CHECK(f[2].message == "RDMA NICs of different speeds in one node (200 Gb/s: NIC1; 400 Gb/s: "
                          "NIC0): rings run at the slowest");
    CHECK(f[3].message.find("GPU0 PCIe link runs at Gen4 x8, below its capability Gen4 x16") == 0);
    CHECK(f[4].fix == "keep NCCL off it: set NCCL_IB_HCA=mlx5_0,mlx5_1");
    CHECK(planlayout::nearest_nic(synthetic(), "GPU0") == "NIC0");
}

TEST_CASE("a GPU whose nearest NIC is on the other socket is an error") {
    auto t = synthetic();
    t.nics.erase(t.nics.begin() + 1);  // drop NIC1: GPU2 must cross to NIC0
    t.paths.clear();
    planlayout::derive_paths(t);
    const auto f = lint_node(t);
    REQUIRE(!f.empty());
    CHECK(f[0].severity == Severity::Error);
    CHECK(f[0].code == "gpu-nic-cross-numa");
    CHECK(f[0].message == "GPU2's nearest RDMA NIC NIC0 (mlx5_0) is SYS (GPU on NUMA 1, NIC on NUMA "
                          "0): its network traffic crosses the inter-socket link");
    CHECK(planlayout::to_json(f[0])["severity"] == "error");
}

TEST_CASE("real captures: DGX A100 storage NICs, DGX-1 single NIC, p4d shared EFA, NDv5 clean") {
    const auto dgx = planlayout::read_nvidia_smi_topo(fixture::text("nvidia-smi-topo/dgx-a100-8gpu-10nic-amd-nps4-clean.txt"), "a");
    const auto f1 = lint_node(dgx);
    REQUIRE(f1.size() == 1);
    CHECK(f1[0].code == "nic-not-nearest");
    CHECK(f1[0].message.find("NIC8 (mlx5_8), NIC9 (mlx5_9) are no GPU's nearest NIC") == 0);
    CHECK(f1[0].fix.find("NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7") != std::string::npos);

    const auto dgx1 = planlayout::read_nvidia_smi_topo(fixture::text("nvidia-smi-topo/dgx1-style-8x-v100-sxm2-1nic-legacy-header.txt"), "b");
    const auto f2 = lint_node(dgx1);
    CHECK(std::count_if(f2.begin(), f2.end(), [](const Finding& x) { return x.severity == Severity::Error; }) == 4);

    const auto p4d = planlayout::read_nccl_topo_xml(fixture::text("nccl-topo-xml/aws-p4d-24xlarge-topo.xml"), "c");
    const auto f3 = lint_node(p4d);
    CHECK(std::count_if(f3.begin(), f3.end(), [](const Finding& x) { return x.code == "nic-shared"; }) == 4);

    const auto ndv5 = planlayout::read_nccl_topo_xml(fixture::text("nccl-topo-xml/azure-ndv5-topo.xml"), "d");
    CHECK(lint_node(ndv5).empty());
}

TEST_CASE("a node without GPUs or without RDMA NICs says so") {
    planlayout::NodeTemplate empty;
    CHECK(codes(lint_node(empty)) == std::vector<std::string>{"info:no-gpus"});
    auto t = synthetic();
    t.nics.clear();
    CHECK(codes(lint_node(t)) == std::vector<std::string>{"warning:no-rdma-nic", "warning:pcie-degraded"});
}
