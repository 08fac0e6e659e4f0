// CLI: `plan-layout analyze [LAYOUT]` — the whole pipeline on a layout file (or the embedded default).
#include <algorithm>
#include <iostream>
#include <sstream>

#include "analyze_launch.hpp"
#include "commands.hpp"
#include "planlayout/emit/diagram.hpp"
#include "planlayout/emit/report_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {
namespace {

bool is_view(const std::string& s) {
    return parse_diagram_view(s).has_value();
}

}  // namespace

void define_analyze(CommandSpec& spec) {
    spec.usage =
        "plan-layout analyze [LAYOUT|-] [--format text|json] [--ranks] [--kinds K,...] [-o FILE]\n"
        "       plan-layout analyze [LAYOUT|-] --format dot|svg [--view node|groups|fabric] [--kind K] [--node HOST]\n"
        "                           [--style FILE] [-o FILE]\n"
        "       plan-layout analyze [LAYOUT|-] --format scheduler|hostfile|launch [-o FILE]";
    spec.description =
        "Places every rank of the layout's parallel spec on its cluster, builds every communication group\n"
        "as Megatron-Core does, and classifies the GPU pairs each group's collective uses: NV, PIX, PXB,\n"
        "PHB, NODE, SYS inside a node; RAIL (same leaf), PXN (NVLink hop, then same rail), XRAIL (through\n"
        "the spine), XPOD (beyond one spine tier) across nodes. With no LAYOUT it analyzes the embedded\n"
        "default: the seed's layout A (2 x 8 H100, 8 rail-aligned NICs, PP=1 EP=16 DP=16).\n"
        "LAYOUT is a JSON file (// comments allowed) with \"cluster\" and \"parallel\" sections; see README.md.\n"
        "--format dot|svg draws a diagram for design reviews instead (README.md, Diagrams): --view node (one\n"
        "node's GPUs, NVSwitch, PCIe switches, NICs and NUMA nodes), groups (every node with its GPUs coloured\n"
        "by the --kind's groups and the pairs its collective uses, styled by class), or fabric (nodes, rails,\n"
        "leaves, spines). Past 16 nodes or 256 GPUs, diagrams draw one box per node or scalable unit.\n"
        "--format scheduler writes versioned JSON for a scheduler or launcher (per rank: host, local rank,\n"
        "GPU, NIC as NCCL_IB_HCA, NUMA node and CPUs; per node: CUDA_VISIBLE_DEVICES and the NCCL\n"
        "environment; the groups; the score), hostfile an MPI/DeepSpeed hostfile, launch torchrun and\n"
        "Slurm srun snippets.";
    spec.positionals = {0, 1, "at most one LAYOUT", "analyze one layout at a time"};
    add_options(spec, {
        {"--format", "text|json|dot|svg|scheduler|hostfile|launch",
         "output format (default text); dot and svg draw a diagram; scheduler, hostfile and launch feed launchers"},
        {"--ranks", "", "also list every rank's GPU, NIC and GPU-NIC class (text)"},
        {"--kinds", "K,K,...", "only these group kinds"},
        {"--view", "node|groups|fabric", "dot/svg: what the diagram shows (default groups)"},
        {"--kind", "K", "dot/svg groups view: the group kind drawn (default ep)"},
        {"--node", "HOST", "dot/svg node view: the node drawn (default the first)"},
        {"--style", "FILE", "dot/svg: colours and line styles (default the built-in viz/style.json)"},
        {"-o,--output", "FILE", "write to FILE atomically instead of standard output"},
        {"--help,-h", "", "show this help"},
    });
    check_choice(spec, "--format", "format", {"text", "json", "dot", "svg", "scheduler", "hostfile", "launch"});
    check_parsed(spec, "--view", "view", "node, groups or fabric", is_view);
    spec.examples = {
        "plan-layout analyze                                  # the seed's layout A, embedded",
        "plan-layout analyze layouts/seed-2x8-pp2-ep8.json    # the seed's negative control",
        "plan-layout analyze layouts/h100-32node-tp8-pp4-ep8.json --format json -o plan.json",
        "plan-layout analyze layouts/seed-2x8-ep16.json --ranks --kinds ep,dp",
        "plan-layout analyze layouts/seed-2x8-ep16.json --format svg --view groups --kind ep -o a-ep.svg",
        "plan-layout analyze layouts/seed-2x8-ep16.json --format dot --view node --node node1",
        "plan-layout analyze layouts/seed-2x8-ep16.json --format scheduler -o plan.json",
    };
}

int run_analyze(const ParsedArgs& parsed, Context& ctx) {
    const std::string format = parsed.get_or("--format", "text");
    if (is_launch_format(format)) {  // scheduler | hostfile | launch: analyze_launch.cpp
        return run_launch_format(parsed, format, ctx);
    }
    const bool diagram = format == "dot" || format == "svg";
    for (const char* flag : {"--view", "--kind", "--node", "--style"}) {
        if (!diagram && parsed.has(flag)) {
            throw input_error(parsed.spelling(flag), "only applies to diagrams", "add --format dot or --format svg");
        }
    }
    if (diagram && parsed.has("--ranks")) {
        throw input_error("--ranks", "only applies to text output", "drop --ranks, or use --format text");
    }
    DiagramOptions diagram_options;
    if (const auto v = parsed.get("--view")) {
        diagram_options.view = *parse_diagram_view(*v);  // checked by the option's validator
    }
    diagram_options.kind = parsed.get_or("--kind", "ep");
    diagram_options.host = parsed.get_or("--node", "");
    if (parsed.has("--kind") && diagram_options.view != DiagramView::Groups) {
        throw input_error("--kind", "only applies to --view groups", "add --view groups, or drop --kind");
    }
    if (parsed.has("--node") && diagram_options.view != DiagramView::Node) {
        throw input_error("--node", "only applies to --view node", "add --view node, or drop --node");
    }
    DiagramStyle style = default_diagram_style();
    if (const auto f = parsed.get("--style")) {
        style = diagram_style_from_json(read_input(*f, ctx), *f == "-" ? "<stdin>" : *f);
    }
    PlanRequest request = embedded_default_request();
    if (!parsed.positionals().empty()) {
        request = layout_request(parsed.positionals().front(), ctx);
    }
    if (const auto k = parsed.get("--kinds")) {
        if (diagram) {
            throw input_error("--kinds", "does not apply to diagrams", "use --kind K with --view groups");
        }
        request.kinds = split_csv(*k);
    }
    if (diagram && diagram_options.view == DiagramView::Groups) {
        request.kinds = {diagram_options.kind};  // only the drawn kind needs classifying
    } else if (diagram && diagram_options.view == DiagramView::Node) {
        request.kinds = {"tp"};  // the node view classifies nothing
    }  // the fabric view classifies every kind: its rail traffic comes from the score
    if (ctx.err_is_terminal) {
        request.progress = [&ctx](std::int64_t done, std::int64_t total) {
            ctx.err << "\rclassifying groups: " << (100 * done / std::max<std::int64_t>(total, 1)) << "%" << std::flush;
        };
    }
    const Report report = plan(request);
    if (ctx.err_is_terminal && request.progress) {
        ctx.err << "\r" << std::string(32, ' ') << "\r" << std::flush;
    }
    if (parsed.has("--kinds")) {
        for (const auto& k : request.kinds) {
            if (report.groups.find(k) == nullptr) {
                throw input_error("--kinds " + *parsed.get("--kinds"), "unknown or not created kind '" + k + "'",
                                  "see 'plan-layout groups' for the kinds this spec creates");
            }
        }
    }
    if (diagram) {
        write_output(parsed,
                     format == "dot" ? diagram_dot(report, diagram_options, style) : diagram_svg(report, diagram_options, style),
                     ctx);
        return 0;
    }
    ReportOptions options;
    options.ranks = parsed.has("--ranks");
    write_output(parsed, format == "json" ? report_json(report) : report_text(report, options), ctx);
    return 0;
}

}  // namespace planlayout::cli
