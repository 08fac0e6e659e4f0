// Emit: what a scheduler or launcher needs from a plan: per rank its host, local rank, GPU,
// NIC, NUMA node and CPUs; per node CUDA_VISIBLE_DEVICES and the NCCL environment; the groups.
#pragma once

#include <iosfwd>
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
/// The same, written to `os` in 64 KiB pieces as it is produced (memory does not grow with the
/// ranks and groups listed).
void write_scheduler_json(std::ostream& os, const Report& report);

/// A hostfile, one line per node in rank order: "host slots=N" (style "openmpi" and
/// "deepspeed", the default) or "host:N" (style "mpich", Hydra's -f file).
[[nodiscard]] std::string hostfile_text(const Report& report, const std::string& style = "openmpi");

/// A piece of an argument: known text (written single-quoted, byte for byte), or an expansion the
/// job's shell does ("${X-}", "${1-}", "$@", "${X:-w}"), inside double quotes when the user's
/// script had it there and bare when it did not, so it splits as it did there.
struct LaunchPart {
    std::string text;
    bool expansion = false;
    bool quoted = false;
};

/// One argument of the user's training command. `parts` empty: `text` is its value. Otherwise the
/// parts make the word (`runtime`: one of them is expanded when the job runs; `text` is the word
/// as the script's reading gave it, for the flag names).
struct LaunchArg {
    std::string text;
    bool runtime = false;
    std::vector<LaunchPart> parts{};
};

/// What launch_text starts and how.
struct LaunchOptions {
    /// torchrun (one command per node, its node rank from NODE_RANK or the host name),
    /// torchrun-rdzv (c10d rendezvous: the same command on every node), slurm-torchrun (an sbatch
    /// script: srun starts one torchrun per node), slurm-tasks (an sbatch script: one task per GPU,
    /// RANK/LOCAL_RANK/WORLD_SIZE from Slurm's task ids).
    std::string launcher = "slurm-torchrun";
    std::string script;             // the training script; "" = pretrain_gpt.py as a placeholder
    std::vector<LaunchArg> args;    // the script's arguments, unchanged but the parallel sizes
    std::string source;             // where they came from: "train.sh:42"
    std::vector<LaunchPart> script_parts{};  // the script's word, when a part of it is expanded by the job
};

/// The launcher names LaunchOptions::launcher takes.
inline constexpr const char* kLaunchers[] = {"torchrun", "torchrun-rdzv", "slurm-torchrun", "slurm-tasks"};

/// The user's arguments with Megatron's parallel sizes (--tensor-model-parallel-size, ...) set to
/// the plan's: a size the arguments give is replaced where it stands (`--x N` or `--x=N`, `_` or
/// `-` spellings), a missing one is appended when the plan's differs from Megatron's default (1;
/// the expert tensor size: the tensor size); --use-tp-pp-dp-mapping is appended for the
/// tp-cp-ep-pp-dp order. Every other argument is kept byte for byte, in order.
[[nodiscard]] std::vector<LaunchArg> with_plan_sizes(const Report& report, std::vector<LaunchArg> args);

/// A bash script that starts the plan's job with `options.launcher`: the NCCL environment
/// (NCCL_IB_HCA per node, or per rank for slurm-tasks; NCCL_SOCKET_IFNAME, NCCL_CROSS_NIC,
/// NCCL_PXN_DISABLE), CUDA_VISIBLE_DEVICES in the placement's GPU order, MASTER_ADDR/PORT, and
/// the user's script with every argument (with_plan_sizes). Throws Error (BadInput) when the
/// placement is not node by node (torchrun and Slurm number ranks node rank x G + local rank)
/// or the nodes run different numbers of ranks.
[[nodiscard]] std::string launch_text(const Report& report, const LaunchOptions& options = {});

}  // namespace planlayout
