// Tests: the whole pipeline on the shipped layouts — the seed's explanation, and invariants.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "planlayout/emit/report_emit.hpp"
#include "planlayout/plan.hpp"
#include "report_invariants.hpp"
#include "tolerances.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
namespace fs = std::filesystem;

namespace {

Report plan_file(const std::string& rel) {
    const fs::path path = fs::path(PLANLAYOUT_SOURCE_DIR) / rel;
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    PlanRequest r;
    r.layout_text = ss.str();
    r.layout_name = rel;
    r.base_dir = path.parent_path().string();
    return plan(r);
}

const KindEdges& kind(const Report& r, const std::string& name) {
    for (const auto& k : r.kinds) {
        if (k.kind == name) {
            return k;
        }
    }
    FAIL("no kind " << name);
    return r.kinds.front();
}

bool mentions(const std::vector<std::string>& reasons, const std::string& text) {
    for (const auto& s : reasons) {
        if (s.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

}  // namespace

TEST_CASE("seed layout A: EP and DP cross nodes and RDMA is predicted to cut the step as its baseline does (measured 32%)") {
    const Report a = plan_file("layouts/seed-2x8-ep16.json");
    CHECK(kind(a, "ep").cross_pairs() == 64);
    CHECK(kind(a, "dp").cross_pairs() == 8);
    REQUIRE(a.score.has_value());
    // At the layout's assumed network, held to its recorded error (tests/tolerances.json "seed").
    CHECK(std::abs(a.score->rdma_benefit - 0.3208) * 100 <= testing::baseline_bound("seed", "a_abs_error_points"));
    CHECK(mentions(a.score->reasons, "ep all_to_all"));
    CHECK(a.score->band_low <= a.score->rdma_benefit);
    CHECK(a.score->rdma_benefit <= a.score->band_high);
    const auto bad = testing::check_report_invariants(a);
    CHECK_MESSAGE(bad.empty(), (bad.empty() ? "" : bad.front()));
}

TEST_CASE("seed layout B: EP and DP stay on NVLink, PP crosses on RAIL, and RDMA gains nothing (measured -0.35%)") {
    const Report b = plan_file("layouts/seed-2x8-pp2-ep8.json");
    CHECK(kind(b, "ep").cross_pairs() == 0);
    CHECK(kind(b, "dp").cross_pairs() == 0);
    CHECK(kind(b, "pp").pairs[static_cast<std::size_t>(PathClass::Rail)] == 8);
    REQUIRE(b.score.has_value());
    CHECK(std::abs(b.score->rdma_benefit - (-0.0035)) <= testing::tolerance("seed.b_benefit"));
    CHECK(mentions(b.score->reasons, "pp sendrecv over RAIL"));
    const auto bad = testing::check_report_invariants(b);
    CHECK_MESSAGE(bad.empty(), (bad.empty() ? "" : bad.front()));
}

TEST_CASE("every shipped layout plans cleanly and satisfies the report invariants") {
    for (const auto& e : fs::directory_iterator(fs::path(PLANLAYOUT_SOURCE_DIR) / "layouts")) {
        if (e.path().extension() != ".json") {
            continue;
        }
        const std::string rel = "layouts/" + e.path().filename().string();
        CAPTURE(rel);
        const Report r = plan_file(rel);
        const auto bad = testing::check_report_invariants(r);
        CHECK_MESSAGE(bad.empty(), (bad.empty() ? "" : bad.front()));
        // Same input, same bytes.
        CHECK(report_json(r) == report_json(plan_file(rel)));
    }
}

TEST_CASE("the embedded default is the seed's layout A") {
    const Report d = plan(embedded_default_request());
    CHECK(d.groups.spec.ep == 16);
    CHECK(d.cluster.node_count() == 2);
    REQUIRE(d.score.has_value());
    CHECK(d.score->rdma_benefit == doctest::Approx(plan_file("layouts/seed-2x8-ep16.json").score->rdma_benefit));
}
