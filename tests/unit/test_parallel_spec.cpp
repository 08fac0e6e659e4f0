// Tests: spec validation; whole error messages are pinned.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {
ParallelSpec spec(std::int64_t world) {
    ParallelSpec s;
    s.world = world;
    return s;
}
}  // namespace

TEST_CASE("sizes resolve as Megatron derives them") {
    ParallelSpec s = spec(131072);
    s.tp = 8;
    s.pp = 16;
    s.cp = 2;
    s.ep = 64;
    s.etp = 1;
    const ResolvedSpec r = resolve_spec(s);
    CHECK(r.dp == 512);
    CHECK(r.expert_dp == 128);
    CHECK(axes_order(r.dense) == "tp-gtp_remat-cp-ep-dp-pp");
    CHECK(axes_order(r.expert) == "tp-cp-ep-gtp_remat-dp-pp");
    ParallelSpec d = spec(16);
    d.tp = 2;
    CHECK(resolve_spec(d).etp == 2);  // etp defaults to tp
    CHECK(sizes_text(r) == "tp8 pp16 cp2 ep64 etp1 dp512");
    CHECK(compact_sizes_text(r) == "tp8 pp16 cp2 ep64 dp512");  // etp 1 left out
    CHECK(compact_sizes_text(resolve_spec(d)) == "tp2 pp1 etp2 dp8");
}

TEST_CASE("invalid specs are refused with the arithmetic and a fix") {
    ParallelSpec s = spec(16);
    s.tp = 3;
    CHECK_THROWS_WITH_AS(resolve_spec(s),
                         "--tp 3: world size 16 is not divisible by tp*pp*cp = 3*1*1; valid tp values here: 1, 2, 4, 8, 16",
                         Error);
    s.tp = 4;
    s.pp = 8;
    CHECK_THROWS_WITH_AS(resolve_spec(s),
                         "--pp 8: world size 16 is not divisible by tp*pp*cp = 4*8*1; valid pp values here: 1, 2, 4",
                         Error);
    ParallelSpec e = spec(16);
    e.ep = 32;
    CHECK_THROWS_WITH_AS(resolve_spec(e),
                         "--ep 32: world size 16 is not divisible by etp*ep*pp = 1*32*1; valid ep values here: 1, 2, 4, 8, 16",
                         Error);
    // etp left to default to tp: the usual fix, expert tensor parallelism 1, is named too.
    ParallelSpec moe = spec(32);
    moe.tp = 8;
    moe.pp = 2;
    moe.ep = 8;
    CHECK_THROWS_WITH_AS(resolve_spec(moe),
                         "--ep 8: world size 32 is not divisible by etp*ep*pp = 8*8*2; valid ep values here: 1, 2; or set "
                         "--etp 1 (etp defaults to tp = 8; MoE launches usually give --expert-tensor-parallel-size 1)",
                         Error);
    ParallelSpec z = spec(16);
    z.cp = 0;
    CHECK_THROWS_WITH_AS(resolve_spec(z), "--cp 0: cp must be at least 1, got 0; set --cp to a positive size (1 disables that parallelism)",
                         Error);
    ParallelSpec dp = spec(16);
    dp.dp = 4;
    CHECK_THROWS_WITH_AS(resolve_spec(dp),
                         "--dp 4: dp = 4 disagrees with world / (tp*pp*cp) = 16 / 1 = 16; drop --dp (it is derived) or set it to 16",
                         Error);
    ParallelSpec big = spec((std::int64_t{1} << 31) + 1);
    CHECK_THROWS_WITH_AS(resolve_spec(big), "--world 2147483649: world = 2147483649 is over the limit of 2^31; use a size of at most 2147483648",
                         Error);
}

TEST_CASE("order strings: unknown, duplicated and missing tokens are errors") {
    ParallelSpec s = spec(16);
    s.order = "tp-cp-xp-dp-pp";
    CHECK_THROWS_WITH_AS(resolve_spec(s),
                         "--order 'tp-cp-xp-dp-pp': unknown token 'xp' in the rank order; use tokens from tp, cp, ep, dp, pp joined by '-', e.g. tp-cp-ep-dp-pp",
                         Error);
    s.order = "tp-dp-dp-pp";
    CHECK_THROWS_WITH_AS(resolve_spec(s),
                         "--order 'tp-dp-dp-pp': token 'dp' appears twice in the rank order; name each of tp, cp, ep, dp, pp at most once, e.g. tp-cp-ep-dp-pp",
                         Error);
    s.order = "tp-dp-pp";
    s.ep = 2;
    CHECK_THROWS_WITH_AS(resolve_spec(s),
                         "--order 'tp-dp-pp': ep has size 2 but the rank order does not name it; add ep to the order, e.g. tp-cp-ep-dp-pp",
                         Error);
    s.ep = 1;
    CHECK_NOTHROW(resolve_spec(s));  // tp-pp-dp works with cp = ep = 1
}

TEST_CASE("pp not last needs expert dp == dp and identical pp groups") {
    ParallelSpec s = spec(16);
    s.pp = 2;
    s.ep = 2;
    s.order = "tp-cp-ep-pp-dp";
    CHECK_THROWS_WITH_AS(resolve_spec(s),
                         "--order 'tp-cp-ep-pp-dp': with pp > 1 and pp not last in the order, expert dp must equal dp, but expert dp = W/(etp*ep*pp) = 4 and dp = W/(tp*pp*cp) = 8; choose etp*ep = tp*cp (1), or put pp last (tp-cp-ep-dp-pp)",
                         Error);
    ParallelSpec ok = spec(16);
    ok.pp = 2;
    ok.tp = 2;
    ok.ep = 2;
    ok.etp = 1;
    ok.order = "tp-cp-ep-pp-dp";
    CHECK_NOTHROW(resolve_spec(ok));
}

TEST_CASE("optimizer instances, vpp, hierarchical CP are validated") {
    ParallelSpec s = spec(16);
    s.dist_opt_instances = 3;
    CHECK_THROWS_AS(resolve_spec(s), Error);
    ParallelSpec v = spec(16);
    v.vpp = 2;
    CHECK_THROWS_WITH_AS(resolve_spec(v), "--vpp 2: virtual pipeline stages need pp > 1; drop --vpp or set --pp above 1", Error);
    ParallelSpec h = spec(16);
    h.cp = 4;
    h.hierarchical_cp = {2, 3};
    CHECK_THROWS_WITH_AS(resolve_spec(h),
                         "--hierarchical-context-parallel-sizes 2 3: the hierarchical CP sizes multiply to 2*3 = 6, not cp = 4; give sizes whose product is 4",
                         Error);
}

TEST_CASE("a spec from a layout file names the JSON pointer") {
    const auto j = nlohmann::json::parse(R"({"tp": 3, "ep": 16})");
    SpecSource src{"layouts/x.json", "/parallel"};
    ParallelSpec s = parallel_spec_from_json(j, src);
    s.world = 16;
    CHECK_THROWS_WITH_AS(resolve_spec(s, src),
                         "layouts/x.json (/parallel/tp): world size 16 is not divisible by tp*pp*cp = 3*1*1; valid tp values here: 1, 2, 4, 8, 16",
                         Error);
    CHECK_THROWS_WITH_AS(parallel_spec_from_json(nlohmann::json::parse(R"({"tpp": 2})"), src),
                         "layouts/x.json (/parallel/tpp): unknown key \"tpp\"; did you mean \"tp\"? known keys here: tp, pp, cp, ep, etp, dp, vpp, order, rank_offset, local_world_size, dist_opt_instances, hierarchical_cp, hybrid_cp, gtp, egtp, world (keys starting with _ are comments)",
                         Error);
    CHECK_THROWS_WITH_AS(parallel_spec_from_json(nlohmann::json::parse(R"({"tp": "2"})"), src),
                         "layouts/x.json (/parallel/tp): tp must be a whole number, got string; write e.g. \"tp\": 1", Error);
}
