// Tests: the Blackwell and H200 node templates of layouts/nodes/ (issue 30), their facts against
// the datasheet numbers each template cites.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/lint.hpp"
#include "planlayout/analysis/placed_group.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/topology/cluster.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

TemplateFacts facts_of(const std::string& name) { return template_facts(builtin_node_template(name, "t")); }

}  // namespace

TEST_CASE("the NVL72 trays have 4 GPUs on fifth-generation NVLink and one rail NIC per GPU") {
    for (const char* name : {"gb200-nvl72-tray", "gb300-nvl72-tray"}) {
        CAPTURE(name);
        const TemplateFacts f = facts_of(name);
        CHECK(f.gpu_count == 4);
        CHECK(f.rail_nics.size() == 4);
        CHECK(f.gpu_rail == std::vector<int>{0, 1, 2, 3});
        CHECK(f.gpu_gpu[0 * 4 + 3] == PathClass::Nv);
        CHECK(f.nvlink_gbyte_s == doctest::Approx(1800.0 / 2));  // 1.8 TB/s both directions
        CHECK(f.gpu_numa_nodes == 2);                             // two Grace CPUs
    }
    SUBCASE("GB200: ConnectX-7 400G behind the Grace CPU (NCCL's P2C, PHB here, GPUDirect allowed)") {
        const NodeTemplate t = builtin_node_template("gb200-nvl72-tray", "t");
        const TemplateFacts f = template_facts(t);
        CHECK(f.rail_gbit_s == std::vector<double>{400, 400, 400, 400});
        CHECK(f.gpu_nic_class[2] == PathClass::Phb);
        CHECK(t.gdr_level == PathClass::Phb);
        CHECK(t.gpu_model == "GB200");
        // lint takes the template's GPUDirect reach: no "NCCL will not use GPUDirect" at PHB here.
        for (const Finding& finding : lint_node(t)) {
            CHECK(finding.code != "gpu-no-near-nic");
        }
        NodeTemplate pxb = t;
        pxb.gdr_level = PathClass::Pxb;  // without it, the warning is back for every GPU
        int warned = 0;
        for (const Finding& finding : lint_node(pxb)) {
            warned += finding.code == "gpu-no-near-nic" ? 1 : 0;
        }
        CHECK(warned == 4);
    }
    SUBCASE("GB300: ConnectX-8 800G sharing its PCIe switch with the GPU (PIX)") {
        const TemplateFacts f = facts_of("gb300-nvl72-tray");
        CHECK(f.rail_gbit_s == std::vector<double>{800, 800, 800, 800});
        CHECK(f.gpu_nic_class[1] == PathClass::Pix);
    }
}

TEST_CASE("the HGX templates have 8 GPUs, NIC i beside GPU i, and the datasheets' NVLink and NIC rates") {
    struct Want {
        const char* name;
        double nvlink_gbyte_s;  // one direction per GPU
        double nic_gbit_s;
        const char* model;
    };
    for (const Want& w : {Want{"hgx-b200-8gpu-8nic", 900, 400, "B200"}, Want{"hgx-b300-8gpu-8nic", 900, 800, "B300"},
                          Want{"hgx-h200-8gpu-8nic", 450, 400, "H200"}}) {
        CAPTURE(w.name);
        const NodeTemplate t = builtin_node_template(w.name, "t");
        const TemplateFacts f = template_facts(t);
        CHECK(t.gpu_model == w.model);
        CHECK(f.gpu_count == 8);
        CHECK(f.gpu_rail == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
        CHECK(f.gpu_nic_class[5] == PathClass::Pix);
        CHECK(f.gpu_gpu[1 * 8 + 6] == PathClass::Nv);
        CHECK(f.nvlink_gbyte_s == doctest::Approx(w.nvlink_gbyte_s));
        CHECK(f.rail_gbit_s == std::vector<double>(8, w.nic_gbit_s));
    }
}

TEST_CASE("a GB200 cluster's cost hardware is the tray's NVLink 5 and 400G rails") {
    const Cluster c = cluster_from_json(nlohmann::json::parse(R"({"nodes": 2, "node": "gb200-nvl72-tray"})"), "c.json",
                                        "/cluster", ".");
    const NodeHardware hw = node_hardware(c);
    CHECK(hw.nvlink);
    CHECK(hw.nvlink_gbyte_s == doctest::Approx(900));
    CHECK(hw.nic_gbit_s == doctest::Approx(400));
    CHECK(hw.nics_per_node == 4);
}
