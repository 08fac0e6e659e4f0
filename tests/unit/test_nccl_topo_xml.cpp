// Tests: NCCL topology XML, every seed/dump fixture, NCCL's defaults and malformed input.
#include <doctest/doctest.h>

#include "fixture_support.hpp"
#include "planlayout/analysis/lint.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/nccl_topo_xml.hpp"

using planlayout::read_nccl_topo_xml;

namespace {
planlayout::NodeTemplate load(const std::string& name) {
    return read_nccl_topo_xml(fixture::text("nccl-topo-xml/" + name), name);
}
}  // namespace

TEST_CASE("AWS p4d/p4de: 8 A100 + 4 EFA, 2 GPUs and 1 NIC per switch, comments inside tags") {
    for (const char* name : {"aws-p4d-24xlarge-topo.xml", "aws-p4de-24xlarge-topo.xml"}) {
        CAPTURE(name);
        const auto t = load(name);
        CHECK(t.gpus.size() == 8);
        CHECK(t.nics.size() == 4);
        CHECK(t.pcie_switches.size() == 4);
        CHECK(fixture::cls(t, "GPU0", "NIC0") == "PIX");
        CHECK(fixture::cls(t, "GPU0", "GPU1") == "PIX");
        CHECK(fixture::cls(t, "GPU0", "GPU2") == "PHB");
        CHECK(fixture::cls(t, "GPU0", "GPU4") == "SYS");
        CHECK(planlayout::nearest_nic(t, "GPU5") == "NIC2");
        CHECK(t.gpus[0].pcie.gen == 3);
        CHECK(t.gpus[0].pcie.gbyte_s == doctest::Approx(12));
        CHECK(fixture::has_warning(t, "placeholder bus ids"));
        CHECK(fixture::has_warning(t, "NIC <pci> without <nic>/<net>"));
    }
    CHECK(load("aws-p4d-24xlarge-topo.xml").gpu_model == "A100-SXM4-40GB");
    CHECK(load("aws-p4de-24xlarge-topo.xml").gpu_model == "A100-SXM4-80GB");
}

TEST_CASE("AWS p5 (2026): 8 H100, 32 EFA, 4 PIX NICs per GPU") {
    const auto t = load("aws-p5-48xlarge-topo-2026.xml");
    CHECK(t.gpus.size() == 8);
    CHECK(t.nics.size() == 32);
    CHECK(t.nics[0].device == "rdmap79s0");
    CHECK(t.nics[0].speed_gbit_s == doctest::Approx(100));
    CHECK(fixture::cls(t, "GPU0", "NIC3") == "PIX");
    CHECK(fixture::cls(t, "GPU0", "NIC4") == "PHB");
    CHECK(t.gpus[0].pcie.gen == 5);
    CHECK(t.nics[0].pcie.width == 8);
    CHECK(planlayout::nearest_nic(t, "GPU7") == "NIC28");
}

TEST_CASE("AWS p5 (2025, PCI only) and g5: sparse seeds without classes give no GPUs and say so") {
    const auto p5 = load("aws-p5-48xlarge-topo-2025-pci-only.xml");
    CHECK(p5.gpus.empty());
    CHECK(p5.pcie_switches.size() == 8);
    CHECK(fixture::has_warning(p5, "no GPUs in this file"));
    CHECK(fixture::has_warning(p5, "<pci> without class: kind guessed from its children"));
    const auto g5 = load("aws-g5-48xlarge-topo.xml");
    CHECK(g5.gpus.empty());
    CHECK(g5.cpus.size() == 2);
    CHECK(fixture::has_warning(g5, "9 in all"));
}

TEST_CASE("Azure NDv2/NDv4/NDv5 seeds: GPU and NIC counts and pairs") {
    const auto v2 = load("azure-ndv2-topo.xml");
    CHECK(v2.gpus.size() == 8);
    CHECK(v2.nics.size() == 1);
    CHECK(fixture::cls(v2, "GPU0", "NIC0") == "PHB");
    CHECK(fixture::cls(v2, "GPU4", "NIC0") == "SYS");
    CHECK(v2.nics[0].link_layer == "IB");
    const auto v4 = load("azure-ndv4-topo.xml");
    CHECK(v4.gpus.size() == 8);
    CHECK(v4.nics.size() == 8);
    CHECK(v4.cpus.size() == 4);
    CHECK(fixture::cls(v4, "GPU0", "NIC0") == "PIX");
    CHECK(fixture::cls(v4, "GPU0", "GPU1") == "PIX");
    CHECK(fixture::cls(v4, "GPU0", "GPU2") == "SYS");
    CHECK(v4.gpus[0].bus_id == "0003:00:00.0");  // document order without <gpu dev>
    const auto v5 = load("azure-ndv5-topo.xml");
    CHECK(v5.gpus.size() == 8);
    CHECK(v5.nics.size() == 8);
    CHECK(v5.pcie_switches.size() == 8);
    CHECK(fixture::cls(v5, "GPU0", "NIC0") == "PIX");
    CHECK(fixture::cls(v5, "GPU0", "NIC1") == "PHB");
    CHECK(v5.gpus[0].pcie.gen == 5);
    for (const auto& g : v5.gpus) {
        CHECK(fixture::cls(v5, g.name, planlayout::nearest_nic(v5, g.name)) == "PIX");
    }
}

TEST_CASE("Azure NCv4: NVLink to itself, empty link_speed and width 0, <nic> under <cpu>") {
    const auto t = load("azure-ncv4-topo.xml");
    CHECK(t.gpus.size() == 4);
    REQUIRE(t.nics.size() == 1);
    CHECK(t.nics[0].device == "eth0");
    CHECK(!t.nics[0].rdma);
    CHECK(t.nics[0].parent == "CPU0");
    CHECK(t.tcp.size() == 1);
    CHECK(t.gpus[1].pcie.width == 16);
    CHECK(t.gpus[1].pcie.gen == 3);
    CHECK(fixture::has_warning(t, "link_speed empty or unknown; assumed 8 GT/s (Gen3) as NCCL does"));
    CHECK(fixture::has_warning(t, "link_width 0 or empty; assumed x16 as NCCL does"));
    CHECK(fixture::has_warning(t, "NVLink target is the GPU itself: peer unknown (GPU0, GPU1, GPU2, GPU3)"));
    CHECK(fixture::cls(t, "GPU0", "GPU1") == "SYS");
    CHECK(t.nvlink.gbyte_s_per_link == doctest::Approx(20));
    CHECK(t.gpus[0].numa == 0);
    CHECK(t.gpus[3].numa == 3);
}

TEST_CASE("RTX 3090 dump: Microchip switches, one 56 Gb/s ConnectX-6 under the second switch") {
    const auto t = load("pcie-8x-rtx3090-plx-switch-cx6-ib-topo.xml");
    CHECK(t.gpus.size() == 8);
    REQUIRE(t.nics.size() == 1);
    CHECK(t.nics[0].speed_gbit_s == doctest::Approx(56));
    CHECK(t.nics[0].link_layer == "IB");
    CHECK(t.gpu_model == "GeForce RTX 3090");
    CHECK(fixture::cls(t, "GPU4", "NIC0") == "PIX");
    CHECK(fixture::cls(t, "GPU0", "NIC0") == "SYS");
    CHECK(fixture::cls(t, "GPU0", "GPU3") == "PIX");
    CHECK(t.cpus[0].cpuset == "0-15,32-47");
}

TEST_CASE("dual-port ConnectX-4: two <net> under one <nic> give two NICs on one bus id") {
    const auto t = load("amd-epyc-2x-rtx4090-cx4-dualport-topo.xml");
    CHECK(t.gpus.size() == 2);
    REQUIRE(t.nics.size() == 2);
    CHECK(t.nics[0].bus_id == t.nics[1].bus_id);
    CHECK(t.nics[1].port == 2);
    CHECK(t.nics[0].numa == 3);
    CHECK(fixture::cls(t, "GPU0", "NIC0") == "PHB");
    CHECK(fixture::cls(t, "GPU1", "NIC1") == "SYS");
    CHECK(t.nics[0].pcie.gen == 3);
}

TEST_CASE("L20 with two-level Mellanox switches: GPU and its bond NIC are PXB") {
    const auto t = load("intel-8x-l20-cx8-pcie-switch-bond-partial-topo.xml");
    CHECK(t.gpus.size() == 8);
    CHECK(t.nics.size() == 12);
    CHECK(t.gpu_model == "L20");
    CHECK(t.gpus[0].pcie.gen == 6);
    CHECK(t.nics[0].device == "mlx5_2");  // NCCL dev 0: a 4-port x2 HCA on the root complex
    CHECK(t.nics[0].pcie.width == 2);
    CHECK(t.nics[4].device == "mlx5_bond_0");
    CHECK(fixture::cls(t, "GPU0", "NIC4") == "PXB");
    CHECK(fixture::cls(t, "GPU0", "NIC0") == "PHB");
    CHECK(planlayout::nearest_nic(t, "GPU0") == "NIC4");
    CHECK(fixture::has_warning(t, "<gpu> without rank"));
    CHECK(fixture::has_warning(t, "assumed 10 Gb/s as NCCL does"));
}

TEST_CASE("NVSwitch dumps: per-switch counts add up, the VM sentinel counts as a switch") {
    const std::string xml = R"(<system version="1"><cpu numaid="0">
      <pci busid="0000:18:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="90" rank="0"><nvlink target="0000:05:00.0" count="5" tclass="0x068000"/>
        <nvlink target="0000:06:00.0" count="13" tclass="0x068000"/></gpu></pci>
      <pci busid="0000:2a:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="90" rank="1"><nvlink target="fffffff:ff:ff.0" count="18" tclass="0x068000"/></gpu></pci>
    </cpu></system>)";
    const auto t = read_nccl_topo_xml(xml, "x.xml");
    CHECK(t.nvlink.nvswitch);
    CHECK(t.nvlink.links_per_gpu == 18);
    CHECK(t.nvlink.gbyte_s_per_link == doctest::Approx(20.6));
    CHECK(fixture::cls(t, "GPU0", "GPU1") == "NV");
    CHECK(planlayout::find_path(t, "GPU0", "GPU1")->nvlinks == 18);
}

TEST_CASE("malformed or foreign XML is refused naming the file and line") {
    using planlayout::Error;
    CHECK_THROWS_WITH_AS(read_nccl_topo_xml("<system version=\"1\">\n  <cpu numaid=\"0\">\n", "t.xml"),
                         doctest::Contains("t.xml:3: malformed XML: "), Error);
    CHECK_THROWS_WITH_AS(read_nccl_topo_xml("<system version=\"2\"></system>", "t.xml"),
                         "t.xml (/system): version \"2\" is not supported (NCCL reads version 1); "
                         "set <system version=\"1\">",
                         Error);
    CHECK_THROWS_WITH_AS(read_nccl_topo_xml(fixture::text("nccl-graph-xml/azure-ncv4-graph.xml"), "g.xml"),
                         doctest::Contains("g.xml: this is an NCCL graph file"), Error);
    CHECK_THROWS_WITH_AS(
        read_nccl_topo_xml("<system version=\"1\"><cpu numaid=\"0\"><pci class=\"0x030200\"/></cpu></system>", "t.xml"),
        "t.xml (/system/cpu[1]/pci[1]): <pci> without busid; give every <pci> a busid=\"dddd:bb:dd.f\"",
        Error);
    CHECK_THROWS_WITH_AS(read_nccl_topo_xml("<topology version=\"2.0\"/>", "t.xml"),
                         doctest::Contains("this is hwloc XML"), Error);
}

TEST_CASE("gdr=\"0\" on a GPU or an RDMA <net>: no GPUDirect RDMA on that node (gdr_level LOC)") {
    // RTX 4090s and a ConnectX-4: NCCL wrote gdr="0" on both GPUs and both nets.
    const auto epyc = load("amd-epyc-2x-rtx4090-cx4-dualport-topo.xml");
    CHECK(epyc.gdr_level == planlayout::PathClass::Loc);
    CHECK(fixture::has_warning(epyc, "NCCL found no GPUDirect RDMA (gdr=\"0\"): gdr_level LOC"));
    // gdr="1" everywhere: NCCL's default reach.
    CHECK(load("aws-p5-48xlarge-topo-2026.xml").gdr_level == planlayout::PathClass::Pxb);
    // NCv4: gdr="0" only on eth0, NCCL's socket transport (no RDMA there to begin with).
    const auto ncv4 = load("azure-ncv4-topo.xml");
    CHECK(ncv4.gdr_level == planlayout::PathClass::Pxb);
    CHECK_FALSE(fixture::has_warning(ncv4, "GPUDirect"));
    // Seeds without the attribute say nothing.
    CHECK(load("azure-ndv5-topo.xml").gdr_level == planlayout::PathClass::Pxb);
}

TEST_CASE("a PCIe link width of 32 lanes is read as such, 33 is not a lane count (x16 assumed)") {
    const auto xml = [](const std::string& width) {
        return R"(<system version="1"><cpu numaid="0">
      <pci busid="0000:18:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width=")" +
               width + R"(">
        <gpu dev="0" sm="90" rank="0"></gpu></pci>
    </cpu></system>)";
    };
    CHECK(read_nccl_topo_xml(xml("32"), "x.xml").gpus[0].pcie.width == 32);
    const auto t = read_nccl_topo_xml(xml("33"), "x.xml");
    CHECK(t.gpus[0].pcie.width == 16);
    CHECK(fixture::has_warning(t, "link_width is not a PCIe lane count"));
}
