// Ingest: telling topology capture formats apart, for `import auto`.
#pragma once

#include <string>
#include <string_view>

namespace planlayout {

enum class CaptureFormat { Unknown, Hwloc, NvidiaSmi, NcclXml, NcclGraph, Slurm, SlurmYaml, K8sNodes };

/// "hwloc", "nvidia-smi", "nccl-xml", "nccl-graph", "slurm", "slurm-yaml", "k8s-nodes", "unknown".
[[nodiscard]] std::string_view to_string(CaptureFormat f);

/// Guesses the format from the content (never from the file name): hwloc XML has <topology>,
/// NCCL XML <system>, NCCL graph files <graphs>, nvidia-smi a header line with GPU0 and a
/// device row, Slurm SwitchName=/BlockName= lines, Slurm topology.yaml a "- topology:" line,
/// a Kubernetes NodeList (kubectl get nodes -o json) JSON with "kind": "NodeList", "Node", or
/// "List" holding "kind": "Node" items.
[[nodiscard]] CaptureFormat detect_format(std::string_view text);

}  // namespace planlayout
