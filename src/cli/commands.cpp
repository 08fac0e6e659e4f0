// CLI: the table of subcommands (one entry per command; each lives in its own cmd_*.cpp).
#include "commands.hpp"

namespace planlayout::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> kCommands = {
        // foundation and structure
        {"groups", "every communication group's ranks, as Megatron-Core builds them", cmd_groups},
        // -- analyze (structure, cost, diagrams) goes here --
        {"analyze", "the whole plan of a layout: groups on GPUs, the links they use, and the score", cmd_analyze},

        // -- ingest commands go here --
        {"import", "a topology capture (hwloc, nvidia-smi, NCCL XML, Slurm) → node template JSON", cmd_import},
        {"discover", "this host through libhwloc → node template JSON", cmd_discover},
        {"lint", "node-level checks: GPU↔NIC affinity, NUMA, NIC speeds, PCIe links", cmd_lint},

        // -- cost and calibration commands go here --
        {"collective", "predicted time, algbw and busbw of one collective, in nccl-tests' columns", cmd_collective},
        {"calibrate", "nccl-tests output -> fitted bandwidth and latency per transport and link class", cmd_calibrate},

        // -- acceptance commands go here --
        {"verify", "NCCL INFO logs against the plan: transport, rail NIC, P2P inside nodes", cmd_verify},
        {"ab", "step-time logs of an A/B run: stable-step medians and the measured benefit", cmd_ab},

        // -- search and compare go here --
        {"search", "every valid layout for a cluster and a model, ranked by predicted step time or RDMA benefit", cmd_search},
        {"compare", "two layouts side by side, kind by kind: where they cross nodes and what it costs", cmd_compare},
    };
    return kCommands;
}

}  // namespace planlayout::cli
