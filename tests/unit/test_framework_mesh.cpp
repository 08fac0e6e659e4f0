// Raw DeviceMesh groups against the reference harness's golden JSON (tests/reference/devicemesh:
// torch's own init_device_mesh and _flatten on the fake process group), and the --mesh parser.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/parallel/framework.hpp"
#include "planlayout/parallel/mesh_spec_text.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

using GroupSet = std::set<std::vector<std::int64_t>>;

GroupSet group_set(const GroupKind& k) {
    GroupSet out;
    for (std::int64_t g = 0; g < k.group_count(); ++g) {
        out.insert(k.group(g));
    }
    return out;
}

MeshSpec mesh_of(const nlohmann::json& c) {
    MeshSpec m;
    m.world = c.at("world").get<std::int64_t>();
    for (const auto& d : c.at("dims")) {
        m.dims.push_back(MeshDim{d.at(0).get<std::string>(), d.at(1).get<std::int64_t>()});
    }
    for (const auto& f : c.at("flatten")) {
        MeshFlatten mf;
        mf.dims = f.at("dims").get<std::vector<std::string>>();
        if (!f.at("name").is_null()) {
            mf.name = f.at("name").get<std::string>();
        }
        m.flatten.push_back(mf);
    }
    return m;
}

}  // namespace

TEST_CASE("mesh: init_device_mesh + _flatten equal torch's own (golden)") {
    std::ifstream in(std::string(PLANLAYOUT_SOURCE_DIR) + "/tests/reference/devicemesh/golden.json");
    REQUIRE(in.good());
    const nlohmann::json golden = nlohmann::json::parse(in);
    int valid = 0;
    int invalid = 0;
    for (const auto& c : golden.at("configs")) {
        const std::string name = c.at("name").get<std::string>();
        CAPTURE(name);
        const MeshSpec m = mesh_of(c);
        if (c.contains("error")) {
            CHECK_THROWS_AS((void)build_mesh_groups(m, {}), Error);
            ++invalid;
            continue;
        }
        ++valid;
        const Groups g = build_mesh_groups(m, {});
        const auto& gg = c.at("groups");
        CHECK(g.kinds.size() == gg.size());
        for (const auto& k : g.kinds) {
            CAPTURE(k.name);
            REQUIRE(gg.contains(k.name));
            CHECK(group_set(k) == gg.at(k.name).get<GroupSet>());
            for (std::int64_t r = 0; r < m.world; ++r) {
                const auto at = k.find(r);
                REQUIRE(at.has_value());
                CHECK(k.member(at->first, at->second) == r);
            }
        }
    }
    CHECK(valid >= 20);
    CHECK(invalid >= 5);
}

TEST_CASE("mesh: roles by name, default flatten name, refusals") {
    MeshSpec m = parse_mesh_spec("pp=2,dp_replicate=2,dp_shard=2,cp=2,tp=2", {"dp_shard,cp", "dp_replicate,dp_shard:dp"}, 32, "--mesh");
    const Groups g = build_mesh_groups(m, {});
    CHECK(g.find("tp")->role == "tp");
    CHECK(g.find("pp")->pattern == Pattern::PipelineP2p);
    CHECK(g.find("dp_shard")->role == "fsdp");
    CHECK(g.find("dp_replicate")->role == "dp_replicate");
    CHECK(g.find("dp_shard_cp")->role == "fsdp");
    CHECK(g.find("dp_shard_cp")->group_size() == 4);
    CHECK(g.find("dp")->role == "dp");
    CHECK(g.spec.dp == 4);

    m = parse_mesh_spec("a=2,b=4", {}, 8, "--mesh");
    CHECK(build_mesh_groups(m, {}).find("a")->role.empty());
    m = parse_mesh_spec("dp=2,tp=2", {}, 8, "--mesh");
    CHECK_THROWS_WITH_AS((void)build_mesh_groups(m, {}), doctest::Contains("fewer ranks"), Error);
    m = parse_mesh_spec("dp=4,tp=4", {}, 8, "--mesh");
    CHECK_THROWS_WITH_AS((void)build_mesh_groups(m, {}), doctest::Contains("bigger than the world"), Error);
    m = parse_mesh_spec("dp=4,tp=2", {"tp,dp"}, 8, "--mesh");
    CHECK_THROWS_WITH_AS((void)build_mesh_groups(m, {}), doctest::Contains("mesh order"), Error);
    m = parse_mesh_spec("dp=4,tp=2", {"dp,cp"}, 8, "--mesh");
    CHECK_THROWS_WITH_AS((void)build_mesh_groups(m, {}), doctest::Contains("does not have"), Error);
    CHECK_THROWS_WITH_AS((void)build_mesh_groups(m, {}), doctest::Contains("--flatten: "), Error);  // the flag it came from
    m = parse_mesh_spec("dp=2,tp=2", {}, 8, "--mesh");
    CHECK_THROWS_WITH_AS((void)build_mesh_groups(m, {}), doctest::Contains("--mesh: "), Error);
    m = parse_mesh_spec("dp=4,tp=2", {"dp,tp:tp"}, 8, "--mesh");
    CHECK_THROWS_WITH_AS((void)build_mesh_groups(m, {}), doctest::Contains("already"), Error);
}

TEST_CASE("mesh: parse_mesh_spec syntax") {
    const MeshSpec m = parse_mesh_spec("pp=2,dp=4,tp=2", {"dp,tp", "pp,dp:outer"}, 16, "--mesh");
    REQUIRE(m.dims.size() == 3);
    CHECK(m.dims[1].name == "dp");
    CHECK(m.dims[1].size == 4);
    REQUIRE(m.flatten.size() == 2);
    CHECK(m.flatten[0].name.empty());
    CHECK(m.flatten[1].name == "outer");
    CHECK(m.flatten[1].dims == std::vector<std::string>{"pp", "dp"});
    for (const std::string bad : {"", "pp", "pp=", "=2", "pp=2,", "pp=x", "pp=0", "pp=-1", "pp=99999999999"}) {
        CAPTURE(bad);
        CHECK_THROWS_AS((void)parse_mesh_spec(bad, {}, 8, "--mesh"), Error);
    }
    for (const std::string bad : {"", "dp,", ",dp", "dp,cp:"}) {
        CAPTURE(bad);
        CHECK_THROWS_AS((void)parse_mesh_spec("dp=8", {bad}, 8, "--mesh"), Error);
    }
}
