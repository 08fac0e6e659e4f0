// CLI: `plan-layout analyze [LAYOUT]` — the whole pipeline on a layout file (or the embedded default).
#include <algorithm>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "planlayout/emit/report_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {
namespace {

CommandHelp analyze_help() {
    CommandHelp h;
    h.name = "analyze";
    h.usage = "plan-layout analyze [LAYOUT|-] [--format text|json] [--ranks] [--kinds K,...] [-o FILE]";
    h.description =
        "Places every rank of the layout's parallel spec on its cluster, builds every communication group\n"
        "as Megatron-Core does, and classifies the GPU pairs each group's collective uses: NV, PIX, PXB,\n"
        "PHB, NODE, SYS inside a node; RAIL (same leaf), PXN (NVLink hop, then same rail), XRAIL (through\n"
        "the spine), XPOD (beyond one spine tier) across nodes. With no LAYOUT it analyzes the embedded\n"
        "default: the seed's layout A (2 x 8 H100, 8 rail-aligned NICs, PP=1 EP=16 DP=16).\n"
        "LAYOUT is a JSON file (// comments allowed) with \"cluster\" and \"parallel\" sections; see README.md.";
    h.options = {
        {"--format", "text|json", "output format (default text)"},
        {"--ranks", "", "also list every rank's GPU, NIC and GPU-NIC class (text)"},
        {"--kinds", "K,K,...", "only these group kinds"},
        {"-o,--output", "FILE", "write to FILE atomically instead of standard output"},
        {"--help,-h", "", "show this help"},
    };
    h.examples = {
        "plan-layout analyze                                  # the seed's layout A, embedded",
        "plan-layout analyze layouts/seed-2x8-pp2-ep8.json    # the seed's negative control",
        "plan-layout analyze layouts/h100-32node-tp8-pp4-ep8.json --format json -o plan.json",
        "plan-layout analyze layouts/seed-2x8-ep16.json --ranks --kinds ep,dp",
    };
    return h;
}


}  // namespace

int cmd_analyze(const std::vector<std::string>& args, Context& ctx) {
    const CommandHelp help = analyze_help();
    const ParsedArgs parsed = parse_args(args, help);
    if (handle_help(parsed, help, ctx)) {
        return 0;
    }
    if (parsed.positionals().size() > 1) {
        throw input_error("plan-layout analyze", "more than one layout given", "analyze one layout at a time");
    }
    const std::string format = parsed.get_or("--format", "text");
    if (format != "text" && format != "json") {
        throw input_error("--format " + format, "unknown format", "use text or json");
    }
    PlanRequest request = embedded_default_request();
    if (!parsed.positionals().empty()) {
        const std::string& path = parsed.positionals().front();
        request.layout_text = read_input(path, ctx);
        request.layout_name = path == "-" ? "<stdin>" : path;
        request.base_dir = path == "-" ? "." : parent_dir(path);
    }
    if (const auto k = parsed.get("--kinds")) {
        request.kinds = split_csv(*k);
    }
    if (ctx.err_is_terminal) {
        request.progress = [&ctx](std::int64_t done, std::int64_t total) {
            ctx.err << "\rclassifying groups: " << (100 * done / std::max<std::int64_t>(total, 1)) << "%" << std::flush;
        };
    }
    const Report report = plan(request);
    if (ctx.err_is_terminal && request.progress) {
        ctx.err << "\r" << std::string(32, ' ') << "\r" << std::flush;
    }
    if (!request.kinds.empty()) {
        for (const auto& k : request.kinds) {
            if (report.groups.find(k) == nullptr) {
                throw input_error("--kinds " + *parsed.get("--kinds"), "unknown or not created kind '" + k + "'",
                                  "see 'plan-layout groups' for the kinds this spec creates");
            }
        }
    }
    ReportOptions options;
    options.ranks = parsed.has("--ranks");
    write_output(parsed, format == "json" ? report_json(report) : report_text(report, options), ctx);
    return 0;
}

}  // namespace planlayout::cli
