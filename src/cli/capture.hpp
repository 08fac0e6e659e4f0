// CLI: loading a topology capture of any supported format (shared by import and lint).
#pragma once

#include <string>

#include "context.hpp"
#include "planlayout/ingest/slurm_topology.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/topology/node_template.hpp"

namespace planlayout::cli {

// kMaxCaptureBytes (planlayout/limits.hpp): captures above it are refused (exit 2).

/// A loaded capture: a node template, or a fabric for Slurm files.
struct Capture {
    std::string format;  // "hwloc", "nvidia-smi", "nccl-xml", "slurm", "json"
    bool is_fabric = false;
    NodeTemplate node;
    FabricTopology fabric;
};

/// Reads FILE ("-" = stdin; size-limited, binary refused) and parses it as `format`
/// (auto|hwloc|nvidia-smi|nccl-xml|slurm, plus json for node templates). Errors name the file.
[[nodiscard]] Capture load_capture(const std::string& format, const std::string& path,
                                   Context& ctx);

/// The file name without its directories ("-" → "<stdin>"): what outputs record as source.
[[nodiscard]] std::string display_name(const std::string& path);

}  // namespace planlayout::cli
