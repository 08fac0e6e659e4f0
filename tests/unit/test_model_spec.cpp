// Tests: reading the model, training and transport sections.
#include <doctest/doctest.h>

#include "planlayout/error.hpp"
#include "planlayout/model/model_spec.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/read_file.hpp"

namespace {
nlohmann::json js(const char* text) { return nlohmann::json::parse(text); }
}  // namespace

TEST_CASE("the seed's sections parse, with documented defaults for what they leave out") {
    const std::string path = std::string(PLANLAYOUT_TEST_DATA_DIR) + "/seed-model.json";
    const auto j = parse_json_text(read_text_file(path), path);
    const ModelSpec m = model_spec_from_json(j.at("model"), path);
    CHECK(m.layers == 43);
    CHECK(m.moe_layers == 40);
    CHECK(m.kv_dim() == 512);
    CHECK(m.derived_expert_params() == doctest::Approx(40.0 * 256 * 3 * 4096 * 2048));
    CHECK(m.active_params() > m.derived_dense_params());
    const TrainingSpec t = training_spec_from_json(j.at("training"), path);
    CHECK(t.finetune == FineTune::Lora);
    CHECK(t.micro_batches(16) == 1);
    CHECK(t.micro_batches(8) == 2);
    CHECK_FALSE(t.overlap_ep);
    const TransportSpec x = transport_spec_from_json(j.at("transport"), path);
    CHECK(x.baseline == Transport::Tcp);
    CHECK(x.candidate == Transport::Gdrdma);
    CHECK(x.tcp.interface_gbit_s == 200);
    CHECK(x.gdrdma_params.efficiency.value == 0.9);
}

TEST_CASE("errors name the file and the JSON pointer") {
    CHECK_THROWS_WITH_AS(model_spec_from_json(js(R"({"layers": 4, "hidden": "big"})"), "x.json"),
                         "x.json (/model/hidden): hidden must be a whole number, got string; write e.g. \"hidden\": 1",
                         Error);
    CHECK_THROWS_WITH_AS(model_spec_from_json(js(R"({"layers": 4, "hiden": 4096})"), "x.json"),
                         doctest::Contains("x.json (/model/hiden): unknown key \"hiden\"; did you mean \"hidden\"?"), Error);
    CHECK_THROWS_WITH_AS(model_spec_from_json(js(R"({"layers": 4, "hidden": 64, "heads": 8, "moe": {"experts": 4, "topk": 8}})"),
                                              "x.json"),
                         "x.json (/model/moe/topk): topk 8 exceeds experts 4; topk must be at most the number of experts",
                         Error);
    CHECK_THROWS_WITH_AS(training_spec_from_json(js(R"({"global_batch": 8, "seq_len": 64, "recompute": "some"})"), "x.json"),
                         "x.json (/training/recompute): unknown recompute 'some'; use none, selective or full", Error);
    CHECK_THROWS_WITH_AS(transport_spec_from_json(js(R"({"compare": ["tcp", "ib-verbs"]})"), "x.json"),
                         "x.json (/transport/compare/1): unknown transport 'ib-verbs'; use tcp, rdma or gdrdma (network), or p2p and shm (inside a node)", Error);
    CHECK_THROWS_WITH_AS(transport_spec_from_json(js(R"({"tcp": {"efficiency": {"value": 0.5, "low": 0.6}}})"), "x.json"),
                         "x.json (/transport/tcp/efficiency): the band must satisfy low <= value <= high; fix low, value and high",
                         Error);
}

TEST_CASE("host_time none survives a saved layout, and an unknown value is refused") {
    const TrainingSpec t = training_spec_from_json(js(R"({"global_batch": 8, "seq_len": 64, "host_time": "none"})"), "x.json");
    CHECK_FALSE(t.host_time);
    CHECK(t.to_json().at("host_time") == "none");
    CHECK_FALSE(training_spec_from_json(t.to_json(), "saved.json").host_time);
    CHECK(training_spec_from_json(js(R"({"global_batch": 8, "seq_len": 64})"), "x.json").to_json().at("host_time") == "auto");
    CHECK_THROWS_WITH_AS(training_spec_from_json(js(R"({"global_batch": 8, "seq_len": 64, "host_time": "off"})"), "x.json"),
                         doctest::Contains("host_time"), Error);
}

TEST_CASE("the second measured arm needs the first, a different transport and both of its keys") {
    const TrainingSpec t = training_spec_from_json(
        js(R"({"global_batch": 8, "seq_len": 64, "measured_step_time_s": 5.72, "measured_transport": "tcp",
               "second_measured_step_time_s": 2.51, "second_measured_transport": "rdma", "measured_compute_s": 0.6})"),
        "x.json");
    CHECK(t.second_measured_step_time_s.value_or(0) == 2.51);
    CHECK(t.second_measured_transport == "rdma");
    CHECK(t.measured_compute_s.value_or(0) == 0.6);
    CHECK(training_spec_from_json(t.to_json(), "saved.json").to_json() == t.to_json());
    CHECK_THROWS_WITH_AS(training_spec_from_json(js(R"({"second_measured_step_time_s": 2.51, "second_measured_transport": "rdma"})"),
                                                 "x.json"),
                         "x.json (/training/second_measured_step_time_s): a second measured arm without a first; give the "
                         "first as measured_step_time_s and measured_transport",
                         Error);
    CHECK_THROWS_WITH_AS(training_spec_from_json(js(R"({"measured_step_time_s": 5, "measured_transport": "tcp",
                                                       "second_measured_step_time_s": 2.51, "second_measured_transport": "tcp"})"),
                                                 "x.json"),
                         doctest::Contains("the second measured arm is the first's transport (tcp)"), Error);
    CHECK_THROWS_WITH_AS(training_spec_from_json(js(R"({"measured_step_time_s": 5, "second_measured_step_time_s": 2.51})"), "x.json"),
                         doctest::Contains("x.json (/training/second_measured_transport): the second measured arm needs both"),
                         Error);
}

TEST_CASE("every prior is overridable - a bare number keeps the band's relative width") {
    const TransportSpec x = transport_spec_from_json(
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
    const TransportSpec x = transport_spec_from_json(
        js(R"({"tcp": {"interface": "lo", "inside_node": true}, "calibration": ["a.json", "b.json"]})"), "x.json");
    CHECK(x.tcp.inside_node);
    CHECK(x.tcp.interface_name == "lo");
    CHECK(x.calibrations == std::vector<std::string>{"a.json", "b.json"});
    CHECK_FALSE(transport_spec_from_json(js("{}"), "x.json").tcp.inside_node);
    try {
        (void)transport_spec_from_json(js(R"({"calibration": [1]})"), "x.json");
        FAIL("a list of numbers was accepted");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("x.json (/transport/calibration)") != std::string::npos);
        CHECK(std::string(e.what()).find("a list of file names") != std::string::npos);
    }
    const ModelSpec m = model_spec_from_json(
        js(R"({"layers": 1, "hidden": 1024, "moe": {"experts": 8, "topk": 2, "capacity_factor": 1.25},
               "params": {"dense": 4e6, "expert": 3e7}})"),
        "m.json");
    CHECK(m.capacity_factor == 1.25);
    CHECK(model_spec_from_json(js(R"({"layers": 1, "hidden": 8, "heads": 1})"), "m.json").capacity_factor == 1.0);
}

// ---------------------------------------------------------------------------- derived parameter counts

namespace {

// A small MoE model whose counts are worked out by hand below: 4 layers (1 dense, 3 MoE), h = 64,
// 8 heads of 8 (head_dim derived), 2 KV heads, dense FFN 256, 4 experts of width 32, top-2, one
// shared expert, vocabulary 1000, untied embeddings.
const char* const kSmallMoe = R"({"layers": 4, "first_dense_layers": 1, "hidden": 64, "heads": 8, "kv_heads": 2,
    "ffn_hidden": 256, "vocab": 1000,
    "moe": {"experts": 4, "topk": 2, "ffn_hidden": 32, "shared_experts": 1}})";

}  // namespace

TEST_CASE("derived parameter counts of a small MoE model, by hand") {
    const ModelSpec m = model_spec_from_json(js(kSmallMoe), "m.json");
    CHECK(m.moe_layers == 3);
    CHECK(m.derived_head_dim() == 8);
    CHECK(m.kv_dim() == 16);           // 2 KV heads × 8
    CHECK(m.kv_cache_dim() == 32);     // K and V
    // attention: q and o 2·64·64 = 8192, k and v 2·64·16 = 2048
    CHECK(m.attention_params_per_layer() == 10240);
    // 4·10240 attention + 1·3·64·256 dense FFN + 3·(64·4 router + 3·64·32 shared) + 1000·64·2 embeddings
    CHECK(m.derived_dense_params() == 40960 + 49152 + 19200 + 128000);
    // 3 MoE layers · 4 experts · 3·64·32
    CHECK(m.derived_expert_params() == 73728);
    CHECK(m.active_params() == 237312 + 73728 / 2);
    CHECK(m.derived_shared_ffn_hidden() == 32);
}

TEST_CASE("a GELU (two-matrix) FFN has two thirds of the SwiGLU FFN weights") {
    nlohmann::json j = js(kSmallMoe);
    j["ffn_gated"] = false;
    const ModelSpec m = model_spec_from_json(j, "m.json");
    CHECK(m.ffn_matrices() == 2);
    // 4·10240 + 1·2·64·256 + 3·(256 + 2·64·32) + 128000
    CHECK(m.derived_dense_params() == 40960 + 32768 + 13056 + 128000);
    CHECK(m.derived_expert_params() == 3 * 4 * 2 * 64 * 32);
    CHECK(m.attention_params_per_layer() == 10240);  // attention is not an FFN
}

TEST_CASE("shared_ffn_hidden sets the shared experts' total width - the default is shared_experts × expert width") {
    nlohmann::json j = js(kSmallMoe);
    j["moe"]["shared_ffn_hidden"] = 96;
    const ModelSpec m = model_spec_from_json(j, "m.json");
    CHECK(m.derived_shared_ffn_hidden() == 96);
    CHECK(m.derived_dense_params() == 40960 + 49152 + 3 * (256 + 3 * 64 * 96) + 128000);
    j["moe"].erase("shared_ffn_hidden");
    j["moe"]["shared_experts"] = 2;
    CHECK(model_spec_from_json(j, "m.json").derived_shared_ffn_hidden() == 64);
    j["moe"]["shared_experts"] = 0;
    CHECK(model_spec_from_json(j, "m.json").derived_dense_params() == 40960 + 49152 + 3 * 256 + 128000);
}

TEST_CASE("moe/layer_freq as an int follows Megatron: layer i is MoE when i % N == 0") {
    nlohmann::json j = js(R"({"layers": 6, "hidden": 64, "heads": 8, "moe": {"experts": 4, "topk": 2, "layer_freq": 2}})");
    const ModelSpec m = model_spec_from_json(j, "m.json");
    CHECK(m.moe_layers == 3);
    CHECK(m.first_dense_layers == 0);
    CHECK(m.moe_layer_map() == std::vector<bool>{true, false, true, false, true, false});
    j["moe"]["layer_freq"] = 4;  // layers 0 and 4
    CHECK(model_spec_from_json(j, "m.json").moe_layers == 2);
    j["moe_layers"] = 2;  // agrees: fine
    CHECK(model_spec_from_json(j, "m.json").moe_layers == 2);
    j["moe_layers"] = 5;
    CHECK_THROWS_WITH_AS(model_spec_from_json(j, "m.json"),
                         "m.json (/model/moe_layers): moe_layers 5 conflicts with moe/layer_freq, which gives 2; "
                         "remove moe_layers or moe/layer_freq, or make them agree",
                         Error);
    j.erase("moe_layers");
    j["first_dense_layers"] = 1;  // an int pattern makes layer 0 MoE
    CHECK_THROWS_WITH_AS(model_spec_from_json(j, "m.json"),
                         "m.json (/model/first_dense_layers): first_dense_layers 1 conflicts with moe/layer_freq, which "
                         "gives 0; remove first_dense_layers or moe/layer_freq, or make them agree",
                         Error);
}

TEST_CASE("moe/layer_freq as a list marks each layer - leading zeros are the first dense layers") {
    nlohmann::json j =
        js(R"({"layers": 6, "hidden": 64, "heads": 8, "moe": {"experts": 4, "topk": 2, "layer_freq": [0, 0, 1, 1, 0, 1]}})");
    const ModelSpec m = model_spec_from_json(j, "m.json");
    CHECK(m.first_dense_layers == 2);
    CHECK(m.moe_layers == 3);
    CHECK(m.moe_layer_map() == std::vector<bool>{false, false, true, true, false, true});
    j["first_dense_layers"] = 2;
    CHECK(model_spec_from_json(j, "m.json").moe_layers == 3);
    j["moe"]["layer_freq"] = {0, 1, 1};
    CHECK_THROWS_WITH_AS(model_spec_from_json(j, "m.json"),
                         "m.json (/model/moe/layer_freq): the list has 3 entries for 6 layers; give one 0 (dense) or 1 "
                         "(MoE) per layer, or an int N for every N-th layer",
                         Error);
    j["moe"]["layer_freq"] = {0, 0, 1, 2, 0, 1};
    CHECK_THROWS_WITH_AS(model_spec_from_json(j, "m.json"),
                         "m.json (/model/moe/layer_freq/3): expected 0 or 1, got 2; write 0 for a dense layer and 1 for "
                         "an MoE layer",
                         Error);
    j["moe"]["layer_freq"] = {0, 0, 0, 0, 0, 0};
    CHECK_THROWS_WITH_AS(model_spec_from_json(j, "m.json"), doctest::Contains("layer_freq makes none of the 6 layers MoE"),
                         Error);
}

TEST_CASE("MLA attention at DeepSeek-V3 sizes, by hand, and the whole model against the published 671B / 37B") {
    const nlohmann::json j = js(R"({"layers": 61, "first_dense_layers": 3, "hidden": 7168, "heads": 128,
        "ffn_hidden": 18432, "vocab": 129280,
        "moe": {"experts": 256, "topk": 8, "ffn_hidden": 2048, "shared_experts": 1},
        "mla": {"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128}})");
    const ModelSpec m = model_spec_from_json(j, "v3.json");
    // q_a 7168·1536 + q_b 1536·128·(128+64) + kv_a 7168·(512+64) + kv_b 512·128·(128+128) + o 128·128·7168
    const double attention = 11010048.0 + 37748736.0 + 4128768.0 + 16777216.0 + 117440512.0;
    CHECK(m.attention_params_per_layer() == attention);
    CHECK(m.kv_cache_dim() == 576);          // the latent and the shared rotary key
    CHECK(m.kv_dim() == 128 * (192 + 128) / 2);  // full K (192) and V (128) per head on the CP ring
    const double total = m.derived_dense_params() + m.derived_expert_params();
    // 671B total (DeepSeek-V3 README and report; the 14B multi-token-prediction module excluded):
    // derived 671.025B, +0.004% (a hand-written section without "norms": norms are not counted).
    CHECK(total == doctest::Approx(671e9).epsilon(0.001));
    CHECK(total == 671025397760.0);
    // 37B activated (report): derived 37.55B, +1.5% (README_WEIGHTS.md gives 36.7B with embedding and head).
    CHECK(m.active_params() == doctest::Approx(37e9).epsilon(0.02));
    // Without query compression, q_proj is h × heads·(qk + rope).
    nlohmann::json lite = j;
    lite["mla"]["q_lora_rank"] = 0;
    CHECK(model_spec_from_json(lite, "v3.json").attention_params_per_layer() ==
          attention - 11010048.0 - 37748736.0 + 7168.0 * 128 * 192);
    lite["mla"].erase("v_head_dim");
    CHECK_THROWS_WITH_AS(model_spec_from_json(lite, "v3.json"),
                         "v3.json (/model/mla/v_head_dim): missing: v_head_dim (multi-head latent attention needs it); add "
                         "\"v_head_dim\": N (DeepSeek-V3: 128)",
                         Error);
}

TEST_CASE("to_json writes every effective value, and from_json reads the same model back") {
    const nlohmann::json j = js(R"({"layers": 6, "hidden": 512, "heads": 8, "vocab": 32000, "ffn_gated": false,
        "tied_embeddings": true,
        "moe": {"experts": 16, "topk": 4, "shared_experts": 1, "shared_ffn_hidden": 1024, "capacity_factor": 1.25,
                "layer_freq": [0, 1, 1, 0, 1, 1], "token_dispatcher": "flex", "grouped_gemm": true},
        "mla": {"kv_lora_rank": 128, "qk_head_dim": 64, "qk_rope_head_dim": 32, "v_head_dim": 64},
        "dtype_bytes": {"grad": 4}})");
    const ModelSpec a = model_spec_from_json(j, "m.json");
    const nlohmann::json written = a.to_json();
    CHECK(written.at("ffn_hidden") == 2048);                    // 4·hidden, derived
    CHECK(written.at("moe").at("ffn_hidden") == 512);           // 2048 / topk, derived
    CHECK(written.at("moe").at("token_dispatcher") == "flex");
    CHECK(written.at("params").at("expert") == a.derived_expert_params());
    const ModelSpec b = model_spec_from_json(written, "saved.json");
    CHECK(b.to_json() == written);
    CHECK(b.derived_dense_params() == a.derived_dense_params());
    CHECK(b.active_params() == a.active_params());
    CHECK(b.kv_dim() == a.kv_dim());
    CHECK(b.moe_layer_map() == a.moe_layer_map());
    CHECK(b.grad_bytes == 4);
    // The seed's model too, whose head_dim and moe ffn are given and whose parameters are derived.
    const std::string path = std::string(PLANLAYOUT_TEST_DATA_DIR) + "/seed-model.json";
    const auto seed = parse_json_text(read_text_file(path), path);
    const ModelSpec s = model_spec_from_json(seed.at("model"), path);
    const ModelSpec t = model_spec_from_json(s.to_json(), "saved.json");
    CHECK(t.to_json() == s.to_json());
    CHECK(t.active_params() == s.active_params());
    const TrainingSpec tr = training_spec_from_json(seed.at("training"), path);
    CHECK(training_spec_from_json(tr.to_json(), "saved.json").to_json() == tr.to_json());
}

TEST_CASE("fields() says which values were given, defaulted or derived") {
    const ModelSpec m = model_spec_from_json(js(kSmallMoe), "m.json");
    const auto fields = m.fields();
    const auto origin = [&](const std::string& p) {
        for (const auto& f : fields) {
            if (f.pointer == p) {
                return std::string(to_string(f.origin));
            }
        }
        return std::string("absent");
    };
    CHECK(origin("/hidden") == "given");
    CHECK(origin("/head_dim") == "derived");
    CHECK(origin("/moe_layers") == "derived");
    CHECK(origin("/moe/ffn_hidden") == "given");
    CHECK(origin("/moe/shared_ffn_hidden") == "derived");
    CHECK(origin("/moe/capacity_factor") == "default");
    CHECK(origin("/moe/token_dispatcher") == "default");
    CHECK(origin("/ffn_gated") == "default");
    CHECK(origin("/params/dense") == "derived");
    CHECK(origin("/mla/kv_lora_rank") == "absent");
}

TEST_CASE("training: fp8 and the recompute method are stored - they are checked and written back") {
    const TrainingSpec t = training_spec_from_json(
        js(R"({"global_batch": 64, "seq_len": 4096, "recompute": "full", "recompute_method": "block",
               "recompute_layers": 2, "fp8": "hybrid", "compute_time_s": 1.5})"),
        "t.json");
    CHECK(t.fp8 == "hybrid");
    CHECK(t.recompute_method == RecomputeMethod::Block);
    CHECK(t.recompute_layers == 2);
    const TrainingSpec u = training_spec_from_json(t.to_json(), "saved.json");
    CHECK(u.to_json() == t.to_json());
    CHECK(u.compute_time_s == 1.5);
    CHECK_THROWS_WITH_AS(training_spec_from_json(js(R"({"global_batch": 8, "seq_len": 64, "recompute_method": "uniform"})"),
                                                 "t.json"),
                         "t.json (/training/recompute_method): recompute_method and recompute_layers apply to full "
                         "recompute only; set \"recompute\": \"full\", or remove them",
                         Error);
    CHECK_THROWS_WITH_AS(training_spec_from_json(js(R"({"global_batch": 8, "seq_len": 64, "fp8": "e5m2"})"), "t.json"),
                         "t.json (/training/fp8): unknown fp8 format 'e5m2'; use e4m3 or hybrid (Megatron --fp8-format)",
                         Error);
    CHECK_THROWS_WITH_AS(
        model_spec_from_json(js(R"({"layers": 2, "hidden": 64, "heads": 8, "moe": {"experts": 4, "topk": 1,
                                    "token_dispatcher": "deepep"}})"),
                             "m.json"),
        doctest::Contains("allgather, alltoall or flex"), Error);
}

TEST_CASE("a shape of more than 1e15 parameters is refused, so that every section read writes back") {
    CHECK_THROWS_WITH_AS(model_spec_from_json(js(R"({"layers": 1000000, "hidden": 16777216, "heads": 1})"), "m.json"),
                         doctest::Contains("m.json (/model): the shape gives "), Error);
    // The largest widths to_json derives (4·hidden) read back.
    const ModelSpec wide = model_spec_from_json(js(R"({"layers": 1, "hidden": 4194304, "heads": 1, "vocab": 0})"), "m.json");
    CHECK(model_spec_from_json(wide.to_json(), "saved.json").derived_ffn_hidden() == 4 * 4194304);
}
