// Megatron-Core's groups against the reference harness's golden JSON (tests/reference/megatron:
// Megatron-Core's own parallel_state.initialize_model_parallel run on torch's fake process group,
// every new_group call recorded with its group_desc).
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/parallel/groups.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

using Members = std::vector<std::int64_t>;

std::string read_text(const std::string& rel) {
    std::ifstream in(std::string(PLANLAYOUT_SOURCE_DIR) + "/" + rel);
    REQUIRE(in.good());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const nlohmann::json& golden() {
    static const nlohmann::json kGolden = nlohmann::json::parse(read_text("tests/reference/megatron/golden.json"));
    return kGolden;
}

const nlohmann::json& config(const std::string& name) {
    for (const auto& c : golden().at("configs")) {
        if (c.at("name") == name) {
            return c;
        }
    }
    FAIL("no configuration " << name << " in the golden");
    throw std::logic_error("unreachable");
}

// The harness's configuration as plan-layout's spec: Megatron's arguments one to one (etp, vpp and
// local_world_size null = not given).
ParallelSpec spec_of(const nlohmann::json& c) {
    ParallelSpec s;
    s.world = c.at("world").get<std::int64_t>();
    s.tp = c.at("tp").get<std::int64_t>();
    s.pp = c.at("pp").get<std::int64_t>();
    s.cp = c.at("cp").get<std::int64_t>();
    s.ep = c.at("ep").get<std::int64_t>();
    if (!c.at("etp").is_null()) {
        s.etp = c.at("etp").get<std::int64_t>();
    }
    if (!c.at("vpp").is_null()) {
        s.vpp = c.at("vpp").get<std::int64_t>();
    }
    if (!c.at("local_world_size").is_null()) {
        s.local_world_size = c.at("local_world_size").get<std::int64_t>();
    }
    s.order = c.at("order").get<std::string>();
    s.rank_offset = c.at("rank_offset").get<std::int64_t>();
    s.dist_opt_instances = c.at("dist_opt_instances").get<std::int64_t>();
    s.hierarchical_cp = c.at("hierarchical_cp").get<std::vector<std::int64_t>>();
    s.hybrid_cp = c.at("hybrid_cp").get<bool>();
    s.gtp = c.at("gtp").get<std::int64_t>();
    s.egtp = c.at("egtp").get<std::int64_t>();
    return s;
}

// Where plan-layout knowingly differs from Megatron (docs/frameworks/README.md, the Megatron
// reference harness): Megatron cuts each dp_cp group of 10 into chunks of 4 and keeps the short
// last chunk (HYBRID_DP_CP_GROUP_4 holds [0 2 4 6] [8 10 12 14] [16 18]); plan-layout's kinds have
// one group size, so it builds hybrid_dp_cp_<s> only for the s that divide dp*cp.
struct KnownDifference {
    const char* config;
    const char* group_desc;
};
constexpr KnownDifference kKnownDifferences[] = {{"tp2_hybrid_dpcp10", "HYBRID_DP_CP_GROUP_4"}};

bool known_difference(const std::string& config, const std::string& desc) {
    for (const auto& d : kKnownDifferences) {
        if (config == d.config && desc == d.group_desc) {
            return true;
        }
    }
    return false;
}

const GroupKind* kind_by_desc(const Groups& g, const std::string& desc) {
    const GroupKind* found = nullptr;
    for (const auto& k : g.kinds) {
        if (k.group_desc == desc) {
            CHECK(found == nullptr);  // one kind per Megatron group_desc
            found = &k;
        }
    }
    return found;
}

// One kind against Megatron's groups: the same member lists (in Megatron's member order), as
// many groups, and every rank of the grid found where member() puts it.
void check_kind(const GroupKind& k, const nlohmann::json& theirs, std::int64_t first, std::int64_t count) {
    CAPTURE(k.name);
    const auto expected = theirs.get<std::vector<Members>>();
    std::set<Members> ours;
    for (std::int64_t g = 0; g < k.group_count(); ++g) {
        ours.insert(k.group(g));
    }
    CHECK(k.group_count() == static_cast<std::int64_t>(expected.size()));
    CHECK(ours == std::set<Members>(expected.begin(), expected.end()));
    std::int64_t members = 0;
    for (const auto& m : expected) {
        members += static_cast<std::int64_t>(m.size());
    }
    std::int64_t found = 0;
    for (std::int64_t r = first; r < first + count; ++r) {
        if (const auto at = k.find(r)) {
            CHECK(k.member(at->first, at->second) == r);
            ++found;
        }
    }
    CHECK(found == members);  // a rank is in at most one group of a kind, and find() sees each
}

std::int64_t group_size_of(const nlohmann::json& groups, const char* desc) {
    return static_cast<std::int64_t>(groups.at(desc).at(0).size());
}

}  // namespace

TEST_CASE("megatron: every group kind equals Megatron-Core's own initialize_model_parallel") {
    int valid = 0;
    int known = 0;
    std::int64_t largest = 0;
    for (const auto& c : golden().at("configs")) {
        if (c.contains("error")) {
            continue;
        }
        const std::string name = c.at("name").get<std::string>();
        CAPTURE(name);
        ++valid;
        const ParallelSpec spec = spec_of(c);
        const ResolvedSpec r = resolve_spec(spec);
        const Groups g = build_groups(r);
        const auto& theirs = c.at("groups");
        largest = std::max(largest, spec.world);
        std::set<std::string> descs;
        for (auto it = theirs.begin(); it != theirs.end(); ++it) {
            const std::string& desc = it.key();
            CAPTURE(desc);
            descs.insert(desc);
            const GroupKind* k = kind_by_desc(g, desc);
            if (known_difference(name, desc)) {
                // Pinned: we build no such kind, and Megatron's groups really are of two sizes.
                CHECK(k == nullptr);
                std::set<std::size_t> sizes;
                for (const auto& m : it.value()) {
                    sizes.insert(m.size());
                }
                CHECK(sizes.size() > 1);
                ++known;
                continue;
            }
            REQUIRE(k != nullptr);
            check_kind(*k, it.value(), r.rank_offset, r.grid_world);
        }
        for (const auto& k : g.kinds) {
            CAPTURE(k.name);
            CHECK(descs.count(k.group_desc) == 1);  // we build no kind Megatron does not
        }
        CHECK(r.dp == group_size_of(theirs, "DATA_PARALLEL_GROUP"));
        CHECK(r.expert_dp == group_size_of(theirs, "EXPERT_DATA_PARALLEL_GROUP"));
        CHECK(r.etp == group_size_of(theirs, "EXPERT_TENSOR_PARALLEL_GROUP"));
    }
    CHECK(valid >= 25);
    CHECK(known == static_cast<int>(std::size(kKnownDifferences)));
    CHECK(largest >= 256);
}

TEST_CASE("megatron: every configuration Megatron-Core refuses is refused") {
    int refused = 0;
    for (const auto& c : golden().at("configs")) {
        if (!c.contains("error")) {
            continue;
        }
        CAPTURE(c.at("name").get<std::string>());
        CAPTURE(c.at("error").get<std::string>());
        ++refused;
        const ParallelSpec spec = spec_of(c);
        CHECK_THROWS_AS((void)build_groups(resolve_spec(spec)), Error);
    }
    CHECK(refused >= 10);
}

TEST_CASE("megatron: the golden covers the seed layouts, both orders, etp != tp, cp, ep and vpp") {
    // The seed layouts, 2 nodes x 8 GPUs: tp1 ep16 and pp2 ep8 (etp 1).
    const auto& ep16 = config("seed_2x8_ep16");
    CHECK(ep16.at("world") == 16);
    CHECK(ep16.at("ep") == 16);
    CHECK(ep16.at("groups").at("EXPERT_MODEL_PARALLEL_GROUP").size() == 1);
    const auto& pp2 = config("seed_2x8_pp2_ep8");
    CHECK(pp2.at("groups").at("PIPELINE_MODEL_PARALLEL_GROUP").at(0) == nlohmann::json({0, 8}));
    CHECK(pp2.at("groups").at("EXPERT_MODEL_PARALLEL_GROUP").at(0) == nlohmann::json({0, 1, 2, 3, 4, 5, 6, 7}));
    // --use-tp-pp-dp-mapping puts dp outermost: pp groups are neighbours.
    CHECK(config("tp2_pp2_tppdp").at("groups").at("PIPELINE_MODEL_PARALLEL_GROUP").at(0) == nlohmann::json({0, 2}));
    CHECK(config("tp2_pp2").at("groups").at("PIPELINE_MODEL_PARALLEL_GROUP").at(0) == nlohmann::json({0, 4}));
    // etp defaults to tp; etp < tp and etp > tp stride the expert groups differently.
    CHECK(config("tp2_ep8_etp_default").at("groups").at("EXPERT_MODEL_PARALLEL_GROUP").at(0).at(1) == 2);
    CHECK(config("tp4_ep8_etp2").at("groups").at("EXPERT_TENSOR_PARALLEL_GROUP").at(0).size() == 2);
    CHECK(config("tp2_ep4_etp4").at("groups").at("EXPERT_TENSOR_PARALLEL_GROUP").at(0).size() == 4);
    // vpp changes no group: Megatron's own groups with and without it are the same.
    CHECK(config("tp2_pp4_vpp2").at("groups") == config("tp2_pp4").at("groups"));
    ParallelSpec with_vpp = spec_of(config("tp2_pp4_vpp2"));
    const Groups a = build_groups(resolve_spec(with_vpp));
    with_vpp.vpp.reset();
    const Groups b = build_groups(resolve_spec(with_vpp));
    REQUIRE(a.kinds.size() == b.kinds.size());
    for (std::size_t i = 0; i < a.kinds.size(); ++i) {
        CHECK(a.kinds[i].group(0) == b.kinds[i].group(0));
    }
}

TEST_CASE("megatron: the golden records the commit and blob hashes the harness checks") {
    const std::string harness = read_text("tests/reference/megatron/harness.py");
    const std::string readme = read_text("tests/reference/megatron/README.md");
    std::smatch m;
    REQUIRE(std::regex_search(harness, m, std::regex("COMMIT = \"([0-9a-f]{40})\"")));
    const std::string commit = m[1];
    const auto& source = golden().at("source");
    CHECK(source.at("commit") == commit);
    CHECK(readme.find(commit) != std::string::npos);
    CHECK(source.at("files").size() == 2);
    for (const auto& file : source.at("files").items()) {
        const std::string& path = file.key();
        const std::string blob = file.value().get<std::string>();
        CAPTURE(path);
        CHECK(std::regex_match(blob, std::regex("[0-9a-f]{40}")));
        CHECK(harness.find("\"" + path + "\": \"" + blob + "\"") != std::string::npos);
        CHECK(readme.find(blob) != std::string::npos);
    }
}

TEST_CASE("torchtitan: the golden records the blob hashes its harness checks") {
    const std::string harness = read_text("tests/reference/torchtitan/harness.py");
    const nlohmann::json tt = nlohmann::json::parse(read_text("tests/reference/torchtitan/golden.json"));
    const std::string readme = read_text("tests/reference/torchtitan/README.md");
    for (const auto& entry : std::map<std::string, std::string>{{"CURRENT_BLOB", "blob"}, {"V2025_BLOB", "blob_2025"}}) {
        const std::string& constant = entry.first;
        const std::string& key = entry.second;
        CAPTURE(constant);
        std::smatch m;
        REQUIRE(std::regex_search(harness, m, std::regex(constant + " = \"([0-9a-f]{40})\"")));
        CHECK(tt.at("source").at(key) == m[1].str());
        CHECK(readme.find(m[1].str()) != std::string::npos);
    }
}
