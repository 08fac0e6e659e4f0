// Compute model, the kernels: which GPU the layout runs on (choose_gpu) and what prices its
// kernels (choose_kernels: the GPU's measured kernel table, the implementation's blocks in it, the
// attention backend, the optimizer, FP8 and CUDA graphs), docs/cost-model.md, "Compute: kernels".
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "compute_ops.hpp"
#include "planlayout/error.hpp"
#include "planlayout/model/compute_model.hpp"
#include "planlayout/model/numbers/compute.hpp"
#include "planlayout/model/numbers/gpu.hpp"

namespace planlayout {
namespace {

/// The H100 SXM datasheet values (the registry's gpu.h100_sxm.*, as layouts/gpus/h100-sxm.json),
/// for callers that pass no specs.
GpuSpec builtin_default_gpu() {
    GpuSpec g;
    g.name = kDefaultGpuName;
    g.bf16_tflops = numbers::kH100SxmBf16Tflops;
    g.fp16_tflops = numbers::kH100SxmFp16Tflops;
    g.fp8_tflops = numbers::kH100SxmFp8Tflops;
    g.hbm_gbyte_s = numbers::kH100SxmHbmGbyteS;
    g.memory_gib = numbers::kH100SxmMemoryGib;
    g.source = "NVIDIA H100 datasheet (built in)";
    return g;
}

}  // namespace

KernelChoice choose_kernels(const TrainingSpec& t, const GpuSpec& gpu) {
    using compute_ops::choose_host;
    KernelChoice k;
    k.implementation = t.implementation;
    if (!gpu.kernels) {
        return k;
    }
    k.table = gpu.kernels;
    k.derived = gpu.kernels_derived;
    k.mem_scale = k.derived && gpu.hbm_gbyte_s > 0 && gpu.kernels->spec_hbm_gbyte_s > 0
                      ? gpu.kernels->spec_hbm_gbyte_s / gpu.hbm_gbyte_s
                      : 1.0;
    switch (t.implementation) {
        case Implementation::MegatronTe:
            k.blocks = "fused";
            k.attention = AttentionBackend::Cudnn;
            break;
        case Implementation::MegatronLocal:
            k.blocks = "megatron";
            k.attention = AttentionBackend::Unfused;
            break;
        case Implementation::Hf:
            k.blocks = "hf";
            k.attention = AttentionBackend::Cudnn;
            break;
    }
    if (t.attention_backend != AttentionBackend::Auto) {
        k.attention = t.attention_backend;
    }
    k.optimizer = t.resolved_optimizer();
    static constexpr std::array kKeys = {std::pair{OptimizerImpl::FusedFp32, "fused_fp32"},
                                         std::pair{OptimizerImpl::ForeachFp32, "foreach_fp32"},
                                         std::pair{OptimizerImpl::FusedBf16, "fused_bf16"},
                                         std::pair{OptimizerImpl::ForeachBf16, "foreach_bf16"}};
    for (const auto& [o, key] : kKeys) {
        if (o == k.optimizer) {
            const auto it = gpu.kernels->optimizer_ps_per_param.find(key);
            k.optimizer_ps = it == gpu.kernels->optimizer_ps_per_param.end() ? 0.0 : it->second;
        }
    }
    if (!t.fp8.empty()) {
        // delayed and tensorwise run per-tensor-scaled GEMMs; blockwise (1x128 / 128x128 scales) is
        // priced as the row-wise-scaled GEMM, the nearest measured; mxfp8 as per-tensor (Blackwell
        // applies MX scales in the tensor core) with block quantization.
        k.fp8_recipe = t.fp8_recipe.empty() ? "delayed" : t.fp8_recipe;
        k.fp8_gemm = k.fp8_recipe == "blockwise" ? "rowwise" : "tensorwise";
        const std::string quant = k.fp8_recipe == "mxfp8" ? "blockwise" : k.fp8_recipe;
        const auto q = gpu.kernels->fp8_quant_ps.find(quant);
        k.fp8_quant_ps = q == gpu.kernels->fp8_quant_ps.end() ? 0.0 : q->second;
    }
    // A step captured whole in CUDA graphs replays without the host; graphed layers are handled
    // per layer (compute_layers).
    if (t.host_time && t.cuda_graph != CudaGraph::FullIteration) {
        choose_host(k, *gpu.kernels, t.implementation);
    }
    if (t.cuda_graph != CudaGraph::None) {
        k.cuda_graph = std::string(to_string(t.cuda_graph));
        for (std::size_t i = 0; i < t.cuda_graph_modules.size(); ++i) {
            k.cuda_graph += (i == 0 ? " of " : ", ") + t.cuda_graph_modules[i];
        }
        if (!t.cuda_graph_modules.empty()) {
            k.cuda_graph += " (host time kept: not measured per module)";
        }
    }
    const bool fp32_master = k.optimizer == OptimizerImpl::FusedFp32 || k.optimizer == OptimizerImpl::ForeachFp32;
    k.optimizer_extra_bytes = t.implementation != Implementation::Hf && fp32_master ? numbers::kMegatronOptimizerExtraBytes : 0.0;
    return k;
}

GpuChoice choose_gpu(const std::vector<GpuSpec>& specs, const std::string& training_gpu,
                     const std::vector<std::pair<std::string, std::string>>& template_models) {
    if (!training_gpu.empty()) {
        if (const GpuSpec* g = match_gpu(specs, training_gpu)) {
            return {*g, "training.gpu", false};
        }
        std::string list;
        for (const auto& s : specs) {
            list += (list.empty() ? "" : ", ") + s.name;
        }
        throw input_error("training (/training/gpu)", "unknown GPU '" + training_gpu + "'",
                          "use one of the GPUs in layouts/gpus (" + (list.empty() ? std::string("none known") : list) +
                              "), or give \"gpu_peak_tflops\"");
    }
    for (const auto& [name, model] : template_models) {
        if (const GpuSpec* g = match_gpu(specs, model)) {
            return {*g, "gpu_model '" + model + "' of node template " + name, false};
        }
    }
    std::string why = "no GPU named by training.gpu or a node template";
    for (const auto& [name, model] : template_models) {
        if (!model.empty()) {
            why = "gpu_model '" + model + "' of node template " + name + " is not in layouts/gpus";
            break;
        }
    }
    if (const GpuSpec* g = match_gpu(specs, kDefaultGpuName)) {
        return {*g, "default: " + why, true};
    }
    GpuSpec g = builtin_default_gpu();
    return {g, "default: " + why, true};
}

}  // namespace planlayout
