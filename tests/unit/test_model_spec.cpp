// Tests: reading the model, training and transport sections.
#include <doctest/doctest.h>

#include "planlayout/analysis/model_spec.hpp"
#include "planlayout/error.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

#include "planlayout/ingest/read_file.hpp"

namespace {
nlohmann::json js(const char* text) { return nlohmann::json::parse(text); }
}  // namespace

TEST_CASE("the seed's sections parse, with documented defaults for what they leave out") {
    const std::string path = std::string(PLANLAYOUT_TEST_DATA_DIR) + "/seed-model.json";
    const auto j = parse_json_text(read_text_file(path), path);
    const ModelSpec m = ModelSpec::from_json(j.at("model"), path);
    CHECK(m.layers == 43);
    CHECK(m.moe_layers == 40);
    CHECK(m.kv_dim() == 512);
    CHECK(m.derived_expert_params() == doctest::Approx(40.0 * 256 * 3 * 4096 * 2048));
    CHECK(m.active_params() > m.derived_dense_params());
    const TrainingSpec t = TrainingSpec::from_json(j.at("training"), path);
    CHECK(t.finetune == FineTune::Lora);
    CHECK(t.micro_batches(16) == 1);
    CHECK(t.micro_batches(8) == 2);
    CHECK_FALSE(t.overlap_ep);
    const TransportSpec x = TransportSpec::from_json(j.at("transport"), path);
    CHECK(x.baseline == Transport::Tcp);
    CHECK(x.candidate == Transport::Gdrdma);
    CHECK(x.tcp.interface_gbit_s == 200);
    CHECK(x.gdrdma_params.efficiency.value == 0.9);
}

TEST_CASE("errors name the file and the JSON pointer") {
    CHECK_THROWS_WITH_AS(ModelSpec::from_json(js(R"({"layers": 4, "hidden": "big"})"), "x.json"),
                         "x.json (/model/hidden): hidden must be a whole number, got string; write e.g. \"hidden\": 1",
                         Error);
    CHECK_THROWS_WITH_AS(ModelSpec::from_json(js(R"({"layers": 4, "hiden": 4096})"), "x.json"),
                         doctest::Contains("x.json (/model/hiden): unknown key \"hiden\"; did you mean \"hidden\"?"), Error);
    CHECK_THROWS_WITH_AS(ModelSpec::from_json(js(R"({"layers": 4, "hidden": 64, "heads": 8, "moe": {"experts": 4, "topk": 8}})"),
                                              "x.json"),
                         "x.json (/model/moe/topk): topk 8 exceeds experts 4; topk must be at most the number of experts",
                         Error);
    CHECK_THROWS_WITH_AS(TrainingSpec::from_json(js(R"({"global_batch": 8, "seq_len": 64, "recompute": "some"})"), "x.json"),
                         "x.json (/training/recompute): unknown recompute 'some'; use none, selective or full", Error);
    CHECK_THROWS_WITH_AS(TransportSpec::from_json(js(R"({"compare": ["tcp", "ib-verbs"]})"), "x.json"),
                         "x.json (/transport/compare/1): unknown transport 'ib-verbs'; use tcp, rdma or gdrdma", Error);
    CHECK_THROWS_WITH_AS(TransportSpec::from_json(js(R"({"tcp": {"efficiency": {"value": 0.5, "low": 0.6}}})"), "x.json"),
                         "x.json (/transport/tcp/efficiency): the band must satisfy low <= value <= high; fix low, value and high",
                         Error);
}

TEST_CASE("every prior is overridable; a bare number keeps the band's relative width") {
    const TransportSpec x = TransportSpec::from_json(
        js(R"({"tcp": {"efficiency": 0.2, "alpha_us": 30, "interface_gbit_s": 25, "interfaces_per_node": 2},
               "gdrdma": {"alltoall_efficiency": {"value": 0.7, "low": 0.5, "high": 0.8}},
               "calibration": "calib.json", "_note": "comments as _keys are allowed"})"),
        "x.json");
    CHECK(x.tcp_params.efficiency.value == 0.2);
    CHECK(x.tcp_params.efficiency.low == doctest::Approx(0.1));
    CHECK(x.tcp_params.efficiency.high == doctest::Approx(0.3));
    CHECK(x.tcp_params.alpha_us == 30);
    CHECK(x.tcp.interfaces_per_node == 2);
    CHECK(x.gdrdma_params.alltoall_efficiency.low == 0.5);
    CHECK(x.calibrations == std::vector<std::string>{"calib.json"});
    CHECK(pick(x.gdrdma_params.alltoall_efficiency, PriorEnd::High) == 0.8);
}

TEST_CASE("sockets inside the node, an expert capacity factor and a list of calibration files") {
    const TransportSpec x = TransportSpec::from_json(
        js(R"({"tcp": {"interface": "lo", "inside_node": true}, "calibration": ["a.json", "b.json"]})"), "x.json");
    CHECK(x.tcp.inside_node);
    CHECK(x.tcp.interface_name == "lo");
    CHECK(x.calibrations == std::vector<std::string>{"a.json", "b.json"});
    CHECK_FALSE(TransportSpec::from_json(js("{}"), "x.json").tcp.inside_node);
    try {
        (void)TransportSpec::from_json(js(R"({"calibration": [1]})"), "x.json");
        FAIL("a list of numbers was accepted");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("x.json (/transport/calibration)") != std::string::npos);
        CHECK(std::string(e.what()).find("a list of file names") != std::string::npos);
    }
    const ModelSpec m = ModelSpec::from_json(
        js(R"({"layers": 1, "hidden": 1024, "moe": {"experts": 8, "topk": 2, "capacity_factor": 1.25},
               "params": {"dense": 4e6, "expert": 3e7}})"),
        "m.json");
    CHECK(m.capacity_factor == 1.25);
    CHECK(ModelSpec::from_json(js(R"({"layers": 1, "hidden": 8, "heads": 1})"), "m.json").capacity_factor == 1.0);
}
