// Tests: hwloc XML through libhwloc, every fixture, 2.x vs 3.0 agreement, this host.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fixture_support.hpp"
#include "planlayout/ingest/node_template_json.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/hwloc_topology.hpp"
#include "planlayout/ingest/nvidia_smi_topo.hpp"

using planlayout::read_hwloc_xml;

namespace {
planlayout::NodeTemplate load(const std::string& name) {
    return read_hwloc_xml(fixture::text("hwloc-xml/" + name), name);
}
}  // namespace

TEST_CASE("DGX-2: 16 V100 behind two-level PLX switches, NVSwitch peers, NODE across root complexes") {
    const auto t = load("hwloc2-nvidiaDGX2.xml");
    CHECK(t.gpus.size() == 16);
    CHECK(t.nics.empty());
    CHECK(t.gpus[0].bus_id == "0000:34:00.0");
    CHECK(t.gpus[0].model == "V100-SXM3-32GB-H");
    CHECK(t.nvlink.nvswitch);
    CHECK(t.nvlink.links_per_gpu == 6);
    CHECK(fixture::has_warning(t, "NVSwitch PCI devices"));
    CHECK(t.gpu_memory_bytes == 0);  // NVML OS devices carry no memory size
    CHECK(t.gpus[0].parent == t.gpus[1].parent);  // 34:00.0 and 36:00.0 meet at switch 32:00.0
    CHECK(t.gpus[0].parent != t.gpus[2].parent);  // 39:00.0 is behind switch 37:00.0
    CHECK(t.gpus[0].pcie.gbyte_s == doctest::Approx(15.75).epsilon(0.01));
    // PCIe relations, with the NVLink overlay removed.
    auto pcie = t;
    pcie.nvlink = {};
    pcie.paths.clear();
    for (auto& g : pcie.gpus) {
        g.nvswitch_links = 0;
    }
    planlayout::derive_paths(pcie);
    CHECK(fixture::cls(pcie, "GPU0", "GPU1") == "PIX");
    CHECK(fixture::cls(pcie, "GPU0", "GPU2") == "PXB");
    CHECK(fixture::cls(pcie, "GPU0", "GPU4") == "NODE");
    CHECK(fixture::cls(pcie, "GPU0", "GPU8") == "SYS");
}

TEST_CASE("Supermicro X9DRG-HF: K40m and Tesla GPUs, one ConnectX-4 with ib0, two Ethernet ports") {
    const auto t = load("hwloc2-32em64t-2n8c2t-pci-normalio.xml");
    CHECK(t.gpus.size() == 3);
    CHECK(t.gpus[2].model == "K40m");
    REQUIRE(t.nics.size() == 3);
    CHECK(t.nics[0].device == "mlx5_0");
    CHECK(t.nics[0].netdev == "ib0");
    CHECK(t.nics[0].link_layer == "IB");
    CHECK(t.nics[0].rdma);
    CHECK(!t.nics[1].rdma);
    CHECK(t.nics[1].netdev == "eth0");
    CHECK(t.cpus.size() == 2);
    CHECK(t.cpus[1].cpuset == "8-15,24-31");
    CHECK(fixture::cls(t, "GPU2", "NIC0") == "PHB");
    CHECK(fixture::cls(t, "GPU0", "NIC0") == "SYS");
    // Only the K40m has a CUDA OS device (CUDAGlobalMemorySize 11796032 KiB): the smallest GPU
    // is not known, so neither is the template's GPU memory.
    CHECK(t.gpu_memory_bytes == 0);
    CHECK(fixture::has_warning(t, "only 1 of 3 GPUs report their memory"));
}

TEST_CASE("hwloc 3.0 XML of the same machine agrees with the 2.x file") {
    auto v3 = load("hwloc3-format-32em64t-2n8c2t-pci-normalio.xml");
    auto v2 = load("hwloc2-32em64t-2n8c2t-pci-normalio.xml");
    CHECK(fixture::has_warning(v3, "hwloc 3.0 XML read through libhwloc"));
    v3.warnings.erase(v3.warnings.begin());
    v3.source = v2.source;
    // 3.0 keeps the machine's Architecture among the topology's own infos, outside the object tree,
    // and the mapping to 2.x does not carry it: the 2.x file gives x86_64, the 3.0 one nothing.
    for (std::size_t i = 0; i < v2.cpus.size(); ++i) {
        CHECK(v2.cpus[i].arch == "x86_64");
        CHECK(v3.cpus[i].arch.empty());
        v2.cpus[i].arch.clear();
    }
    CHECK(planlayout::to_json(v3) == planlayout::to_json(v2));
}

TEST_CASE("hwloc: each CPU's processor as NCCL names it - architecture, CPUID vendor, family and model") {
    const auto vm = load("hwloc2.9-1xh200-vm-eth0-only-no-rdma.xml");
    REQUIRE(vm.cpus.size() == 1);
    CHECK(vm.cpus[0].arch == "x86_64");
    CHECK(vm.cpus[0].vendor == "GenuineIntel");
    CHECK(vm.cpus[0].family_id == 6);
    CHECK(vm.cpus[0].model_id == 207);  // CPUModelNumber 207: Emerald Rapids, as the H200 run's lscpu says
    const auto dgx2 = load("hwloc2-nvidiaDGX2.xml");
    REQUIRE(dgx2.cpus.size() >= 2);
    for (const auto& c : dgx2.cpus) {
        CHECK(c.vendor == "GenuineIntel");
        CHECK(c.family_id == 6);
        CHECK(c.model_id >= 0);
    }
}

TEST_CASE("HP SL390s: three GPUs over two sockets, mlx4_0 RDMA NIC with its netdev") {
    const auto t = load("hwloc2-24em64t-2n6c2t-pci.xml");
    CHECK(t.gpus.size() == 3);
    CHECK(t.cpus.size() == 2);
    const auto rdma = std::count_if(t.nics.begin(), t.nics.end(), [](const auto& n) { return n.rdma; });
    CHECK(rdma == 1);
    CHECK(t.nics[2].device == "mlx4_0");
    CHECK(fixture::cls(t, "GPU0", "NIC2") == "PHB");
    CHECK(fixture::cls(t, "GPU1", "GPU2") == "PHB");
    CHECK(fixture::cls(t, "GPU0", "GPU1") == "SYS");
}

TEST_CASE("POWER8: 4 GPUs on 4 NUMA nodes, NVLink not in the tree") {
    const auto t = load("hwloc2-power8gpudistances.xml");
    CHECK(t.gpus.size() == 4);
    CHECK(t.nics.empty());
    CHECK(!t.nvlink.nvswitch);
    CHECK(fixture::has_warning(t, "hwloc does not describe NVLink"));
    CHECK(fixture::has_warning(t, "no RDMA NIC"));
    // cuda0..3 each carry CUDAGlobalMemorySize 16671616 (KiB: totalGlobalMem >> 10, a 16 GB P100).
    CHECK(t.gpu_memory_bytes == 16671616.0 * 1024);
}

TEST_CASE("one-GPU H200 VM: the GPU as a 3D controller, eth0 (virtio) as a TCP-only NIC") {
    const auto t = load("hwloc2.9-1xh200-vm-eth0-only-no-rdma.xml");
    REQUIRE(t.gpus.size() == 1);
    CHECK(t.gpus[0].model == "H200");
    REQUIRE(t.nics.size() == 1);
    CHECK(!t.nics[0].rdma);
    CHECK(t.nics[0].netdev == "eth0");
    CHECK(t.tcp.size() == 1);
    CHECK(t.cpus.size() == 1);
    CHECK(t.cpus[0].numa == 0);
    CHECK(fixture::cls(t, "GPU0", "NIC0") == "PHB");
    CHECK(fixture::has_warning(t, "no RDMA NIC"));
    // No CUDA OS device, but the OpenCL one has OpenCLGlobalMemorySize 146591680 KiB (139.8 GiB).
    CHECK(t.gpu_memory_bytes == 146591680.0 * 1024);
}

TEST_CASE("broken hwloc XML names the file and line - other XML is pointed to its reader") {
    using planlayout::Error;
    const std::string good = fixture::text("hwloc-xml/hwloc2-24em64t-2n6c2t-pci.xml");
    CHECK_THROWS_WITH_AS(read_hwloc_xml(good.substr(0, good.size() / 2), "cut.xml"),
                         doctest::Contains("cut.xml:"), Error);
    CHECK_THROWS_WITH_AS(read_hwloc_xml("<system version=\"1\"/>", "n.xml"),
                         "n.xml: this is NCCL topology XML (<system>), not hwloc XML; use "
                         "'plan-layout import nccl-xml' for it",
                         Error);
    CHECK_THROWS_WITH_AS(read_hwloc_xml("<topology><object type=\"Machine\"/></topology>", "old.xml"),
                         doctest::Contains("hwloc 1.x XML"), Error);
}

TEST_CASE("this host through libhwloc: a template even without GPUs") {
    const auto t = planlayout::discover_this_host();
    CHECK((!t.cpus.empty() || !t.nics.empty() || t.gpus.empty()));
    if (t.gpus.empty()) {
        CHECK(fixture::has_warning(t, "no GPUs found on this host"));
    }
    CHECK(t.source.find("this host") == 0);
}

TEST_CASE("the one-GPU H200 VM agrees between hwloc XML and nvidia-smi topo -m") {
    const auto hw = load("hwloc2.9-1xh200-vm-eth0-only-no-rdma.xml");
    const auto smi = planlayout::read_nvidia_smi_topo(
        fixture::text("nvidia-smi-topo/1xh200-vm-single-gpu-tabs-ansi.txt"), "smi");
    CHECK(hw.gpus.size() == smi.gpus.size());
    CHECK(hw.gpus[0].numa == smi.gpus[0].numa);
    CHECK(hw.cpus.at(0).cpuset == smi.cpus.at(0).cpuset);
    CHECK(hw.cpus.at(0).numa == smi.cpus.at(0).numa);
    const auto rdma = [](const planlayout::NodeTemplate& t) {
        return std::count_if(t.nics.begin(), t.nics.end(), [](const auto& n) { return n.rdma; });
    };
    CHECK(rdma(hw) == 0);
    CHECK(rdma(smi) == 0);
}
