// Collectives: names and nccl-tests' bus-bandwidth factors.
#include "planlayout/model/collective_op.hpp"

#include <array>
#include <string>

#include "planlayout/model/numbers/network.hpp"

namespace planlayout {
namespace {

struct OpName {
    std::string_view name;
    CollectiveOp op;
};

// Canonical names first; the rest are nccl-tests binary names and common spellings.
constexpr OpName kOpNames[] = {
    {"all_reduce", CollectiveOp::AllReduce},
    {"all_gather", CollectiveOp::AllGather},
    {"reduce_scatter", CollectiveOp::ReduceScatter},
    {"all_to_all", CollectiveOp::AllToAll},
    {"broadcast", CollectiveOp::Broadcast},
    {"sendrecv", CollectiveOp::SendRecv},
    {"allreduce", CollectiveOp::AllReduce},
    {"allgather", CollectiveOp::AllGather},
    {"reducescatter", CollectiveOp::ReduceScatter},
    {"alltoall", CollectiveOp::AllToAll},
    {"a2a", CollectiveOp::AllToAll},
    {"bcast", CollectiveOp::Broadcast},
    {"send_recv", CollectiveOp::SendRecv},
    {"p2p", CollectiveOp::SendRecv},
};

// nccl-tests names its binaries all_reduce_perf, ...
constexpr std::string_view kPerfSuffix = "_perf";

}  // namespace

std::string_view to_string(CollectiveOp op) {
    for (const auto& e : kOpNames) {
        if (e.op == op) {
            return e.name;
        }
    }
    return "unknown";
}

std::optional<CollectiveOp> parse_collective_op(std::string_view s) {
    std::string name(s);
    if (name.size() > kPerfSuffix.size() &&
        name.compare(name.size() - kPerfSuffix.size(), kPerfSuffix.size(), kPerfSuffix) == 0) {
        name.resize(name.size() - kPerfSuffix.size());
    }
    for (const auto& e : kOpNames) {
        if (name == e.name) {
            return e.op;
        }
    }
    return std::nullopt;
}

double bus_factor(CollectiveOp op, int n) {
    const auto nd = static_cast<double>(n);
    if (n <= 1) {
        return op == CollectiveOp::AllReduce || op == CollectiveOp::AllGather ||
                       op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllToAll
                   ? 0.0
                   : 1.0;
    }
    switch (op) {
        case CollectiveOp::AllReduce:
            return numbers::kRingAllReducePasses * (nd - 1.0) / nd;
        case CollectiveOp::AllGather:
        case CollectiveOp::ReduceScatter:
        case CollectiveOp::AllToAll:
            return (nd - 1.0) / nd;
        case CollectiveOp::Broadcast:
        case CollectiveOp::SendRecv:
            return 1.0;
    }
    return 1.0;
}

double count_for_size(CollectiveOp op, double size_bytes, int n, int type_bytes) {
    const double per_type = size_bytes / static_cast<double>(type_bytes);
    switch (op) {
        case CollectiveOp::AllGather:
        case CollectiveOp::ReduceScatter:
        case CollectiveOp::AllToAll:
            return per_type / static_cast<double>(n > 0 ? n : 1);
        default:
            return per_type;
    }
}

}  // namespace planlayout
