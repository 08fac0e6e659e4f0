// The inputs users have, composed into one plan (src/cli/plan_inputs.cpp): a real Megatron-LM
// launch script (tests/data/launch/, sources in its README), a Hugging Face config.json
// (tests/data/hf-configs/, sources in its README), flags over a layout, and --save-layout's round
// trip.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/cli/run.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "../../src/cli/terminal_stream.hpp"
#include "tolerances.hpp"

namespace fs = std::filesystem;

namespace {

constexpr const char* kSrc = PLANLAYOUT_SOURCE_DIR;

struct Run {
    int code = 0;
    std::string out;
    std::string err;
};

Run cli(const std::vector<std::string>& args) {
    std::ostringstream out;
    std::ostringstream err;
    Run r;
    std::vector<std::string> argv{"plan-layout"};
    argv.insert(argv.end(), args.begin(), args.end());
    r.code = planlayout::run_cli(argv, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

// The report without what names where values came from: the layout line and the assumed block
// (once saved, every value is given by the saved layout; its comments keep the first sources).
std::string without_sources(const std::string& text) {
    std::istringstream in(text);
    std::string out;
    bool assumed = false;
    for (std::string line; std::getline(in, line);) {
        assumed = assumed ? !line.empty() : line.rfind("assumed (", 0) == 0;
        if (assumed || line.rfind("layout: ", 0) == 0) {
            continue;
        }
        out += line + "\n";
    }
    return out;
}

// A JSON report without its sources: the layout name and each assumption's source.
nlohmann::json json_without_sources(const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text);
    j.erase("layout");
    for (auto& a : j.at("assumptions")) {
        a.erase("source");
    }
    return j;
}

struct Scratch {
    fs::path path = fs::temp_directory_path() / ("planlayout-inputs-" + std::to_string(::getpid()));
    Scratch() { fs::create_directories(path); }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    Scratch(Scratch&&) = delete;
    Scratch& operator=(Scratch&&) = delete;
};

std::vector<std::string> mixtral() {
    return {"analyze", "--nodes", "4", "--node", "h100-hgx-8gpu-8nic", "--megatron-args",
            std::string(kSrc) + "/tests/data/launch/mixtral_8x7b.sh", "--vocab-size", "32000"};
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

}  // namespace

TEST_CASE("a real launch script and a template give the plan with no layout file") {
    const Run r = cli(with(mixtral(), {"--format", "json"}));
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    // Megatron-LM's examples/mixtral script: tp 1, pp 4, ep 8 on 4 x 8 GPUs -> dp 8.
    CHECK(j.at("spec").at("tp") == 1);
    CHECK(j.at("spec").at("pp") == 4);
    CHECK(j.at("spec").at("ep") == 8);
    CHECK(j.at("spec").at("dp") == 8);
    std::map<std::string, nlohmann::json> value;
    std::map<std::string, std::string> source;
    for (const auto& a : j.at("assumptions")) {
        value[a.at("path")] = a.at("value");
        source[a.at("path")] = a.at("source");
    }
    CHECK(value.at("/model/layers") == 32);
    CHECK(value.at("/model/hidden") == 4096);
    CHECK(value.at("/model/kv_heads") == 8);
    CHECK(value.at("/model/moe/experts") == 8);
    // Megatron's validate_args: the expert FFN is the FFN when --moe-ffn-hidden-size is absent.
    CHECK(value.at("/model/moe/ffn_hidden") == 14336);
    CHECK(source.at("/model/moe/ffn_hidden").find("Megatron default") != std::string::npos);
    CHECK(source.at("/model/layers").find("mixtral_8x7b.sh:") != std::string::npos);
    CHECK(source.at("/model/layers").find("(--num-layers)") != std::string::npos);
    CHECK(source.at("/model/vocab") == "command line (--vocab-size)");
    CHECK(source.at("/parallel/dp") == "derived");
    CHECK(source.at("/training/compute_scale") == "default");
    CHECK(value.count("/compute/gpu") == 1);  // the GPU the compute model used, with its source
    CHECK(j.contains("memory"));
    // The command line's --nodes wins over the script's --nnodes, and says so.
    CHECK(r.err.find("sets /cluster/nodes to 4") != std::string::npos);
    CHECK(r.err.find("flags of the launch script are not modelled") != std::string::npos);
}

TEST_CASE("--save-layout writes a layout whose analysis is the same, sources aside") {
    const Scratch dir;
    const std::string saved = (dir.path / "saved.json").string();
    const Run first = cli(with(mixtral(), {"--save-layout", saved}));
    REQUIRE(first.code == 0);
    const std::string text = planlayout::read_text_file(saved);
    CHECK(text.find("// ") != std::string::npos);                  // sources beside the values
    CHECK(text.find("mixtral_8x7b.sh:") != std::string::npos);
    CHECK(text.find("\"h100-hgx-8gpu-8nic\"") != std::string::npos);
    const Run again = cli({"analyze", saved});
    REQUIRE(again.code == 0);
    CHECK(without_sources(again.out) == without_sources(first.out));
    CHECK(again.out.find("given: " + saved) != std::string::npos);
    CHECK(first.out.find("assumed (") != std::string::npos);

    const Run first_json = cli(with(mixtral(), {"--format", "json"}));
    const Run again_json = cli({"analyze", saved, "--format", "json"});
    REQUIRE(first_json.code == 0);
    REQUIRE(again_json.code == 0);
    CHECK(json_without_sources(again_json.out) == json_without_sources(first_json.out));
    const nlohmann::json parsed1 = nlohmann::json::parse(again_json.out);  // alive for the loop
    for (const auto& a : parsed1.at("assumptions")) {
        const std::string path = a.at("path").get<std::string>();
        if (path.rfind("/hardware/", 0) != 0 && path.rfind("/compute/", 0) != 0) {  // from templates and GPU specs
            CAPTURE(a.dump());
            // Every value is now the saved layout's, except a width written as 0, which the model
            // section reads as "derive it" (a model without shared experts: shared_ffn_hidden 0).
            CHECK((a.at("source") == saved || (a.at("source") == "derived" && a.at("value") == 0)));
        }
    }
}

TEST_CASE("a capture saved into a layout needs no file beside it") {
    const Scratch dir;
    const std::string saved = (dir.path / "node.json").string();
    const std::vector<std::string> args = {
        "analyze", "--nodes", "2", "--node", std::string(kSrc) + "/tests/data/fixtures/hwloc-xml/hwloc2.9-1xh200-vm-eth0-only-no-rdma.xml",
        "--ep", "2", "--num-layers", "4", "--hidden-size", "1024", "--num-attention-heads", "8", "--num-experts", "8",
        "--moe-router-topk", "2", "--seq-length", "2048", "--global-batch-size", "8", "--vocab-size", "32000"};
    const Run first = cli(with(args, {"--save-layout", saved}));
    REQUIRE(first.code == 0);
    const std::string text = planlayout::read_text_file(saved);
    CHECK(text.find("\"import\"") == std::string::npos);
    CHECK(text.find("\"gpus\"") != std::string::npos);  // the template, written in
    const Run again = cli({"analyze", saved});
    REQUIRE(again.code == 0);
    CHECK(without_sources(again.out) == without_sources(first.out));
}

TEST_CASE("flags override a layout's values and the score follows them") {
    const std::string seed = std::string(kSrc) + "/layouts/seed-2x8-ep16.json";
    const Run base = cli({"analyze", seed, "--format", "json"});
    const Run pp2 = cli({"analyze", seed, "--pp", "2", "--ep", "8", "--format", "json"});
    REQUIRE(base.code == 0);
    REQUIRE(pp2.code == 0);
    const auto b = nlohmann::json::parse(pp2.out);
    CHECK(b.at("spec").at("pp") == 2);
    CHECK(b.at("spec").at("ep") == 8);
    for (const auto& a : b.at("assumptions")) {
        if (a.at("path") == "/parallel/pp") {
            CHECK(a.at("source") == "command line (--pp)");
        }
        if (a.at("path") == "/model/layers") {
            CHECK(a.at("source") == seed);
        }
    }
    // The seed's negative control: PP=2/EP=8 keeps EP inside a node, so RDMA helps far less.
    CHECK(b.at("score").at("rdma_benefit").get<double>() <
          nlohmann::json::parse(base.out).at("score").at("rdma_benefit").get<double>());
}

TEST_CASE("a launch-script value that cannot be known names the file, the line, the variable and --env") {
    const Scratch dir;
    const fs::path script = dir.path / "train.sh";
    {
        std::ofstream f(script);
        f << "#!/bin/bash\nGPT_ARGS=(\n  --num-layers $NUM_LAYERS\n  --hidden-size 4096\n)\n"
             "torchrun --nproc_per_node 8 pretrain_gpt.py ${GPT_ARGS[@]} --num-attention-heads 32\n";
    }
    const std::vector<std::string> args = {"analyze", "--nodes", "2", "--node", "h100-hgx-8gpu-8nic", "--megatron-args",
                                           script.string()};
    const Run bad = cli(args);
    CHECK(bad.code == 2);
    CHECK(bad.err.find(script.string() + ":3") != std::string::npos);
    CHECK(bad.err.find("$NUM_LAYERS") != std::string::npos);
    CHECK(bad.err.find("--env NUM_LAYERS=") != std::string::npos);
    const Run good = cli(with(args, {"--env", "NUM_LAYERS=24", "--format", "json"}));
    REQUIRE(good.code == 0);
    const nlohmann::json parsed2 = nlohmann::json::parse(good.out);  // alive for the loop
    for (const auto& a : parsed2.at("assumptions")) {
        if (a.at("path") == "/model/layers") {
            CHECK(a.at("value") == 24);
        }
    }
}

TEST_CASE("a Hugging Face config gives the model - an error about its value names the config") {
    const std::string config = std::string(kSrc) + "/tests/data/hf-configs/mixtral-8x7b-v0.1.json";
    const Run r = cli({"analyze", "--nodes", "2", "--node", "h100-hgx-8gpu-8nic", "--model-config", config, "--ep", "8",
                       "--seq-length", "4096", "--global-batch-size", "64", "--format", "json"});
    REQUIRE(r.code == 0);
    const nlohmann::json parsed3 = nlohmann::json::parse(r.out);  // alive for the loop
    for (const auto& a : parsed3.at("assumptions")) {
        if (a.at("path") == "/model/moe/experts") {
            CHECK(a.at("value") == 8);
            CHECK(a.at("source").get<std::string>().find("num_local_experts") != std::string::npos);
        }
    }
    // ep 16 does not divide Mixtral's 8 experts: Megatron refuses it, and so does the plan.
    const Run bad = cli({"analyze", "--nodes", "2", "--node", "h100-hgx-8gpu-8nic", "--model-config", config, "--ep",
                         "16", "--seq-length", "4096", "--global-batch-size", "64"});
    CHECK(bad.code == 2);
    CHECK(bad.err.find("num_local_experts") != std::string::npos);
    CHECK(bad.err.find("not divisible by ep 16") != std::string::npos);
}

TEST_CASE("an unknown model_type is refused (exit 2) - with --allow-unknown-model the JSON warnings name every field not read") {
    const Scratch dir;
    const std::string config = (dir.path / "config.json").string();
    std::ofstream(config) << R"({"model_type": "gpt2ish", "num_hidden_layers": 12, "hidden_size": 768,
        "num_attention_heads": 12, "vocab_size": 50257, "intermediate_size": 3072, "n_inner": 3072,
        "max_position_embeddings": 1024})";
    const std::vector<std::string> args = {"analyze", "--nodes", "1", "--node", "h100-hgx-8gpu-8nic", "--model-config",
                                           config, "--seq-length", "1024", "--global-batch-size", "8", "--format", "json"};
    const Run bad = cli(args);
    CHECK(bad.code == 2);
    CHECK(bad.err.find("config.json (/model_type): model_type \"gpt2ish\" is not one plan-layout reads") != std::string::npos);
    CHECK(bad.err.find("pass --allow-unknown-model to read only the common fields") != std::string::npos);
    const Run good = cli(with(args, {"--allow-unknown-model"}));
    REQUIRE(good.code == 0);
    const nlohmann::json parsed4 = nlohmann::json::parse(good.out);
    bool named = false;
    for (const auto& w : parsed4.at("warnings")) {
        const std::string line = w.get<std::string>();
        named = named || (line.find("config.json: model_type \"gpt2ish\"") != std::string::npos &&
                          line.find("not read: max_position_embeddings, n_inner") != std::string::npos);
    }
    CHECK(named);
}

TEST_CASE("--measured-step anchors the tcp arm to a measured step, from seconds or from a step log") {
    const std::string seed = std::string(kSrc) + "/layouts/seed-2x8-ep16.json";
    const Run secs = cli({"analyze", seed, "--measured-step", "tcp=4.49", "--format", "json"});
    REQUIRE(secs.code == 0);
    const auto s = nlohmann::json::parse(secs.out);
    CHECK(s.at("score").at("step_time_s").at("tcp").get<double>() == doctest::Approx(4.49).epsilon(1e-6));
    bool sourced = false;
    for (const auto& a : s.at("assumptions")) {
        if (a.at("path") == "/training/measured_step_time_s") {
            sourced = a.at("source") == "command line (--measured-step tcp=4.49)";
        }
    }
    CHECK(sourced);
    // The embedded default (the seed's layout A) takes it too.
    const Run embedded = cli({"analyze", "--measured-step", "tcp=4.49", "--format", "json"});
    REQUIRE(embedded.code == 0);
    CHECK(nlohmann::json::parse(embedded.out).at("score") == s.at("score"));

    // A step log (tests/data/ab: the seed's SwanLab export, cumulative s/it): steps 6 to the last.
    const std::string log = std::string(kSrc) + "/tests/data/ab/tcp-round1.csv";
    const Run logged = cli({"analyze", seed, "--measured-step", log, "--format", "json"});
    REQUIRE(logged.code == 0);
    const auto l = nlohmann::json::parse(logged.out);
    const double step = l.at("score").at("step_time_s").at("tcp").get<double>();
    CHECK(step > 1.0);
    CHECK(step < 10.0);
    const Run tagged = cli({"analyze", seed, "--measured-step", "gdrdma=" + log, "--format", "json"});
    REQUIRE(tagged.code == 0);
    CHECK(tagged.err.find("is tagged arm 'tcp'") != std::string::npos);
    CHECK(nlohmann::json::parse(tagged.out).at("score").at("step_time_s").at("gdrdma").get<double>() ==
          doctest::Approx(step).epsilon(1e-6));

    for (const auto& [value, message] : std::map<std::string, std::string>{
             {"4.49", "the arm the step was measured on is missing"},
             {"nvme=4.49", "'nvme' is not a transport"},
             {"tcp=0", "is outside 1e-6 to 1e6 s"},
             {"tcp=nan", "is outside 1e-6 to 1e6 s"},
             {"tcp=no-such-file", "neither a number of seconds nor a file"}}) {
        const Run bad = cli({"analyze", seed, "--measured-step", value});
        CHECK(bad.code == 2);
        CHECK(bad.out.empty());
        CHECK_MESSAGE(bad.err.find(message) != std::string::npos, bad.err);
    }
}

TEST_CASE("calibrate --compute: layout A's measured TCP step predicts its gdrdma step and layout B") {
    // The shipped compute calibration is exactly what calibrate --compute writes for layout A.
    const std::string a = std::string(kSrc) + "/layouts/seed-2x8-ep16.json";
    const std::string shipped = std::string(kSrc) + "/layouts/calibrations/seed-a-compute.json";
    const Run fit = cli({"calibrate", "--compute", a, "--format", "json"});
    REQUIRE(fit.code == 0);
    CHECK(fit.out == planlayout::read_text_file(shipped));
    const auto c = nlohmann::json::parse(fit.out).at("compute");
    CHECK(c.at("measured_step_time_s").get<double>() == doctest::Approx(4.49));
    CHECK(c.at("compute_scale").get<double>() > 1e-4);
    CHECK(c.at("compute_scale").get<double>() < 1.0);  // the seed's LoRA step runs far below the model's efficiency

    // A: the TCP step is the measurement; the predicted change is within the seed check (measured -32.08%).
    const auto ra = nlohmann::json::parse(cli({"analyze", a, "--format", "json"}).out).at("score");
    CHECK(ra.at("step_time_s").at("tcp").get<double>() == doctest::Approx(4.49).epsilon(1e-6));
    // Measured 32.08 %, not an input; at the layout's assumed network a regression bound (tests/tolerances.json
    // "seed"), the validation being the band over the plausible network (test_validation_held.cpp).
    CHECK(std::abs(ra.at("rdma_benefit").get<double>() - 0.3208) * 100 <=
          planlayout::testing::baseline_bound("seed", "a_abs_error_points"));
    // B lists A's compute calibration: no step of B is given, and it predicts no benefit (measured -0.35%).
    const Run b = cli({"analyze", std::string(kSrc) + "/layouts/seed-2x8-pp2-ep8.json", "--format", "json"});
    REQUIRE(b.code == 0);
    const auto rb = nlohmann::json::parse(b.out);
    CHECK(rb.at("score").at("compute").at("compute_scale").get<double>() ==
          doctest::Approx(c.at("compute_scale").get<double>()));
    CHECK(std::abs(rb.at("score").at("rdma_benefit").get<double>() - (-0.0035)) <=
          planlayout::testing::tolerance("seed.b_benefit"));  // measured -0.35 %
    bool sourced = false;
    for (const auto& x : rb.at("assumptions")) {
        if (x.at("path") == "/training/compute_scale") {
            sourced = x.at("source").get<std::string>().find("calibrations/seed-a-compute.json (calibrate --compute") == 0;
        }
    }
    CHECK(sourced);
    // A measured step given to B directly wins over the listed calibration.
    const Run own = cli({"analyze", std::string(kSrc) + "/layouts/seed-2x8-pp2-ep8.json", "--measured-step", "tcp=5",
                         "--format", "json"});
    REQUIRE(own.code == 0);
    CHECK(nlohmann::json::parse(own.out).at("score").at("step_time_s").at("tcp").get<double>() ==
          doctest::Approx(5.0).epsilon(1e-6));
    // Refused: no step, two layouts, a collective flag.
    CHECK(cli({"calibrate", "--compute", std::string(kSrc) + "/layouts/h100-32node-tp8-pp4-ep8.json"}).code == 2);
    CHECK(cli({"calibrate", "--compute", a, a}).code == 2);
    CHECK(cli({"calibrate", "--compute", a, "--transport", "tcp"}).code == 2);
}

TEST_CASE("a ds_config's batch triple is settled over the data-parallel size as DeepSpeed settles it") {
    // Issue 27 item 7: gradient_accumulation_steps was never read; micro 1 + gas 2 said
    // "missing: global_batch", and 64 = 1 x 3 x 4 was accepted where DeepSpeed refuses it.
    const Scratch dir;
    auto run = [&](const std::string& name, const std::string& config, std::vector<std::string> more = {}) {
        const std::string path = (dir.path / name).string();
        std::ofstream(path) << config;
        std::vector<std::string> args{"analyze", "--nodes", "1", "--node", "h100-hgx-8gpu-8nic", "--world", "4",
                                      "--deepspeed-config", path, "--num-layers", "2", "--hidden-size", "256",
                                      "--num-attention-heads", "4", "--seq-length", "128", "--vocab-size", "1024"};
        args.insert(args.end(), more.begin(), more.end());
        return cli(args);
    };
    const Run bad = run("mismatch.json", R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 1,
                                             "gradient_accumulation_steps": 3})");
    CHECK(bad.code == 2);
    CHECK(bad.err.find("mismatch.json") != std::string::npos);
    CHECK(bad.err.find("train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 64 != 1 * 3 * 4") !=
          std::string::npos);
    CHECK(bad.err.find('\n') == bad.err.size() - 1);  // one line

    const std::string saved = (dir.path / "saved.json").string();
    const Run derived = run("gas.json", R"({"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 2})",
                            {"--save-layout", saved});
    CAPTURE(derived.err);
    REQUIRE(derived.code == 0);
    const nlohmann::json layout = nlohmann::json::parse(planlayout::read_text_file(saved), nullptr, true, true);
    CHECK(layout.at("training").at("global_batch") == 8);  // 1 x 2 x dp 4, DeepSpeed's train_batch_size
    CHECK(layout.at("training").at("grad_accum") == 2);

    const Run gas_one = run("gas1.json", R"({"train_batch_size": 8, "train_micro_batch_size_per_gpu": 2})", {"--save-layout", saved});
    CAPTURE(gas_one.err);
    REQUIRE(gas_one.code == 0);  // 8 / 2 / dp 4: one accumulation step
    CHECK(nlohmann::json::parse(planlayout::read_text_file(saved), nullptr, true, true).at("training").value("grad_accum", 1) == 1);

    const Run micro_only = run("micro.json", R"({"train_micro_batch_size_per_gpu": 2})", {"--save-layout", saved});
    REQUIRE(micro_only.code == 0);
    CHECK(nlohmann::json::parse(planlayout::read_text_file(saved), nullptr, true, true).at("training").at("global_batch") == 8);

    const Run gas_only = run("gas-only.json", R"({"gradient_accumulation_steps": 2})");
    CHECK(gas_only.code == 2);
    CHECK(gas_only.err.find("either train_batch_size or train_micro_batch_size_per_gpu needs to be provided") != std::string::npos);

    const Run too_small = run("small.json", R"({"train_batch_size": 2, "gradient_accumulation_steps": 1})");
    CHECK(too_small.code == 2);
    CHECK(too_small.err.find("Micro batch size per gpu: 0 has to be greater than 0") != std::string::npos);
}

TEST_CASE("one measured TCP step anchors compute on it: the A40 case's benefit is booked on compute, held to its baseline") {
    // Issue 28's case, modelled from its description (tests/data/a40/): Llama-3.2-3B DDP on 2 nodes x
    // 4 A40 over one 100 GbE wire; TCP 5.72 s measured (the input), RoCE 2.51 s measured (-56.1 %,
    // not an input). Without the compute band (removed in issue 42: it was added for this case), the
    // measured TCP step goes to compute and the benefit it hides is not predicted; the baseline a40
    // (tests/tolerances.json) holds that error until issue 43 redesigns anchoring.
    const std::string layout = std::string(kSrc) + "/tests/data/a40/llama3.2-3b-ddp-2x4.json";
    const Run r = cli({"analyze", layout, "--format", "json", "--allow-outside-files"});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const auto doc = nlohmann::json::parse(r.out);
    const auto& score = doc.at("score");
    const double measured_gain = (5.72 - 2.51) / 5.72;
    MESSAGE("predicted " << score.at("rdma_benefit").get<double>() << " against measured " << measured_gain);
    const double error = std::abs(score.at("rdma_benefit").get<double>() - measured_gain);
    CHECK(error * 100 <= planlayout::testing::baseline_bound("a40", "abs_error_points"));
    CHECK(score.at("step_time_s").at("tcp").get<double>() == doctest::Approx(5.72).epsilon(1e-3));
    const auto& notes = score.at("compute").at("anchoring");
    REQUIRE(notes.size() == 1);
    CHECK(notes.front().get<std::string>().find("from the measured tcp step of 5.720 s") != std::string::npos);
    for (const auto& w : doc.at("warnings")) {  // doc outlives the loop (parse(...).at() would dangle)
        CHECK(w.get<std::string>().find("band") == std::string::npos);
    }
}

TEST_CASE("two measured arms anchor compute on the faster and each arm's transport on its own step") {
    // The same A40 case with both arms measured: the prediction equals both measurements, compute
    // comes from the faster (RoCE) arm and the TCP arm's network efficiency from its own step.
    const std::string layout = std::string(kSrc) + "/tests/data/a40/llama3.2-3b-ddp-2x4.json";
    const Run r = cli({"analyze", layout, "--format", "json", "--allow-outside-files", "--measured-step", "tcp=5.72",
                       "--measured-step", "rdma=2.51"});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const auto doc = nlohmann::json::parse(r.out);
    const auto& score = doc.at("score");
    CHECK(score.at("step_time_s").at("tcp").get<double>() == doctest::Approx(5.72).epsilon(1e-3));
    CHECK(score.at("step_time_s").at("rdma").get<double>() == doctest::Approx(2.51).epsilon(1e-3));
    const auto& notes = score.at("compute").at("anchoring");
    REQUIRE(notes.size() >= 2);
    CHECK(notes.front().get<std::string>().find("from the measured rdma step") != std::string::npos);
    CHECK(notes.back().get<std::string>().rfind("tcp: network efficiencies x", 0) == 0);

    // A repeated arm: the last wins, as for any flag; a third arm and the same arm twice in a
    // layout are refused.
    const Run again = cli({"analyze", layout, "--format", "json", "--allow-outside-files", "--measured-step", "tcp=9",
                           "--measured-step", "tcp=5.72"});
    REQUIRE_MESSAGE(again.code == 0, again.err);
    CHECK(nlohmann::json::parse(again.out).at("score").at("step_time_s").at("tcp").get<double>() ==
          doctest::Approx(5.72).epsilon(1e-3));
    const Run three = cli({"analyze", layout, "--allow-outside-files", "--measured-step", "tcp=5.72", "--measured-step",
                           "rdma=2.51", "--measured-step", "gdrdma=2.4"});
    CHECK(three.code == 2);
    CHECK(three.err.find("3 arms measured") != std::string::npos);
}

TEST_CASE("a measured compute-only step pins compute and the measured arm fits its own transport") {
    const std::string layout = std::string(kSrc) + "/tests/data/a40/llama3.2-3b-ddp-2x4.json";
    const Run r = cli({"analyze", layout, "--format", "json", "--allow-outside-files", "--measured-compute", "0.9"});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const auto doc = nlohmann::json::parse(r.out);
    const auto& score = doc.at("score");
    CHECK(score.at("compute_s").get<double>() == doctest::Approx(0.9).epsilon(1e-3));
    CHECK(score.at("step_time_s").at("tcp").get<double>() == doctest::Approx(5.72).epsilon(1e-3));
    const auto& notes = score.at("compute").at("anchoring");
    REQUIRE(notes.size() == 2);
    CHECK(notes[0].get<std::string>().find("compute-only step of 0.9") != std::string::npos);
    CHECK(notes[1].get<std::string>().find("compute pinned by the compute-only step") != std::string::npos);
}

TEST_CASE("a model given only as Megatron flags is Megatron's: GELU unless --swiglu, tied unless --untie, as --help says") {
    const auto model_of = [](const std::vector<std::string>& extra) {
        std::vector<std::string> a{"analyze", "--nodes", "1", "--node", "h100-hgx-8gpu-8nic", "--tp", "8", "--num-layers", "4",
                                   "--hidden-size", "1024", "--num-attention-heads", "8", "--seq-length", "1024",
                                   "--global-batch-size", "8", "--vocab-size", "32000", "--format", "json"};
        a.insert(a.end(), extra.begin(), extra.end());
        const Run r = cli(a);
        REQUIRE_MESSAGE(r.code == 0, r.err);
        nlohmann::json model;  // the model's effective values, from the assumptions (path -> value)
        const auto doc = nlohmann::json::parse(r.out);
        for (const auto& row : doc.at("assumptions")) {
            const std::string path = row.at("path").get<std::string>();
            if (path.rfind("/model/", 0) == 0) {
                model[path.substr(7)] = row.at("value");
            }
        }
        return model;
    };
    const auto plain = model_of({});
    CHECK(plain.at("ffn_gated") == false);
    CHECK(plain.at("tied_embeddings") == true);
    CHECK(plain.at("ffn_hidden") == 4096);
    const auto gated = model_of({"--swiglu", "--untie-embeddings-and-output-weights"});
    CHECK(gated.at("ffn_gated") == true);
    CHECK(gated.at("tied_embeddings") == false);
    CHECK(gated.at("ffn_hidden") == 2688);  // arguments.py: int(4h * 2/3 / 64) * 64
}

TEST_CASE("Megatron's MoE flags beside a model config apply to its experts, and are named when the model has none") {
    const std::string moe = std::string(kSrc) + "/tests/data/hf-configs/deepseek-v3.json";
    const Run r = cli({"analyze", "--nodes", "8", "--node", "h100-hgx-8gpu-8nic", "--ep", "64", "--model-config", moe,
                       "--seq-length", "4096", "--global-batch-size", "64", "--moe-grouped-gemm", "--moe-token-dispatcher-type",
                       "flex", "--format", "json", "--allow-outside-files"});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    std::map<std::string, nlohmann::json> value;
    const auto doc = nlohmann::json::parse(r.out);
    for (const auto& row : doc.at("assumptions")) {
        value[row.at("path").get<std::string>()] = row.at("value");
    }
    CHECK(value.at("/model/moe/grouped_gemm") == true);
    CHECK(value.at("/model/moe/token_dispatcher") == "flex");
    CHECK(value.at("/model/moe/router_groups") == 8);  // the config's n_group / topk_group
    CHECK(value.at("/model/moe/router_group_topk") == 4);
    const std::string dense = std::string(kSrc) + "/tests/data/hf-configs/llama-3.1-8b-instruct.json";
    const Run d = cli({"analyze", "--nodes", "1", "--node", "h100-hgx-8gpu-8nic", "--model-config", dense, "--seq-length",
                       "4096", "--global-batch-size", "64", "--moe-grouped-gemm", "--allow-outside-files"});
    CHECK(d.code <= 1);
    CHECK(d.err.find("--moe-grouped-gemm: the model has no experts; not used") != std::string::npos);
}

TEST_CASE("each framework's own example fits the GPUs it was made for (issue 29)") {
    // The examples, copied unchanged from their projects (tests/data/launch/README.md,
    // tests/data/torchtitan): what each was written to run on is in its own file or README.
    const std::string data = std::string(kSrc) + "/tests/data/";
    const std::vector<std::vector<std::string>> examples = {
        // Megatron-LM examples/llama/train_llama3_8b_h100_fp8.sh: one node of 8 H100 (GPUS_PER_NODE=8, NUM_NODES=1)
        {"--nodes", "1", "--node", "h100-hgx-8gpu-8nic", "--megatron-args", data + "launch/llama3_8b_fp8.sh"},
        // Megatron-LM examples/gpt3/train_gpt3_175b_distributed.sh: TP 8 × PP 16 = 128 GPUs (A100 80 GB)
        {"--nodes", "16", "--node", "a100-dgx-8gpu-8nic", "--megatron-args", data + "launch/gpt3_175b.sh"},
        // Megatron-LM examples/mixtral/train_mixtral_8x7b_distributed.sh: PP 4 × EP 8 on 4 × 8 H100
        {"--nodes", "4", "--node", "h100-hgx-8gpu-8nic", "--megatron-args", data + "launch/mixtral_8x7b.sh", "--vocab-size",
         "32000"},
        // torchtitan models/llama3/train_configs/llama3_70b.toml: 64 A100 80 GB (its header)
        {"--nodes", "8", "--node", "a100-dgx-8gpu-8nic", "--torchtitan-config", data + "torchtitan/llama3_70b.toml",
         "--model-config", data + "hf-configs/llama-3.1-70b-instruct.json"},
    };
    for (const auto& args : examples) {
        CAPTURE(args.at(5));
        const Run r = cli(with({"analyze", "--format", "json"}, args));
        REQUIRE(r.code == 0);
        const nlohmann::json j = nlohmann::json::parse(r.out);
        CHECK(j.at("memory").at("fits") == true);
    }
}

TEST_CASE("DeepSpeed's own ZeRO-3 example (Qwen3-32B on 8 MI300X) fits, within 15 % of its measured peak") {
    // DeepSpeed examples/sdma_allgather/README.md: peak mem (rank 0) 96.45 GB, torch.cuda.
    // max_memory_allocated() / 1e9, Qwen3-32B under ZeRO-3 (its ds_config), seq 1024, micro-batch 1,
    // 8 MI300X of 192 GB (tests/data/deepspeed/sdma_allgather_qwen3_32b.json says where it is from).
    const std::string data = std::string(kSrc) + "/tests/data/";
    const Run r = cli({"analyze", data + "deepspeed/sdma_allgather_qwen3_32b.json", "--gpu-memory", "192GB", "--deepspeed-config",
                       data + "deepspeed/examples_sdma_allgather_ds_config_zero3.json", "--model-config",
                       data + "hf-configs/qwen3-32b.json", "--format", "json"});
    REQUIRE(r.code == 0);
    const nlohmann::json memory = nlohmann::json::parse(r.out).at("memory");
    CHECK(memory.at("fits") == true);
    const double measured = 96.45e9;
    const double error = std::abs(memory.at("total").get<double>() / measured - 1.0);
    CHECK(error <= planlayout::testing::tolerance("deepspeed.zero3_peak"));
    CHECK(error * 100 <= planlayout::testing::baseline_bound("deepspeed_zero3", "abs_error_pct"));
}

TEST_CASE("a text result carries no raw control byte of an input, and a filtered byte is shown as \\xHH (issue 41 item 7)") {
    const fs::path dir = fs::temp_directory_path() / ("planlayout-terminal-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path layout = dir / "seed\x1b]0;pwned\x07\x1b[2J.json";  // a title and a clear screen
    fs::copy_file(fs::path(kSrc) / "layouts/seed-2x8-ep16.json", layout, fs::copy_options::overwrite_existing);
    for (const std::string format : {"", "text"}) {
        std::vector<std::string> args{"analyze", layout.string()};
        if (!format.empty()) {
            args.insert(args.end(), {"--format", format});
        }
        const Run r = cli(args);
        REQUIRE(r.code == 0);
        CHECK(r.out.find('\x1b') == std::string::npos);
        CHECK(r.out.find('\x07') == std::string::npos);
        CHECK(r.out.find("seed\\x1B]0;pwned\\x07\\x1B[2J.json") != std::string::npos);
    }
    // JSON keeps the name as the JSON writer escapes it: the same string, read back.
    const Run j = cli({"analyze", layout.string(), "--format", "json"});
    REQUIRE(j.code == 0);
    CHECK(j.out.find('\x1b') == std::string::npos);
    CHECK(j.out.find("\\u001b]0;pwned\\u0007") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("TerminalSafeStream writes control bytes as \\xHH and keeps newline, tab and UTF-8") {
    std::ostringstream target;
    planlayout::cli::TerminalSafeStream safe(target);
    safe << "a\x1b[2J" << 'b' << '\x7f' << '\r' << "\n\tc \xc3\xa9" << std::string(1, '\0') << "z";
    safe.flush();
    CHECK(target.str() == "a\\x1B[2Jb\\x7F\\x0D\n\tc \xc3\xa9\\x00z");
}
