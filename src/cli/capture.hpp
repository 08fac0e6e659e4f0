// CLI: loading a topology capture of any supported format (shared by import and lint).
#pragma once

#include <string>
#include <vector>

#include "context.hpp"
#include "planlayout/ingest/slurm_topology.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/topology/node_template.hpp"

namespace planlayout::cli {

// kMaxCaptureBytes (planlayout/limits.hpp): captures above it are refused (exit 2).

/// A loaded capture: a node template, or a fabric for Slurm files.
struct Capture {
    std::string format;  // "hwloc", "nvidia-smi", "nccl-xml", "slurm", "slurm-yaml", "k8s-nodes", "json"
    bool is_fabric = false;
    NodeTemplate node;
    FabricTopology fabric;
};

/// Choices that only some formats take (import's flags).
struct CaptureOptions {
    std::vector<std::string> tier_labels;  // k8s-nodes: --tier-label, lowest tier first
    std::string topology;                  // slurm-yaml: --topology NAME (empty: cluster_default)
};

/// Reads FILE ("-" = stdin; size-limited, binary refused) and parses it as `format`
/// (auto|hwloc|nvidia-smi|nccl-xml|slurm, plus json for node templates). Errors name the file.
[[nodiscard]] Capture load_capture(const std::string& format, const std::string& path,
                                   Context& ctx, const CaptureOptions& options = {});

/// The file name without its directories ("-" → "<stdin>"): what outputs record as source.
[[nodiscard]] std::string display_name(const std::string& path);

}  // namespace planlayout::cli
