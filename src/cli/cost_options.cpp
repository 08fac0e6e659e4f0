// CLI: shared flags of the cost commands.
#include "cost_options.hpp"

#include <cmath>
#include <cstdlib>

#include "planlayout/analysis/placed_group.hpp"
#include "messages.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {

namespace {

PlacedGroup with_tree_gain(PlacedGroup g, const ParsedArgs& args) {
    if (const auto v = args.get_double("--tree-gain")) {
        g.two_node_tree_gain = *v;
    }
    return g;
}

}  // namespace

NodeHardware hardware_from(const ParsedArgs& args) {
    NodeHardware hw;
    if (const auto c = args.get("--cluster")) {
        hw = node_hardware(load_cluster_file(*c, args.has("--allow-outside-files")));
    }
    if (const auto v = args.get_double("--nic-gbit")) {
        hw.nic_gbit_s = *v;
    }
    if (const auto v = args.get_int("--nics-per-node")) {
        hw.nics_per_node = static_cast<int>(*v);
    }
    if (const auto v = args.get_double("--nvlink-gbyte")) {
        hw.nvlink_gbyte_s = *v;
    }
    if (const auto v = args.get_double("--pcie-gbyte")) {
        hw.pcie_gbyte_s = *v;
    }
    hw.nvlink = !args.has("--no-nvlink");
    if (const auto v = args.get_double("--tcp-gbit")) {
        hw.tcp_gbit_s = *v;
    }
    if (const auto v = args.get_int("--tcp-interfaces")) {
        hw.tcp_interfaces_per_node = static_cast<int>(*v);
    }
    return hw;
}

PlacedGroup shape_from(const ParsedArgs& args, const std::string& command, Context& ctx) {
    const auto layout = args.get("--layout");
    const auto kind = args.get("--kind");
    if (layout && kind) {  // each needs the other (CLI11 checks that)
        PlanRequest request = layout_request(*layout, ctx);
        request.kinds = {*kind};
        const Report report = plan(request);
        if (report.kinds.empty() || report.kinds.front().footprints.empty()) {
            throw input_error("--kind " + *kind, "the layout creates no '" + *kind + "' groups",
                              "see 'plan-layout analyze " + *layout + "' for its kinds");
        }
        return with_tree_gain(placed_group_of(report.kinds.front().footprints.front(), node_hardware(report.cluster),
                                                    report.cluster.fabric.pxn, report.cluster.fabric.oversubscription),
                              args);
    }
    if (const auto c = args.get("--cluster"); c && !args.has("--gpus-per-node")) {
        const Cluster cluster = load_cluster_file(*c, ctx.files_anywhere);
        const int gpus_per_node = cluster.facts_of(0).gpu_count;
        for (std::int64_t n = 1; n < cluster.node_count(); ++n) {
            if (cluster.facts_of(n).gpu_count != gpus_per_node) {
                throw input_error(*c, "its nodes have different GPU counts (" + cluster.nodes[0].host + ": " +
                                          std::to_string(gpus_per_node) + ", " + cluster.nodes[static_cast<std::size_t>(n)].host +
                                          ": " + std::to_string(cluster.facts_of(n).gpu_count) + ")",
                                  "give the placement with --gpus-per-node, or use --layout FILE --kind K");
            }
        }
        return with_tree_gain(
            make_placed_group(static_cast<int>(args.get_int("--nodes", 1, 100000).value_or(cluster.node_count())), gpus_per_node,
                            hardware_from(args)),
            args);
    }
    const auto nodes = args.get_int("--nodes", 1, 100000);
    const auto gpus = args.get_int("--gpus-per-node", 1, 1024);
    if (!gpus) {
        throw missing_option(command, "--gpus-per-node", "give the GPUs per node, e.g. --nodes 2 --gpus-per-node 8");
    }
    return with_tree_gain(
        make_placed_group(static_cast<int>(nodes.value_or(1)), static_cast<int>(*gpus), hardware_from(args)), args);
}

double parse_size_bytes(const std::string& text, const std::string& flag) {
    char* end = nullptr;
    const double number = std::strtod(text.c_str(), &end);
    std::string unit(end);
    struct Unit {
        const char* name;
        double factor;
    };
    static const Unit kUnits[] = {{"", 1},       {"B", 1},     {"K", 0x1p10}, {"KiB", 0x1p10}, {"KB", 1e3},
                                  {"M", 0x1p20}, {"MiB", 0x1p20}, {"MB", 1e6}, {"G", 0x1p30}, {"GiB", 0x1p30},
                                  {"GB", 1e9},   {"T", 0x1p40}, {"TiB", 0x1p40}, {"TB", 1e12}};
    // A message larger than 1 PiB is no collective anyone runs, and its time would not print.
    constexpr double kMaxBytes = 0x1p50;
    if (end != text.c_str() && number > 0 && std::isfinite(number)) {
        for (const auto& u : kUnits) {
            if (unit == u.name) {
                const double bytes = std::round(number * u.factor);
                if (bytes < 1 || bytes > kMaxBytes) {
                    throw input_error(flag + " " + text,
                                      "'" + text + "' is " + (bytes < 1 ? "less than 1 byte" : "more than 1 PiB (2^50 bytes)"),
                                      "give a size from 1 B to 1PiB, as nccl-tests sizes are: 4096, 256MiB, 8GiB");
                }
                return bytes;
            }
        }
    }
    throw input_error(flag + " " + text, "'" + text + "' is not a size",
                      "write bytes with an optional unit: 4096, 256MiB, 1G (binary), 1GB (decimal)");
}

MemoryLimits memory_limits_of(const ParsedArgs& args) {
    MemoryLimits limits;
    if (const auto mem = args.get("--gpu-memory")) {
        limits.gpu_memory_bytes = parse_size_bytes(*mem, "--gpu-memory");
    }
    if (const auto h = args.get("--memory-headroom")) {
        limits.headroom_bytes = *h == "0" ? 0.0 : parse_size_bytes(*h, "--memory-headroom");
    }
    return limits;
}

bool socket_inside_node(const ParsedArgs& args, Transport transport) {
    if (!args.has("--socket-inside-node")) {
        return false;
    }
    if (transport != Transport::Tcp) {
        throw input_error("--socket-inside-node", "it describes the socket transport, not " + std::string(to_string(transport)),
                          "give --transport tcp, or drop --socket-inside-node");
    }
    return true;
}

Transport transport_from(const ParsedArgs& args, const std::string& fallback) {
    const std::string name = args.get_or("--transport", fallback);
    const auto t = parse_transport(name);
    if (!t) {
        throw unknown_choice("--transport", name, "transport", "tcp, rdma or gdrdma (network), p2p or shm (inside a node)");
    }
    return *t;
}

}  // namespace planlayout::cli
