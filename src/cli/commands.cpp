// CLI: the table of subcommands (one entry per command; each lives in its own cmd_*.cpp).
#include "commands.hpp"

#include <CLI/CLI.hpp>


namespace planlayout::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> kCommands = {
        {"groups", "every communication group's ranks, as Megatron-Core builds them", define_groups, run_groups},
        {"analyze", "the whole plan of a layout: groups on GPUs, the links they use, and the score", define_analyze,
         run_analyze},
        {"import", "a topology capture (hwloc, nvidia-smi, NCCL XML, Slurm) → node template JSON", define_import,
         run_import},
        {"discover", "this host through libhwloc → node template JSON", define_discover, run_discover},
        {"lint", "node-level checks: GPU↔NIC affinity, NUMA, NIC speeds, PCIe links", define_lint, run_lint},
        {"collective", "predicted time, algbw and busbw of one collective, in nccl-tests' columns", define_collective,
         run_collective},
        {"calibrate", "nccl-tests output -> fitted bandwidth and latency per transport and link class",
         define_calibrate, run_calibrate},
        {"verify", "NCCL INFO logs against the plan: transport, rail NIC, P2P inside nodes", define_verify, run_verify},
        {"ab", "step-time logs of an A/B run: stable-step medians and the measured benefit", define_ab, run_ab},
        {"search", "every valid layout for a cluster and a model, ranked by predicted step time or RDMA benefit",
         define_search, run_search},
        {"compare", "two layouts side by side, kind by kind: where they cross nodes and what it costs", define_compare,
         run_compare},
    };
    return kCommands;
}

std::vector<CommandSpec> define_commands(CLI::App& app) {
    app.set_help_flag();
    app.require_subcommand(1);  // a word naming another command later on is a positional, not a command
    std::vector<CommandSpec> specs;
    for (const auto& c : commands()) {
        specs.push_back(new_command(app, c.name, c.summary));
        c.define(specs.back());
    }
    return specs;
}

}  // namespace planlayout::cli
