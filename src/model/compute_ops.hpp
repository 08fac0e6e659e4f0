// Compute model, its private header (src/model/, not installed): the types and functions the
// compute model's sources share (compute_ops.cpp defines the ops, compute_kernels.cpp,
// compute_host.cpp and compute_schedule.cpp use them). The public interface is
// planlayout/model/compute_model.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "planlayout/model/compute_model.hpp"
#include "planlayout/model/numbers/compute.hpp"
#include "planlayout/model/numbers/memory.hpp"

namespace planlayout::compute_ops {

/// The layer kinds, each computed once: dense or MoE × full or sliding-window attention; a kind's
/// index is MoE + windowed, as the enumerators' values are.
enum LayerKind : std::size_t { DenseFull, MoeFull, DenseWindowed, MoeWindowed, LayerKindCount };
constexpr std::size_t kLayerKinds = LayerKindCount;

/// One op's work and time.
struct Work {
    double flops = 0;
    double bytes = 0;
    double seconds = 0;
    double memory_s = 0;  // the bandwidth-bound part of seconds (seconds when memory-bound)
    // FP8 GEMMs: the quantization their operands need, apart from `seconds` (gemm_entry adds it):
    // forward (the input, and the weight's share) and backward (the output gradient).
    double quant_fwd_s = 0;
    double quant_bwd_s = 0;
};

inline Work operator*(Work w, double k) {
    w.flops *= k;
    w.bytes *= k;
    w.seconds *= k;
    w.memory_s *= k;
    w.quant_fwd_s *= k;
    w.quant_bwd_s *= k;
    return w;
}

inline Work& operator+=(Work& a, const Work& b) {
    a.flops += b.flops;
    a.bytes += b.bytes;
    a.seconds += b.seconds;
    a.memory_s += b.memory_s;
    a.quant_fwd_s += b.quant_fwd_s;
    a.quant_bwd_s += b.quant_bwd_s;
    return a;
}

inline Work operator+(Work a, const Work& b) { return a += b; }

/// The GPU's rates as the model uses them.
struct Rates {
    double gemm_flops_s = 0;  // peak for GEMMs (fp8 when training.fp8)
    double attn_flops_s = 0;  // bf16 peak (attention stays bf16)
    double hbm_bytes_s = 0;
    double scale = 1;         // compute_scale: multiplies the efficiency of compute-bound ops
    double beta = numbers::kHalfBytes;  // activation bytes
    // The measured kernel table (null: the spec-sheet constants price everything).
    const KernelTable* table = nullptr;
    const ImplementationBlocks* blocks = nullptr;  // the implementation's memory-bound blocks
    double mem_scale = 1;     // the table's picoseconds carried to this GPU: table GPU's HBM / this GPU's
    AttentionBackend attention = AttentionBackend::Cudnn;
    double optimizer_ps = 0;  // per trained parameter
    double optimizer_extra_bytes = 0;  // per parameter, around the step (fp32 master: grad norm, copy-back, zero)
    // FP8 with a measured table: GEMMs at the bf16 rate times the measured speedup of `fp8_gemm`,
    // operands quantized at quant_ps per element; a weight's cast is shared by the step's
    // micro-batches (Transformer Engine keeps it from the first), weight_share = 1 / micro-batches.
    std::string fp8_gemm;
    double bf16_flops_s = 0;
    double quant_ps = 0;
    double weight_share = 1;
};

/// One entry of a layer: forward and backward work, whether recompute repeats it.
struct LayerEntry {
    std::string name;
    Work fwd;
    Work bwd;
    std::string_view module;     // the part of the layer it belongs to (kRecomputeModules; "" none):
                                 // selective recompute repeats it when the module is recomputed
    double model_flops = 0;      // useful FLOPs fwd + bwd (no padding), per rank
};

struct Layer {
    std::vector<LayerEntry> entries;
};

struct Shape {
    double tokens = 0;        // T: tokens of one micro-batch on one CP rank (TP ranks share them)
    double tokens_local = 0;  // tokens each rank holds outside the GEMMs (T / tp with sequence parallel)
    double tp = 1;
    bool frozen = false;      // LoRA: base weights frozen
};

/// The rates of one GPU for this run (compute_ops.cpp defines the ops below).
[[nodiscard]] Rates rates_for(const ModelSpec& m, const TrainingSpec& t, const GpuSpec& gpu, const KernelChoice& kc,
                              double scale, int micro_batches);
/// The same rates with FP8 off: the layers Transformer Engine keeps in bf16 (output layer, router).
[[nodiscard]] Rates bf16_rates(Rates r);
/// `count` dense GEMMs of M×K by K×N.
[[nodiscard]] Work gemm(const Rates& r, double m, double n, double k, double count = 1.0);
/// `bytes` moved at the GPU's bandwidth.
[[nodiscard]] Work memory_op(const Rates& r, double bytes);
/// A measured block over `elements` (picoseconds per element from the table).
[[nodiscard]] Work measured(const Rates& r, double ps, double elements);
/// A GEMM entry: backward = dgrad + wgrad (dgrad only when frozen), FP8 quantization added.
[[nodiscard]] LayerEntry gemm_entry(const std::string& name, const Work& fwd, bool frozen, double useful = 1.0,
                                    double replicated = 1.0);
/// A memory-bound entry: its backward numbers::kElementwiseBackwardFactor × its forward.
[[nodiscard]] LayerEntry memory_entry(const std::string& name, const Work& fwd);
/// One measured block of the implementation over `elements`.
[[nodiscard]] LayerEntry block_entry(const std::string& name, const Rates& r, const BlockCost& c, double elements);
/// Core attention from the kernel table (fused backend, or the unfused cost per score element).
[[nodiscard]] LayerEntry measured_attention(const Rates& r, double fwd_flops, double fwd_bytes, double scores,
                                            double head_dim, double seq_call);
/// One layer of a kind (dense or MoE, full or sliding-window attention): its entries.
[[nodiscard]] Layer make_layer(bool moe, bool windowed, const ModelSpec& m, const TrainingSpec& t,
                               const ParallelSizes& p, const Rates& r, const Shape& sh);

/// The host section for the implementation (compute_host.cpp); k.host_gap says why none.
void choose_host(KernelChoice& k, const KernelTable& table, Implementation impl);
/// Why the host section does not apply to this model (Why::None: it does).
[[nodiscard]] HostGap host_range_gap(const HostTime& h, const ModelSpec& m, double local_experts);
/// Each stage's host time per micro-batch outside its layers, added to its passes.
void add_stage_base_host(std::vector<StageTime>& stages, const PassUs& base, const LayerEntry& embedding,
                         const LayerEntry& output, const LayerEntry& loss, double full_rc);

/// compute_breakdown at the rates of one pass (compute_schedule.cpp).
[[nodiscard]] ComputeBreakdown breakdown_once(const ModelSpec& m, const TrainingSpec& t, const ParallelSizes& p,
                                              const GpuSpec& gpu, double compute_scale);

}  // namespace planlayout::compute_ops
