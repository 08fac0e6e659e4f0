// Tests: frameworks through the pipeline — groups --same-as (parallel/framework_compare), the
// layout's "parallel" reader for every framework, and the FSDP/HSDP roles in the traffic model.
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/pipeline.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/model/traffic.hpp"
#include "planlayout/parallel/framework.hpp"
#include "planlayout/parallel/framework_compare.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

FrameworkSpec torchtitan(std::int64_t world, std::int64_t tp, std::int64_t ep, std::int64_t dp_replicate = 1) {
    FrameworkSpec f;
    f.framework = Framework::Torchtitan;
    f.torchtitan.world = world;
    f.torchtitan.tp = tp;
    f.torchtitan.ep = ep;
    f.torchtitan.dp_replicate = dp_replicate;
    return f;
}

const KindComparison& row(const std::vector<KindComparison>& rows, const std::string& kind) {
    const auto it = std::find_if(rows.begin(), rows.end(), [&](const KindComparison& c) { return c.kind == kind; });
    REQUIRE(it != rows.end());
    return *it;
}

}  // namespace

TEST_CASE("same-as: torchtitan's EP is innermost, Megatron's strides by etp = tp") {
    const Groups tt = build_framework_groups(torchtitan(16, 2, 8));
    const Groups mg = megatron_counterpart(tt);
    CHECK(mg.spec.etp == 2);  // Megatron's default, as a Megatron user would launch it
    const auto rows = compare_groups(tt, mg);
    CHECK(row(rows, "tp").verdict == KindVerdict::Same);
    CHECK(row(rows, "tp").counterpart == "tp");
    const KindComparison& ep = row(rows, "ep");
    CHECK(ep.verdict == KindVerdict::Differ);
    CHECK(ep.rank == 0);
    CHECK(ep.group == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
    CHECK(ep.counterpart_group == std::vector<std::int64_t>{0, 2, 4, 6, 8, 10, 12, 14});
    // FSDP's shard group is Megatron's dp_cp here (dp_replicate 1).
    CHECK(row(rows, "dp_shard").counterpart == "dp_cp");
    CHECK(row(rows, "dp_shard").verdict == KindVerdict::Same);
}

TEST_CASE("same-as: with tp 1 the seed's layouts agree in every kind") {
    for (const std::int64_t ep : {16, 8}) {
        const Groups tt = build_framework_groups(torchtitan(16, 1, ep));
        for (const auto& c : compare_groups(tt, megatron_counterpart(tt))) {
            CAPTURE(c.kind);
            CHECK(c.verdict != KindVerdict::Differ);
        }
    }
}

TEST_CASE("same-as: members in another order are told apart from other groups") {
    // The same kind with its two masked axes swapped: the same groups, members in another order.
    ParallelSpec p;
    p.world = 16;
    p.tp = 2;
    p.cp = 2;
    const Groups x = build_groups(resolve_spec(p));
    Groups y = x;
    for (auto& k : y.kinds) {
        if (k.name == "tp_dp_cp") {
            std::reverse(k.base.masked.begin(), k.base.masked.end());
        }
    }
    const auto rows = compare_groups(y, x);
    CHECK(row(rows, "tp_dp_cp").verdict == KindVerdict::SameMembers);
    CHECK(row(rows, "tp").verdict == KindVerdict::Same);
}

TEST_CASE("framework_spec_from_json reads each framework's keys and refuses the others'") {
    const SpecSource src{"l.json", "/parallel"};
    const FrameworkSpec tt = framework_spec_from_json(
        nlohmann::json{{"framework", "torchtitan"}, {"dp_replicate", 2}, {"dp_shard", -1}, {"tp", 2}}, src);
    CHECK(tt.framework == Framework::Torchtitan);
    CHECK(tt.torchtitan.dp_replicate == 2);
    CHECK(tt.torchtitan.dp_shard == -1);
    const FrameworkSpec ds =
        framework_spec_from_json(nlohmann::json{{"framework", "deepspeed"}, {"tp", 2}, {"moe_path", "legacy"}}, src);
    CHECK(ds.framework == Framework::DeepSpeed);
    CHECK(ds.deepspeed.mp == 2);
    CHECK(ds.deepspeed.moe_path == "legacy");
    const FrameworkSpec mesh = framework_spec_from_json(
        nlohmann::json{{"framework", "mesh"}, {"mesh", "pp=2,dp=4,tp=2"}, {"flatten", {"dp,tp"}}}, src);
    CHECK(mesh.mesh_text == "pp=2,dp=4,tp=2");
    // Megatron keys that say what the framework does anyway are accepted; others are refused.
    CHECK_NOTHROW((void)framework_spec_from_json(nlohmann::json{{"framework", "torchtitan"}, {"order", "tp-cp-ep-dp-pp"}}, src));
    CHECK_THROWS_WITH_AS((void)framework_spec_from_json(nlohmann::json{{"framework", "torchtitan"}, {"order", "tp-cp-ep-pp-dp"}}, src),
                         doctest::Contains("fixes its own rank order"), Error);
    CHECK_THROWS_WITH_AS((void)framework_spec_from_json(nlohmann::json{{"framework", "deepspeed"}, {"cp", 2}}, src),
                         doctest::Contains("no context-parallel axis"), Error);
    CHECK_THROWS_WITH_AS((void)framework_spec_from_json(nlohmann::json{{"framework", "megatron"}, {"dp_shard", 2}}, src),
                         doctest::Contains("dp_shard"), Error);
    CHECK_THROWS_WITH_AS((void)framework_spec_from_json(nlohmann::json{{"framework", "jax"}}, src),
                         doctest::Contains("unknown framework"), Error);
    // etp given under torchtitan is checked by torchtitan's own rule (experts are not TP-sharded).
    FrameworkSpec etp = framework_spec_from_json(nlohmann::json{{"framework", "torchtitan"}, {"tp", 2}, {"ep", 4}, {"etp", 2}}, src);
    set_framework_world(etp, 16);
    CHECK_THROWS_AS((void)build_framework_groups(etp, src), Error);
}

TEST_CASE("the traffic of FSDP and HSDP goes to the fsdp and dp_replicate roles") {
    ModelSpec m;
    m.layers = 8;
    m.hidden = 1024;
    m.heads = 8;
    m.dense_params = 1e9;
    TrainingSpec t;
    t.global_batch = 32;
    t.seq_len = 1024;
    const Groups hsdp = build_framework_groups(torchtitan(32, 2, 1, 2));  // dp_replicate 2 x dp_shard 8
    const ParallelSizes p = parallel_sizes(hsdp);
    CHECK(p.fsdp == 8);
    CHECK(p.dp_replicate == 2);
    CHECK(p.dp == 16);
    const auto items = traffic_per_step(p, m, t);
    const auto has = [&](const char* kind, CollectiveOp op) {
        return std::any_of(items.begin(), items.end(), [&](const TrafficItem& i) { return i.kind == kind && i.op == op; });
    };
    CHECK(has("fsdp", CollectiveOp::AllGather));
    CHECK(has("fsdp", CollectiveOp::ReduceScatter));
    CHECK(has("dp_replicate", CollectiveOp::AllReduce));
    CHECK_FALSE(has("dp", CollectiveOp::AllReduce));
    // The replica all-reduce moves the shard's gradients: 1/8 of what FSDP reduce-scatters.
    double rs = 0;
    double ar = 0;
    for (const auto& i : items) {
        if (i.kind == "fsdp" && i.op == CollectiveOp::ReduceScatter) {
            rs = i.size_bytes;
        }
        if (i.kind == "dp_replicate") {
            ar = i.size_bytes;
        }
    }
    CHECK(ar == doctest::Approx(rs / 8));
    // Megatron's groups keep Megatron's data parallelism.
    const ParallelSizes mp = parallel_sizes(megatron_counterpart(hsdp));
    CHECK(mp.fsdp == 0);
    CHECK(mp.dp_replicate == 0);
}
