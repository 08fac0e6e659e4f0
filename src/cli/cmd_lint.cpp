// CLI: `plan-layout lint CAPTURE` — node-level checks with findings and a fix for each.
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "capture.hpp"
#include "commands.hpp"
#include "planlayout/analysis/lint.hpp"
#include "planlayout/error.hpp"

namespace planlayout::cli {
namespace {

CommandHelp lint_help() {
    return {"lint",
            "plan-layout lint CAPTURE [--input-format FMT] [--format text|json] [-o FILE]",
            "Checks one node's topology against the acceptance checklist: every GPU has a PIX/PXB "
            "RDMA NIC; GPUs do not share a nearest NIC; a GPU and its nearest NIC are on one NUMA "
            "node (not SYS apart); RDMA NICs have one speed; PCIe links run at their capability; "
            "storage/management NICs that NCCL might pick. CAPTURE is a node template JSON or any "
            "capture 'plan-layout import' reads (- for stdin). Each finding has a severity, a "
            "stable code, a message and a fix. Exit 1 when any finding is an error, else 0.",
            {{"--input-format", "FMT", "auto (default), hwloc, nvidia-smi, nccl-xml or json"},
             {"--format", "FMT", "text (default) or json"},
             {"-o,--output", "FILE", "write the result to FILE (atomically) instead of stdout"},
             {"--help,-h", "", "show this help"}},
            {"plan-layout lint topo.txt", "plan-layout discover | plan-layout lint -",
             "plan-layout lint --format json node.xml"}};
}

}  // namespace

int cmd_lint(const std::vector<std::string>& args, Context& ctx) {
    const CommandHelp help = lint_help();
    const ParsedArgs a = parse_args(args, help);
    if (handle_help(a, help, ctx)) {
        return 0;
    }
    const std::string format = a.get_or("--format", "text");
    if (format != "text" && format != "json") {
        throw input_error("plan-layout lint --format", "'" + format + "' is not text or json",
                          "use --format text or --format json");
    }
    const std::string in_format = a.get_or("--input-format", "auto");
    if (in_format != "auto" && in_format != "hwloc" && in_format != "nvidia-smi" &&
        in_format != "nccl-xml" && in_format != "json") {
        throw input_error("plan-layout lint --input-format", "unknown format '" + in_format + "'",
                          "use auto, hwloc, nvidia-smi, nccl-xml or json");
    }
    if (a.positionals().size() != 1) {
        throw input_error("plan-layout lint", "expected one CAPTURE file, got " +
                                                  std::to_string(a.positionals().size()),
                          "e.g. plan-layout lint topo.txt (- reads standard input)");
    }
    const Capture c = load_capture(in_format, a.positionals().front(), ctx);
    if (c.is_fabric) {
        throw input_error(c.fabric.source, "a Slurm topology describes the fabric, not a node",
                          "lint a node capture (hwloc, nvidia-smi, NCCL XML or a node template)");
    }
    const auto findings = lint_node(c.node);
    std::map<Severity, int> counts;
    for (const auto& f : findings) {
        ++counts[f.severity];
    }
    std::ostringstream out;
    if (format == "json") {
        nlohmann::json j;
        j["schema_version"] = 1;
        j["source"] = c.node.source;
        j["findings"] = nlohmann::json::array();
        for (const auto& f : findings) {
            j["findings"].push_back(to_json(f));
        }
        j["counts"] = {{"error", counts[Severity::Error]},
                       {"warning", counts[Severity::Warning]},
                       {"info", counts[Severity::Info]}};
        j["capture_warnings"] = c.node.warnings;
        out << j.dump(2) << "\n";
    } else {
        out << c.node.source << ": " << c.node.gpus.size() << " GPU(s), " << c.node.nics.size()
            << " NIC(s)\n";
        for (const auto& w : c.node.warnings) {
            out << "  note: " << w << "\n";
        }
        for (const auto& f : findings) {
            out << to_string(f.severity) << " [" << f.code << "] " << f.message << "\n"
                << "    fix: " << f.fix << "\n";
        }
        out << counts[Severity::Error] << " error(s), " << counts[Severity::Warning]
            << " warning(s), " << counts[Severity::Info] << " info\n";
    }
    write_output(a, out.str(), ctx);
    return counts[Severity::Error] > 0 ? static_cast<int>(ExitCode::CheckFailed) : 0;
}

}  // namespace planlayout::cli
