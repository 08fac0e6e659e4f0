// Tests: nvidia-smi topo -m matrices, every fixture and the traps docs/formats/captures.md names.
#include <doctest/doctest.h>

#include "fixture_support.hpp"
#include "planlayout/ingest/node_template_json.hpp"
#include "planlayout/analysis/lint.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/nvidia_smi_topo.hpp"

using planlayout::read_nvidia_smi_topo;

namespace {
planlayout::NodeTemplate load(const std::string& name) {
    return read_nvidia_smi_topo(fixture::text("nvidia-smi-topo/" + name), name);
}
}  // namespace

TEST_CASE("DGX A100 (spaces, NIC Legend, NPS4): 8 GPUs NV12 via NVSwitch, 10 NICs, 2 per GPU pair") {
    const auto t = load("dgx-a100-8gpu-10nic-amd-nps4-clean.txt");
    CHECK(t.gpus.size() == 8);
    CHECK(t.nics.size() == 10);
    CHECK(t.nics[9].device == "mlx5_9");
    CHECK(t.nvlink.nvswitch);
    CHECK(t.nvlink.links_per_gpu == 12);
    CHECK(fixture::cls(t, "GPU0", "GPU7") == "NV");
    CHECK(planlayout::find_path(t, "GPU0", "GPU7")->nvlinks == 12);
    CHECK(fixture::cls(t, "GPU0", "NIC0") == "PXB");
    CHECK(fixture::cls(t, "GPU2", "NIC0") == "SYS");
    CHECK(fixture::cls(t, "NIC8", "NIC9") == "PIX");
    CHECK(t.gpus[0].numa == 3);
    CHECK(t.gpus[2].numa == 1);
    CHECK(t.gpus[4].numa == 7);
    CHECK(t.gpus[6].numa == 5);
    CHECK(t.cpus.size() == 4);
    CHECK(t.cpus[0].cpuset == "48-63,176-191");
    CHECK(t.nics[0].numa == 3);  // inferred from the PXB GPUs
    CHECK(planlayout::nearest_nic(t, "GPU6") == "NIC6");
    CHECK(t.warnings.empty());
}

TEST_CASE("DGX-1 legacy header: mlx5_0 column, hybrid cube-mesh NV1/NV2, no NUMA column") {
    const auto t = load("dgx1-style-8x-v100-sxm2-1nic-legacy-header.txt");
    CHECK(t.gpus.size() == 8);
    REQUIRE(t.nics.size() == 1);
    CHECK(t.nics[0].name == "NIC0");
    CHECK(t.nics[0].device == "mlx5_0");
    CHECK(!t.nvlink.nvswitch);
    CHECK(planlayout::find_path(t, "GPU0", "GPU1")->nvlinks == 1);
    CHECK(planlayout::find_path(t, "GPU0", "GPU3")->nvlinks == 2);
    CHECK(fixture::cls(t, "GPU0", "GPU5") == "SYS");
    CHECK(fixture::cls(t, "GPU2", "NIC0") == "PIX");
    CHECK(fixture::cls(t, "GPU0", "NIC0") == "NODE");
    CHECK(fixture::cls(t, "GPU4", "NIC0") == "SYS");
    CHECK(t.gpus[0].numa == -1);
    CHECK(t.cpus.size() == 2);
    CHECK(t.cpus[1].cpuset == "12-23,36-47");
}

TEST_CASE("H800 slice (tabs, ANSI header, empty affinity cells): 4 GPUs, 17 NICs, 2 PIX NICs each") {
    const auto t = load("h800-4gpu-slice-17nic-tabs-ansi-empty-affinity.txt");
    CHECK(t.gpus.size() == 4);
    CHECK(t.nics.size() == 17);
    CHECK(t.nics[16].device == "mlx5_16");
    CHECK(t.nvlink.nvswitch);  // NV8 × 3 peers > 18 links: switched
    CHECK(t.nvlink.links_per_gpu == 8);
    CHECK(fixture::cls(t, "GPU0", "NIC4") == "PIX");
    CHECK(fixture::cls(t, "GPU0", "NIC13") == "PIX");
    CHECK(fixture::cls(t, "GPU3", "NIC16") == "PIX");
    CHECK(planlayout::nearest_nic(t, "GPU1") == "NIC6");
    CHECK(t.gpus[0].numa == -1);
    CHECK(t.cpus.empty());
    CHECK(t.warnings.empty());  // the matrix is symmetric
}

TEST_CASE("8x RTX 4090 (tabs, no legend): all GPU pairs SYS, both NICs PHB to GPU6 only") {
    const auto t = load("pcie-8x-rtx4090-2nic-dual-socket-tabs-no-legend.txt");
    CHECK(t.gpus.size() == 8);
    CHECK(t.nics.size() == 2);
    CHECK(t.nics[0].device.empty());
    CHECK(fixture::has_warning(t, "no NIC Legend"));
    CHECK(fixture::cls(t, "GPU0", "GPU1") == "SYS");
    CHECK(fixture::cls(t, "GPU6", "NIC0") == "PHB");
    CHECK(fixture::cls(t, "NIC0", "NIC1") == "PIX");
    CHECK(t.gpus[3].numa == 0);
    CHECK(t.gpus[4].numa == 1);
    CHECK(t.nvlink.links_per_gpu == 0);
}

TEST_CASE("single GPUs: Tesla P4 with NUMA N/A, one-GPU H200 VM with ANSI header") {
    const auto p4 = load("single-tesla-p4-tabs-numa-na.txt");
    CHECK(p4.gpus.size() == 1);
    CHECK(p4.nics.empty());
    CHECK(p4.paths.empty());
    CHECK(p4.gpus[0].numa == -1);
    CHECK(p4.cpus.at(0).cpuset == "0-7");
    const auto h200 = load("1xh200-vm-single-gpu-tabs-ansi.txt");
    CHECK(h200.gpus.size() == 1);
    CHECK(h200.gpus[0].numa == 0);
    CHECK(h200.cpus.at(0).cpuset == "0-15");
}

TEST_CASE("two-GPU H200 VM: NV18, switch or direct links cannot be told apart") {
    const auto t = load("2xh200-vm-nv18-tabs-ansi.txt");
    CHECK(t.gpus.size() == 2);
    CHECK(planlayout::find_path(t, "GPU0", "GPU1")->nvlinks == 18);
    CHECK(t.nvlink.links_per_gpu == 18);
    CHECK(fixture::has_warning(t, "cannot be told apart"));
}

TEST_CASE("space-aligned and tab forms of one matrix agree - glued cells are split") {
    const std::string tabs =
        "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\n"
        "GPU0\t X \tNV4\tPIX\t0-7\t0\n"
        "GPU1\tNV4\t X \tSYS\t8-15\t1\n"
        "NIC0\tPIX\tSYS\t X \n\nNIC Legend:\n\n  NIC0: mlx5_0\n";
    const std::string glued =
        "        GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity\n"
        "GPU0     X      NV4PIX  0-7     0\n"
        "GPU1    NV4      X      SYS     8-15    1\n"
        "NIC0    PIXSYS  X\n\nNIC Legend:\n\n  NIC0: mlx5_0\n";
    const auto a = read_nvidia_smi_topo(tabs, "a");
    const auto b = read_nvidia_smi_topo(glued, "a");
    CHECK(planlayout::to_json(a).dump() == planlayout::to_json(b).dump());
    CHECK(fixture::cls(a, "GPU0", "NIC0") == "PIX");
    CHECK(a.gpus[1].numa == 1);
    CHECK(a.nics[0].numa == 0);
}

TEST_CASE("asymmetric cells are reported, not fixed") {
    const std::string text =
        "\tGPU0\tGPU1\n"
        "GPU0\t X \tPIX\n"
        "GPU1\tSYS\t X \n";
    const auto t = read_nvidia_smi_topo(text, "m.txt");
    CHECK(fixture::cls(t, "GPU0", "GPU1") == "PIX");
    REQUIRE(t.warnings.size() == 1);
    CHECK(t.warnings[0] == "asymmetric matrix: GPU0/GPU1 is PIX but GPU1/GPU0 is SYS (kept GPU0/GPU1)");
}

TEST_CASE("broken matrices are refused with file:line and the fix") {
    using planlayout::Error;
    CHECK_THROWS_WITH_AS(read_nvidia_smi_topo("\tGPU0\tGPU1\nGPU0\t X \tPIX\nGPU1\t X\n", "m.txt"),
                         "m.txt:3: row GPU1 has 1 relation cells, expected 2; each row needs one "
                         "cell per device column; is a column missing?",
                         Error);
    CHECK_THROWS_WITH_AS(
        read_nvidia_smi_topo("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \t0-7\nGPU1\tPIX\t X \t0-7\n",
                             "m.txt"),
        "m.txt:2: row GPU0 has 1 relation cells before '0-7', expected 2; each row needs one of "
        "X, NV#, PIX, PXB, PHB, NODE, SYS per device column; is a column missing?",
        Error);
    CHECK_THROWS_WITH_AS(read_nvidia_smi_topo("hello\nworld\n", "m.txt"),
                         "m.txt: no nvidia-smi topology header (a line with GPU0, GPU1, ...); pass "
                         "the output of 'nvidia-smi topo -m'",
                         Error);
    CHECK_THROWS_WITH_AS(read_nvidia_smi_topo("\tGPU0\tGPU1\nGPU0\t X \tPIX\n", "m.txt"),
                         "m.txt:1: column GPU1 has no row; the matrix is incomplete", Error);
    CHECK_THROWS_WITH_AS(read_nvidia_smi_topo("\tGPU0\tGPU1\nGPU0\tPIX\tPIX\nGPU1\tPIX\t X\n", "m.txt"),
                         "m.txt:2: diagonal cell of GPU0 is 'PIX', not X; check the column order "
                         "of the header",
                         Error);
}
