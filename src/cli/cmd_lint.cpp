// CLI: `plan-layout lint CAPTURE` — node-level checks with findings and a fix for each.
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "capture.hpp"
#include "commands.hpp"
#include "planlayout/analysis/lint.hpp"
#include "planlayout/analysis/lint_cluster.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/read_file.hpp"

namespace planlayout::cli {
namespace {

// Prints the findings (text or JSON) under a one-line summary; exit 1 on any error finding.
int emit_findings(const std::vector<Finding>& findings, const std::string& source, const std::string& summary,
                  const std::vector<std::string>& notes, const std::string& format, const ParsedArgs& a, Context& ctx,
                  const std::vector<std::string>& files = {}) {
    std::map<Severity, int> counts;
    for (const auto& f : findings) {
        ++counts[f.severity];
    }
    std::ostringstream out;
    if (format == "json") {
        nlohmann::json j;
        j["schema_version"] = 1;
        j["source"] = source;
        j["findings"] = nlohmann::json::array();
        for (const auto& f : findings) {
            j["findings"].push_back(to_json(f));
        }
        j["counts"] = {{"error", counts[Severity::Error]},
                       {"warning", counts[Severity::Warning]},
                       {"info", counts[Severity::Info]}};
        j["capture_warnings"] = notes;
        out << j.dump(2) << "\n";
    } else {
        out << summary << "\n";
        for (const auto& w : notes) {
            out << "  note: " << w << "\n";
        }
        for (const auto& f : findings) {
            out << to_string(f.severity) << " [" << f.code << "] " << f.message << "\n"
                << "    fix: " << f.fix << "\n";
        }
        out << counts[Severity::Error] << " error(s), " << counts[Severity::Warning] << " warning(s), "
            << counts[Severity::Info] << " info\n";
    }
    write_output(a, out.str(), ctx, files);
    return counts[Severity::Error] > 0 ? static_cast<int>(ExitCode::CheckFailed) : 0;
}

}  // namespace

int run_lint(const ParsedArgs& a, Context& ctx) {
    const std::string format = a.get_or("--format", "text");
    const std::string in_format = a.get_or("--input-format", "auto");
    const std::string& path = a.positionals().front();
    if (in_format == "auto" && path != "-") {
        // A cluster spec or a layout: lint every template, then the fabric.
        const std::string head = read_text_file(path, kMaxCaptureBytes);
        const auto trimmed = head.find_first_not_of(" \t\r\n");
        if (trimmed != std::string::npos && (head[trimmed] == '{' || head[trimmed] == '/')) {
            const auto j = parse_json_text(head, path);
            if (j.is_object() && (j.contains("cluster") || j.contains("nodes"))) {
                const Cluster cluster = load_cluster_file(path, ctx.files_anywhere);
                return emit_findings(lint_cluster(cluster), path,
                                     path + ": cluster of " + std::to_string(cluster.node_count()) + " node(s), " +
                                         std::to_string(cluster.total_gpus()) + " GPU(s), " +
                                         std::to_string(cluster.templates.size()) + " node template(s)",
                                     cluster.warnings, format, a, ctx, cluster.files);
            }
        }
    }
    const Capture c = load_capture(in_format, path, ctx);
    if (c.is_fabric) {
        throw input_error(c.fabric.source,
                          c.format == "k8s-nodes" ? "a Kubernetes node list describes the fabric, not a node"
                                                  : "a Slurm topology describes the fabric, not a node",
                          "lint a node capture (hwloc, nvidia-smi, NCCL XML or a node template); plan-layout import " +
                              c.format + " FILE shows the fabric and its warnings");
    }
    return emit_findings(lint_node(c.node), c.node.source,
                         c.node.source + ": " + std::to_string(c.node.gpus.size()) + " GPU(s), " +
                             std::to_string(c.node.nics.size()) + " NIC(s)",
                         c.node.warnings, format, a, ctx);
}

}  // namespace planlayout::cli
