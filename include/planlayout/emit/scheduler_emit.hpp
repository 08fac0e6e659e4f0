// Emit: what a scheduler or launcher needs from a plan: per rank its host, local rank, GPU,
// NIC, NUMA node and CPUs; per node CUDA_VISIBLE_DEVICES and the NCCL environment; the groups.
#pragma once

#include <string>
#include <vector>

#include "planlayout/report.hpp"

namespace planlayout {

/// One node of the job as a launcher sees it.
struct LaunchNode {
    std::string host;
    std::vector<std::int64_t> ranks;                        // in local-rank order
    std::string cuda_visible_devices;                       // "0,1,...,7" (GPU index per local rank)
    std::vector<std::pair<std::string, std::string>> env;   // NCCL_IB_HCA, NCCL_SOCKET_IFNAME, ...
    std::vector<int> numa;                                  // per local rank, -1 unknown
};

/// The nodes the job uses, in order of their first rank.
[[nodiscard]] std::vector<LaunchNode> launch_nodes(const Report& report);

/// {"schema_version":1,"format":"plan-layout scheduler","ranks":[...],"nodes":[...],
///  "groups":{kind:[[...]]},"score":{...}}. Ranks and groups are streamed (large worlds).
[[nodiscard]] std::string scheduler_json(const Report& report);

/// MPI / DeepSpeed hostfile: "host slots=N" per node, in rank order.
[[nodiscard]] std::string hostfile_text(const Report& report);

/// A torchrun and a Slurm srun snippet with the environment, CPU binding and Megatron's flags.
[[nodiscard]] std::string launch_text(const Report& report);

}  // namespace planlayout
