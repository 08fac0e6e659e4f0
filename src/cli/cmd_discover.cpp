// CLI: `plan-layout discover` — this host through libhwloc → node template JSON.
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "planlayout/ingest/hwloc_topology.hpp"

namespace planlayout::cli {

void define_discover(CommandSpec& spec) {
    spec.usage = "plan-layout discover [--format json] [-o FILE]";
    spec.description =
        "Runs libhwloc on this host (PCI devices, bridges, NUMA nodes, GPUs, RDMA NICs) and "
        "prints the same node template JSON as 'plan-layout import hwloc'. A host without "
        "GPUs still gives a template, with the warning \"no GPUs found on this host\". NVLink "
        "counts and NIC speeds are not visible to hwloc; combine with 'import nvidia-smi' or "
        "'import nccl-xml' captured on the same node for those.";
    spec.positionals = {0, 0, "", "discover takes no file; to read a capture use plan-layout import"};
    add_options(spec, {
        {"--format", "FMT", "output format: json (the only one)"},
        {"-o,--output", "FILE", "write the result to FILE (atomically) instead of stdout"},
        {"--help,-h", "", "show this help"},
    });
    check_choice(spec, "--format", "format", {"json"});
    spec.examples = {"plan-layout discover", "plan-layout discover -o node.json && plan-layout lint node.json"};
}

int run_discover(const ParsedArgs& a, Context& ctx) {
    nlohmann::json j = to_json(discover_this_host());
    j["schema_version"] = 1;
    write_output(a, j.dump(2) + "\n", ctx);
    return 0;
}

}  // namespace planlayout::cli
