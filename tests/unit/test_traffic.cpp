// Tests: bytes and calls per group kind per stable step (docs/cost-model.md §5).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "planlayout/error.hpp"
#include "planlayout/model/traffic.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

ModelSpec moe_model() {
    ModelSpec m;
    m.layers = 43;
    m.first_dense_layers = 3;
    m.moe_layers = 40;
    m.hidden = 4096;
    m.heads = 32;
    m.experts = 256;
    m.topk = 6;
    m.dense_params = 4e9;
    m.expert_params = 256e9;
    return m;
}

TrainingSpec lora_training() {
    TrainingSpec t;
    t.global_batch = 16;
    t.seq_len = 512;
    t.finetune = FineTune::Lora;
    t.lora_adapter_params = 1e8;
    return t;
}

const TrafficItem* find(const std::vector<TrafficItem>& items, const std::string& kind, CollectiveOp op) {
    const auto it = std::find_if(items.begin(), items.end(),
                                 [&](const TrafficItem& i) { return i.kind == kind && i.op == op; });
    return it == items.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("seed A: EP=16 all-to-all of T·k·h·β, 4 per MoE layer - LoRA DP moves only adapters") {
    const auto items = traffic_per_step({1, 1, 1, 16, 16, 1, 1, 1}, moe_model(), lora_training());
    const auto* ep = find(items, "ep", CollectiveOp::AllToAll);
    REQUIRE(ep != nullptr);
    CHECK(ep->size_bytes == 512.0 * 6 * 4096 * 2);
    CHECK(ep->calls == 160);  // m = 16 / 16 = 1; 4 × 40 MoE layers
    const auto* dp = find(items, "dp", CollectiveOp::AllReduce);
    REQUIRE(dp != nullptr);
    CHECK(dp->size_bytes == 2e8);
    CHECK(dp->overlap == OverlapKind::Backward);
    CHECK(find(items, "pp", CollectiveOp::SendRecv) == nullptr);
    CHECK(find(items, "expt_dp", CollectiveOp::AllReduce) == nullptr);
}

TEST_CASE("seed B: PP=2 sends b·s·h·β twice per micro-batch - fill and drain are never hidden") {
    const auto items = traffic_per_step({1, 2, 1, 8, 8, 1, 1, 1}, moe_model(), lora_training());
    const auto* pp = find(items, "pp", CollectiveOp::SendRecv);
    REQUIRE(pp != nullptr);
    CHECK(pp->size_bytes == 512.0 * 4096 * 2);
    CHECK(pp->calls == 4);  // 2 · m · v with m = 16 / 8 = 2
    CHECK(pp->exposed_calls == 2);
    CHECK(find(items, "ep", CollectiveOp::AllToAll)->calls == 160);  // 2 micro-batches × 4 × 20 layers
}

TEST_CASE("TP with sequence parallelism turns each all-reduce into RS + AG of the same size") {
    ModelSpec m = moe_model();
    m.experts = 0;
    m.moe_layers = 0;
    TrainingSpec t = lora_training();
    t.finetune = FineTune::Full;
    t.sequence_parallel = true;
    t.recompute = Recompute::Full;
    const auto items = traffic_per_step({4, 1, 1, 2, 1, 1, 1, 1}, m, t);
    const auto* rs = find(items, "tp", CollectiveOp::ReduceScatter);
    const auto* ag = find(items, "tp", CollectiveOp::AllGather);
    REQUIRE(rs != nullptr);
    REQUIRE(ag != nullptr);
    CHECK(rs->calls == 8 * 43 * 6.0);  // m = 8, 6 per layer with full recompute
    CHECK(ag->size_bytes == rs->size_bytes);
    CHECK(find(items, "tp", CollectiveOp::AllReduce) == nullptr);
}

TEST_CASE("the distributed optimizer reduce-scatters grads and all-gathers params - ZeRO-3 gathers frozen weights") {
    TrainingSpec t = lora_training();
    t.finetune = FineTune::Full;
    t.distributed_optimizer = true;
    auto items = traffic_per_step({1, 1, 1, 16, 16, 1, 1, 1}, moe_model(), t);
    CHECK(find(items, "dp", CollectiveOp::ReduceScatter)->size_bytes == 8e9);
    CHECK(find(items, "dp", CollectiveOp::AllGather)->size_bytes == 8e9);
    t = lora_training();
    t.zero_stage = 3;
    items = traffic_per_step({1, 1, 1, 16, 16, 1, 1, 1}, moe_model(), t);
    int gathers = 0;
    for (const auto& i : items) {
        if (i.kind == "dp" && i.op == CollectiveOp::AllGather) {
            CHECK(i.size_bytes == 8e9);  // the frozen 4e9 dense params in bf16, still sharded
            ++gathers;
        }
    }
    CHECK(gathers == 2);
    CHECK(find(items, "dp", CollectiveOp::ReduceScatter)->size_bytes == 2e8);
}

TEST_CASE("FSDP and ZeRO-3 gather and reduce-scatter every micro-batch - the distributed optimizer once a step") {
    // global batch 64 over dp 16 at micro-batch 1: 4 micro-batches a step.
    TrainingSpec t;
    t.global_batch = 64;
    t.seq_len = 512;
    t.distributed_optimizer = true;
    const ParallelSizes p{1, 1, 1, 16, 16, 1, 1, 1};
    auto items = traffic_per_step(p, moe_model(), t);
    CHECK(find(items, "dp", CollectiveOp::AllGather)->calls == 1);
    CHECK(find(items, "dp", CollectiveOp::ReduceScatter)->calls == 1);
    // Megatron-FSDP optim_grads_params shards like ZeRO-3: per micro-batch, forward and backward.
    t.megatron_fsdp = ShardingStrategy::OptimGradsParams;
    items = traffic_per_step(p, moe_model(), t);
    int gathers = 0;
    for (const auto& i : items) {
        if (i.kind == "dp" && i.op == CollectiveOp::AllGather) {
            CHECK(i.calls == 4);
            CHECK(i.size_bytes == 8e9);
            ++gathers;
        }
    }
    CHECK(gathers == 2);
    CHECK(find(items, "dp", CollectiveOp::ReduceScatter)->calls == 4);
    // optim shards the optimizer only: the distributed optimizer's traffic.
    t.megatron_fsdp = ShardingStrategy::Optim;
    CHECK(find(traffic_per_step(p, moe_model(), t), "dp", CollectiveOp::AllGather)->calls == 1);
    // torchtitan's FSDP (a shard group of 16): the same per micro-batch.
    t.megatron_fsdp = ShardingStrategy::Off;
    ParallelSizes titan = p;
    titan.fsdp = 16;
    CHECK(find(traffic_per_step(titan, moe_model(), t), "fsdp", CollectiveOp::ReduceScatter)->calls == 4);
}

TEST_CASE("expert DP reduces expert grads over expt_dp - CP passes KV around its ring") {
    TrainingSpec t = lora_training();
    t.finetune = FineTune::Full;
    const auto items = traffic_per_step({1, 1, 2, 4, 4, 1, 2, 1}, moe_model(), t);
    CHECK(find(items, "expt_dp", CollectiveOp::AllReduce)->size_bytes == doctest::Approx(256e9 / 4 * 2));
    CHECK(find(items, "dp_cp", CollectiveOp::AllReduce) != nullptr);
    const auto* cp = find(items, "cp", CollectiveOp::SendRecv);
    REQUIRE(cp != nullptr);
    CHECK(cp->calls == 4 * 43 * 6.0);  // m = 16 / 4, (c − 1) = 1
}

TEST_CASE("a batch that does not divide is refused") {
    TrainingSpec t = lora_training();
    t.global_batch = 10;
    CHECK_THROWS_WITH_AS(traffic_per_step({1, 1, 1, 16, 16, 1, 1, 1}, moe_model(), t),
                         "parallel: global_batch 10 is not a multiple of micro_batch × dp = 1 × 16; "
                         "change global_batch, micro_batch or dp",
                         Error);
}

TEST_CASE("expected remote nodes under uniform top-k routing") {
    CHECK(expected_remote_nodes(256, 6, 1) == 0.0);
    // P(no expert on the other node) = C(128,6)/C(256,6) ≈ 0.0146
    CHECK(expected_remote_nodes(256, 6, 2) == doctest::Approx(0.98537).epsilon(1e-4));
    CHECK(expected_remote_nodes(8, 8, 2) == 1.0);
}

TEST_CASE("an expert capacity factor scales the all-to-all to the padded capacity") {
    ModelSpec m = moe_model();
    m.capacity_factor = 1.25;
    const auto items = traffic_per_step({1, 1, 1, 16, 16, 1, 1, 1}, m, lora_training());
    const auto* ep = find(items, "ep", CollectiveOp::AllToAll);
    REQUIRE(ep != nullptr);
    CHECK(ep->size_bytes == 512.0 * 6 * 1.25 * 4096 * 2);
}

TEST_CASE("pipeline activations split by tp: each TP rank sends b*s*h*beta/t per boundary, by hand") {
    // tp = 2, pp = 2, dp = 4: m = 16 / 4 = 4 micro-batches of b = 1, s = 512, h = 4096, β = 2.
    const auto items = traffic_per_step({2, 2, 1, 4, 1, 1, 1, 1}, moe_model(), lora_training());
    const auto* pp = find(items, "pp", CollectiveOp::SendRecv);
    REQUIRE(pp != nullptr);
    CHECK(pp->size_bytes == 1.0 * 512 * 4096 * 2 / 2);
    CHECK(pp->calls == 2.0 * 4);         // forward activations and backward gradients per micro-batch
    CHECK(pp->exposed_calls == 2.0);     // fill and drain: 2(p − 1)
    CHECK(pp->bytes_per_step() == 2.0 * 4 * 512 * 4096 * 2 / 2);
}

TEST_CASE("expert all-to-all under sequence parallelism: each TP rank dispatches its 1/tp of the tokens, by hand") {
    // tp = 2, ep = 8, dp = 8: m = 16 / 8 = 2 micro-batches of 512 tokens, top-6 of h = 4096, β = 2.
    const ModelSpec m = moe_model();
    TrainingSpec t = lora_training();
    t.sequence_parallel = true;
    const auto sp = traffic_per_step({2, 1, 1, 8, 8, 1, 1, 1}, m, t);
    const auto* ep = find(sp, "ep", CollectiveOp::AllToAll);
    REQUIRE(ep != nullptr);
    CHECK(ep->size_bytes == doctest::Approx(512.0 / 2 * 6 * m.capacity_factor * 4096 * 2));
    CHECK(ep->calls == 2.0 * 4 * 40);
    t.sequence_parallel = false;  // without it every TP rank holds all 512 tokens
    const auto whole_traffic = traffic_per_step({2, 1, 1, 8, 8, 1, 1, 1}, m, t);
    const auto* whole = find(whole_traffic, "ep", CollectiveOp::AllToAll);
    REQUIRE(whole != nullptr);
    CHECK(whole->size_bytes == doctest::Approx(512.0 * 6 * m.capacity_factor * 4096 * 2));
}

TEST_CASE("flex dispatchers send a token once per remote node: the de-duplicated share of the all-to-all's remote copies") {
    ModelSpec m;
    m.experts = 256;
    m.topk = 8;
    CHECK(flex_dedup(m, 8) == 1.0);  // the all-to-all dispatcher: every copy
    m.token_dispatcher = TokenDispatcher::Flex;
    CHECK(flex_dedup(m, 1) == 1.0);  // inside one node: nothing crosses
    // 8 nodes of 32 experts: a token reaches 7·(1 − C(224,8)/C(256,8)) remote nodes, not 8·7/8 copies.
    const double reached = 7.0 * (1.0 - std::exp(std::lgamma(225.0) - std::lgamma(217.0) - std::lgamma(257.0) + std::lgamma(249.0)));
    CHECK(flex_dedup(m, 8) == doctest::Approx(reached / 7.0));
    // DeepSeek-V3's group-limited routing, 8 groups of 32 (one per node), at most 4 per token:
    // 7·(1 − C(7,4)/C(8,4)) = 3.5 remote nodes of 7 remote copies.
    m.router_groups = 8;
    m.router_group_topk = 4;
    CHECK(flex_dedup(m, 8) == doctest::Approx(0.5));
    // Groups that do not nest in the nodes (8 groups over 16 nodes): the ungrouped spread.
    CHECK(flex_dedup(m, 16) == doctest::Approx(expected_remote_nodes(256, 8, 16) / (8.0 * 15 / 16)));
}
