// Tests: A/B statistics — the seed's figures, the reconstruction formula, outliers, errors.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "planlayout/emit/ab_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/verify/ab.hpp"

using namespace planlayout::verify;  // NOLINT(google-build-using-namespace)
using planlayout::StepSeries;
using planlayout::StepValueKind;

namespace {

StepSeries series(const std::string& arm, const std::string& round, std::vector<double> values,
                  StepValueKind kind = StepValueKind::Instant) {
    StepSeries s;
    s.source = arm + round;
    s.arm = arm;
    s.round = round;
    s.kind = kind;
    for (std::size_t i = 0; i < values.size(); ++i) {
        s.points.push_back({static_cast<int>(i) + 1, values[i], 0});
    }
    return s;
}

std::vector<StepSeries> seed_runs() {
    std::vector<StepSeries> runs;
    for (const char* name : {"tcp-round1.csv", "tcp-round2.csv", "tcp-round3.csv", "rdma-round1.csv",
                             "rdma-round2.csv", "rdma-round3.json"}) {
        const std::string path = std::string(PLANLAYOUT_TEST_DATA_DIR) + "/ab/" + name;
        runs.push_back(planlayout::parse_step_log(planlayout::read_text_file(path), name));
    }
    return runs;
}

}  // namespace

TEST_CASE("cumulative means are turned back into step times: instant_n = n*cum_n - (n-1)*cum_(n-1)") {
    // Step times 10, 4, 4, 6 → cumulative means 10, 7, 6, 6.
    const auto s = series("tcp", "1", {10, 7, 6, 6}, StepValueKind::CumulativeMean);
    const auto t = window_step_times(s, {2, 4});
    REQUIRE(t.size() == 3);
    CHECK(t[0] == doctest::Approx(4));
    CHECK(t[1] == doctest::Approx(4));
    CHECK(t[2] == doctest::Approx(6));
    CHECK(window_step_times(s, {1, 1})[0] == doctest::Approx(10));
    CHECK_THROWS_WITH_AS((void)window_step_times(s, {2, 5}),
                         "tcp1: the run ends at step 4 but the window is 2:5; pass --window 2:4 or a longer run",
                         planlayout::Error);
}

TEST_CASE("the seed's A/B: medians 4.490 s and 3.050 s at global batch 16") {
    AbOptions o;
    o.global_batch = 16;
    const auto r = analyze_ab(seed_runs(), o);
    REQUIRE(r.arms.size() == 2);
    CHECK(r.arms[0].arm == "tcp");
    CHECK(r.arms[0].rounds == 3);
    CHECK(r.arms[0].median_s == doctest::Approx(4.490).epsilon(1e-4));
    CHECK(r.arms[1].median_s == doctest::Approx(3.050).epsilon(1e-4));
    CHECK(*r.arms[0].samples_per_s == doctest::Approx(3.563).epsilon(1e-4));
    CHECK(*r.arms[1].samples_per_s == doctest::Approx(5.246).epsilon(1e-4));
    REQUIRE(r.comparisons.size() == 1);
    const auto& c = r.comparisons[0];
    CHECK(c.baseline == "tcp");
    CHECK(c.arm == "rdma");
    CHECK(c.step_time_change * 100 == doctest::Approx(-32.08).epsilon(1e-4));
    CHECK(c.throughput_gain * 100 == doctest::Approx(47.23).epsilon(1e-4));
    CHECK(r.findings.empty());
    const std::string text = render_text(r);
    CHECK(text.find("rdma vs tcp: step time -32.08%, throughput +47.23% (3.563 -> 5.246 samples/s)") !=
          std::string::npos);
    CHECK(r.runs[2].round == "3");
    CHECK(r.runs[5].source == "rdma-round3.json");
}

TEST_CASE("medians, min, max and outliers per arm - the baseline can be chosen") {
    std::vector<StepSeries> runs = {series("rdma", "1", {9, 3, 3}), series("rdma", "2", {9, 3.3, 3.3}),
                                    series("rdma", "10", {9, 2.0, 2.0}), series("gdrdma", "1", {9, 2.5, 2.5})};
    AbOptions o;
    o.window = {2, 3};
    o.threshold = 0.2;
    const auto r = analyze_ab(runs, o);
    CHECK(r.arms[0].arm == "rdma");  // no tcp arm: the first is the baseline
    CHECK(r.arms[0].median_s == doctest::Approx(3.0));
    CHECK(r.arms[0].min_s == doctest::Approx(2.0));
    CHECK(r.arms[0].max_s == doctest::Approx(3.3));
    CHECK(r.runs[2].round == "10");  // rounds sort as numbers
    CHECK(r.runs[2].outlier);
    CHECK_FALSE(r.runs[1].outlier);
    CHECK(r.comparisons[0].step_time_change == doctest::Approx(2.5 / 3.0 - 1));
    o.baseline = "gdrdma";
    const auto b = analyze_ab(runs, o);
    CHECK(b.comparisons[0].baseline == "gdrdma");
    o.baseline = "ib";
    CHECK_THROWS_AS((void)analyze_ab(runs, o), planlayout::Error);
}

TEST_CASE("a prediction is printed beside the measured benefit") {
    AbOptions o;
    o.global_batch = 16;
    auto r = analyze_ab(seed_runs(), o);
    CHECK(prediction_text(r.comparisons[0]).empty());
    CHECK(attach_prediction(r, "rdma", {-0.30, -0.35, -0.25, "layout A"}));
    CHECK_FALSE(attach_prediction(r, "tcp", {}));
    CHECK(r.comparisons[0].within_band() == true);
    CHECK(prediction_text(r.comparisons[0]) ==
          "predicted step time -30.00% (band -35.00% .. -25.00%) from layout A; measured is inside the band");
    CHECK(render_text(r).find("  predicted step time -30.00%") != std::string::npos);
    CHECK(to_json(r)["comparisons"][0]["prediction"]["within_band"] == true);
    CHECK(attach_prediction(r, "rdma", {-0.20, -0.25, -0.15, ""}));
    CHECK(prediction_text(r.comparisons[0]) ==
          "predicted step time -20.00% (band -25.00% .. -15.00%); measured is OUTSIDE the band");
    CHECK(attach_prediction(r, "rdma", {-0.20, std::nullopt, std::nullopt, "x"}));
    CHECK_FALSE(r.comparisons[0].within_band().has_value());
}

TEST_CASE("runs without tags, repeated rounds and bad windows are refused") {
    AbOptions o;
    o.window = {1, 2};
    CHECK_THROWS_AS((void)analyze_ab({series("", "1", {1, 2})}, o), planlayout::Error);
    CHECK_THROWS_AS((void)analyze_ab({series("a", "1", {1, 2}), series("a", "1", {1, 2})}, o), planlayout::Error);
    CHECK_THROWS_AS((void)analyze_ab({}, o), planlayout::Error);
    CHECK(parse_window("6:20", "--window").first == 6);
    CHECK_THROWS_WITH_AS((void)parse_window("20:6", "--window"),
                         "--window: window needs 1 <= FIRST <= LAST; e.g. --window 6:20 (steps are counted from 1)",
                         planlayout::Error);
    CHECK_THROWS_AS((void)parse_window("6-20", "--window"), planlayout::Error);
    const auto one = analyze_ab({series("tcp", "1", {5, 4})}, o);
    CHECK(one.comparisons.empty());
    CHECK(one.findings.size() == 2);  // few-rounds, one-arm
}
