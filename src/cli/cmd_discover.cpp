// CLI: `plan-layout discover` — this host through libhwloc → node template JSON.
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "planlayout/ingest/node_template_json.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/hwloc_topology.hpp"

namespace planlayout::cli {
namespace {

CommandHelp discover_help() {
    return {"discover",
            "plan-layout discover [--format json] [-o FILE]",
            "Runs libhwloc on this host (PCI devices, bridges, NUMA nodes, GPUs, RDMA NICs) and "
            "prints the same node template JSON as 'plan-layout import hwloc'. A host without "
            "GPUs still gives a template, with the warning \"no GPUs found on this host\". NVLink "
            "counts and NIC speeds are not visible to hwloc; combine with 'import nvidia-smi' or "
            "'import nccl-xml' captured on the same node for those.",
            {{"--format", "FMT", "output format: json (the only one)"},
             {"-o,--output", "FILE", "write the result to FILE (atomically) instead of stdout"},
             {"--help,-h", "", "show this help"}},
            {"plan-layout discover", "plan-layout discover -o node.json && plan-layout lint node.json"}};
}

}  // namespace

int cmd_discover(const std::vector<std::string>& args, Context& ctx) {
    const CommandHelp help = discover_help();
    const ParsedArgs a = parse_args(args, help);
    if (handle_help(a, help, ctx)) {
        return 0;
    }
    if (a.get_or("--format", "json") != "json") {
        throw input_error("plan-layout discover --format",
                          "'" + *a.get("--format") + "' is not an output format of discover",
                          "use --format json");
    }
    if (!a.positionals().empty()) {
        throw input_error("plan-layout discover",
                          "unexpected argument '" + a.positionals().front() + "'",
                          "discover takes no file; to read a capture use plan-layout import");
    }
    nlohmann::json j = to_json(discover_this_host());
    j["schema_version"] = 1;
    write_output(a, j.dump(2) + "\n", ctx);
    return 0;
}

}  // namespace planlayout::cli
