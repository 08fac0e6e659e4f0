// Tests: the one pipeline (analysis/pipeline.hpp) — plan() and search run it; per-node facts.
#include <doctest/doctest.h>

#include <set>

#include "planlayout/analysis/pipeline.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/plan.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

// Node a: an 8-GPU HGX box; node b: a 2-GPU box with one NIC. A mixed cluster whose first node
// is not typical of the second.
const char* const kMixedCluster = R"({"nodes": [
    {"host": "a", "node": "h100-hgx-8gpu-8nic"},
    {"host": "b", "node": {
        "name": "two-gpu", "cpus": [{"name": "CPU0", "numa": 0}],
        "gpus": [{"name": "GPU0", "parent": "CPU0", "numa": 0}, {"name": "GPU1", "parent": "CPU0", "numa": 0}],
        "nics": [{"name": "NIC0", "device": "mlx5_0", "parent": "CPU0", "numa": 0, "speed_gbit_s": 200}]}}]})";

}  // namespace

TEST_CASE("group footprints carry the GPU count of their own nodes, not the first node's") {
    const Cluster cluster = cluster_from_json(nlohmann::json::parse(kMixedCluster), "c.json", "/cluster", ".");
    ParallelSpec spec;
    spec.world = 10;
    spec.tp = 2;
    const ResolvedSpec resolved = resolve_spec(spec, {"c.json", "/parallel"});
    const Placement placement = node_major_placement(cluster, 10);
    PipelineOptions options;
    options.kinds = {"tp"};
    const Evaluation ev = evaluate(cluster, placement, resolved, options, std::nullopt);
    REQUIRE(ev.kinds.size() == 1);
    std::set<int> gpus;
    for (const auto& s : ev.kinds.front().footprints) {
        gpus.insert(s.gpus_per_node);
    }
    CHECK(gpus == std::set<int>{2, 8});
    CHECK_FALSE(ev.score.has_value());
}

TEST_CASE("plan() is the pipeline: the same groups, classes and score as evaluate()") {
    const PlanRequest request = embedded_default_request();
    const Report report = plan(request);
    REQUIRE(report.score.has_value());
    ScoreSetup setup;
    setup.model = model_spec_from_json(report.sections.at("model"), "x");
    setup.training = training_spec_from_json(report.sections.at("training"), "x");
    setup.transport = transport_spec_from_json(report.sections.at("transport"), "x");
    const Evaluation ev = evaluate(report.cluster, report.placement, report.groups.spec, {}, setup);
    REQUIRE(ev.kinds.size() == report.kinds.size());
    for (std::size_t i = 0; i < ev.kinds.size(); ++i) {
        CHECK(ev.kinds[i].kind == report.kinds[i].kind);
        CHECK(ev.kinds[i].pairs == report.kinds[i].pairs);
    }
    REQUIRE(ev.score.has_value());
    CHECK(ev.score->rdma_benefit == doctest::Approx(report.score->rdma_benefit));
}

TEST_CASE("a local GPU order is refused on nodes with different GPU counts, naming both") {
    const Cluster cluster = cluster_from_json(nlohmann::json::parse(kMixedCluster), "c.json", "/cluster", ".");
    CHECK_THROWS_WITH_AS(
        (void)placement_from_json(nlohmann::json::parse(R"({"local_order": [1, 0, 3, 2, 5, 4, 7, 6]})"), "l.json", "/placement",
                                  cluster, 10),
        doctest::Contains("l.json (/placement/local_order): the nodes have different GPU counts (a: 8, b: 2)"), Error);
}
