// Topology: one GPU's compute and memory numbers (layouts/gpus/*.json, read by ingest/gpu_spec_json).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "planlayout/topology/kernel_table.hpp"

namespace planlayout {

/// A GPU model's dense (non-sparse) Tensor Core peaks, memory bandwidth and memory, each from
/// the vendor's datasheet (`source` names the file the values came from).
struct GpuSpec {
    std::string name;              // "H100 SXM"
    std::vector<std::string> ids;  // strings that identify it in gpu_model / nvidia-smi names
    double bf16_tflops = 0;
    double fp16_tflops = 0;
    double fp8_tflops = 0;         // 0: no FP8 (FP8 runs at the bf16 rate)
    double hbm_gbyte_s = 0;        // GPU memory bandwidth, GB/s
    double memory_gib = 0;
    std::string source;            // "layouts/gpus/h100-sxm.json"
    /// The measured kernel table the compute model prices ops from: this GPU's own, or another GPU's
    /// carried over by the ratio of the datasheets (kernels_derived); null: none (spec-sheet constants).
    std::shared_ptr<const KernelTable> kernels;
    bool kernels_derived = false;

    /// The FP8 peak, or the bf16 one on GPUs without FP8.
    [[nodiscard]] double fp8_or_bf16_tflops() const { return fp8_tflops > 0 ? fp8_tflops : bf16_tflops; }
};

/// The spec a GPU name denotes: its name (case-insensitive), else the spec with the longest id
/// contained in `model` (case-insensitive; "NVIDIA H100 80GB HBM3" → H100 SXM). nullptr when
/// none matches.
[[nodiscard]] const GpuSpec* match_gpu(const std::vector<GpuSpec>& specs, std::string_view model);

}  // namespace planlayout
