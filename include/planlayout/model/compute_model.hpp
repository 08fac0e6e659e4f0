// Model: compute per GPU from the GPU and the layout (docs/cost-model.md, "Compute"): the ops
// one layer and micro-batch implies on one rank, each timed as max(FLOPs / (peak × efficiency ×
// compute_scale), bytes / memory bandwidth); stages from the layer split; the 1F1B / interleaved
// pipeline schedule; MFU as an output. Pure: no I/O.
#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/model/model_spec.hpp"
#include "planlayout/model/numbers/compute.hpp"
#include "planlayout/model/traffic.hpp"
#include "planlayout/topology/gpu_spec.hpp"

namespace planlayout {

// The model's numbers are read from the registry (planlayout/model/numbers/compute.def: class,
// source, range) as numbers::k…; docs/cost-model.md ("Compute: efficiency") explains them.

/// The GPU when neither training.gpu nor the node templates name a known one.
inline constexpr const char* kDefaultGpuName = "H100 SXM";

/// GEMM efficiency (share of the dense peak) of an M×K by K×N product on the prior curve:
/// numbers::kGemmEfficiencyMax × Π over M, N, K of x / (x + numbers::kGemmHalfDim). Increasing in every dimension.
/// The fallback: a GPU whose kernel table has a measured `gemm` section prices its bf16 GEMMs from
/// that (GemmTable::efficiency).
[[nodiscard]] double gemm_efficiency(double m, double n, double k);
/// Flash attention's efficiency for a kernel over `seq` query and key positions.
[[nodiscard]] double attention_efficiency(double seq);

/// One operation as the model times it on its own (a GEMM micro-benchmark, a flash-attention call,
/// a bandwidth-bound kernel), with the very functions the layer model uses: `calibrate --ops`
/// checks them against measured kernels.
enum class ModelOpKind { Gemm, AttentionForward, AttentionBackward, Memory };

struct ModelOp {
    ModelOpKind kind = ModelOpKind::Gemm;
    double m = 0, n = 0, k = 0;  // Gemm: M×K by K×N ...
    double count = 1;            // ... `count` times (grouped expert GEMMs: one per local expert)
    bool fp8 = false;            // Gemm at the FP8 peak, 1-byte operands
    double batch = 0, heads = 0, seq = 0, head_dim = 0;  // attention: causal, S queries and keys
    double bytes = 0;            // Memory: bytes moved
};

/// The model's time for one op: max(FLOPs / (peak × efficiency(shape) × compute_scale), bytes /
/// memory bandwidth), attention backward numbers::kAttentionBackwardFactor × its forward.
[[nodiscard]] double op_seconds(const ModelOp& op, const GpuSpec& gpu, double compute_scale = 1.0);

/// Which GPU the layout runs on, and where that came from.
struct GpuChoice {
    GpuSpec spec;
    std::string source;  // "training.gpu", "node template X (gpu_model ...)", "default: ..."
    bool is_default = false;
};

/// training.gpu (a spec name or id) when given, else the first used node template's gpu_model
/// that matches a spec, else kDefaultGpuName (from `specs`, or the H100 SXM datasheet values when
/// `specs` lacks it). Throws Error (BadInput) for a training.gpu no spec matches.
/// `template_models`: the used templates' (name, gpu_model), in template order.
[[nodiscard]] GpuChoice choose_gpu(const std::vector<GpuSpec>& specs, const std::string& training_gpu,
                                   const std::vector<std::pair<std::string, std::string>>& template_models);


/// What prices a layout's kernels (docs/cost-model.md, "Compute: kernels"): the GPU's measured
/// table, the implementation's blocks in it, the attention backend and optimizer the training spec
/// resolves to, and the factor that carries the table's memory-bound times to this GPU.
/// Why a step's host time is not modelled although training.host_time asked for it: the kernel
/// table has no host section; it was measured on another implementation (not carried over:
/// Transformer Engine does not install on the lent machines); or the model lies outside the
/// hidden sizes (value, lo..hi) or local expert counts (value, ..hi) it was measured on.
struct HostGap {
    enum class Why { None, NoSection, Implementation, Hidden, Experts };
    Why why = Why::None;
    std::string measured_for;  // the implementation(s) the table's host time was measured on
    double value = 0;
    double lo = 0;
    double hi = 0;
};

struct KernelChoice {
    std::shared_ptr<const KernelTable> table;  // null: none (the spec-sheet constants)
    std::string blocks;                        // the table's block set: "fused", "megatron", "hf"
    Implementation implementation = Implementation::MegatronTe;
    AttentionBackend attention = AttentionBackend::Cudnn;
    OptimizerImpl optimizer = OptimizerImpl::FusedFp32;
    double optimizer_ps = 0;           // per parameter, measured
    double optimizer_extra_bytes = 0;  // per parameter around the step
    double mem_scale = 1;              // the table GPU's HBM bandwidth / this GPU's (datasheets)
    bool derived = false;              // measured on another GPU
    // FP8 (training.fp8): the recipe, the measured GEMM variant its GEMMs run as, and the
    // quantization cost per element (cast + transpose, and the amax pass of current scaling).
    std::string fp8_recipe;            // "" without FP8
    std::string fp8_gemm;              // "tensorwise" or "rowwise" (the table's gemm_fp8 curve)
    double fp8_quant_ps = 0;
    // Host time (the table's `host`): the section measured on this implementation, "" when none;
    // host_gap says why not when it was asked for.
    std::string host;
    HostGap host_gap;
    // CUDA graphs (training.cuda_graph): "" none; "layers" (their host time not priced), "layers of
    // attn, mlp" (modules only: the host time kept, not measured per module), "full_iteration".
    std::string cuda_graph;
    // The power limit (the table's `power` curve, on the GPUs it names): the share of the step the
    // compute-bound kernels fill at burst rates, and the share of their burst rate they sustain
    // there (1: not applied); power_gpu is the GPU the curve was measured on ("" when not applied).
    double power_duty = 0;
    double power_ratio = 1;
    std::string power_gpu;
};

/// The choice for this training spec on this GPU (Auto attention and optimizer resolved by the
/// implementation: MegatronTe cuDNN + fused fp32 Adam, MegatronLocal unfused + foreach fp32, Hf
/// cuDNN (what SDPA picks on Hopper) + foreach on the bf16 weights).
[[nodiscard]] KernelChoice choose_kernels(const TrainingSpec& t, const GpuSpec& gpu);

/// One operation kind, summed over the slowest stage's layers and micro-batches of one step.
struct ComputeOp {
    std::string name;         // "experts", "attention", "mlp", ...
    double flops = 0;         // per GPU per step
    double bytes = 0;         // HBM bytes per GPU per step
    double seconds = 0;
    bool memory_bound = false;  // most of its time is bound by memory bandwidth
    bool host_bound = false;    // "host": the time passes wait on the host beyond their GPU work
};

/// One pipeline stage (all its virtual chunks), per micro-batch.
struct StageTime {
    int layers = 0;
    int moe_layers = 0;
    double fwd_s = 0;
    double bwd_s = 0;  // with recompute
    double host_wait_s = 0;  // of fwd_s + bwd_s: passes waiting on the host beyond their GPU work
};

struct ComputeBreakdown {
    bool modelled = false;         // false: compute_time_s or mfu gave it (the flat model)
    std::string basis = "ops";     // "ops" (the model), "mfu" or "compute_time_s" (given)
    std::vector<ComputeOp> ops;    // slowest stage, largest first (modelled only)
    std::vector<StageTime> stages; // per stage (modelled only)
    int slowest_stage = 0;
    int micro_batches = 1;
    double optimizer_s = 0;        // per step, on the slowest stage's GPU
    double host_wait_s = 0;        // per step: of comp_s, the host's time beyond the GPU's work
    double comp_s = 0;             // per GPU per step: m × (fwd + bwd) of the slowest stage + optimizer
    double bubble_s = 0;           // pipeline bubble
    double fwd_s = 0;              // forward share of comp_s
    double bwd_s = 0;              // backward share of comp_s (optimizer excluded)
    double model_flops = 0;        // per step over all GPUs (no recompute, no capacity padding)
    double peak_tflops = 0;        // the dense bf16 peak MFU is measured against
    double gpus = 1;
    KernelChoice kernels;          // what priced the ops (table null: the spec-sheet constants)
};

/// Layers per virtual chunk (pp × vpp chunks, in layer order: chunk c = j·pp + stage): the even
/// split, and the remainder one extra layer each to the first chunks.
[[nodiscard]] std::vector<int> layers_per_chunk(int layers, int pp, int vpp);

/// The schedule's time from per-stage times: m·max(f+b) + (Σ(f+b) − max(f+b)) / v (1F1B for
/// v = 1, interleaved otherwise; equal stages give the bubble (p−1)/(v·m) of one stage's work).
struct ScheduleTime {
    double busy_s = 0;    // m × (f + b) of the slowest stage
    double bubble_s = 0;
    int slowest = 0;
};

[[nodiscard]] ScheduleTime pipeline_schedule(const std::vector<StageTime>& stages, int micro_batches, int vpp);

/// The compute model for one layout on one GPU, with compute-bound ops' efficiency × scale; where
/// the GPU's kernel table has a power curve for it, priced once at burst rates for the duty (the
/// compute-bound ops' share of comp + bubble) and again with their efficiency × the curve's ratio
/// at that duty (docs/cost-model.md, "Compute: the power limit").
[[nodiscard]] ComputeBreakdown compute_breakdown(const ModelSpec& m, const TrainingSpec& t, const ParallelSizes& p,
                                                 const GpuSpec& gpu, double compute_scale);

/// The flat model (training.mfu given, or compute_time_s): comp = flops_factor·N_active·tokens /
/// (gpus · peak · mfu · scale), or compute_time_s as given; bubble comp·(p−1)/(v·m).
[[nodiscard]] ComputeBreakdown flat_compute(const ModelSpec& m, const TrainingSpec& t, const ParallelSizes& p,
                                            double peak_tflops, double compute_scale);


/// The anchoring solve: the compute_scale in [numbers::kMinComputeScale, numbers::kMaxComputeScale] at which
/// step_at(scale) equals `measured` (bisection in log scale; the step falls as the scale grows).
/// clamped: the measurement lies outside what the range can predict (scale at the nearer end).
struct ScaleFit {
    double scale = 1;
    bool clamped = false;
    double step_s = 0;  // step_at(scale)
};

template <class StepAt>
[[nodiscard]] ScaleFit fit_compute_scale(const StepAt& step_at, double measured) {
    double lo = std::log(numbers::kMinComputeScale);  // slow compute: the longest step
    double hi = std::log(numbers::kMaxComputeScale);
    ScaleFit f;
    const double slowest = step_at(numbers::kMinComputeScale);
    const double fastest = step_at(numbers::kMaxComputeScale);
    if (measured >= slowest || measured <= fastest) {
        f.clamped = !(measured == slowest || measured == fastest);
        f.scale = measured >= slowest ? numbers::kMinComputeScale : numbers::kMaxComputeScale;
        f.step_s = measured >= slowest ? slowest : fastest;
        return f;
    }
    for (int i = 0; i < numbers::kScaleFitSteps.count() && hi - lo > numbers::kScaleFitTolerance; ++i) {
        const double mid = numbers::kBisectionMidpoint * (lo + hi);
        (step_at(std::exp(mid)) > measured ? lo : hi) = mid;
    }
    f.scale = std::exp(numbers::kBisectionMidpoint * (lo + hi));
    f.step_s = step_at(f.scale);
    return f;
}

/// MFU of a step: model FLOPs / (step × peak × GPUs); 0 when the step is 0.
[[nodiscard]] double mfu_of(const ComputeBreakdown& c, double step_s);

}  // namespace planlayout
