// Tests: group enumeration against docs/commands/groups.md closed forms, §6 seed layouts, §7 facts, invariants.
#include <doctest/doctest.h>

#include <functional>
#include <set>

#include "invariants.hpp"
#include "planlayout/emit/groups_emit.hpp"
#include "planlayout/parallel/groups.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
using Ranks = std::vector<std::int64_t>;

namespace {

Groups make(std::int64_t world, std::int64_t tp, std::int64_t pp, std::int64_t cp, std::int64_t ep,
            std::optional<std::int64_t> etp = std::nullopt, std::string order = "tp-cp-ep-dp-pp") {
    ParallelSpec s;
    s.world = world;
    s.tp = tp;
    s.pp = pp;
    s.cp = cp;
    s.ep = ep;
    s.etp = etp;
    s.order = std::move(order);
    return build_groups(resolve_spec(s));
}

std::vector<Ranks> all(const Groups& g, const std::string& kind) {
    const GroupKind* k = g.find(kind);
    REQUIRE(k != nullptr);
    std::vector<Ranks> out;
    for (std::int64_t i = 0; i < k->group_count(); ++i) {
        out.push_back(k->group(i));
    }
    return out;
}

std::vector<Ranks> range_groups(std::int64_t count, const std::function<Ranks(std::int64_t)>& f) {
    std::vector<Ranks> out;
    for (std::int64_t i = 0; i < count; ++i) {
        out.push_back(f(i));
    }
    return out;
}

std::vector<std::string> kind_names(const Groups& g) { return all_kind_names(g); }

}  // namespace

TEST_CASE("seed layout A (PP=1, EP=16, 16 ranks) gives docs/commands/groups.md's groups") {
    const Groups g = make(16, 1, 1, 1, 16);
    Ranks all16(16);
    for (std::int64_t i = 0; i < 16; ++i) {
        all16[static_cast<std::size_t>(i)] = i;
    }
    for (const char* k : {"dp", "dp_cp", "tp_dp", "tp_dp_cp", "ep", "tp_ep", "tp_ep_pp", "intra_dist_opt_instance"}) {
        CAPTURE(k);
        CHECK(all(g, k) == std::vector<Ranks>{all16});
    }
    for (const char* k : {"expt_dp", "tp", "pp", "cp", "mp", "expt_tp", "embd", "pos_embd", "gtp_remat"}) {
        CAPTURE(k);
        CHECK(all(g, k).size() == 16);
        CHECK(all(g, k)[5] == Ranks{5});
    }
    CHECK(kind_names(g) == std::vector<std::string>{"gtp_remat", "dp_cp", "dp", "cp", "mp", "tp", "pp", "embd",
                                                    "pos_embd", "tp_dp_cp", "tp_dp", "tp_cp", "expt_gtp_remat", "ep",
                                                    "expt_tp", "tp_ep", "tp_ep_pp", "tp_ep_egtp_pp", "expt_dp",
                                                    "intra_dist_opt_instance"});
    CHECK(testing::check_group_invariants(g).empty());
}

TEST_CASE("seed layout B (PP=2, EP=8, 16 ranks) gives docs/commands/groups.md's groups") {
    const Groups g = make(16, 1, 2, 1, 8);
    const std::vector<Ranks> halves = {{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}};
    for (const char* k : {"dp", "dp_cp", "ep", "tp_ep"}) {
        CAPTURE(k);
        CHECK(all(g, k) == halves);
    }
    const auto pairs = range_groups(8, [](std::int64_t i) { return Ranks{i, i + 8}; });
    for (const char* k : {"pp", "mp", "embd"}) {
        CAPTURE(k);
        CHECK(all(g, k) == pairs);
    }
    CHECK(all(g, "pos_embd") == range_groups(8, [](std::int64_t i) { return Ranks{i}; }));
    CHECK(all(g, "expt_dp").size() == 16);
    CHECK(all(g, "tp_ep_pp") == std::vector<Ranks>{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}});
    CHECK(testing::check_group_invariants(g).empty());
}

TEST_CASE("default-order groups follow the closed forms of docs/commands/groups.md over a sweep of specs") {
    struct Case {
        std::int64_t w, tp, pp, cp, ep, etp;
    };
    const std::vector<Case> cases = {{16, 2, 2, 2, 2, 1}, {64, 2, 4, 2, 4, 2}, {128, 4, 2, 2, 8, 1},
                                     {96, 2, 3, 2, 4, 2},  {48, 1, 1, 3, 16, 1}, {256, 8, 4, 1, 8, 1},
                                     {32, 4, 1, 2, 2, 4}};
    for (const auto& c : cases) {
        CAPTURE(c.w);
        CAPTURE(c.tp);
        CAPTURE(c.pp);
        CAPTURE(c.cp);
        CAPTURE(c.ep);
        const Groups g = make(c.w, c.tp, c.pp, c.cp, c.ep, c.etp);
        const std::int64_t b = c.w / c.pp;  // ranks per pipeline stage
        const std::int64_t dp = c.w / (c.tp * c.pp * c.cp);
        const std::int64_t edp = c.w / (c.etp * c.ep * c.pp);
        // tp: contiguous runs.
        CHECK(all(g, "tp") == range_groups(c.w / c.tp, [&](std::int64_t i) {
                  Ranks r;
                  for (std::int64_t t = 0; t < c.tp; ++t) r.push_back(i * c.tp + t);
                  return r;
              }));
        // cp: stride tp, size cp, inside runs of tp*cp; groups ordered tp fastest, then runs.
        CHECK(all(g, "cp") == range_groups(c.w / c.cp, [&](std::int64_t i) {
                  const std::int64_t t = i % c.tp, run = i / c.tp;
                  Ranks r;
                  for (std::int64_t j = 0; j < c.cp; ++j) r.push_back(run * c.tp * c.cp + t + j * c.tp);
                  return r;
              }));
        // dp: stride tp*cp, size dp, inside a stage.
        CHECK(all(g, "dp") == range_groups(c.w / dp, [&](std::int64_t i) {
                  const std::int64_t l = i % (c.tp * c.cp), stage = i / (c.tp * c.cp);
                  Ranks r;
                  for (std::int64_t j = 0; j < dp; ++j) r.push_back(stage * b + l + j * c.tp * c.cp);
                  return r;
              }));
        // dp_cp: stride tp, size cp*dp, inside a stage, cp fastest.
        CHECK(all(g, "dp_cp") == range_groups(c.w / (dp * c.cp), [&](std::int64_t i) {
                  const std::int64_t t = i % c.tp, stage = i / c.tp;
                  Ranks r;
                  for (std::int64_t j = 0; j < dp * c.cp; ++j) r.push_back(stage * b + t + j * c.tp);
                  return r;
              }));
        // pp: stride B, size pp.
        CHECK(all(g, "pp") == range_groups(b, [&](std::int64_t i) {
                  Ranks r;
                  for (std::int64_t j = 0; j < c.pp; ++j) r.push_back(i + j * b);
                  return r;
              }));
        // mp: tp run t plus j*B (tp fastest, then pp); one group per (cp, dp) position.
        CHECK(all(g, "mp") == range_groups(b / c.tp, [&](std::int64_t i) {
                  Ranks r;
                  for (std::int64_t j = 0; j < c.pp; ++j)
                      for (std::int64_t t = 0; t < c.tp; ++t) r.push_back(i * c.tp + t + j * b);
                  return r;
              }));
        // tp_cp: contiguous runs of tp*cp.  tp_dp_cp: the whole stage.
        CHECK(all(g, "tp_cp") == range_groups(c.w / (c.tp * c.cp), [&](std::int64_t i) {
                  Ranks r;
                  for (std::int64_t t = 0; t < c.tp * c.cp; ++t) r.push_back(i * c.tp * c.cp + t);
                  return r;
              }));
        CHECK(all(g, "tp_dp_cp") == range_groups(c.pp, [&](std::int64_t i) {
                  Ranks r;
                  for (std::int64_t t = 0; t < b; ++t) r.push_back(i * b + t);
                  return r;
              }));
        // tp_dp: tp fastest then dp (stride tp*cp); one group per (cp_r, pp_r), cp_r fastest.
        CHECK(all(g, "tp_dp") == range_groups(c.cp * c.pp, [&](std::int64_t i) {
                  const std::int64_t cpr = i % c.cp, stage = i / c.cp;
                  Ranks r;
                  for (std::int64_t j = 0; j < dp; ++j)
                      for (std::int64_t t = 0; t < c.tp; ++t) r.push_back(stage * b + cpr * c.tp + t + j * c.tp * c.cp);
                  return r;
              }));
        // ep: stride etp, size ep, inside runs of etp*ep.  tp_ep: contiguous runs of etp*ep.
        CHECK(all(g, "ep") == range_groups(c.w / c.ep, [&](std::int64_t i) {
                  const std::int64_t t = i % c.etp, run = i / c.etp;
                  Ranks r;
                  for (std::int64_t j = 0; j < c.ep; ++j) r.push_back(run * c.etp * c.ep + t + j * c.etp);
                  return r;
              }));
        CHECK(all(g, "tp_ep") == range_groups(c.w / (c.etp * c.ep), [&](std::int64_t i) {
                  Ranks r;
                  for (std::int64_t t = 0; t < c.etp * c.ep; ++t) r.push_back(i * c.etp * c.ep + t);
                  return r;
              }));
        // expt_dp: stride etp*ep, size expert_dp, inside a stage.
        CHECK(all(g, "expt_dp") == range_groups(c.w / edp, [&](std::int64_t i) {
                  const std::int64_t l = i % (c.etp * c.ep), stage = i / (c.etp * c.ep);
                  Ranks r;
                  for (std::int64_t j = 0; j < edp; ++j) r.push_back(stage * b + l + j * c.etp * c.ep);
                  return r;
              }));
        // tp_ep_pp: a tp_ep run plus j*B.
        CHECK(all(g, "tp_ep_pp") == range_groups(b / (c.etp * c.ep), [&](std::int64_t i) {
                  Ranks r;
                  for (std::int64_t j = 0; j < c.pp; ++j)
                      for (std::int64_t t = 0; t < c.etp * c.ep; ++t) r.push_back(i * c.etp * c.ep + t + j * b);
                  return r;
              }));
        const auto bad = testing::check_group_invariants(g);
        CHECK_MESSAGE(bad.empty(), (bad.empty() ? "" : bad.front()));
    }
}

TEST_CASE("the tp-cp-ep-pp-dp order puts pp at stride tp*cp (docs/commands/groups.md)") {
    const Groups g = make(16, 2, 2, 1, 1, std::nullopt, "tp-cp-ep-pp-dp");
    CHECK(all(g, "pp")[0] == Ranks{0, 2});
    CHECK(all(g, "dp")[0] == Ranks{0, 4, 8, 12});
    CHECK(testing::check_group_invariants(g).empty());
}

TEST_CASE("tp2 pp4: the next and previous pipeline ranks are rank +- 2 mod W (Megatron's test)") {
    const Groups g = make(8, 2, 4, 1, 1);
    const GroupKind* pp = g.find("pp");
    for (std::int64_t r = 0; r < 8; ++r) {
        const auto [grp, pos] = *pp->find(r);
        const auto ranks = pp->group(grp);
        CHECK(ranks[static_cast<std::size_t>((pos + 1) % 4)] == (r + 2) % 8);
        CHECK(ranks[static_cast<std::size_t>((pos + 3) % 4)] == (r + 6) % 8);
        CHECK(ranks[0] == r % 2);
    }
}

TEST_CASE("orders tp-ep-dp-pp and tp-pp-ep-dp agree when pp=1 or dp=1, and differ when both > 1") {
    for (const auto& [w, tp, pp] : std::vector<std::tuple<int, int, int>>{{8, 2, 1}, {8, 2, 4}}) {
        const Groups a = make(w, tp, pp, 1, 1, std::nullopt, "tp-ep-dp-pp");
        const Groups b = make(w, tp, pp, 1, 1, std::nullopt, "tp-pp-ep-dp");
        for (const char* k : {"tp", "dp", "pp", "ep", "expt_dp", "cp", "mp", "tp_ep", "tp_dp"}) {
            CAPTURE(k);
            CHECK(all(a, k) == all(b, k));
        }
    }
    const Groups a = make(16, 2, 2, 1, 1, std::nullopt, "tp-ep-dp-pp");
    const Groups b = make(16, 2, 2, 1, 1, std::nullopt, "tp-pp-ep-dp");
    for (const char* k : {"dp", "pp", "tp_dp", "mp"}) {
        CAPTURE(k);
        CHECK(all(a, k) != all(b, k));
    }
}

TEST_CASE("derived kinds: optimizer instances, hierarchical and hybrid CP, GTP, rank offset") {
    SUBCASE("two distributed-optimizer instances slice dp_cp and expert dp") {
        ParallelSpec s;
        s.world = 16;
        s.ep = 2;
        s.dist_opt_instances = 2;
        const Groups g = build_groups(resolve_spec(s));
        CHECK(all(g, "intra_partial_dp_cp") == std::vector<Ranks>{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}});
        // expert dp = 8 with stride 2: [0,2,...,14] and [1,3,...,15]; L0 chunks of 4, L1 stride 4 size 2.
        CHECK(all(g, "intra_partial_expt_dp")[0] == Ranks{0, 2, 4, 6});
        CHECK(all(g, "intra_partial_expt_dp")[1] == Ranks{8, 10, 12, 14});
        CHECK(all(g, "inter_partial_expt_dp")[0] == Ranks{0, 8});
        CHECK(all(g, "inter_partial_expt_dp")[1] == Ranks{2, 10});
        // tp_ep_pp groups are [0,1],[2,3],...: runs of 4 concatenated.
        CHECK(all(g, "intra_dist_opt_instance") == std::vector<Ranks>{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}});
        CHECK(testing::check_group_invariants(g).empty());
    }
    SUBCASE("hierarchical CP 2x2 of cp=4") {
        ParallelSpec s;
        s.world = 8;
        s.tp = 2;
        s.cp = 4;
        s.hierarchical_cp = {2, 2};
        const Groups g = build_groups(resolve_spec(s));
        CHECK(all(g, "cp")[0] == Ranks{0, 2, 4, 6});
        CHECK(all(g, "hcp_l0") == std::vector<Ranks>{{0, 2}, {4, 6}, {1, 3}, {5, 7}});
        CHECK(all(g, "hcp_l1") == std::vector<Ranks>{{0, 4}, {2, 6}, {1, 5}, {3, 7}});
        CHECK(testing::check_group_invariants(g).empty());
    }
    SUBCASE("hybrid CP creates power-of-two chunks of each dp_cp group") {
        ParallelSpec s;
        s.world = 16;
        s.cp = 2;
        s.hybrid_cp = true;
        const Groups g = build_groups(resolve_spec(s));
        CHECK(g.find("hybrid_dp_cp_2") != nullptr);
        CHECK(g.find("hybrid_dp_cp_4") != nullptr);
        CHECK(g.find("hybrid_dp_cp_8") != nullptr);
        CHECK(g.find("hybrid_dp_cp_16") == nullptr);
        CHECK(all(g, "hybrid_dp_cp_4")[1] == Ranks{4, 5, 6, 7});
    }
    SUBCASE("gtp=2 adds the GTP data-parallel kinds and one whole-grid optimizer group") {
        ParallelSpec s;
        s.world = 8;
        s.gtp = 2;
        const Groups g = build_groups(resolve_spec(s));
        CHECK(all(g, "gtp_remat")[0] == Ranks{0, 1});
        CHECK(all(g, "dp")[0] == Ranks{0, 2, 4, 6});
        CHECK(all(g, "gtp_remat_dp") == std::vector<Ranks>{{0, 1, 2, 3, 4, 5, 6, 7}});
        CHECK(all(g, "intra_dist_opt_instance") == std::vector<Ranks>{{0, 1, 2, 3, 4, 5, 6, 7}});
    }
    SUBCASE("a rank offset shifts every rank") {
        ParallelSpec s;
        s.world = 24;
        s.rank_offset = 8;
        s.local_world_size = 16;
        s.tp = 2;
        const Groups g = build_groups(resolve_spec(s));
        CHECK(all(g, "tp")[0] == Ranks{8, 9});
        CHECK(!g.find("tp")->find(3).has_value());
        CHECK(testing::check_group_invariants(g).empty());
    }
}

TEST_CASE("one rank's group in every kind is found without materializing the kinds") {
    const Groups g = make(std::int64_t{1} << 20, 8, 16, 2, 64, 1);
    const std::int64_t r = 987654;
    for (const auto& k : g.kinds) {
        const auto f = k.find(r);
        if (k.derivation == KindDerivation::Select && !f) {
            continue;
        }
        REQUIRE(f.has_value());
        CHECK(k.member(f->first, f->second) == r);
    }
}

TEST_CASE("groups text at 2^31 ranks computes each shown group's head, never a whole group") {
    // Each dp group here has 2^24 members: building them for the text took
    // minutes and 16 GB; the head and the last member are O(axes) each.
    const Groups g = make(std::int64_t{1} << 31, 8, 16, 1, 64);
    const std::string text = groups_text(g, {});
    CHECK(text.rfind("world 2147483648: tp=8 pp=16 cp=1 dp=16777216", 0) == 0);
    CHECK(text.find("\ndp                       128 x 16777216  [0 8 16 24 32 40 48 56 ... 134217720] [1 9 ") !=
          std::string::npos);
}
