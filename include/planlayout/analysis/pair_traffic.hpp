// Pair traffic: the bytes one used GPU pair of a group carries per step, from the score's traffic
// (docs/cost-model.md §1, §3 and §5; docs/diagrams.md). Pure arithmetic, no I/O.
#pragma once

#include <cstdint>

#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/model/collective_op.hpp"
#include "planlayout/model/score.hpp"
#include "planlayout/parallel/groups.hpp"

namespace planlayout {

/// Bytes per step one used pair of an n-rank group carries in each direction, for one collective
/// whose per-rank traffic is bytes_per_step (nccl-tests sizes × calls, TrafficItem::bytes_per_step):
/// - all-to-all: every rank sends S/n to every peer: bytes / n;
/// - ring collectives (all-reduce, all-gather, reduce-scatter, broadcast): a ring link carries
///   bus_factor(op, n) × S, and the data is split over `rings` rings (one per rail the group's
///   ranks on a node reach, min(r, g) as the cost model's B_ring): bus_factor × bytes / rings;
/// - send/recv: pipeline neighbours send activations one way and gradients the other, half of
///   the boundary rank's bytes each way; a ring of send/recv (the CP KV ring) carries all of
///   them on each link, in the ring's direction.
/// 0 for n < 2 or no bytes.
[[nodiscard]] double pair_bytes_each_way(CollectiveOp op, Pattern pattern, double bytes_per_step, std::int64_t n,
                                         std::int64_t rings);

/// One used pair of a kind, as the score predicts it.
struct PairLoad {
    double bytes_each_way = 0;  // per step, summed over the kind's collectives
    double time_s[numbers::kScoreArms.count()] = {0, 0};  // the kind's collective time per step, per arm (Score::baseline,
                                // candidate): every used pair of the kind moves its bytes in it
};

/// The pair load of a kind from its score breakdown (KindBreakdown::windows: each collective's
/// op and bytes) and its worst group footprint (n ranks; rings = min(rails per node, ranks per
/// node), at least 1).
[[nodiscard]] PairLoad pair_load(const KindBreakdown& kind, Pattern pattern, const GroupFootprint& footprint);

}  // namespace planlayout
