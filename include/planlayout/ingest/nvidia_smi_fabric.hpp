// Ingest: the Fabric section of `nvidia-smi -q` (State, Status, CliqueId, ClusterUUID per GPU) →
// the node's multi-node NVLink clique (docs/formats/captures.md, "nvidia-smi -q").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace planlayout {

/// One GPU's Fabric section as nvidia-smi -q prints it (driver 550+; "N/A" where unsupported).
struct GpuFabric {
    std::string gpu;           // the "GPU 00000000:..." header it follows, empty in a grep excerpt
    std::string state;         // "Completed", "In Progress", "Not Started", "Not Supported", "N/A"
    std::string status;        // "Success", "Insufficient Resources", ..., "N/A"
    std::string clique_id;     // decimal, as printed
    std::string cluster_uuid;  // 36-character UUID, as printed
    std::size_t line = 0;      // 1-based line of its "Fabric" heading
};

/// Every Fabric section of the text, in order. Also reads `nvidia-smi -q | grep -C3 CliqueId`
/// excerpts (no GPU headers, "--" between them). Throws Error (BadInput) naming where:line for a
/// section without State or CliqueId, or a text with no Fabric section (not nvidia-smi -q).
[[nodiscard]] std::vector<GpuFabric> read_nvidia_smi_fabric(const std::string& text, const std::string& where);

/// The node's clique as the GPU operator labels it (nvidia.com/gpu.clique): "ClusterUUID.CliqueId".
/// Empty when the GPUs have no multi-node NVLink (State N/A or Not Supported, or a zero
/// ClusterUUID: NCCL then disables MNNVL, src/mnnvl.cc). Throws Error (BadInput) naming where:line
/// when a GPU's fabric is not ready (State not Completed, Status not Success) or the node's GPUs
/// are in different cliques, or a ready GPU's CliqueId is not decimal 0..4294967295 (NVML's
/// unsigned cliqueId) or its ClusterUUID not 8-4-4-4-12 hex digits: nothing else reaches the
/// scheduler outputs. The UUID is written in lower case, the id without leading zeros.
[[nodiscard]] std::string node_clique(const std::vector<GpuFabric>& gpus, const std::string& where);

}  // namespace planlayout
