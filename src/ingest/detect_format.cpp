// Ingest: telling topology capture formats apart by content.
#include "planlayout/ingest/detect_format.hpp"

#include <regex>
#include <string>

#include "ingest_util.hpp"

namespace planlayout {

std::string_view to_string(CaptureFormat f) {
    switch (f) {
        case CaptureFormat::Hwloc: return "hwloc";
        case CaptureFormat::NvidiaSmi: return "nvidia-smi";
        case CaptureFormat::NcclXml: return "nccl-xml";
        case CaptureFormat::NcclGraph: return "nccl-graph";
        case CaptureFormat::Slurm: return "slurm";
        case CaptureFormat::SlurmYaml: return "slurm-yaml";
        case CaptureFormat::K8sNodes: return "k8s-nodes";
        case CaptureFormat::Unknown: break;
    }
    return "unknown";
}

CaptureFormat detect_format(std::string_view text) {
    const std::string_view head = text.substr(0, 1U << 16U);
    if (ingest_detail::looks_binary(head)) {
        return CaptureFormat::Unknown;
    }
    // JSON: only a Kubernetes node list is a capture (node templates are told apart by the CLI).
    const std::string lead = ingest_detail::trim(std::string(head.substr(0, 64)));
    if (!lead.empty() && lead[0] == '{') {
        static const std::regex kNodeKind("\"kind\"\\s*:\\s*\"(NodeList|Node)\"");
        const std::string h(head);
        return std::regex_search(h, kNodeKind) ? CaptureFormat::K8sNodes : CaptureFormat::Unknown;
    }
    // XML: the first element that is not a declaration, comment or doctype decides.
    static const std::regex kFirstElement("<([A-Za-z_][A-Za-z0-9_]*)[\\s>/]");
    const std::string h(head);
    std::smatch m;
    if (std::regex_search(h, m, kFirstElement)) {
        const std::string name = m[1].str();
        const auto before = h.substr(0, static_cast<std::size_t>(m.position(0)));
        if (ingest_detail::trim(before).empty() || before.find("?>") != std::string::npos ||
            before.find("-->") != std::string::npos || before.find("DOCTYPE") != std::string::npos) {
            if (name == "topology") {
                return CaptureFormat::Hwloc;
            }
            if (name == "system") {
                return CaptureFormat::NcclXml;
            }
            if (name == "graphs") {
                return CaptureFormat::NcclGraph;
            }
        }
    }
    bool header = false;
    for (const auto& raw : ingest_detail::lines_of(ingest_detail::strip_ansi(head))) {
        const auto toks = ingest_detail::split_ws(raw);
        if (toks.empty()) {
            continue;
        }
        if (toks.size() >= 2 && toks[0] == "-" && toks[1].rfind("topology:", 0) == 0) {
            return CaptureFormat::SlurmYaml;
        }
        if (toks[0].rfind("SwitchName=", 0) == 0 || toks[0].rfind("BlockName=", 0) == 0) {
            return CaptureFormat::Slurm;
        }
        if (!header && raw.find("GPU0") != std::string::npos &&
            (raw.front() == ' ' || raw.front() == '\t')) {
            header = true;
        } else if (header && toks[0].rfind("GPU", 0) == 0) {
            return CaptureFormat::NvidiaSmi;
        }
    }
    return CaptureFormat::Unknown;
}

}  // namespace planlayout
