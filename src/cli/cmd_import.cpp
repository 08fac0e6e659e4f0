// CLI: `plan-layout import FORMAT FILE` — a real topology capture → node template JSON.
#include <algorithm>
#include <istream>

#include <nlohmann/json.hpp>

#include "capture.hpp"
#include "commands.hpp"
#include "planlayout/ingest/node_template_json.hpp"
#include "messages.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/detect_format.hpp"
#include "planlayout/ingest/hwloc_topology.hpp"
#include "planlayout/ingest/k8s_nodes.hpp"
#include "planlayout/ingest/nccl_topo_xml.hpp"
#include "planlayout/ingest/nvidia_smi_topo.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "../ingest/ingest_util.hpp"

namespace planlayout::cli {
namespace {

std::vector<std::string> capture_formats() {
    return {"auto", "hwloc", "nvidia-smi", "nccl-xml", "slurm", "slurm-yaml", "k8s-nodes"};
}

}  // namespace

std::string display_name(const std::string& path) {
    return path == "-" ? "<stdin>" : base_name(path);
}

Capture load_capture(const std::string& format, const std::string& path, Context& ctx,
                     const CaptureOptions& options) {
    const std::string where = path == "-" ? "<stdin>" : path;
    std::string text;
    if (path == "-") {
        text.resize(kMaxCaptureBytes + 1);
        ctx.in.read(text.data(), static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(ctx.in.gcount()));
        if (text.size() > kMaxCaptureBytes) {
            throw input_error(where, "input is over the limit of " +
                                         std::to_string(kMaxCaptureBytes) + " bytes",
                              "topology captures are small; pass the right file");
        }
    } else {
        text = read_text_file(path, kMaxCaptureBytes);
    }
    if (ingest_detail::trim(text).empty()) {
        throw input_error(where, "the input is empty", "pass a topology capture (" + join(capture_formats(), ", ") + ")");
    }
    require_8bit_text(text, where);  // UTF-16/32 named as such, before "binary data"
    if (ingest_detail::looks_binary(text)) {
        throw input_error(where, "the input is binary data, not a text capture",
                          "pass the text output of lstopo, nvidia-smi topo -m, NCCL_TOPO_DUMP_FILE "
                          "or topology.conf");
    }
    std::string fmt = format;
    if (fmt == "auto") {
        const std::string t = ingest_detail::trim(text.substr(0, 64));
        if (!t.empty() && t[0] == '{') {
            fmt = detect_format(text) == CaptureFormat::K8sNodes ? "k8s-nodes" : "json";
        } else {
            const CaptureFormat f = detect_format(text);
            if (f == CaptureFormat::NcclGraph) {
                throw input_error(where,
                                  "this is an NCCL graph file (<graphs>, NCCL_GRAPH_FILE), not a "
                                  "topology",
                                  "pass the NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE XML instead");
            }
            if (f == CaptureFormat::Unknown) {
                throw input_error(where, "cannot tell which topology format this is",
                                  "name the format: plan-layout import hwloc|nvidia-smi|nccl-xml|"
                                  "slurm|slurm-yaml|k8s-nodes FILE");
            }
            fmt = std::string(to_string(f));
        }
    }
    Capture c;
    c.format = fmt;
    if (fmt == "hwloc") {
        c.node = read_hwloc_xml(text, where);
    } else if (fmt == "nvidia-smi") {
        c.node = read_nvidia_smi_topo(text, where);
    } else if (fmt == "nccl-xml") {
        c.node = read_nccl_topo_xml(text, where);
    } else if (fmt == "slurm") {
        c.is_fabric = true;
        c.fabric = read_slurm_topology(text, where);
        c.fabric.source = display_name(path);
    } else if (fmt == "slurm-yaml") {
        c.is_fabric = true;
        c.fabric = read_slurm_topology_yaml(text, where, options.topology);
        c.fabric.source = display_name(path);
    } else if (fmt == "k8s-nodes") {
        c.is_fabric = true;
        const nlohmann::json j = parse_json_text(text, where);
        c.fabric = read_k8s_nodes(j, where, options.tier_labels);
        c.fabric.source = display_name(path);
    } else if (fmt == "json") {
        c.node = node_template_from_json(parse_json_text(text, where), where);
    } else {
        throw unknown_choice("plan-layout import", format, "format", choice_list(capture_formats()));
    }
    if (!c.is_fabric) {
        c.node.source = display_name(path);
    }
    return c;
}

int run_import(const ParsedArgs& a, Context& ctx) {
    const auto& pos = a.positionals();
    const std::string& format = pos[0];
    const auto formats = capture_formats();
    if (std::find(formats.begin(), formats.end(), format) == formats.end()) {
        throw unknown_choice("plan-layout import", format, "format", choice_list(capture_formats()));
    }
    CaptureOptions options;
    options.tier_labels = a.get_all("--tier-label");
    options.topology = a.get_or("--topology", "");
    const Capture c = load_capture(format, pos[1], ctx, options);
    if (!options.tier_labels.empty() && c.format != "k8s-nodes") {
        throw input_error("--tier-label", "only a Kubernetes node list has labels (this is " + c.format + ")",
                          "drop --tier-label, or pass kubectl get nodes -o json");
    }
    if (!options.topology.empty() && c.format != "slurm-yaml") {
        throw input_error("--topology", "only a Slurm topology.yaml holds several topologies (this is " +
                                            c.format + ")",
                          "drop --topology, or pass topology.yaml");
    }
    if (c.is_fabric) {
        nlohmann::json j = to_json(c.fabric);
        j["schema_version"] = 1;
        write_output(a, j.dump(2) + "\n", ctx);
        return 0;
    }
    Output out(a, ctx);
    write_json(c.node, {{"schema_version", 1}}, out.stream());  // the pairs streamed, not a DOM
    out.commit();
    return 0;
}

}  // namespace planlayout::cli
