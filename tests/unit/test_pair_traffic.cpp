// Tests: the bytes one used pair carries per step (analysis/pair_traffic.hpp).
#include <doctest/doctest.h>

#include <string>

#include "planlayout/analysis/pair_traffic.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/plan.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace): test file

TEST_CASE("pair bytes: all-to-all splits by n, rings by the bus factor and the ring count, send/recv by direction") {
    const double b = 1.6e9;
    CHECK(pair_bytes_each_way(CollectiveOp::AllToAll, Pattern::AllToAll, b, 16, 8) == doctest::Approx(1e8));
    // A ring all-reduce link carries 2(n-1)/n of the buffer, split over 8 rings.
    CHECK(pair_bytes_each_way(CollectiveOp::AllReduce, Pattern::Ring, b, 16, 8) == doctest::Approx(2.0 * 15 / 16 * b / 8));
    CHECK(pair_bytes_each_way(CollectiveOp::ReduceScatter, Pattern::Ring, b, 2, 1) == doctest::Approx(b / 2));
    CHECK(pair_bytes_each_way(CollectiveOp::AllGather, Pattern::Ring, b, 4, 0) == doctest::Approx(0.75 * b));  // rings >= 1
    CHECK(pair_bytes_each_way(CollectiveOp::Broadcast, Pattern::Ring, b, 4, 2) == doctest::Approx(b / 2));
    // Pipeline neighbours: activations one way, gradients the other; the CP ring one way.
    CHECK(pair_bytes_each_way(CollectiveOp::SendRecv, Pattern::PipelineP2p, b, 2, 1) == doctest::Approx(b / 2));
    CHECK(pair_bytes_each_way(CollectiveOp::SendRecv, Pattern::Ring, b, 4, 1) == doctest::Approx(b));
    CHECK(pair_bytes_each_way(CollectiveOp::AllToAll, Pattern::AllToAll, b, 1, 1) == 0);
    CHECK(pair_bytes_each_way(CollectiveOp::AllReduce, Pattern::Ring, 0, 16, 8) == 0);
}

TEST_CASE("pair load of the seed's layout A: ep all-to-all and dp all-reduce from the score") {
    PlanRequest r;
    r.layout_name = std::string(PLANLAYOUT_SOURCE_DIR) + "/layouts/seed-2x8-ep16.json";
    r.layout_text = read_text_file(r.layout_name);
    r.base_dir = std::string(PLANLAYOUT_SOURCE_DIR) + "/layouts";
    const Report report = plan(r);
    REQUIRE(report.score);
    for (const auto& k : report.score->by_kind) {
        const GroupKind* kind = report.groups.find(k.kind);
        const KindEdges* edges = nullptr;
        for (const auto& e : report.kinds) {
            edges = e.kind == k.kind ? &e : edges;
        }
        REQUIRE(kind != nullptr);
        REQUIRE(edges != nullptr);
        const PairLoad p = pair_load(k, kind->pattern, edges->footprints.front());
        CHECK(p.time_s[0] == k.time_s[0]);
        CHECK(p.time_s[1] == k.time_s[1]);
        if (k.kind == "ep") {  // 16 ranks: each pair carries 1/16 of a rank's all-to-all bytes each way
            CHECK(p.bytes_each_way == doctest::Approx(k.bytes_per_step / 16));
        } else if (k.kind == "dp") {  // 8 rails on each of the 2 nodes: 8 rings of 2·15/16 of the buffer
            CHECK(p.bytes_each_way == doctest::Approx(k.bytes_per_step * 2 * 15 / 16 / 8));
        }
    }
}
