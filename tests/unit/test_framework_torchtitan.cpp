// torchtitan's ParallelDims groups against the reference harness's golden JSON
// (tests/reference/torchtitan: torchtitan's own parallel_dims.py run on torch's fake process group).
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/ingest/torchtitan_toml.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/parallel/framework.hpp"
#include "planlayout/parallel/groups.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

using GroupSet = std::set<std::vector<std::int64_t>>;

nlohmann::json load_json(const std::string& rel) {
    std::ifstream in(std::string(PLANLAYOUT_SOURCE_DIR) + "/" + rel);
    REQUIRE(in.good());
    return nlohmann::json::parse(in, nullptr, true, /*ignore_comments=*/true);
}

GroupSet group_set(const GroupKind& k) {
    GroupSet out;
    for (std::int64_t g = 0; g < k.group_count(); ++g) {
        out.insert(k.group(g));
    }
    return out;
}

// Every rank's find() agrees with member().
void check_find(const GroupKind& k, std::int64_t world) {
    for (std::int64_t r = 0; r < world; ++r) {
        const auto at = k.find(r);
        REQUIRE(at.has_value());
        CHECK(k.member(at->first, at->second) == r);
    }
}

TorchtitanDims dims_of(const nlohmann::json& c, bool v2025) {
    TorchtitanDims d;
    d.world = c.at("world").get<std::int64_t>();
    d.dp_replicate = c.at("dp_replicate").get<std::int64_t>();
    d.dp_shard = c.at("dp_shard").get<std::int64_t>();
    d.cp = c.at("cp").get<std::int64_t>();
    d.tp = c.at("tp").get<std::int64_t>();
    d.pp = c.at("pp").get<std::int64_t>();
    d.ep = c.at("ep").get<std::int64_t>();
    d.etp = v2025 ? c.at("etp").get<std::int64_t>() : 1;
    d.mesh_2025 = v2025;
    return d;
}

// Our kinds equal the golden's as sets of member lists; `extra` names kinds we add on purpose.
void check_against(const nlohmann::json& section, bool v2025, const std::string& backend) {
    int valid = 0;
    int invalid = 0;
    for (const auto& c : section) {
        const std::string name = c.at("name").get<std::string>();
        CAPTURE(name);
        CAPTURE(backend);
        TorchtitanDims d = dims_of(c, v2025);
        d.spmd_backend = backend;
        if (c.contains("error")) {
            CHECK_THROWS_AS((void)build_torchtitan_groups(d, {}), Error);
            ++invalid;
            continue;
        }
        ++valid;
        const Groups g = build_torchtitan_groups(d, {});
        std::set<std::string> ours;
        for (const auto& k : g.kinds) {
            if (k.name == "dp_shard_cp" && !v2025) {
                // Ours: FSDP's (dp_shard, cp) group from fsdp.py, not a ParallelDims mesh.
                CHECK(d.cp > 1);
                continue;
            }
            ours.insert(k.name);
            check_find(k, d.world);
        }
        std::set<std::string> theirs;
        const auto& golden_groups = c.at("groups");
        for (auto it = golden_groups.begin(); it != golden_groups.end(); ++it) {
            theirs.insert(it.key());
        }
        CHECK(ours == theirs);
        for (const auto& k : g.kinds) {
            if (!golden_groups.contains(k.name)) {
                continue;
            }
            CAPTURE(k.name);
            const GroupSet expected = golden_groups.at(k.name).get<GroupSet>();
            CHECK(group_set(k) == expected);
        }
        CHECK(g.spec.world == d.world);
        CHECK(g.spec.tp == d.tp);
        CHECK(g.spec.pp == d.pp);
    }
    CHECK(valid >= 20);
    CHECK(invalid >= 5);
}

}  // namespace

TEST_CASE("torchtitan: current ParallelDims (spmd_types) equals torchtitan's own build_mesh") {
    const nlohmann::json golden = load_json("tests/reference/torchtitan/golden.json");
    check_against(golden.at("configs"), false, "spmd_types");
}

TEST_CASE("torchtitan: current ParallelDims (partial_dtensor) equals torchtitan's own build_mesh") {
    const nlohmann::json golden = load_json("tests/reference/torchtitan/golden.json");
    check_against(golden.at("configs_partial_dtensor"), false, "partial_dtensor");
}

TEST_CASE("torchtitan:2025: one init_device_mesh + _flatten equals torchtitan 64dc922fc") {
    const nlohmann::json golden = load_json("tests/reference/torchtitan/golden.json");
    check_against(golden.at("configs_2025"), true, "spmd_types");
}

TEST_CASE("torchtitan: roles, patterns and the dp_shard_cp FSDP group") {
    TorchtitanDims d;
    d.world = 64;
    d.dp_replicate = 2;
    d.cp = 2;
    d.tp = 2;
    d.pp = 2;
    d.ep = 4;
    const Groups g = build_torchtitan_groups(d, {});
    REQUIRE(g.find("tp") != nullptr);
    CHECK(g.find("tp")->role == "tp");
    CHECK(g.find("pp")->pattern == Pattern::PipelineP2p);
    CHECK(g.find("ep")->pattern == Pattern::AllToAll);
    CHECK(g.find("ep")->generator == "expert");
    CHECK(g.find("efsdp")->role == "efsdp");
    CHECK(g.find("dp_replicate")->role == "dp_replicate");
    CHECK(g.find("batch")->role.empty());
    CHECK(g.find("loss")->role.empty());
    CHECK(g.find("dp_shard")->role.empty());  // cp > 1: FSDP shards over (dp_shard, cp)
    REQUIRE(g.find_role("fsdp") != nullptr);
    CHECK(g.find_role("fsdp")->name == "dp_shard_cp");
    CHECK(g.find_role("fsdp")->group_size() == 8);  // dp_shard 4 * cp 2
    CHECK(g.spec.dp == 8);
    CHECK(g.spec.ep == 4);
    CHECK(g.spec.etp == 1);
}

TEST_CASE("torchtitan: refusals name the degree") {
    TorchtitanDims d;
    d.world = 16;
    d.tp = 4;
    d.ep = 3;
    CHECK_THROWS_WITH_AS((void)build_torchtitan_groups(d, {}), doctest::Contains("--ep 3"), Error);
    d.ep = 4;
    d.etp = 2;
    CHECK_THROWS_WITH_AS((void)build_torchtitan_groups(d, {}), doctest::Contains("torchtitan:2025"), Error);
    d.mesh_2025 = true;
    CHECK_THROWS_WITH_AS((void)build_torchtitan_groups(d, {}), doctest::Contains("ETP=TP or ETP=1"), Error);
    d.mesh_2025 = false;
    d.ep = 1;  // etp is ignored without experts, as torchtitan's TOML configs set it with ep 1
    CHECK(build_torchtitan_groups(d, {}).find("tp") != nullptr);
    d.etp = 1;
    d.dp_shard = 3;
    CHECK_THROWS_WITH_AS((void)build_torchtitan_groups(d, {"x.json", "/parallel"}),
                         doctest::Contains("x.json (/parallel/dp_shard)"), Error);
}

TEST_CASE("torchtitan: a degree over the world names the upper bound, not the lower") {
    // Issue 27 item 9: --tp 64 on 32 GPUs said "give a degree of at least 1".
    TorchtitanDims d;
    d.world = 32;
    d.tp = 64;
    CHECK_THROWS_WITH_AS((void)build_torchtitan_groups(d, {}), doctest::Contains("at most 32"), Error);
    try {
        (void)build_torchtitan_groups(d, {});
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("at least 1") == std::string::npos);
    }
    d.tp = 0;
    CHECK_THROWS_WITH_AS((void)build_torchtitan_groups(d, {}), doctest::Contains("at least 1"), Error);
}

TEST_CASE("torchtitan: 131,072 ranks build in O(axes)") {
    TorchtitanDims d;
    d.world = 131072;
    d.dp_replicate = 4;
    d.tp = 8;
    d.pp = 8;
    d.cp = 2;
    d.ep = 64;
    const Groups g = build_torchtitan_groups(d, {});
    const GroupKind* ep = g.find("ep");
    REQUIRE(ep != nullptr);
    CHECK(ep->group_count() * ep->group_size() == d.world);
    const auto at = ep->find(131071);
    REQUIRE(at.has_value());
    CHECK(ep->member(at->first, at->second) == 131071);
}

TEST_CASE("torchtitan: the seed layouts' groups equal Megatron's for tp, pp, dp and ep") {
    for (const std::string file : {"layouts/seed-2x8-ep16.json", "layouts/seed-2x8-pp2-ep8.json",
                                   "layouts/h100-4node-tp8-pp2-ep8.json", "layouts/h100-32node-tp8-pp4-ep8.json"}) {
        CAPTURE(file);
        const nlohmann::json layout = load_json(file);
        const nlohmann::json& par = layout.at("parallel");
        REQUIRE(layout.at("cluster").at("node").get<std::string>().find("8gpu") != std::string::npos);
        ParallelSpec spec;
        spec.world = layout.at("cluster").at("nodes").get<std::int64_t>() * 8;
        spec.tp = par.value("tp", std::int64_t{1});
        spec.pp = par.value("pp", std::int64_t{1});
        spec.cp = par.value("cp", std::int64_t{1});
        spec.ep = par.value("ep", std::int64_t{1});
        spec.etp = par.value("etp", std::int64_t{1});
        REQUIRE(*spec.etp == 1);  // torchtitan's experts have no tp
        const Groups meg = build_groups(resolve_spec(spec));
        TorchtitanDims d;
        d.world = spec.world;
        d.tp = spec.tp;
        d.pp = spec.pp;
        d.cp = spec.cp;
        d.ep = spec.ep;
        const Groups tt = build_torchtitan_groups(d, {});
        // torchtitan name -> Megatron name, for the kinds that correspond.
        const std::map<std::string, std::string> same = {{"tp", "tp"}, {"pp", "pp"}, {"cp", "cp"},
                                                         {"batch", "dp"}, {"loss", "dp_cp"}, {"ep", "ep"}};
        int compared = 0;
        for (const auto& pair : same) {
            const std::string& ours = pair.first;
            const GroupKind* a = tt.find(ours);
            const GroupKind* b = meg.find(pair.second);
            if (a == nullptr || b == nullptr || b->group_size() == 1) {
                continue;
            }
            CAPTURE(ours);
            CHECK(group_set(*a) == group_set(*b));
            ++compared;
        }
        CHECK(compared >= 2);
        CHECK(tt.spec.dp == meg.spec.dp);
        CHECK(tt.spec.expert_dp == meg.spec.expert_dp);
    }
}

// ---- --torchtitan-config: torchtitan's TOML job config ----

namespace {

std::string toml_text(const std::string& name) {
    std::ifstream in(std::string(PLANLAYOUT_TEST_DATA_DIR) + "/torchtitan/" + name);
    REQUIRE(in.good());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("torchtitan toml: real configs (pytorch/torchtitan 238fa9953 train_configs)") {
    // torchtitan/models/deepseek_v3/train_configs/deepseek_v3_16b.toml
    const TorchtitanConfig ds = read_torchtitan_config(toml_text("deepseek_v3_16b.toml"), "deepseek_v3_16b.toml");
    CHECK(ds.dims.dp_replicate == 1);
    CHECK(ds.dims.dp_shard == -1);
    CHECK(ds.dims.tp == 1);
    CHECK(ds.dims.pp == 1);
    CHECK(ds.dims.cp == 1);  // absent: torchtitan's default
    CHECK(ds.dims.ep == 8);
    CHECK(ds.dims.etp == 1);
    CHECK(ds.dims.world == 0);
    CHECK(ds.training.local_batch_size == 4);
    CHECK(ds.training.seq_len == 4096);
    CHECK_FALSE(ds.training.global_batch_size.has_value());
    TorchtitanDims d = ds.dims;
    d.world = 64;
    const Groups g = build_torchtitan_groups(d, {"deepseek_v3_16b.toml", ""});
    CHECK(g.find("ep")->group_size() == 8);
    CHECK(g.find("efsdp")->group_size() == 8);

    // torchtitan/models/llama3/train_configs/llama3_70b.toml
    const TorchtitanDims l = read_torchtitan_toml(toml_text("llama3_70b.toml"), "llama3_70b.toml");
    CHECK(l.tp == 8);
    CHECK(l.dp_shard == -1);
}

TEST_CASE("torchtitan toml: refusals name file:line") {
    CHECK_THROWS_WITH_AS((void)read_torchtitan_toml("[parallelism]\ntensor_parallel_degree = \"8\"\n", "a.toml"),
                         doctest::Contains("a.toml:2: [parallelism] tensor_parallel_degree must be an integer"), Error);
    CHECK_THROWS_WITH_AS((void)read_torchtitan_toml("[parallelism]\n\ntensor_paralel_degree = 8\n", "b.toml"),
                         doctest::Contains("b.toml:3"), Error);
    CHECK_THROWS_WITH_AS((void)read_torchtitan_toml("[parallelism]\n\ntensor_paralel_degree = 8\n", "b.toml"),
                         doctest::Contains("did you mean tensor_parallel_degree"), Error);
    CHECK_THROWS_WITH_AS((void)read_torchtitan_toml("[training]\nseq_len = 4096\n[parallelism\n", "c.toml"),
                         doctest::Contains("c.toml:3: not valid TOML"), Error);
    CHECK_THROWS_WITH_AS((void)read_torchtitan_toml("parallelism = 3\n", "d.toml"), doctest::Contains("d.toml:1"), Error);
    CHECK_THROWS_WITH_AS((void)read_torchtitan_config("[training]\nseq_len = 4096.5\n", "e.toml"),
                         doctest::Contains("e.toml:2: [training] seq_len must be an integer"), Error);
    // No [parallelism]: torchtitan's defaults.
    const TorchtitanDims d = read_torchtitan_toml("[job]\ndescription = \"x\"\n", "f.toml");
    CHECK(d.dp_shard == -1);
    CHECK(d.tp == 1);
}

TEST_CASE("torchtitan toml: keys and headers deeper than kMaxTomlDepth are refused before toml++ (issue 27 item 3)") {
    using planlayout::Error;
    // 50,000 parts (about 120 KB): toml++ recursed once per part and overflowed the stack.
    std::string deep = "a";
    for (int i = 0; i < 50000; ++i) {
        deep += ".b";
    }
    CHECK_THROWS_WITH_AS((void)read_torchtitan_config(deep + " = 1\n", "k.toml"),
                         doctest::Contains("k.toml:1: TOML nested more than 256 levels deep"), Error);
    CHECK_THROWS_WITH_AS((void)read_torchtitan_config("[job]\nx = 1\n[" + deep + "]\n", "h.toml"),
                         doctest::Contains("h.toml:3: TOML nested more than 256 levels deep"), Error);
    CHECK_THROWS_WITH_AS((void)read_torchtitan_config("[[" + deep + "]]\n", "t.toml"),
                         doctest::Contains("t.toml:1: TOML nested"), Error);
    // Depth adds up: a header of 200 parts and keys of 100 parts below it; inline tables of dotted keys.
    std::string h200 = "a";
    std::string k100 = "k";
    for (int i = 1; i < 200; ++i) {
        h200 += ".a";
    }
    for (int i = 1; i < 100; ++i) {
        k100 += ".k";
    }
    CHECK_THROWS_AS((void)read_torchtitan_config("[" + h200 + "]\n" + k100 + " = 1\n", "s.toml"), Error);
    CHECK_THROWS_AS((void)read_torchtitan_config("x = {" + h200 + " = {" + k100 + " = 1}}\n", "i.toml"), Error);
    // Just inside the limit is parsed; strings, comments and floats with dots count nothing.
    std::string k255 = "k";
    for (int i = 1; i < 255; ++i) {
        k255 += ".k";
    }
    CHECK_NOTHROW((void)read_torchtitan_config(k255 + " = 1\n", "ok.toml"));
    std::string floats = "[training]\nseq_len = 8\n# a.b.c\nx = [";
    for (int i = 0; i < 1000; ++i) {
        floats += "1.5, ";
    }
    floats += "2.5]\ns = \"" + deep + "\"\n'q.u.o.t.e.d' = 'a.b'\n";
    CHECK(read_torchtitan_config(floats, "f.toml").training.seq_len == 8);
}

TEST_CASE("torchtitan toml: a config over kMaxConfigBytes is refused before parsing") {
    const std::string big(planlayout::kMaxConfigBytes + 1, '#');
    CHECK_THROWS_WITH_AS((void)read_torchtitan_config(big, "big.toml"),
                         doctest::Contains("big.toml: the input is 4194305 bytes, over the limit of 4194304 bytes (kMaxConfigBytes)"),
                         planlayout::Error);
}

TEST_CASE("torchtitan:2025: the mesh dims carry their roles (tp, pp, cp, dp_replicate by name, dp_shard none)") {
    // kinds_2025 names a role for exactly these four dims; a shard dim with a role of its own would
    // be matched as a traffic role it does not carry.
    TorchtitanDims d;
    d.world = 32;
    d.dp_replicate = 2;
    d.cp = 2;
    d.tp = 2;
    d.pp = 2;
    d.mesh_2025 = true;
    const Groups g = build_torchtitan_groups(d, {});
    for (const std::string nm : {"tp", "pp", "cp", "dp_replicate"}) {
        CAPTURE(nm);
        REQUIRE(g.find(nm) != nullptr);
        CHECK(g.find(nm)->role == nm);
    }
    REQUIRE(g.find("dp_shard") != nullptr);  // 32 / (2 * 2 * 2 * 2) = 2
    CHECK(g.find("dp_shard")->role.empty());
}
