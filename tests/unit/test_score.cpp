// Tests: the RDMA-benefit score, first on the seed experiment (docs/cost-model.md §7).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/emit/score_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/model/score.hpp"
#include "planlayout/model/step_model.hpp"
#include "tolerances.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

const std::string kSeedFile = std::string(PLANLAYOUT_TEST_DATA_DIR) + "/seed-model.json";

ScoreInput seed_input() {
    const auto j = parse_json_text(read_text_file(kSeedFile), kSeedFile);
    ScoreInput in;
    in.model = model_spec_from_json(j.at("model"), kSeedFile);
    in.training = training_spec_from_json(j.at("training"), kSeedFile);
    in.transport = transport_spec_from_json(j.at("transport"), kSeedFile);
    return in;
}

/// 2 nodes × 8 GPUs, GPU i ↔ NIC i at PIX, rail aligned, NVLink inside a node, 400G rail NICs.
PlacedGroup seed_shape(int n, int nodes, int per_node, int concurrent) {
    PlacedGroup g;
    g.n = n;
    g.nodes = nodes;
    g.max_per_node = per_node;
    g.rails_per_node = per_node;
    g.concurrent_groups_per_node = concurrent;
    g.worst_intra = per_node > 1 ? PathClass::Nv : PathClass::Loc;
    g.worst_cross = nodes > 1 ? PathClass::Rail : PathClass::Loc;
    g.one_rank_per_node = per_node == 1 && nodes > 1;
    g.nic_gbit_s = 400;
    return g;
}

/// A: PP=1, EP=16, DP=16: ep and dp are the 16 ranks of both nodes (8 per node, 8 rails).
ScoreInput seed_a() {
    ScoreInput in = seed_input();
    in.sizes = {1, 1, 1, 16, 16, 1, 1, 1};
    in.placed["ep"] = seed_shape(16, 2, 8, 1);
    in.placed["dp"] = seed_shape(16, 2, 8, 1);
    return in;
}

/// B: PP=2, EP=8, DP=8: ep and dp inside a node on NVLink; the 8 pp pairs [i, i+8] cross on
/// their own rail, all at once, one rank per node each. No step of B is measured: its compute
/// takes the compute_scale fitted to A's measured TCP step.
ScoreInput seed_b() {
    ScoreInput in = seed_input();
    in.training->measured_step_time_s.reset();
    in.training->compute_scale = compute_score(seed_a()).compute_scale;
    in.sizes = {1, 2, 1, 8, 8, 1, 1, 1};
    in.placed["ep"] = seed_shape(8, 1, 8, 1);
    in.placed["dp"] = seed_shape(8, 1, 8, 1);
    in.placed["pp"] = seed_shape(2, 2, 1, 8);
    return in;
}

bool mentions(const Score& s, const std::string& text) {
    for (const auto& r : s.reasons) {
        if (r.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

}  // namespace

// The seed's measurements (the founding A/B, medians of three rounds): A's TCP step 4.490 s is an
// input (the compute anchor); its RDMA step and both benefits are not, and are what is checked.
constexpr double kSeedATcpStep = 4.490;
constexpr double kSeedAMeasuredBenefit = 0.3208;   // -32.08 % step time, TCP -> GPUDirect RDMA
constexpr double kSeedBMeasuredBenefit = -0.0035;  // -0.35 %: no gain

TEST_CASE("seed A (EP=16 across two nodes) at the layout's assumed network: the benefit held to its baseline") {
    const Score s = compute_score(seed_a());
    MESSAGE(render_text(s));
    // Anchored: the TCP step is the measurement (an input, so it is not a check of the model: this
    // only checks that anchoring took it); the gdrdma step is a prediction.
    CHECK(s.anchored);
    CHECK(s.step_time_s[0] == doctest::Approx(kSeedATcpStep).epsilon(1e-6));
    // The benefit, from inputs that exclude the measured RDMA step it is set against. Under assumptions
    // the seed does not state (200 GbE, TCP efficiency 0.4) this point is a regression bound, held to its
    // recorded error (tests/tolerances.json "seed"); the validation is the band over the plausible
    // network (test_validation_held.cpp).
    CHECK(std::abs(s.rdma_benefit - kSeedAMeasuredBenefit) * 100 <= planlayout::testing::baseline_bound("seed", "a_abs_error_points"));
    CHECK(s.step_time_s[1] < s.step_time_s[0]);
    CHECK(s.throughput_gain == doctest::Approx(1.0 / (1.0 - s.rdma_benefit) - 1.0));
    REQUIRE(!s.by_kind.empty());
    CHECK(s.by_kind.front().kind == "ep");
    CHECK(s.by_kind.front().collective == "all_to_all");
    CHECK(mentions(s, "ep all_to_all over RAIL"));
    // The product form equals the step-time form when nothing is given.
    CHECK(s.cross_node_share * s.eliminable * s.non_overlapped == doctest::Approx(s.rdma_benefit));
}

TEST_CASE("seed B (PP=2, EP and DP inside a node) predicts no measurable benefit") {
    const Score s = compute_score(seed_b());
    MESSAGE(render_text(s));
    CHECK_FALSE(s.anchored);
    CHECK(s.compute_scale == doctest::Approx(compute_score(seed_a()).compute_scale));
    // B has no measured step of its own: its compute is A's anchor carried over; its benefit is
    // checked against B's measured -0.35 %.
    CHECK(std::abs(s.rdma_benefit - kSeedBMeasuredBenefit) <= planlayout::testing::tolerance("seed.b_benefit"));
    CHECK(mentions(s, "pp sendrecv over RAIL"));
    for (const auto& k : s.by_kind) {
        if (k.kind == "ep" || k.kind == "dp") {
            CHECK_FALSE(k.cross_node);
            CHECK(k.time_s[0] == doctest::Approx(k.time_s[1]));  // NVLink terms do not move
        }
    }
}

TEST_CASE("the step model's one entry (predict_step) gives the score's prediction, arm by arm") {
    const StepPrediction p = predict_step(seed_a());
    const Score s = compute_score(seed_a());
    for (std::size_t arm = 0; arm < std::size(p.step_time_s); ++arm) {
        CHECK(p.step_time_s[arm] == s.step_time_s[arm]);
        CHECK(p.mfu[arm] == s.mfu[arm]);
    }
    CHECK(p.rdma_benefit == s.rdma_benefit);
    CHECK(p.compute.comp_s == s.compute.comp_s);
    CHECK(p.by_kind.size() == s.by_kind.size());
    CHECK_THROWS_WITH_AS((void)predict_step(StepInputs{}), doctest::Contains("needs all three factors"), Error);
}

TEST_CASE("the band contains the point estimate") {
    for (const auto& in : {seed_a(), seed_b()}) {
        const Score s = compute_score(in);
        CHECK(s.band_low <= s.rdma_benefit);
        CHECK(s.rdma_benefit <= s.band_high);
    }
    const Score a = compute_score(seed_a());
    CHECK(a.band_low < a.band_high);
}

namespace {

/// A dense model whose only traffic is a cross-node DP all-reduce, hidden under the backward.
ScoreInput hidden_dp(double compute_s) {
    ScoreInput in;
    ModelSpec m;
    m.layers = 2;
    m.hidden = 1024;
    m.heads = 8;
    m.dense_params = 1e8;
    TrainingSpec t;
    t.global_batch = 16;
    t.seq_len = 128;
    t.compute_time_s = compute_s;
    in.model = m;
    in.training = t;
    in.sizes.dp = 16;
    in.placed["dp"] = seed_shape(16, 2, 8, 1);
    return in;
}

}  // namespace

TEST_CASE("a bucketed all-reduce under a long backward shows only its last bucket, under both transports") {
    const Score s = compute_score(hidden_dp(100.0));
    REQUIRE(s.by_kind.size() == 1);
    const KindBreakdown& dp = s.by_kind.front();
    REQUIRE(dp.windows.size() == 1);
    const WindowDetail& w = dp.windows.front();
    // 1e8 parameters in Megatron's default buckets of max(4e7, 1e6 x 16) = 4e7: 4e7, 4e7, 2e7.
    CHECK(w.calls == 3.0);
    CHECK(dp.calls == 3.0);
    CHECK(w.bucket_source == "Megatron default max(4e7, 1e6 x dp)");
    CHECK(dp.time_s[0] > dp.time_s[1]);  // TCP is slower ...
    for (int k = 0; k < 2; ++k) {
        // ... but only the last (remainder) bucket shows: under half of one of the full buckets.
        CHECK(dp.exposed_s[k] > 0.0);
        CHECK(dp.exposed_s[k] < 0.5 * (dp.time_s[k] - dp.exposed_s[k]));
    }
    CHECK(s.rdma_benefit > 0.0);
    CHECK(s.rdma_benefit < 0.001);
    CHECK(s.band_low <= s.rdma_benefit);
    // Without overlap the one bucket after the backward shows in full.
    ScoreInput off = hidden_dp(100.0);
    off.training->overlap_dp = false;
    const Score o = compute_score(off);
    CHECK(o.by_kind.front().windows.front().calls == 1.0);
    CHECK(o.by_kind.front().exposed_s[0] == doctest::Approx(o.by_kind.front().time_s[0]));
    // With little compute to hide under, the same all-reduce shows.
    CHECK(compute_score(hidden_dp(0.01)).rdma_benefit > 0.01);
}

TEST_CASE("factors given in the layout replace the computed ones - alone they multiply") {
    ScoreInput only;
    only.given = score_factors_from_json(
        nlohmann::json::parse(R"({"cross_node_share": 0.5, "eliminable": 0.8, "non_overlapped": 0.75})"), "l.json");
    const Score s = compute_score(only);
    CHECK(s.rdma_benefit == doctest::Approx(0.3));
    CHECK(s.throughput_gain == doctest::Approx(1.0 / 0.7 - 1.0));
    CHECK(s.given_share);
    CHECK_FALSE(s.has_model);
    const auto j = to_json(s);
    CHECK(j["given"].size() == 3);
    CHECK(j["step_time_s"].is_null());

    ScoreInput partial = seed_a();
    partial.given.non_overlapped = 0.5;
    const Score p = compute_score(partial);
    const Score full = compute_score(seed_a());
    CHECK(p.rdma_benefit == doctest::Approx(full.cross_node_share * full.eliminable * 0.5));
    CHECK(p.given_non_overlapped);
    CHECK_FALSE(p.given_share);

    ScoreInput missing;
    missing.given.eliminable = 0.9;
    CHECK_THROWS_WITH_AS((void)compute_score(missing), doctest::Contains("needs all three factors"), Error);
    CHECK_THROWS_WITH_AS(score_factors_from_json(nlohmann::json::parse(R"({"eliminable": 1.5})"), "l.json"),
                         "l.json (/score/eliminable): eliminable = 1.5 is larger than 1; give a value of at most 1",
                         Error);
}

TEST_CASE("the JSON report has the documented shape") {
    const auto j = to_json(compute_score(seed_a()));
    for (const char* key : {"rdma_benefit", "throughput_gain", "step_time_s", "factors", "band", "by_kind"}) {
        CHECK(j.contains(key));
    }
    CHECK(j["step_time_s"].contains("tcp"));
    CHECK(j["step_time_s"].contains("gdrdma"));
    CHECK(j["factors"].contains("cross_node_share"));
    CHECK(j["by_kind"]["ep"]["class"] == "RAIL");
    CHECK(j["by_kind"]["ep"]["collective"] == "all_to_all");
    for (const char* key : {"bytes_per_step", "time_s", "share", "phi", "u"}) {
        CHECK(j["by_kind"]["ep"].contains(key));
    }
}

TEST_CASE("a measured step time on the baseline fixes the compute time") {
    ScoreInput in = seed_a();
    in.training->measured_step_time_s = 4.490;
    in.training->measured_transport = "tcp";
    const Score s = compute_score(in);
    CHECK(s.step_time_s[0] == doctest::Approx(4.490).epsilon(1e-6));
    CHECK(std::abs(s.rdma_benefit - kSeedAMeasuredBenefit) * 100 <= planlayout::testing::baseline_bound("seed", "a_abs_error_points"));
}

TEST_CASE("with sockets inside the node (tcp.inside_node) the node-local kinds become transport-sensitive") {
    const Score plain = compute_score(seed_b());
    ScoreInput in = seed_b();
    in.transport.tcp.inside_node = true;
    const Score forced = compute_score(in);
    CHECK(forced.rdma_benefit > plain.rdma_benefit + 0.1);
    CHECK(forced.step_time_s[0] > plain.step_time_s[0]);
    CHECK(forced.step_time_s[1] == doctest::Approx(plain.step_time_s[1]));  // the candidate is unchanged
    CHECK(mentions(forced, "ep all_to_all over sockets inside the node (NV in the gdrdma arm)"));
    CHECK_FALSE(mentions(forced, "inside a node, unchanged by the transport"));
    const auto ep = std::find_if(forced.by_kind.begin(), forced.by_kind.end(),
                                 [](const KindBreakdown& k) { return k.kind == "ep"; });
    REQUIRE(ep != forced.by_kind.end());
    CHECK(ep->socket_inside);
    CHECK_FALSE(ep->cross_node);
    CHECK(ep->phi > 0.5);
    const auto j = to_json(forced);
    CHECK(j.at("by_kind").at("ep").at("socket_inside_node") == true);
    CHECK(j.at("by_kind").at("ep").at("cross_node") == false);
    CHECK(to_json(plain).at("by_kind").at("ep").at("socket_inside_node") == false);
    // GPUDirect against RDMA: no TCP arm, so the flag changes nothing.
    in.transport.baseline = Transport::Rdma;
    ScoreInput rdma = seed_b();
    rdma.transport.baseline = Transport::Rdma;
    CHECK(compute_score(in).rdma_benefit == doctest::Approx(compute_score(rdma).rdma_benefit));
}

TEST_CASE("calibrated fits per collective: the DP all-reduce keeps its own fit whatever file comes last") {
    Calibration a2a;
    a2a.transport = Transport::Tcp;
    a2a.link_class = PathClass::Rail;
    a2a.op = CollectiveOp::AllToAll;
    a2a.floor_us = 100;
    a2a.alpha_us = 60;
    a2a.curve = {{1 << 20, 0.2}, {1 << 30, 0.3}};
    Calibration ar = a2a;
    ar.op = CollectiveOp::AllReduce;
    ar.floor_us = 0;
    ar.alpha_us = 15;
    ar.curve = {{1 << 20, 0.5}};
    const auto score_with = [](const std::vector<std::pair<Calibration, std::string>>& files) {
        ScoreInput in = seed_a();
        for (const auto& [c, name] : files) {
            apply_calibration(c, in.transport, name);
        }
        return compute_score(in);
    };
    const auto kind = [](const Score& s, const std::string& k) {
        return *std::find_if(s.by_kind.begin(), s.by_kind.end(), [&](const KindBreakdown& b) { return b.kind == k; });
    };
    const Score only_a2a = score_with({{a2a, "a2a.json"}});
    const Score only_ar = score_with({{ar, "ar.json"}});
    const Score both = score_with({{a2a, "a2a.json"}, {ar, "ar.json"}});
    const Score reversed = score_with({{ar, "ar.json"}, {a2a, "a2a.json"}});
    for (const Score* s : {&both, &reversed}) {
        CHECK(s->calibrated);
        CHECK(kind(*s, "ep").time_s[0] == doctest::Approx(kind(only_a2a, "ep").time_s[0]));
        CHECK(kind(*s, "dp").time_s[0] == doctest::Approx(kind(only_ar, "dp").time_s[0]));
        CHECK(kind(*s, "ep").fits == std::vector<std::string>{"tcp all_to_all RAIL (a2a.json)"});
        CHECK(kind(*s, "dp").fits == std::vector<std::string>{"tcp all_reduce RAIL (ar.json)"});
    }
    // Without an all_reduce fit the DP all-reduce keeps the priors, not the all-to-all fit.
    CHECK(kind(only_a2a, "dp").time_s[0] == doctest::Approx(kind(compute_score(seed_a()), "dp").time_s[0]));
    CHECK(kind(only_a2a, "dp").fits.empty());
    CHECK(render_text(both).find("Calibrated fits used") != std::string::npos);
}

TEST_CASE("factors only: one score path - the model path's formula, the same answer in text and JSON") {
    // Issue 32, item 5: factors alone took their own path, where 1 x 1 x 1 made the gain infinite
    // (text: exit 4; JSON: null, which the schema refuses).
    const auto given = [](double share, double eliminable, double non_overlapped) {
        ScoreFactors f;
        f.cross_node_share = share;
        f.eliminable = eliminable;
        f.non_overlapped = non_overlapped;
        return f;
    };
    ScoreInput only;
    only.given = given(0.36, 0.95, 1.0);
    const Score s = compute_score(only);
    // By hand: 0.36 × 0.95 × 1 = 0.342 of the step; throughput 1 / (1 − 0.342) − 1 = 0.51976.
    CHECK(s.rdma_benefit == doctest::Approx(0.342));
    CHECK(s.throughput_gain == doctest::Approx(0.342 / 0.658));
    CHECK(s.band_low == s.rdma_benefit);
    CHECK(s.band_high == s.rdma_benefit);
    const std::string text = render_text(s);
    CHECK(text.find("predicted step-time reduction 34.2%") != std::string::npos);
    CHECK(text.find("throughput +52.0%") != std::string::npos);
    const auto j = to_json(s);
    CHECK(j["rdma_benefit"].get<double>() == doctest::Approx(0.342));
    CHECK(j["throughput_gain"].get<double>() == doctest::Approx(0.342 / 0.658));
    CHECK(j["step_time_s"].is_null());
    CHECK(j["compute_s"].is_null());  // the keys the schema requires, present without a model
    CHECK(j["bubble_s"].is_null());

    // The model path with the same three factors given gives the same benefit and gain.
    ScoreInput with_model = seed_a();
    with_model.given = only.given;
    const Score m = compute_score(with_model);
    CHECK(m.rdma_benefit == doctest::Approx(s.rdma_benefit));
    CHECK(m.throughput_gain == doctest::Approx(s.throughput_gain));

    // One arm (both transports the same) compares nothing: no benefit, factors given or not.
    ScoreInput one_arm = only;
    one_arm.transport.candidate = one_arm.transport.baseline;
    const Score o = compute_score(one_arm);
    CHECK(o.rdma_benefit == 0.0);
    CHECK(o.throughput_gain == 0.0);
    CHECK(render_text(o).find("RDMA benefit: none predicted") != std::string::npos);

    // 1 × 1 × 1: a step that takes no time has no finite gain. Refused as bad input (exit 2) with
    // one line, from the layout's score section and from the score itself (either path).
    const std::string refusal = "cross_node_share x eliminable x non_overlapped = 1 x 1 x 1 = 1 predicts a step that takes no "
                                "time (an unbounded throughput gain); give factors whose product is below 1";
    CHECK_THROWS_WITH_AS((void)score_factors_from_json(
                             nlohmann::json::parse(R"({"cross_node_share": 1, "eliminable": 1, "non_overlapped": 1})"), "l.json"),
                         doctest::Contains(("l.json (/score): " + refusal).c_str()), Error);
    ScoreInput ones;
    ones.given = given(1, 1, 1);
    CHECK_THROWS_WITH_AS((void)compute_score(ones), doctest::Contains(("score: " + refusal).c_str()), Error);
    ScoreInput ones_with_model = seed_a();
    ones_with_model.given = ones.given;
    CHECK_THROWS_WITH_AS((void)compute_score(ones_with_model), doctest::Contains(refusal.c_str()), Error);
    try {
        (void)compute_score(ones);
    } catch (const Error& e) {
        CHECK(e.code() == ExitCode::BadInput);
    }
    // Just below 1 is accepted, with a large finite gain.
    ones.given.non_overlapped = 0.999;
    CHECK(compute_score(ones).throughput_gain == doctest::Approx(999.0));
}

TEST_CASE("the three factors from the per-kind times: E0/T, R/E0 and (E0 - E1)/R with R = min(t0 - t1, E0)") {
    // docs/cost-model.md §6, worked from the by-kind table the report prints: each factor on its
    // own (their product alone cannot tell eliminable from non_overlapped).
    for (const bool hidden : {false, true}) {
        CAPTURE(hidden);
        ScoreInput in = seed_a();
        in.training->overlap_dp = hidden;
        const Score s = compute_score(in);
        double t0 = 0, t1 = 0, e0 = 0, e1 = 0;
        for (const auto& k : s.by_kind) {
            if (k.cross_node) {
                t0 += k.time_s[0];
                t1 += k.time_s[1];
                e0 += k.exposed_s[0];
                e1 += k.exposed_s[1];
            }
        }
        REQUIRE(e0 > 0);
        const double reach = std::min(t0 - t1, e0);
        CHECK(s.cross_node_share == doctest::Approx(e0 / s.step_time_s[0]));
        CHECK(s.eliminable == doctest::Approx(reach / e0));
        CHECK(s.non_overlapped == doctest::Approx((e0 - e1) / reach));
        CHECK(s.cross_node_share * s.eliminable * s.non_overlapped == doctest::Approx(s.rdma_benefit));
        if (!hidden) {  // nothing hidden: the seed's form, eliminable 1 − t1/t0 and non_overlapped 1
            CHECK(s.eliminable == doctest::Approx(1.0 - t1 / t0));
            CHECK(s.non_overlapped == doctest::Approx(1.0));
        }
    }
}
