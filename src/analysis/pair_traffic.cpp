// Pair traffic: the bytes one used GPU pair of a group carries per step (pair_traffic.hpp).
#include "planlayout/analysis/pair_traffic.hpp"

#include <algorithm>

#include "planlayout/model/numbers/network.hpp"

namespace planlayout {

double pair_bytes_each_way(CollectiveOp op, Pattern pattern, double bytes_per_step, std::int64_t n, std::int64_t rings) {
    if (n <= 1 || bytes_per_step <= 0) {
        return 0;
    }
    const auto ranks = static_cast<double>(n);
    switch (op) {
        case CollectiveOp::AllToAll:
            return bytes_per_step / ranks;
        case CollectiveOp::SendRecv:
            return pattern == Pattern::PipelineP2p ? bytes_per_step / numbers::kPairDirections : bytes_per_step;
        case CollectiveOp::AllReduce:
        case CollectiveOp::AllGather:
        case CollectiveOp::ReduceScatter:
        case CollectiveOp::Broadcast:
            break;
    }
    return bus_factor(op, static_cast<int>(n)) * bytes_per_step / static_cast<double>(std::max<std::int64_t>(1, rings));
}

PairLoad pair_load(const KindBreakdown& kind, Pattern pattern, const GroupFootprint& footprint) {
    PairLoad p;
    const std::int64_t rings = std::max(1, std::min(footprint.min_rails_per_node, footprint.max_per_node));
    for (const auto& w : kind.windows) {
        const auto op = parse_collective_op(w.collective);
        if (op) {
            p.bytes_each_way += pair_bytes_each_way(*op, pattern, w.bytes_per_step, footprint.n, rings);
        }
    }
    p.time_s[0] = kind.time_s[0];
    p.time_s[1] = kind.time_s[1];
    return p;
}

}  // namespace planlayout
