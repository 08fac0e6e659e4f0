// Tests: node templates from/to JSON and path derivation by NCCL's rules.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "planlayout/ingest/node_template_json.hpp"
#include "planlayout/error.hpp"
#include "planlayout/topology/node_template.hpp"

using nlohmann::json;
using planlayout::NodeTemplate;
using planlayout::PathClass;

namespace {

// Two sockets; socket 0 has a two-level switch tree (SW0 above SW1, SW2), socket 1 one switch.
// GPU0,NIC0 under SW1; GPU1 under SW2; GPU2 directly on CPU0; GPU3,NIC1 under SW3 on CPU1;
// CPU2 is a second root complex of NUMA 0 with NIC2.
json sample() {
    return json::parse(R"({
      "name": "test-node", "gpu_model": "H100", "gpu_memory_mib": 81559,
      "nvlink": {"nvswitch": false, "links_per_gpu": 0, "gbyte_s_per_link": 0},
      "cpus": [{"name": "CPU0", "numa": 0, "cpuset": "0-15"}, {"name": "CPU1", "numa": 1},
               {"name": "CPU2", "numa": 0}],
      "pcie_switches": [{"name": "SW0", "parent": "CPU0", "pcie": {"gen": 4, "width": 16}},
                        {"name": "SW1", "parent": "SW0"}, {"name": "SW2", "parent": "SW0"},
                        {"name": "SW3", "parent": "CPU1"}],
      "gpus": [{"name": "GPU0", "parent": "SW1", "numa": 0, "bus_id": "0000:18:00.0",
                "pcie": {"gen": 4, "width": 16, "max_gen": 4, "max_width": 16, "gbyte_s": 31.5}},
               {"name": "GPU1", "parent": "SW2", "numa": 0},
               {"name": "GPU2", "parent": "CPU0", "numa": 0},
               {"name": "GPU3", "parent": "SW3", "numa": 1}],
      "nics": [{"name": "NIC0", "device": "mlx5_0", "parent": "SW1", "numa": 0,
                "speed_gbit_s": 400, "link_layer": "IB"},
               {"name": "NIC1", "device": "mlx5_1", "parent": "SW3", "numa": 1, "port": 2},
               {"name": "NIC2", "device": "eth0", "parent": "CPU2", "numa": 0, "rdma": false,
                "role": "management", "link_layer": "Ethernet"}],
      "tcp": [{"name": "eth0", "speed_gbit_s": 25, "numa": 0}],
      "warnings": ["hand-written"]
    })");
}

PathClass cls(const NodeTemplate& t, const char* a, const char* b) {
    const auto p = planlayout::find_path(t, a, b);
    REQUIRE(p.has_value());
    return p->path_class;
}

}  // namespace

TEST_CASE("paths are derived from the PCIe tree by switch identity") {
    const NodeTemplate t = planlayout::node_template_from_json(sample(), "x.json");
    CHECK(t.paths.size() == 21);  // 7 devices, every pair once
    CHECK(cls(t, "GPU0", "NIC0") == PathClass::Pix);   // same switch
    CHECK(cls(t, "NIC0", "GPU0") == PathClass::Pix);   // either order
    CHECK(cls(t, "GPU0", "GPU1") == PathClass::Pxb);   // SW1 → SW0 → SW2
    CHECK(cls(t, "GPU0", "GPU2") == PathClass::Phb);   // meet at CPU0
    CHECK(cls(t, "GPU0", "NIC2") == PathClass::Node);  // other root complex, same NUMA
    CHECK(cls(t, "GPU0", "GPU3") == PathClass::Sys);   // other socket
    CHECK(cls(t, "GPU3", "NIC1") == PathClass::Pix);
    CHECK(!planlayout::find_path(t, "GPU0", "GPU9").has_value());
    CHECK(t.paths.front().a == "GPU0");
    CHECK(t.paths.back().a == "NIC1");
}

TEST_CASE("NVSwitch GPUs are NV peers with the smaller link count") {
    json j = sample();
    j["nvlink"] = {{"nvswitch", true}, {"links_per_gpu", 18}, {"gbyte_s_per_link", 25}};
    j["gpus"][3]["nvswitch_links"] = 12;
    const NodeTemplate t = planlayout::node_template_from_json(j, "x.json");
    const auto p = planlayout::find_path(t, "GPU0", "GPU1");
    REQUIRE(p.has_value());
    CHECK(p->path_class == PathClass::Nv);
    CHECK(p->nvlinks == 18);
    CHECK(planlayout::find_path(t, "GPU3", "GPU0")->nvlinks == 12);
    CHECK(cls(t, "GPU0", "NIC0") == PathClass::Pix);  // NVLink never applies to NICs
}

TEST_CASE("explicit paths win over derived ones and are normalised") {
    json j = sample();
    j["paths"] = json::array({{{"a", "NIC0"}, {"b", "GPU1"}, {"class", "PHB"}},
                              {{"a", "GPU0"}, {"b", "GPU1"}, {"class", "NV"}, {"nvlinks", 4}}});
    const NodeTemplate t = planlayout::node_template_from_json(j, "x.json");
    CHECK(cls(t, "GPU1", "NIC0") == PathClass::Phb);
    CHECK(planlayout::find_path(t, "GPU0", "GPU1")->nvlinks == 4);
    CHECK(t.paths.size() == 21);
}

TEST_CASE("to_json round-trips and is deterministic") {
    const NodeTemplate t = planlayout::node_template_from_json(sample(), "x.json");
    const json j1 = planlayout::to_json(t);
    const NodeTemplate back = planlayout::node_template_from_json(j1, "round-trip");
    CHECK(planlayout::to_json(back) == j1);
    CHECK(back.nics[1].port == 2);
    CHECK(back.nics[2].rdma == false);
    CHECK(back.nics[2].role == "management");
    CHECK(back.gpus[0].pcie.gbyte_s == doctest::Approx(31.5));
    CHECK(back.cpus[0].cpuset == "0-15");
    CHECK(back.warnings == std::vector<std::string>{"hand-written"});
    CHECK(j1["nics"][0].count("port") == 0);  // default left out
    CHECK(back.gpu_memory_bytes == 81559.0 * 1024 * 1024);
    CHECK(j1["gpu_memory_mib"] == 81559);
    CHECK(j1.dump() == planlayout::to_json(back).dump());
}

TEST_CASE("GPU memory: MiB in the template, bytes in the value, 0 or absent unknown") {
    json j = sample();
    j["gpu_memory_mib"] = 11519.5625;  // a K40m's CUDAGlobalMemorySize, 11796032 KiB, in MiB
    NodeTemplate t = planlayout::node_template_from_json(j, "x.json");
    CHECK(t.gpu_memory_bytes == 11796032.0 * 1024);
    CHECK(planlayout::to_json(t)["gpu_memory_mib"] == 11519.5625);  // exact: KiB / 1024 is binary
    j["gpu_memory_mib"] = 0;
    t = planlayout::node_template_from_json(j, "x.json");
    CHECK(t.gpu_memory_bytes == 0);
    CHECK(planlayout::to_json(t).count("gpu_memory_mib") == 0);
    j.erase("gpu_memory_mib");
    CHECK(planlayout::node_template_from_json(j, "x.json").gpu_memory_bytes == 0);
    j["gpu_memory_mib"] = 0.5;
    CHECK_THROWS_WITH_AS(planlayout::node_template_from_json(j, "n.json"),
                         "n.json (/gpu_memory_mib): gpu_memory_mib = 0.5 MiB is smaller than 1 MiB; give a value from 1 "
                         "to 1073741824 MiB, or 0 when unknown",
                         planlayout::Error);
    j["gpu_memory_mib"] = "80GiB";
    CHECK_THROWS_WITH_AS(planlayout::node_template_from_json(j, "n.json"),
                         doctest::Contains("(/gpu_memory_mib): gpu_memory_mib must be a number, got string"),
                         planlayout::Error);
}

TEST_CASE("missing parents fall back to NUMA and say so") {
    json j = json::parse(R"({"gpus": [{"name": "GPU0", "numa": 0}, {"name": "GPU1", "numa": 0},
                                      {"name": "GPU2", "numa": 1}]})");
    const NodeTemplate t = planlayout::node_template_from_json(j, "x.json");
    CHECK(cls(t, "GPU0", "GPU1") == PathClass::Node);
    CHECK(cls(t, "GPU0", "GPU2") == PathClass::Sys);
    REQUIRE(t.warnings.size() == 1);
    CHECK(t.warnings[0].find("3 device pair(s)") == 0);
}

TEST_CASE("bad templates are refused with the JSON pointer, the problem and the fix") {
    using planlayout::Error;
    json j = sample();
    j["gpus"][3]["parent"] = "PLX9";
    CHECK_THROWS_WITH_AS(planlayout::node_template_from_json(j, "n.json"),
                         "n.json (/gpus/3/parent): parent 'PLX9' is neither a CPU nor a PCIe "
                         "switch; use one of: CPU0, CPU1, CPU2, SW0, SW1, SW2, SW3",
                         Error);
    CHECK_THROWS_WITH_AS(planlayout::node_template_from_json(j, "l.json", "/cluster/node"),
                         doctest::Contains("l.json (/cluster/node/gpus/3/parent): "), Error);
    j = sample();
    j["nics"][0]["speed"] = 400;
    CHECK_THROWS_WITH_AS(
        planlayout::node_template_from_json(j, "n.json"),
        "n.json (/nics/0/speed): unknown key \"speed\"; did you mean \"speed_gbit_s\"? known keys here: name, device, "
        "bus_id, parent, numa, speed_gbit_s, link_layer, port, netdev, rdma, role, pcie (keys starting with _ are comments)",
        Error);
    j = sample();
    j["gpus"][0]["numa"] = "0";
    CHECK_THROWS_WITH_AS(planlayout::node_template_from_json(j, "n.json"),
                         "n.json (/gpus/0/numa): numa must be a whole number, got string; write e.g. \"numa\": 1",
                         Error);
    j = sample();
    j["pcie_switches"][0]["parent"] = "SW1";
    CHECK_THROWS_WITH_AS(planlayout::node_template_from_json(j, "n.json"),
                         doctest::Contains("a cycle of parents"), Error);
    j = sample();
    j["paths"] = json::array({{{"a", "GPU0"}, {"b", "NIC0"}, {"class", "FAST"}}});
    CHECK_THROWS_WITH_AS(planlayout::node_template_from_json(j, "n.json"),
                         "n.json (/paths/0/class): unknown class 'FAST'; use one of: NV, PIX, "
                         "PXB, PHB, NODE, SYS",
                         Error);
    j = sample();
    j["gpus"][1]["name"] = "GPU0";
    CHECK_THROWS_WITH_AS(planlayout::node_template_from_json(j, "n.json"),
                         doctest::Contains("(/gpus/1/name): duplicate name 'GPU0'"), Error);
    CHECK_THROWS_WITH_AS(planlayout::node_template_from_json(json::array(), "n.json"),
                         "n.json (/): expected an object, got array; write a JSON object {...} here",
                         Error);
    j = sample();
    j["schema_version"] = 2;
    CHECK_THROWS_WITH_AS(planlayout::node_template_from_json(j, "n.json"),
                         doctest::Contains("schema_version 2 is not supported"), Error);
}
