// Verify: the job's size as NCCL logged it against the plan. NCCL's comm line
// (src/init.cc, 2.19+: INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d"))
// gives each communicator's size; the world communicator is the largest, sub-communicators (TP,
// DP groups) are smaller, and none can hold more ranks or nodes than the job.
#include <cstdint>
#include <string>
#include <vector>

#include "planlayout/verify/verify.hpp"

namespace planlayout::verify {
namespace {

// One finding for a check, naming its first rank and how many more ranks it has.
struct FirstOf {
    int rank = -1;
    int value = -1;
    std::size_t count = 0;
    void add(int r, int v) {
        if (count++ == 0) {
            rank = r;
            value = v;
        }
    }
    [[nodiscard]] std::string more() const {
        return count > 1 ? " (and " + std::to_string(count - 1) + " more rank" + (count > 2 ? "s" : "") + ")" : "";
    }
};

}  // namespace

std::vector<Finding> world_findings(const NcclLog& log, std::size_t planned_ranks, std::size_t planned_nodes) {
    FirstOf broken;
    FirstOf outside;
    FirstOf bigger;
    FirstOf more_nodes;
    const auto world = static_cast<std::int64_t>(planned_ranks);
    for (const auto& [rank, info] : log.ranks) {
        if (info.outside_nranks >= 0) {
            broken.add(rank, info.outside_nranks);
        }
        if (planned_ranks > 0 && info.nranks >= 0 && rank >= world) {  // a comm line's rank (connections: rank-not-in-plan)
            outside.add(rank, rank);
        }
        if (planned_ranks > 0 && info.nranks > world) {
            bigger.add(rank, info.nranks);
        }
        if (planned_nodes > 0 && info.nnodes > static_cast<std::int64_t>(planned_nodes)) {
            more_nodes.add(rank, info.nnodes);
        }
    }
    std::vector<Finding> out;
    const std::string plan = std::to_string(planned_ranks) + " ranks on " + std::to_string(planned_nodes) + " node(s)";
    const std::string fix = "verify the log of the job this plan describes, or plan the job that ran (--nodes/--gpus-per-node, "
                            "its layout)";
    if (broken.count > 0) {
        out.push_back({Severity::Error, "rank-out-of-range",
                       "a comm line names rank " + std::to_string(broken.rank) + " of a communicator of nRanks " +
                           std::to_string(broken.value) + broken.more() + ": not a rank NCCL can have",
                       "pass the log as NCCL wrote it (NCCL_DEBUG=INFO); an edited or mixed log cannot be verified", broken.rank,
                       -1});
    }
    if (outside.count > 0) {
        out.push_back({Severity::Error, "rank-out-of-range",
                       "the log names rank " + std::to_string(outside.rank) + outside.more() + ", the plan has " + plan +
                           " (ranks 0 to " + std::to_string(world - 1) + ")",
                       fix, outside.rank, -1});
    }
    if (bigger.count > 0) {
        out.push_back({Severity::Error, "world-size-mismatch",
                       "rank " + std::to_string(bigger.rank) + "'s communicator has nRanks " + std::to_string(bigger.value) +
                           bigger.more() + ", the plan " + plan,
                       fix, bigger.rank, -1});
    }
    if (more_nodes.count > 0) {
        out.push_back({Severity::Error, "node-count-mismatch",
                       "rank " + std::to_string(more_nodes.rank) + "'s communicator spans nNodes " +
                           std::to_string(more_nodes.value) + more_nodes.more() + ", the plan " + plan,
                       fix, more_nodes.rank, -1});
    }
    return out;
}

}  // namespace planlayout::verify
