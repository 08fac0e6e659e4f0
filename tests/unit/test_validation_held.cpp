// Tests: validation held out (issue 42 item 4; docs/testing.md, "Validation held out"): the seed's
// measured step-time reduction against the band its assumed network predicts, and the tolerance
// file every check of a prediction against end-to-end data reads.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/cli/run.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "test_files.hpp"
#include "tolerances.hpp"

namespace {

using nlohmann::json;

const std::string kSrc = PLANLAYOUT_SOURCE_DIR;

// The seed's measurements (docs/cost-model.md section 7): A's TCP step is the input (the anchor);
// the benefits are what is checked.
constexpr double kSeedATcpStep = 4.490;
constexpr double kSeedAMeasuredBenefit = 0.3208;   // -32.08 % step time, TCP -> GPUDirect RDMA
constexpr double kSeedBMeasuredBenefit = -0.0035;  // -0.35 %: no gain

json layout(const std::string& name) {
    const std::string path = kSrc + "/layouts/" + name;
    return planlayout::parse_json_text(planlayout::read_text_file(path), path);
}

/// The score of `analyze -` on a layout given as JSON.
json analyze(const json& doc) {
    std::istringstream in(doc.dump());
    std::ostringstream out;
    std::ostringstream err;
    const int code = planlayout::run_cli({"plan-layout", "analyze", "-", "--format", "json"}, out, err, in);
    REQUIRE_MESSAGE(code == 0, err.str());
    return json::parse(out.str()).at("score");
}

void set_tcp(json& doc, double efficiency, double gbit_s) {
    json& tcp = doc["transport"]["tcp"];
    tcp["efficiency"] = efficiency;
    tcp["alltoall_efficiency"] = efficiency;
    tcp["interface_gbit_s"] = gbit_s;
}

std::string pct(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f %%", fraction * 100);
    return buf;
}

struct Point {
    double gbit_s = 0;
    double efficiency = 0;
    bool counted = false;
    double a_change = 0;  // A's predicted step-time change, gdrdma against tcp (negative: faster)
    double tcp_step = 0;
    double scale = 0;
    double b_change = 0;
};

/// One row of the band's table in docs/cost-model.md.
std::string row(const Point& p) {
    char buf[200];
    if (!p.counted) {
        std::snprintf(buf, sizeof buf, "| %.0f GbE | %.1f | ruled out: the TCP step cannot come down to %.3f s (%.2f s) | | |",
                      p.gbit_s, p.efficiency, kSeedATcpStep, p.tcp_step);
    } else {
        std::snprintf(buf, sizeof buf, "| %.0f GbE | %.1f | %s | %.4f | %s |", p.gbit_s, p.efficiency, pct(p.a_change).c_str(),
                      p.scale, pct(p.b_change).c_str());
    }
    return buf;
}

}  // namespace

TEST_CASE("the seed's measured -32.08 % lies inside the band its assumed TCP network predicts, and B's error across it is held") {
    // The seed states neither the TCP interface nor NCCL's socket efficiency on it (layouts/seed-2x8-ep16.json
    // assumes one 200 GbE interface and the prior 0.4). Layout A is run over the range tests/tolerances.json
    // names (seed.a_band: the prior's 0.2 .. 0.6, 100 and 200 GbE), each point anchored on A's measured TCP
    // step; B takes A's compute_scale of the same point, as it does from A's calibration. A point where the
    // model's TCP step cannot come down to the measured 4.490 s (the communication alone is longer) is ruled
    // out by that input; the others make the band, which must hold the measured 32.08 %. B's largest error
    // over the band is held to its baseline (seed b_band_max_abs_error_points); at the layout's stated
    // network B is held to seed.b_benefit (test_plan_inputs.cpp).
    const json range = planlayout::testing::tolerance_value("seed.a_band");
    const double anchor = planlayout::testing::tolerance("seed.anchor_reached");
    double b_worst = 0;
    std::vector<Point> points;
    for (const double gbit_s : range.at("tcp_interface_gbit_s").get<std::vector<double>>()) {
        for (const double eff : range.at("tcp_efficiency").get<std::vector<double>>()) {
            Point p{gbit_s, eff};
            json a = layout("seed-2x8-ep16.json");
            set_tcp(a, eff, gbit_s);
            const json sa = analyze(a);
            p.tcp_step = sa.at("step_time_s").at("tcp").get<double>();
            p.scale = sa.at("compute").at("compute_scale").get<double>();
            p.a_change = -sa.at("rdma_benefit").get<double>();
            p.counted = std::abs(p.tcp_step / kSeedATcpStep - 1.0) <= anchor;
            if (p.counted) {
                json b = layout("seed-2x8-pp2-ep8.json");
                set_tcp(b, eff, gbit_s);
                b["transport"].erase("calibration");
                b["training"]["compute_scale"] = p.scale;
                p.b_change = -analyze(b).at("rdma_benefit").get<double>();
                b_worst = std::max(b_worst, std::abs(-p.b_change - kSeedBMeasuredBenefit));
            }
            points.push_back(p);
        }
    }
    std::vector<double> band;
    for (const Point& p : points) {
        if (p.counted) {
            band.push_back(-p.a_change);
        }
    }
    REQUIRE(band.size() >= 2);
    const auto [low, high] = std::minmax_element(band.begin(), band.end());
    char line[300];
    std::snprintf(line, sizeof line,
                  "seed A, TCP efficiency %.1f .. %.1f at %.0f and %.0f GbE: predicted %s .. %s (%zu of %zu points; the "
                  "others ruled out by the measured TCP step), measured -32.08 %%: %s",
                  range.at("tcp_efficiency").front().get<double>(), range.at("tcp_efficiency").back().get<double>(),
                  range.at("tcp_interface_gbit_s").front().get<double>(), range.at("tcp_interface_gbit_s").back().get<double>(),
                  pct(-*high).c_str(), pct(-*low).c_str(), band.size(), points.size(),
                  *low <= kSeedAMeasuredBenefit && kSeedAMeasuredBenefit <= *high ? "inside" : "outside");
    MESSAGE(line);
    MESSAGE("seed B across the band: largest |predicted - measured| " << b_worst * 100 << " points");
    CHECK(b_worst * 100 <= planlayout::testing::baseline_bound("seed", "b_band_max_abs_error_points"));
    CHECK(*low <= kSeedAMeasuredBenefit);
    CHECK(kSeedAMeasuredBenefit <= *high);
    CHECK(*low > 0.0);  // RDMA is predicted to help A under every network of the range
    // The layout's own assumption (200 GbE, 0.4) is one of the points counted.
    CHECK(std::any_of(points.begin(), points.end(), [](const Point& p) { return p.counted && p.gbit_s == 200 && p.efficiency == 0.4; }));
    // docs/cost-model.md section 7 shows the band as computed here, row by row.
    const std::string doc = planlayout::testing::slurp(kSrc + "/docs/cost-model.md");
    CHECK_MESSAGE(doc.find(line) != std::string::npos, "docs/cost-model.md does not show: " << line);
    for (const Point& p : points) {
        CHECK_MESSAGE(doc.find(row(p)) != std::string::npos, "docs/cost-model.md does not show: " << row(p));
    }
}

TEST_CASE("the tolerance file: every tolerance and baseline names its check, data, commit and reason") {
    const json& file = planlayout::testing::tolerance_file();
    const std::regex commit("[0-9a-f]{40}");
    REQUIRE(file.at("tolerances").size() >= 10);
    for (const auto& item : file.at("tolerances").items()) {
        const std::string name = item.key();
        const json& t = item.value();
        CAPTURE(name);
        for (const char* key : {"check", "tolerance", "unit", "set_at", "data", "reason"}) {
            CHECK(t.contains(key));
        }
        CHECK(std::regex_match(t.at("set_at").get<std::string>(), commit));
        CHECK(!t.at("reason").get<std::string>().empty());
    }
    for (const auto& item : file.at("baselines").items()) {
        const std::string name = item.key();
        const json& b = item.value();
        CAPTURE(name);
        for (const char* key : {"check", "data", "measured_at", "set_at", "reason", "metrics"}) {
            CHECK(b.contains(key));
        }
        CHECK(std::regex_match(b.at("measured_at").get<std::string>(), std::regex("[0-9a-f]{40}")));
        CHECK(std::regex_match(b.at("set_at").get<std::string>(), commit));
        for (const auto& entry : b.at("metrics").items()) {
            const std::string metric = entry.key();
            const json& m = entry.value();
            CAPTURE(metric);
            CHECK((m.at("worse") == "higher" || m.at("worse") == "lower"));
            // 1 point for a percentage, none for a count (docs/testing.md).
            CHECK((m.at("slack").get<double>() == 0.0 || m.at("slack").get<double>() == 1.0));
            REQUIRE(m.contains("all"));
            CHECK(m.at("all").is_number());  // recorded, not left open
            for (const char* half : {"dev", "held-out"}) {
                if (m.contains(half)) {
                    CHECK(m.at(half).is_number());
                }
            }
        }
    }
}
