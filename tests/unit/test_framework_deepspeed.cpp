// Tests: DeepSpeed groups (parallel/framework_deepspeed.cpp) against the groups DeepSpeed's own code
// builds (tests/reference/deepspeed/golden.json, from harness.py), and against Megatron's groups on
// the seed layouts.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/ingest/deepspeed_config.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/parallel/framework.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
namespace fs = std::filesystem;

namespace {

using GroupSet = std::set<std::vector<std::int64_t>>;

GroupSet group_set(const GroupKind& k) {
    GroupSet out;
    for (std::int64_t g = 0; g < k.group_count(); ++g) {
        auto members = k.group(g);
        std::sort(members.begin(), members.end());
        out.insert(members);
    }
    return out;
}

DeepSpeedDims dims_of(const nlohmann::json& c) {
    DeepSpeedDims d;
    d.world = c.at("world").get<std::int64_t>();
    d.pp = c.at("pp").get<std::int64_t>();
    d.mp = c.at("mp").get<std::int64_t>();
    d.dp = c.at("dp").get<std::int64_t>();
    d.ep = c.at("ep").get<std::int64_t>();
    d.moe_path = c.at("moe_path").get<std::string>();
    d.topology = c.at("topology").get<std::string>();
    d.data_before_expert = c.at("data_before_expert").get<bool>();
    return d;
}

nlohmann::json read_golden() {
    const std::string path = (fs::path(PLANLAYOUT_SOURCE_DIR) / "tests/reference/deepspeed/golden.json").string();
    return parse_json_text(read_text_file(path), path);
}

}  // namespace

TEST_CASE("deepspeed: every golden config (DeepSpeed's own code) gives the same group sets, or is refused") {
    const nlohmann::json golden = read_golden();
    const nlohmann::json& configs = golden.at("configs");
    REQUIRE(configs.size() >= 20);
    std::size_t refused = 0;
    for (const auto& c : configs) {
        const std::string name = c.at("name").get<std::string>();
        CAPTURE(name);
        const DeepSpeedDims d = dims_of(c);
        if (c.contains("error")) {
            try {
                (void)build_deepspeed_groups(d, {});
                FAIL("not refused");
            } catch (const Error& e) {
                CHECK_FALSE(e.where().empty());
            }
            ++refused;
            continue;
        }
        const Groups g = build_deepspeed_groups(d, {});
        const nlohmann::json& kinds = c.at("groups");
        CHECK(g.kinds.size() == kinds.size());
        for (const auto& item : kinds.items()) {
            const std::string& kind = item.key();
            const nlohmann::json& lists = item.value();
            CAPTURE(kind);
            const GroupKind* k = g.find(kind);
            REQUIRE(k != nullptr);
            GroupSet want;
            for (const auto& l : lists) {
                auto v = l.get<std::vector<std::int64_t>>();
                std::sort(v.begin(), v.end());
                want.insert(v);
            }
            CHECK(group_set(*k) == want);
            CHECK(k->group_count() == static_cast<std::int64_t>(lists.size()));
            // find() agrees with member() for every rank.
            for (std::int64_t r = 0; r < d.world; ++r) {
                const auto f = k->find(r);
                REQUIRE(f.has_value());
                CHECK(k->member(f->first, f->second) == r);
            }
        }
    }
    CHECK(refused >= 5);
}

TEST_CASE("deepspeed: the seed layouts' groups equal Megatron's for the corresponding kinds") {
    for (const char* file : {"layouts/seed-2x8-ep16.json", "layouts/seed-2x8-pp2-ep8.json"}) {
        CAPTURE(file);
        const std::string path = (fs::path(PLANLAYOUT_SOURCE_DIR) / file).string();
        const nlohmann::json layout = parse_json_text(read_text_file(path), path);
        ParallelSpec p = parallel_spec_from_json(layout.at("parallel"), {path, "/parallel"});
        p.world = 16;  // 2 nodes x 8 GPUs (the seed cluster)
        const Groups meg = build_groups(resolve_spec(p));
        REQUIRE(meg.spec.cp == 1);
        DeepSpeedDims d;
        d.world = p.world;
        d.pp = meg.spec.pp;
        d.mp = meg.spec.tp;
        d.ep = meg.spec.ep;
        d.moe_path = meg.spec.etp == meg.spec.tp ? "emd" : "legacy";
        const Groups ds = build_deepspeed_groups(d, {});
        for (const auto& pair : std::map<std::string, std::string>{
                 {"slice", "tp"}, {"data", "dp"}, {"pipe", "pp"}, {"expert", "ep"}, {"expert_data", "expt_dp"}}) {
            const std::string& dsk = pair.first;
            const std::string& mk = pair.second;
            CAPTURE(dsk);
            REQUIRE(ds.find(dsk) != nullptr);
            REQUIRE(meg.find(mk) != nullptr);
            CHECK(group_set(*ds.find(dsk)) == group_set(*meg.find(mk)));
            CHECK(ds.find(dsk)->role == mk);
        }
        // Groups::spec is the equivalent Megatron spec.
        CHECK(ds.spec.tp == meg.spec.tp);
        CHECK(ds.spec.ep == meg.spec.ep);
        CHECK(ds.spec.dp == meg.spec.dp);
        CHECK(ds.spec.expert_dp == meg.spec.expert_dp);
    }
}

TEST_CASE("deepspeed: Groups::spec's Megatron groups equal DeepSpeed's on every golden config") {
    // The equivalent spec is exact: Megatron's groups of Groups::spec are DeepSpeed's groups.
    const nlohmann::json golden = read_golden();
    const std::map<std::string, std::string> meg_kind = {
        {"slice", "tp"},       {"data", "dp"},          {"pipe", "pp"},          {"expert", "ep"},
        {"expert_data", "expt_dp"}, {"tensor_parallel", "tp"}, {"data_parallel", "dp"}, {"sequence_parallel", "cp"}};
    for (const auto& c : golden.at("configs")) {
        if (c.contains("error")) {
            continue;
        }
        CAPTURE(c.at("name").get<std::string>());
        const Groups ds = build_deepspeed_groups(dims_of(c), {});
        const Groups meg = build_groups(ds.spec);
        for (const auto& k : ds.kinds) {
            const auto it = meg_kind.find(k.name);
            if (it == meg_kind.end()) {
                continue;  // "model" (pipe x model) has no Megatron counterpart
            }
            CAPTURE(k.name);
            REQUIRE(meg.find(it->second) != nullptr);
            CHECK(group_set(k) == group_set(*meg.find(it->second)));
        }
    }
}

TEST_CASE("deepspeed: refusals name the flag or the JSON pointer") {
    DeepSpeedDims d;
    d.world = 16;
    d.ep = 3;
    try {
        (void)build_deepspeed_groups(d, {});
        FAIL("expected a refusal");
    } catch (const Error& e) {
        CHECK(e.where() == "--ep 3");
        CHECK(e.hint() == "pick ep among 1, 2, 4, 8, 16");
        CHECK(e.problem().find("16 is not divisible by 3") != std::string::npos);
    }
    try {
        (void)build_deepspeed_groups(d, {"x.json", "/parallel"});
        FAIL("expected a refusal");
    } catch (const Error& e) {
        CHECK(e.where() == "x.json (/parallel/ep)");
    }
    d.ep = 1;
    d.moe_path = "nope";
    CHECK_THROWS_AS((void)build_deepspeed_groups(d, {}), Error);
    d.moe_path = "auto";
    d.topology = "none";
    d.pp = 2;
    CHECK_THROWS_AS((void)build_deepspeed_groups(d, {}), Error);
    d.topology = "pipe-data";
    d.pp = 1;
    d.mp = 2;
    CHECK_THROWS_AS((void)build_deepspeed_groups(d, {}), Error);
}

TEST_CASE("deepspeed: roles, patterns and the no-topology prime deal") {
    DeepSpeedDims d;
    d.world = 12;
    d.topology = "none";  // 12 = 2·2·3: pipe 2·3 = 6, data 2
    const Groups g = build_deepspeed_groups(d, {});
    CHECK(g.spec.pp == 6);
    CHECK(g.spec.dp == 2);
    CHECK(g.find_role("pp")->name == "pipe");
    CHECK(g.find("pipe")->pattern == Pattern::PipelineP2p);
    CHECK(g.find("model")->role.empty());
    DeepSpeedDims e;
    e.world = 16;
    e.mp = 2;
    e.ep = 4;
    const Groups m = build_deepspeed_groups(e, {});
    CHECK(m.find("expert")->pattern == Pattern::AllToAll);
    CHECK(m.find("expert")->group_desc == "_EXPERT_PARALLEL_GROUP['ep_size_4']");
    CHECK(m.spec.etp == 2);  // E + M + D: etp = tp
    e.moe_path = "legacy";
    CHECK(build_deepspeed_groups(e, {}).spec.etp == 1);
}

TEST_CASE("deepspeed: ZeRO stage: roles under ZeRO-3 and the engine's refusals") {
    DeepSpeedDims d;
    d.world = 16;
    d.zero_stage = 3;
    const Groups z3 = build_deepspeed_groups(d, {});
    CHECK(z3.find("data")->role == "fsdp");
    CHECK(z3.find_role("dp") == nullptr);
    d.ep = 4;
    d.moe_path = "autoep-tp";  // AutoEP without AutoTP: expert params partitioned over expert-data
    const Groups a = build_deepspeed_groups(d, {});
    CHECK(a.find("expert_data")->role == "efsdp");
    CHECK(a.find("expert")->role == "ep");
    d.moe_path = "auto";  // a native MoE layer
    CHECK_THROWS_AS((void)build_deepspeed_groups(d, {}), Error);
    d.moe_path = "autoep-tp";
    d.mp = 2;  // AutoEP + AutoTP + ZeRO-3
    CHECK_THROWS_AS((void)build_deepspeed_groups(d, {}), Error);
    DeepSpeedDims p;
    p.world = 16;
    p.pp = 2;
    p.zero_stage = 2;  // PipelineEngine: ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism
    CHECK_THROWS_AS((void)build_deepspeed_groups(p, {}), Error);
    p.zero_stage = 1;
    CHECK(build_deepspeed_groups(p, {}).find("data")->role == "dp");
    p.zero_stage = 4;
    CHECK_THROWS_AS((void)build_deepspeed_groups(p, {}), Error);
}

TEST_CASE("deepspeed: 131072 ranks build without per-rank storage") {
    DeepSpeedDims d;
    d.world = 131072;
    d.pp = 8;
    d.mp = 8;
    d.ep = 64;
    const Groups g = build_deepspeed_groups(d, {});
    const GroupKind* e = g.find("expert");
    REQUIRE(e != nullptr);
    CHECK(e->group_size() == 64);
    const auto f = e->find(131071);
    REQUIRE(f.has_value());
    CHECK(e->member(f->first, f->second) == 131071);
}

// -- ds_config.json reader (ingest/deepspeed_config.hpp) --

namespace {

DeepSpeedConfig read_fixture(const std::string& name) {
    const std::string path = (fs::path(PLANLAYOUT_TEST_DATA_DIR) / "deepspeed" / name).string();
    return read_deepspeed_config(read_text_file(path), path);
}

}  // namespace

TEST_CASE("deepspeed config: DeepSpeed's own test and example configs") {
    const DeepSpeedConfig a = read_fixture("model_Megatron_GPT2_ds_config_func_bs8_zero0_gas3.json");
    CHECK(a.train_micro_batch_size_per_gpu == 8);
    CHECK(a.gradient_accumulation_steps == 3);
    CHECK_FALSE(a.train_batch_size.has_value());
    CHECK(a.zero_stage == 0);
    CHECK(a.fp16);
    CHECK_FALSE(a.bf16);

    const DeepSpeedConfig b = read_fixture("examples_sdma_allgather_ds_config_zero3.json");
    CHECK(b.zero_stage == 3);
    CHECK(b.bf16);
    CHECK(b.train_micro_batch_size_per_gpu == 1);

    const DeepSpeedConfig c = read_fixture("torch_compile_ds_config_z3.json");
    CHECK(c.train_batch_size == 8);
    CHECK(c.zero_stage == 3);
    CHECK_FALSE(c.autoep_enabled);

    const DeepSpeedConfig e = read_fixture("autoep_autotp.json");
    CHECK(e.autotp_size == 4);
    CHECK(e.autoep_enabled);
    CHECK(e.autoep_size == 4);
    DeepSpeedDims d;
    d.world = 16;
    d = apply_deepspeed_config(e, d);
    CHECK(d.mp == 4);
    CHECK(d.ep == 4);
    CHECK(d.moe_path == "autoep-tp");
    CHECK(d.zero_stage == 2);
    const Groups g = build_deepspeed_groups(d, {});
    CHECK(g.find("tensor_parallel") != nullptr);
    CHECK(g.find("expert")->group_size() == 4);
    // The ZeRO-3 example with AutoEP but no AutoTP: expert params sharded over expert-data.
    DeepSpeedConfig z = read_fixture("examples_sdma_allgather_ds_config_zero3.json");
    z.autoep_enabled = true;
    z.autoep_size = 8;
    DeepSpeedDims zd;
    zd.world = 16;
    zd = apply_deepspeed_config(z, zd);
    CHECK(zd.moe_path == "autoep-tp");
    CHECK(zd.mp == 1);
    CHECK(build_deepspeed_groups(zd, {}).find("expert_data")->role == "efsdp");
}

TEST_CASE("deepspeed config: unknown keys pass, wrong types and ranges are refused with the pointer") {
    const auto read = [](const std::string& text) { return read_deepspeed_config(text, "ds.json"); };
    CHECK(read(R"({"steps_per_print": 1, "wall_clock_breakdown": false, "zero_optimization": {"overlap_comm": true}})")
              .zero_stage == 0);
    CHECK_FALSE(read(R"({"train_batch_size": "auto"})").train_batch_size.has_value());
    const auto refuses = [&](const std::string& text, const std::string& where) {
        CAPTURE(text);
        try {
            (void)read(text);
            FAIL("expected a refusal");
        } catch (const Error& err) {
            CHECK(err.where() == where);
        }
    };
    refuses(R"({"zero_optimization": {"stage": 4}})", "ds.json (/zero_optimization/stage)");
    refuses(R"({"zero_optimization": {"stage": "3"}})", "ds.json (/zero_optimization/stage)");
    refuses(R"({"zero_optimization": 3})", "ds.json (/zero_optimization)");
    refuses(R"({"bf16": {"enabled": "yes"}})", "ds.json (/bf16/enabled)");
    refuses(R"({"train_micro_batch_size_per_gpu": 1.5})", "ds.json (/train_micro_batch_size_per_gpu)");
    refuses(R"({"expert_parallel": {"enabled": true, "autoep_size": 0}})", "ds.json (/expert_parallel/autoep_size)");
    refuses(R"({"tensor_parallel": {"autotp_size": -1}})", "ds.json (/tensor_parallel/autotp_size)");
    refuses(R"({"bf16": {"enabled": true}, "fp16": {"enabled": true}})", "ds.json (/fp16)");
    refuses(R"({"use_data_before_expert_parallel_": 1})", "ds.json (/use_data_before_expert_parallel_)");
}

TEST_CASE("deepspeed config: sequence_parallel_size with data_parallel_size selects the sp mesh") {
    const DeepSpeedConfig c = read_deepspeed_config(
        R"({"sequence_parallel_size": 4, "data_parallel_size": 2, "expert_parallel": {"enabled": true, "autoep_size": 2}})",
        "ds.json");
    DeepSpeedDims d;
    d.world = 8;
    d = apply_deepspeed_config(c, d);
    CHECK(d.moe_path == "autoep-sp");
    const Groups g = build_deepspeed_groups(d, {});
    CHECK(g.find("sequence_parallel")->group_size() == 4);
    CHECK(g.find("data_parallel")->group_size() == 2);
}

TEST_CASE("deepspeed config: batch sizes derived and checked as DeepSpeed does") {
    const DeepSpeedConfig a = read_fixture("model_Megatron_GPT2_ds_config_func_bs8_zero0_gas3.json");
    const DeepSpeedBatch b = resolve_deepspeed_batch(a, 16, "a.json");
    CHECK(b.train_batch_size == 8 * 3 * 16);
    const DeepSpeedConfig t = read_fixture("torch_compile_ds_config_z3.json");  // train_batch_size 8 only
    const DeepSpeedBatch c = resolve_deepspeed_batch(t, 4, "t.json");
    CHECK(c.micro_batch_per_gpu == 2);
    CHECK(c.gradient_accumulation_steps == 1);
    CHECK_THROWS_AS((void)resolve_deepspeed_batch(t, 16, "t.json"), Error);  // 8 / 16 = 0
    DeepSpeedConfig bad;
    bad.train_batch_size = 100;
    bad.train_micro_batch_size_per_gpu = 2;
    bad.gradient_accumulation_steps = 3;
    try {
        (void)resolve_deepspeed_batch(bad, 16, "x.json");
        FAIL("expected a refusal");
    } catch (const Error& e) {
        CHECK(e.where() == "x.json (/train_batch_size)");
        CHECK(e.problem().find("100 != 2 * 3 * 16") != std::string::npos);
    }
    CHECK_THROWS_AS((void)resolve_deepspeed_batch(DeepSpeedConfig{}, 16, "x.json"), Error);
}
