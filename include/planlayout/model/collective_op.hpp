// Collectives: the operations the cost model knows, in nccl-tests' vocabulary (docs/cost-model.md §1).
#pragma once

#include <optional>
#include <string_view>

namespace planlayout {

enum class CollectiveOp { AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, SendRecv };

/// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "sendrecv".
[[nodiscard]] std::string_view to_string(CollectiveOp op);

/// Parses the names above and nccl-tests' own ("allreduce", "alltoall", "all_reduce_perf",
/// "send_recv", ...); nullopt if unknown.
[[nodiscard]] std::optional<CollectiveOp> parse_collective_op(std::string_view s);

/// busbw = algbw × this factor (nccl-tests): 2(n−1)/n all-reduce, (n−1)/n AG/RS/A2A, 1 otherwise.
[[nodiscard]] double bus_factor(CollectiveOp op, int n);

/// The nccl-tests "count" column for a size: elements per rank buffer (size / type size, and
/// divided by n for AG/RS/A2A, whose size is the gathered / scattered total).
[[nodiscard]] double count_for_size(CollectiveOp op, double size_bytes, int n, int type_bytes);

}  // namespace planlayout
