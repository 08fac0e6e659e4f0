// Tests: cluster-level lint (rails, heterogeneity, fabric).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/lint_cluster.hpp"
#include "planlayout/ingest/cluster_json.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {
std::vector<Finding> lint(const std::string& text) {
    return lint_cluster(cluster_from_json(nlohmann::json::parse(text), "c.json", "/cluster", "."));
}

const Finding* find(const std::vector<Finding>& v, const std::string& code) {
    for (const auto& f : v) {
        if (f.code == code) {
            return &f;
        }
    }
    return nullptr;
}
}  // namespace

TEST_CASE("a rail-aligned homogeneous H100 cluster lints clean") {
    CHECK(lint(R"({"nodes": 4, "node": "h100-hgx-8gpu-8nic"})").empty());
}

TEST_CASE("crossed rails are an error with PXN off and a warning with PXN on") {
    const std::string wiring = R"("wiring": {"node0": ["a","b","c","d","e","f","g","h"], "node1": ["b","a","c","d","e","f","g","h"]})";
    const auto off = lint(R"({"nodes": 2, "node": "h100-hgx-8gpu-8nic", "fabric": {"rails": "explicit", "pxn": false, )" + wiring + "}}");
    REQUIRE(find(off, "rails-not-aligned") != nullptr);
    CHECK(find(off, "rails-not-aligned")->severity == Severity::Error);
    CHECK(find(off, "rails-not-aligned")->message.find("a serves rails 0,1") != std::string::npos);
    const auto on = lint(R"({"nodes": 2, "node": "h100-hgx-8gpu-8nic", "fabric": {"rails": "explicit", "pxn": true, )" + wiring + "}}");
    CHECK(find(on, "rails-not-aligned")->severity == Severity::Warning);
    const std::string aligned = R"("wiring": {"node0": ["a","b","c","d","e","f","g","h"], "node1": ["a","b","c","d","e","f","g","h"]})";
    CHECK(find(lint(R"({"nodes": 2, "node": "h100-hgx-8gpu-8nic", "fabric": {"rails": "explicit", )" + aligned + "}}"),
               "rails-not-aligned") == nullptr);
}

TEST_CASE("mixed templates, a PCIe box's shared NICs and an oversubscribed spine are reported") {
    const auto f = lint(R"({"nodes": [{"count": 2, "node": "h100-hgx-8gpu-8nic"}, {"count": 2, "host_prefix": "p", "node": "pcie-8gpu-4nic"}],
                           "fabric": {"oversubscription": 2.0}})");
    CHECK(find(f, "nodes-heterogeneous") != nullptr);
    CHECK(find(f, "spine-oversubscribed") != nullptr);
    const Finding* shared = find(f, "nic-shared");
    REQUIRE(shared != nullptr);
    CHECK(shared->message.rfind("pcie-8gpu-4nic: ", 0) == 0);
}
