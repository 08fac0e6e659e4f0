// Compute model: ops per layer and micro-batch on one rank, stages, pipeline schedule, MFU.
// Over 500 lines: the op model of one layer (Work and Rates: each GEMM, attention and memory-bound
// op priced from the spec sheet or the measured kernel table) and the stage, schedule and MFU sums
// over it share those file-local types.
// to split: the kernel-table and GPU choice (choose_kernels, choose_gpu) and the pipeline schedule
// (layers_per_chunk, pipeline_schedule) use neither type and could each be a source of their own.
#include "planlayout/model/compute_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "planlayout/error.hpp"
#include "planlayout/model/numbers/compute.hpp"
#include "planlayout/model/numbers/gpu.hpp"
#include "planlayout/model/numbers/memory.hpp"
#include "planlayout/model/units.hpp"

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

Work operator*(Work w, double k) {
    w.flops *= k;
    w.bytes *= k;
    w.seconds *= k;
    w.memory_s *= k;
    w.quant_fwd_s *= k;
    w.quant_bwd_s *= k;
    return w;
}

Work& operator+=(Work& a, const Work& b) {
    a.flops += b.flops;
    a.bytes += b.bytes;
    a.seconds += b.seconds;
    a.memory_s += b.memory_s;
    a.quant_fwd_s += b.quant_fwd_s;
    a.quant_bwd_s += b.quant_bwd_s;
    return a;
}

Work operator+(Work a, const Work& b) { return a += b; }

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

/// The same rates with FP8 off: the layers Transformer Engine keeps in bf16 (output layer, router).
Rates bf16_rates(Rates r) {
    r.fp8_gemm.clear();
    r.quant_ps = 0;
    if (r.bf16_flops_s > 0) {
        r.gemm_flops_s = r.bf16_flops_s;
    }
    return r;
}

/// One kernel: max(compute time, memory time, numbers::kKernelFloorSeconds); `bytes` moved at `bytes_s`.
Work timed(double flops, double bytes, double flops_s, double bytes_s) {
    Work w{flops, bytes, 0, 0};
    const double tc = flops_s > 0 ? flops / flops_s : 0.0;
    const double tm = bytes > 0 ? bytes / bytes_s : 0.0;
    w.seconds = std::max({tc, tm, flops > 0 || bytes > 0 ? numbers::kKernelFloorSeconds.value : 0.0});
    w.memory_s = tm >= tc ? w.seconds : 0.0;
    return w;
}

/// `count` GEMMs of M×K by K×N at `efficiency` of the bf16 peak (of the GEMM peak without a measured
/// FP8 curve): 2MNK FLOPs each, inputs and output read/written once.
Work gemm_at(const Rates& r, double m, double n, double k, double count, double efficiency) {
    if (m <= 0 || n <= 0 || k <= 0 || count <= 0) {
        return {};
    }
    const double flops = numbers::kFlopsPerMac * m * n * k * count;
    const double bytes = r.beta * (m * k + k * n + m * n) * count;
    if (r.fp8_gemm.empty() || r.table == nullptr) {
        return timed(flops, bytes, r.gemm_flops_s * efficiency * r.scale, r.hbm_bytes_s);
    }
    const double speedup = r.table->fp8_speedup(r.fp8_gemm, m, n, k).value_or(1.0);
    Work w = timed(flops, bytes, r.bf16_flops_s * efficiency * speedup * r.scale, r.hbm_bytes_s);
    const double ps = r.quant_ps * units::kPico * r.mem_scale * count;
    w.quant_fwd_s = ps * (m * k + n * k * r.weight_share);
    w.quant_bwd_s = ps * m * n;
    return w;
}

/// A dense bf16 GEMM's efficiency: from the table's measured GEMMs when it has them (its grid,
/// clamped to the measured range), else the prior curve (gemm_efficiency).
double dense_efficiency(const Rates& r, double m, double n, double k) {
    if (r.table != nullptr) {
        if (const auto e = r.table->gemm.efficiency(m, n, k)) {
            return *e;
        }
    }
    return gemm_efficiency(m, n, k);
}

Work gemm(const Rates& r, double m, double n, double k, double count = 1.0) {
    return gemm_at(r, m, n, k, count, dense_efficiency(r, m, n, k));
}

/// `local` experts' GEMMs of `tokens` x K by K x N each: one grouped GEMM at its measured efficiency
/// for the tokens per expert when the table has the curve and the run groups them, else one GEMM
/// per expert, priced as a dense GEMM.
Work expert_gemm(const Rates& r, bool grouped, double tokens, double n, double k, double local) {
    const auto eff = grouped && r.table != nullptr ? r.table->grouped_efficiency(tokens, k, n) : std::nullopt;
    return gemm_at(r, tokens, n, k, local, eff.value_or(dense_efficiency(r, tokens, n, k)));
}

/// Flash attention's forward over `seq` query and key positions per kernel call.
Work attention_fwd(const Rates& r, double flops, double bytes, double seq) {
    return timed(flops, bytes, r.attn_flops_s * attention_efficiency(seq) * r.scale, r.hbm_bytes_s);
}

Work memory_op(const Rates& r, double bytes) { return timed(0.0, bytes, 0.0, r.hbm_bytes_s); }

/// A measured block over `elements`: picoseconds per element from the table, carried to this GPU;
/// bytes reported as what that time moves at this GPU's bandwidth.
Work measured(const Rates& r, double ps, double elements) {
    if (elements <= 0 || ps <= 0) {
        return {};
    }
    const double seconds = std::max(ps * units::kPico * elements * r.mem_scale, numbers::kKernelFloorSeconds.value);
    return {0.0, seconds * r.hbm_bytes_s, seconds, seconds};
}


/// One entry of a layer: forward and backward work, whether recompute repeats it.
struct LayerEntry {
    std::string name;
    Work fwd;
    Work bwd;
    std::string_view module;     // the part of the layer it belongs to (kRecomputeModules; "" none):
                                 // selective recompute repeats it when the module is recomputed
    double model_flops = 0;      // useful FLOPs fwd + bwd (no padding), per rank
};

/// A GEMM entry: backward = dgrad + wgrad, each the forward's shape permuted (same FLOPs, bytes
/// and efficiency), only dgrad when the weights are frozen (LoRA).
/// FP8 operands' quantization (quant_fwd_s, quant_bwd_s) is added to each pass as memory-bound time.
LayerEntry gemm_entry(const std::string& name, const Work& fwd, bool frozen, double useful = 1.0, double replicated = 1.0) {
    const double bwd_factor = frozen ? 1.0 : double{numbers::kGemmBackwardFactor};
    Work f = fwd;
    Work b = fwd * bwd_factor;
    f.seconds += fwd.quant_fwd_s;
    f.memory_s += fwd.quant_fwd_s;
    b.seconds += fwd.quant_bwd_s;
    b.memory_s += fwd.quant_bwd_s;
    f.quant_fwd_s = f.quant_bwd_s = b.quant_fwd_s = b.quant_bwd_s = 0;
    return {name, f, b, {}, fwd.flops * (1.0 + bwd_factor) * useful / replicated};
}

LayerEntry memory_entry(const std::string& name, const Work& fwd) {
    return {name, fwd, fwd * numbers::kElementwiseBackwardFactor, {}, 0.0};
}

/// Measured blocks, each over its elements, summed into one entry (forward and backward apart).
LayerEntry blocks_entry(const std::string& name, const Rates& r, const std::vector<std::pair<BlockCost, double>>& parts) {
    LayerEntry e{name, {}, {}, {}, 0.0};
    for (const auto& [c, elements] : parts) {
        e.fwd += measured(r, c.fwd_ps, elements);
        e.bwd += measured(r, c.bwd_ps, elements);
    }
    return e;
}

LayerEntry block_entry(const std::string& name, const Rates& r, const BlockCost& c, double elements) {
    return blocks_entry(name, r, {{c, elements}});
}

struct Layer {
    std::vector<LayerEntry> entries;
};

struct Shape {
    double tokens = 0;        // T: tokens of one micro-batch on one CP rank (TP ranks share them)
    double tokens_local = 0;  // tokens each rank holds outside the GEMMs (T / tp with sequence parallel)
    double tp = 1;
    bool frozen = false;      // LoRA: base weights frozen
};

/// Core attention from the kernel table: a fused backend at its measured efficiency (forward and
/// backward each) for this head dim and sequence; unfused, the implementation's measured cost per
/// score element (`scores`: tokens x keys x local heads).
LayerEntry measured_attention(const Rates& r, double fwd_flops, double fwd_bytes, double scores, double head_dim,
                         double seq_call) {
    LayerEntry core;
    core.name = "attention";
    if (r.attention == AttentionBackend::Unfused && r.blocks != nullptr && r.blocks->unfused_attention) {
        core.fwd = measured(r, r.blocks->unfused_attention->fwd_ps, scores);
        core.bwd = measured(r, r.blocks->unfused_attention->bwd_ps, scores);
        core.fwd.flops = fwd_flops;
        core.bwd.flops = fwd_flops * numbers::kAttentionBackwardFactor;
        return core;
    }
    const AttentionBackend b = r.attention == AttentionBackend::Unfused ? AttentionBackend::Cudnn : r.attention;
    const double ef = r.table->attention_efficiency(b, head_dim, seq_call, false).value_or(numbers::kAttentionEfficiencyMax);
    const double eb = r.table->attention_efficiency(b, head_dim, seq_call, true).value_or(numbers::kAttentionEfficiencyMax);
    core.fwd = timed(fwd_flops, fwd_bytes, r.attn_flops_s * ef * r.scale, r.hbm_bytes_s);
    core.bwd = timed(fwd_flops * numbers::kAttentionBackwardFactor, numbers::kAttentionBackwardBytesFactor * fwd_bytes, r.attn_flops_s * eb * r.scale, r.hbm_bytes_s);
    return core;
}

void add_attention(Layer& l, const ModelSpec& m, const TrainingSpec& t, const ParallelSizes& p, const Rates& r,
                   const Shape& sh, bool windowed) {
    const double h = m.hidden;
    const double tokens = sh.tokens;
    const double tp = sh.tp;
    const double heads = m.heads;
    double dqk = m.derived_head_dim();
    double dv = dqk;
    Work proj;
    double replicated_flops = 0;  // down-projections every TP rank runs whole (MLA)
    if (m.mla) {
        const MlaSpec& a = *m.mla;
        dqk = a.qk_head_dim + a.qk_rope_head_dim;
        dv = a.v_head_dim;
        if (a.q_lora_rank > 0) {
            const Work down = gemm(r, tokens, a.q_lora_rank, h);
            proj += down;
            replicated_flops += down.flops;
            proj += gemm(r, tokens, heads * dqk / tp, a.q_lora_rank);
        } else {
            proj += gemm(r, tokens, heads * dqk / tp, h);
        }
        const Work kv_down = gemm(r, tokens, a.kv_lora_rank + a.qk_rope_head_dim, h);
        proj += kv_down;
        replicated_flops += kv_down.flops;
        proj += gemm(r, tokens, heads * (a.qk_head_dim + a.v_head_dim) / tp, a.kv_lora_rank);
    } else {
        const double kv = m.derived_kv_heads();
        proj += gemm(r, tokens, (heads + numbers::kKvProjections * kv) * dqk / tp, h);
    }
    LayerEntry qkv = gemm_entry("qkv", proj, sh.frozen);
    qkv.model_flops -= replicated_flops * (1.0 + (sh.frozen ? 1.0 : double{numbers::kGemmBackwardFactor})) * (1.0 - 1.0 / tp);
    l.entries.push_back(qkv);
    // Core attention (flash, causal): per rank tokens queries against s/2 keys on average (CP splits
    // the queries, load-balanced); QKᵀ and PV: 2·tokens·(s/2)·(dqk + dv) FLOPs per local head. A
    // sliding-window layer: query p sees min(W, p) keys, W − W²/(2s) on average (docs/cost-model.md).
    const double s = t.seq_len;
    const double w = std::min<double>(m.sliding_window, s);
    const double keys2 = windowed && s > 0 ? numbers::kFlopsPerMac * (w - w * w / (numbers::kWindowMeanDivisor * s))
                                           : s;  // twice the mean keys per query
    const double heads_local = heads / tp;
    const double fwd_flops = tokens * keys2 * (dqk + dv) * heads_local;
    const double kv_width = m.kv_dim();
    const double fwd_bytes = r.beta * tokens * (heads_local * (dqk + dv) + numbers::kKvProjections * kv_width / tp);
    const double seq_call = s / p.cp;  // one ring-attention step sees s/cp queries and keys
    LayerEntry core;
    core.name = "attention";
    core.fwd = attention_fwd(r, fwd_flops, fwd_bytes, seq_call);
    core.bwd = core.fwd * numbers::kAttentionBackwardFactor;
    if (r.table != nullptr) {
        core = measured_attention(r, fwd_flops, fwd_bytes, tokens * s * heads_local, dqk, seq_call);
    }
    core.module = "core_attn";
    core.model_flops = fwd_flops * (1.0 + numbers::kAttentionBackwardFactor);
    l.entries.push_back(core);
    l.entries.push_back(gemm_entry("attn_out", gemm(r, tokens, h, heads * dv / tp), sh.frozen));
    if (r.blocks != nullptr && !m.mla) {
        const double rope_el = tokens * (heads + m.derived_kv_heads()) / tp * dqk;
        l.entries.push_back(block_entry("rope", r, r.blocks->rope, rope_el));
    }
}

/// The FFN's activation over `elements` (tokens x width): the implementation's measured gated
/// block (SwiGLU; a plain GELU is priced the same), else its bytes at the bandwidth.
/// `module`: the recompute module it belongs to (mlp, moe_act, shared_experts).
void add_activation(Layer& l, const ModelSpec& m, const Rates& r, double elements, std::string_view module) {
    if (r.blocks != nullptr) {
        l.entries.push_back(block_entry("activation", r, r.blocks->swiglu, elements));
    } else {
        l.entries.push_back(memory_entry("activation", memory_op(r, (m.ffn_gated ? numbers::kGatedActivationAccesses : numbers::kPlainActivationAccesses) * r.beta * elements)));
    }
    l.entries.back().module = module;
}

void add_mlp(Layer& l, std::string_view name, const ModelSpec& m, const Rates& r, const Shape& sh, double width) {
    if (width <= 0) {
        return;
    }
    const double up = (m.ffn_gated ? double{numbers::kGatedUpProjections} : 1.0) * width / sh.tp;
    Work w = gemm(r, sh.tokens, up, m.hidden);
    w += gemm(r, sh.tokens, m.hidden, width / sh.tp);
    l.entries.push_back(gemm_entry(std::string(name), w, sh.frozen));
    l.entries.back().module = name;  // "mlp" or "shared_experts", as Megatron's recompute modules
}

void add_moe(Layer& l, const ModelSpec& m, const TrainingSpec& /*t*/, const ParallelSizes& p, const Rates& r,
             const Shape& sh) {
    const double h = m.hidden;
    const double e = m.experts;
    // Router: the tokens each rank holds, against every expert (replicated over TP without SP).
    const std::size_t first = l.entries.size();
    l.entries.push_back(gemm_entry("router", gemm(bf16_rates(r), sh.tokens_local, e, h), false, 1.0,
                                   sh.tokens_local < sh.tokens ? 1.0 : sh.tp));
    // Routed experts: each local expert gets T·topk·cf·ep·etp / (tp·E) tokens (an even share of
    // the stage's token-expert pairs over the expert replicas); E/ep experts per rank, split by etp.
    const double cf = std::max(1.0, m.capacity_factor);
    const double ffn_e = m.derived_moe_ffn_hidden();
    const double local = e / std::max(1, p.ep);
    const double per_expert = sh.tokens * m.topk * cf * p.ep * p.etp / (sh.tp * e);
    const double width = ffn_e / std::max(1, p.etp);
    Work w = expert_gemm(r, m.grouped_gemm, per_expert, (m.ffn_gated ? double{numbers::kGatedUpProjections} : 1.0) * width, h, local);
    w += expert_gemm(r, m.grouped_gemm, per_expert, h, width, local);
    l.entries.push_back(gemm_entry("experts", w, sh.frozen, 1.0 / cf));
    // Permute and unpermute: each routed token copy read and written, both ways.
    const double routed = sh.tokens_local * m.topk * cf;
    if (r.blocks != nullptr && r.blocks->moe_routing && r.blocks->moe_tokens) {
        l.entries.push_back(blocks_entry("permute", r, {{*r.blocks->moe_routing, routed * h}, {*r.blocks->moe_tokens, sh.tokens_local * h}}));
    } else {
        l.entries.push_back(memory_entry("permute", memory_op(r, numbers::kPermuteAccesses * routed * h * r.beta)));
    }
    for (std::size_t i = first; i < l.entries.size(); ++i) {
        l.entries[i].module = "moe";  // router, experts, permute: Megatron's "moe" recompute module
    }
    add_activation(l, m, r, per_expert * local * width, "moe_act");
    add_mlp(l, "shared_experts", m, r, sh, m.derived_shared_ffn_hidden());
    if (m.derived_shared_ffn_hidden() > 0) {
        add_activation(l, m, r, sh.tokens * m.derived_shared_ffn_hidden() / sh.tp, "shared_experts");
    }
}

Layer make_layer(bool moe, bool windowed, const ModelSpec& m, const TrainingSpec& t, const ParallelSizes& p,
                 const Rates& r, const Shape& sh) {
    Layer l;
    add_attention(l, m, t, p, r, sh, windowed);
    if (moe) {
        add_moe(l, m, t, p, r, sh);
    } else {
        const double ffn = m.derived_ffn_hidden();
        add_mlp(l, "mlp", m, r, sh, ffn);
        add_activation(l, m, r, sh.tokens * ffn / sh.tp, "mlp");
    }
    const double th = sh.tokens_local * m.hidden;
    if (r.blocks != nullptr) {  // two norms and two residual adds per layer
        l.entries.push_back(blocks_entry("norms", r, {{r.blocks->rmsnorm, numbers::kNormsPerLayer * th},
                                                        {r.blocks->residual, numbers::kResidualAddsPerLayer * th}}));
    } else {
        l.entries.push_back(memory_entry("norms", memory_op(r, numbers::kNormResidualAccesses * th * r.beta)));
    }
    l.entries.back().module = "layernorm";  // norms with the residual adds beside them
    return l;
}

/// One layer kind's sums per micro-batch.
struct LayerSum {
    double fwd_s = 0;
    double bwd_s = 0;
    double selective_s = 0;  // forward of what selective recompute repeats
    double model_flops = 0;
};

/// Per-op totals accumulated over a stage.
struct Totals {
    std::vector<ComputeOp> ops;
    std::vector<double> memory_s;  // per op, the bandwidth-bound part of its seconds
    double fwd_s = 0;
    double bwd_s = 0;
    double model_flops = 0;

    void add(const std::string& name, const Work& w) {
        auto it = std::find_if(ops.begin(), ops.end(), [&](const ComputeOp& o) { return o.name == name; });
        if (it == ops.end()) {
            ops.push_back({name, 0, 0, 0, false});
            memory_s.push_back(0);
            it = ops.end() - 1;
        }
        it->flops += w.flops;
        it->bytes += w.bytes;
        it->seconds += w.seconds;
        memory_s[static_cast<std::size_t>(it - ops.begin())] += w.memory_s;
    }

    /// `count` copies of an entry, with recompute repeating `recompute` of its forward.
    void add_entry(const LayerEntry& e, double count, double recompute) {
        const Work fwd = e.fwd * count;
        const Work bwd = e.bwd * count + e.fwd * (count * recompute);
        fwd_s += fwd.seconds;
        bwd_s += bwd.seconds;
        model_flops += e.model_flops * count;
        Work both = fwd;
        both += bwd;
        add(e.name, both);
    }
};

/// The share of a layer's forward that recompute repeats in the backward.
double recompute_share(const TrainingSpec& t, const LayerEntry& e, double layers_per_chunk) {
    switch (t.recompute) {
        case Recompute::None:
            return 0.0;
        case Recompute::Selective:
            return t.recomputes(e.module) ? 1.0 : 0.0;
        case Recompute::Full:
            if (t.recompute_method == RecomputeMethod::Block && t.recompute_layers > 0 && layers_per_chunk > 0) {
                return std::min(1.0, t.recompute_layers / layers_per_chunk);
            }
            return 1.0;
    }
    return 0.0;
}

}  // namespace

double op_seconds(const ModelOp& op, const GpuSpec& gpu, double compute_scale) {
    Rates r;
    r.gemm_flops_s = (op.fp8 ? gpu.fp8_or_bf16_tflops() : gpu.bf16_tflops) * units::kTera;
    r.attn_flops_s = gpu.bf16_tflops * units::kTera;
    r.hbm_bytes_s = gpu.hbm_gbyte_s * units::kGiga;
    r.scale = compute_scale;
    r.beta = op.fp8 ? 1.0 : double{numbers::kHalfBytes};
    switch (op.kind) {
        case ModelOpKind::Gemm:
            // bf16 GEMMs from the measured ones when the GPU's table has them; FP8 ones at the FP8
            // peak on the prior curve, as before (the table's FP8 curve is a speedup over bf16)
            r.table = op.fp8 ? nullptr : gpu.kernels.get();
            return gemm(r, op.m, op.n, op.k, op.count).seconds;
        case ModelOpKind::AttentionForward:
        case ModelOpKind::AttentionBackward: {
            // 2·B·H·S²·D FLOPs (the causal half of QKᵀ and PV); q, k, v read and o written.
            const double tokens = op.batch * op.seq;
            const double flops = tokens * op.seq * numbers::kAttentionOpFlopsFactor * op.head_dim * op.heads;
            const double bytes = r.beta * tokens * op.heads * op.head_dim * numbers::kAttentionOpTensors;
            if (gpu.kernels) {  // the measured backend (the ops sweep ran SDPA flash)
                r.table = gpu.kernels.get();
                r.attention = AttentionBackend::Flash;
                const LayerEntry e = measured_attention(r, flops, bytes, tokens * op.seq * op.heads, op.head_dim, op.seq);
                return op.kind == ModelOpKind::AttentionForward ? e.fwd.seconds : e.bwd.seconds;
            }
            const Work fwd = attention_fwd(r, flops, bytes, op.seq);
            return op.kind == ModelOpKind::AttentionForward ? fwd.seconds : (fwd * numbers::kAttentionBackwardFactor).seconds;
        }
        case ModelOpKind::Memory:
            return memory_op(r, op.bytes).seconds;
    }
    return 0.0;
}

/// The table's host section measured on this implementation; none for another, whose fit is
/// not carried over (k.host_gap says so).
void choose_host(KernelChoice& k, const KernelTable& table, Implementation impl) {
    const std::string name(to_string(impl));
    for (const auto& [key, h] : table.host) {
        if (h.implementation.empty() || h.implementation == name) {
            k.host = key;
            return;
        }
        k.host_gap.measured_for += (k.host_gap.measured_for.empty() ? "" : ", ") + h.implementation;
    }
    k.host_gap.why = table.host.empty() ? HostGap::Why::NoSection : HostGap::Why::Implementation;
}

/// Whether the table's host time applies to this model and layout: it is priced over the hidden
/// sizes and local expert counts it was measured on, nowhere else.
HostGap host_range_gap(const HostTime& h, const ModelSpec& m, double local_experts) {
    HostGap g;
    if (h.hidden_max > 0 && (m.hidden < h.hidden_min || m.hidden > h.hidden_max)) {
        g = {HostGap::Why::Hidden, h.implementation, static_cast<double>(m.hidden), h.hidden_min, h.hidden_max};
    } else if (h.local_experts_max > 0 && local_experts > h.local_experts_max) {
        g = {HostGap::Why::Experts, h.implementation, local_experts, 0, h.local_experts_max};
    }
    return g;
}

KernelChoice choose_kernels(const TrainingSpec& t, const GpuSpec& gpu) {
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

double gemm_efficiency(double m, double n, double k) {
    const auto f = [](double x) { return x > 0 ? x / (x + numbers::kGemmHalfDim) : 0.0; };
    return numbers::kGemmEfficiencyMax * f(m) * f(n) * f(k);
}

double attention_efficiency(double seq) { return seq > 0 ? numbers::kAttentionEfficiencyMax * seq / (seq + numbers::kAttentionHalfSeq) : 0.0; }

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

std::vector<int> layers_per_chunk(int layers, int pp, int vpp) {
    const int chunks = std::max(1, pp) * std::max(1, vpp);
    std::vector<int> out(static_cast<std::size_t>(chunks), layers / chunks);
    for (int c = 0; c < layers % chunks; ++c) {
        ++out[static_cast<std::size_t>(c)];
    }
    return out;
}

ScheduleTime pipeline_schedule(const std::vector<StageTime>& stages, int micro_batches, int vpp) {
    ScheduleTime s;
    double sum = 0;
    double worst = -1;
    for (std::size_t i = 0; i < stages.size(); ++i) {
        const double w = stages[i].fwd_s + stages[i].bwd_s;
        sum += w;
        if (w > worst) {
            worst = w;
            s.slowest = static_cast<int>(i);
        }
    }
    if (stages.empty()) {
        return s;
    }
    s.busy_s = std::max(1, micro_batches) * worst;
    s.bubble_s = std::max(0.0, sum - worst) / std::max(1, vpp);
    return s;
}

namespace {

/// The rates of one GPU for this run: peaks (fp8 for the GEMMs with training.fp8), bandwidth, and
/// the kernel table's blocks, attention backend and optimizer when the GPU carries one.
Rates rates_for(const ModelSpec& m, const TrainingSpec& t, const GpuSpec& gpu, const KernelChoice& kc, double scale,
                int micro_batches) {
    const double bf16 = t.gpu_peak_tflops.value_or(gpu.bf16_tflops);
    const double fp8 = t.gpu_peak_tflops ? numbers::kFp8OverBf16Peak * *t.gpu_peak_tflops : gpu.fp8_or_bf16_tflops();
    Rates r;
    r.gemm_flops_s = (t.fp8.empty() ? bf16 : fp8) * units::kTera;
    r.attn_flops_s = bf16 * units::kTera;
    r.hbm_bytes_s = gpu.hbm_gbyte_s * units::kGiga;
    r.scale = scale;
    r.beta = m.activation_bytes;
    if (kc.table) {
        r.table = kc.table.get();
        r.blocks = kc.table->implementation(kc.blocks);
        r.mem_scale = kc.mem_scale;
        r.attention = kc.attention;
        r.optimizer_ps = kc.optimizer_ps;
        r.optimizer_extra_bytes = kc.optimizer_extra_bytes;
        if (!kc.fp8_gemm.empty() && r.table->gemm_fp8.count(kc.fp8_gemm) > 0) {
            r.fp8_gemm = kc.fp8_gemm;
            r.bf16_flops_s = bf16 * units::kTera;
            r.quant_ps = kc.fp8_quant_ps;
            r.weight_share = 1.0 / std::max(1, micro_batches);
        }
    }
    return r;
}

/// Each stage's host time per micro-batch outside its layers (the schedule's Python, and the
/// embedding, output layer and loss where the stage holds them): the stage's non-layer passes take
/// the slower of their GPU work and this; what the host adds is host wait. Every stage runs the
/// schedule, so each gets the whole measured base (measured at one stage: an upper bound for the
/// middle stages, **assumed**).
void add_stage_base_host(std::vector<StageTime>& stages, const PassUs& base, const LayerEntry& embedding, const LayerEntry& output,
                         const LayerEntry& loss, double full_rc) {
    for (std::size_t i = 0; i < stages.size(); ++i) {
        const bool first = i == 0;
        const bool last = i + 1 == stages.size();
        const double gpu_fwd = (first ? embedding.fwd.seconds : 0.0) + (last ? output.fwd.seconds + loss.fwd.seconds : 0.0);
        const double gpu_bwd = (first ? embedding.bwd.seconds : 0.0) +
                               (last ? output.bwd.seconds + loss.bwd.seconds + full_rc * output.fwd.seconds : 0.0);
        const double wait_fwd = std::max(0.0, base.fwd * units::kMicro - gpu_fwd);
        const double wait_bwd = std::max(0.0, base.bwd * units::kMicro - gpu_bwd);
        stages[i].fwd_s += wait_fwd;
        stages[i].bwd_s += wait_bwd;
        stages[i].host_wait_s += wait_fwd + wait_bwd;
    }
}

/// compute_breakdown at the rates of one pass (burst, or × the power curve's ratio in scale).
ComputeBreakdown breakdown_once(const ModelSpec& m, const TrainingSpec& t, const ParallelSizes& p, const GpuSpec& gpu,
                                double compute_scale) {
    // long: one pass from the layer kinds to the stages, the slowest stage's ops, the optimizer and
    // the model FLOPs; the parts share the stage counts, and splitting them would pass a dozen locals.
    ComputeBreakdown out;
    out.modelled = true;
    out.peak_tflops = t.gpu_peak_tflops.value_or(gpu.bf16_tflops);
    out.kernels = choose_kernels(t, gpu);
    const Rates r = rates_for(m, t, gpu, out.kernels, compute_scale, t.micro_batches(p.dp));
    Shape sh;
    sh.tp = p.tp;
    sh.tokens = static_cast<double>(t.micro_batch) * t.seq_len / std::max(1, p.cp);
    sh.tokens_local = t.sequence_parallel ? sh.tokens / sh.tp : sh.tokens;
    sh.frozen = t.finetune == FineTune::Lora;

    // The layer kinds (dense or MoE, full or sliding-window attention), each computed once; kind
    // index = MoE + 2·windowed.
    std::array<Layer, kLayerKinds> kinds;
    kinds[DenseFull] = make_layer(false, false, m, t, p, r, sh);
    kinds[MoeFull] = m.experts > 0 ? make_layer(true, false, m, t, p, r, sh) : kinds[DenseFull];
    if (m.sliding_window > 0) {
        kinds[DenseWindowed] = make_layer(false, true, m, t, p, r, sh);
        kinds[MoeWindowed] = m.experts > 0 ? make_layer(true, true, m, t, p, r, sh) : kinds[DenseWindowed];
    }
    // Embedding (first stage): rows gathered and written; output layer and loss (last stage).
    LayerEntry embedding = memory_entry("embedding", memory_op(r, numbers::kEmbeddingAccesses * sh.tokens_local * m.hidden * r.beta));
    const LayerEntry output = gemm_entry("output", gemm(bf16_rates(r), sh.tokens, m.vocab / sh.tp, m.hidden), sh.frozen);
    LayerEntry loss = memory_entry("loss", memory_op(r, numbers::kLossAccesses * numbers::kFp32Bytes * sh.tokens * m.vocab / sh.tp));
    if (r.blocks != nullptr) {
        // The loss over the logits, measured; the embedding's dense gradient (the whole table written).
        loss = block_entry("loss", r, r.blocks->loss, sh.tokens * m.vocab / sh.tp);
        embedding.bwd = sh.frozen ? Work{} : measured(r, r.table->embedding_bwd_ps, m.vocab / sh.tp * m.hidden);
    }

    const int pp = std::max(1, p.pp);
    const int v = std::max({1, p.vpp, t.vpp});
    const std::vector<int> chunks = layers_per_chunk(m.layers, pp, v);
    const std::vector<bool> moe_map = m.moe_layer_map();
    out.micro_batches = t.micro_batches(p.dp);
    // Stage times by arithmetic over the two layer kinds; op totals only for the slowest stage.
    const auto sums = [&](const Layer& l) {
        LayerSum x;
        for (const auto& e : l.entries) {
            x.fwd_s += e.fwd.seconds;
            x.bwd_s += e.bwd.seconds;
            x.selective_s += e.fwd.seconds * recompute_share(t, e, 0);
            x.model_flops += e.model_flops;
        }
        return x;
    };
    std::array<LayerSum, kLayerKinds> kind_sums;
    for (std::size_t k = 0; k < kLayerKinds; ++k) {
        kind_sums[k] = sums(kinds[k]);
    }
    // Host time per layer kind (a pass is as fast as the slower of its GPU work and its host time).
    const HostTime* host = out.kernels.host.empty() ? nullptr : &out.kernels.table->host.at(out.kernels.host);
    const double local_experts = m.experts > 0 ? static_cast<double>(m.experts) / std::max(1, p.ep) : 0.0;
    if (host != nullptr) {
        out.kernels.host_gap = host_range_gap(*host, m, local_experts);
        if (out.kernels.host_gap.why != HostGap::Why::None) {
            host = nullptr;
            out.kernels.host.clear();
        }
    }
    // Experts one by one (SequentialMLP: Megatron-LM local, or no grouped GEMM) cost the host per
    // expert; one grouped GEMM costs it as one expert.
    const bool one_by_one = out.kernels.implementation == Implementation::MegatronLocal || !m.grouped_gemm;
    const double expert_calls = one_by_one ? local_experts : std::min(1.0, local_experts);
    // Layers replayed whole as CUDA graphs (training.cuda_graph "layers" without modules) cost the
    // host one graph launch each: no host time. With modules named, the layer's host time is kept
    // whole (the host section has no split by module; docs/cost-model.md).
    const bool layers_graphed = t.cuda_graph == CudaGraph::Layers && t.cuda_graph_modules.empty();
    const auto host_of = [&](std::size_t kind) {
        if (host == nullptr || layers_graphed) {
            return PassUs{};
        }
        const bool moe = (kind & 1U) != 0;
        PassUs h = moe ? PassUs{host->moe.fwd + expert_calls * host->expert.fwd, host->moe.bwd + expert_calls * host->expert.bwd}
                       : host->dense;
        if (t.recompute == Recompute::Full) {
            h.bwd += h.fwd;  // the backward repeats the forward, host work and all
        }
        return PassUs{h.fwd * units::kMicro, h.bwd * units::kMicro};
    };
    const auto extra_s = [&](const LayerSum& x, int chunk_layers) {
        if (t.recompute == Recompute::Selective) {
            return x.selective_s;
        }
        return t.recompute == Recompute::Full ? x.fwd_s * recompute_share(t, LayerEntry{}, chunk_layers) : 0.0;
    };
    struct ChunkCount {
        std::array<int, kLayerKinds> kind{};  // layers of each kind
        int moe = 0;
        int layers = 0;
    };
    std::vector<std::vector<ChunkCount>> stage_chunks(static_cast<std::size_t>(pp));
    out.stages.resize(static_cast<std::size_t>(pp));
    std::vector<double> stage_model_flops(static_cast<std::size_t>(pp), 0.0);
    int layer = 0;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        const std::size_t stage = c % static_cast<std::size_t>(pp);
        ChunkCount cc;
        cc.layers = chunks[c];
        for (int i = 0; i < chunks[c]; ++i, ++layer) {
            const int is_moe = static_cast<std::size_t>(layer) < moe_map.size() && moe_map[static_cast<std::size_t>(layer)] ? 1 : 0;
            cc.moe += is_moe;
            const std::size_t kind = (is_moe != 0 ? MoeFull : DenseFull) + (m.layer_windowed(layer) ? DenseWindowed : DenseFull);
            ++cc.kind[kind];
        }
        stage_chunks[stage].push_back(cc);
        StageTime& st = out.stages[stage];
        st.layers += cc.layers;
        st.moe_layers += cc.moe;
        double fwd = 0;  // the chunk's sums first, then onto the stage (one rounding order for every model)
        double bwd = 0;
        double flops = 0;
        double wait = 0;
        for (std::size_t k = 0; k < kLayerKinds; ++k) {
            const LayerSum& x = kind_sums[k];
            const PassUs h = host_of(k);
            const double gpu_bwd = x.bwd_s + extra_s(x, cc.layers);
            fwd += cc.kind[k] * std::max(x.fwd_s, h.fwd);
            bwd += cc.kind[k] * std::max(gpu_bwd, h.bwd);
            wait += cc.kind[k] * (std::max(0.0, h.fwd - x.fwd_s) + std::max(0.0, h.bwd - gpu_bwd));
            flops += cc.kind[k] * x.model_flops;
        }
        st.fwd_s += fwd;
        st.bwd_s += bwd;
        st.host_wait_s += wait;
        stage_model_flops[stage] += flops;
    }
    const double full_rc = t.recompute == Recompute::Full ? 1.0 : 0.0;
    out.stages.front().fwd_s += embedding.fwd.seconds;
    out.stages.front().bwd_s += embedding.bwd.seconds;
    stage_model_flops.front() += embedding.model_flops;
    out.stages.back().fwd_s += output.fwd.seconds + loss.fwd.seconds;
    out.stages.back().bwd_s += output.bwd.seconds + loss.bwd.seconds + full_rc * output.fwd.seconds;
    stage_model_flops.back() += output.model_flops + loss.model_flops;
    if (host != nullptr) {
        add_stage_base_host(out.stages, host->base, embedding, output, loss, full_rc);
    }
    const ScheduleTime sched = pipeline_schedule(out.stages, out.micro_batches, v);
    out.slowest_stage = sched.slowest;
    out.bubble_s = sched.bubble_s;

    Totals slow;
    const auto slowest = static_cast<std::size_t>(sched.slowest);
    for (const ChunkCount& cc : stage_chunks[slowest]) {
        for (std::size_t k = 0; k < kLayerKinds; ++k) {
            for (const auto& e : kinds[k].entries) {
                slow.add_entry(e, cc.kind[k], recompute_share(t, e, cc.layers));
            }
        }
    }
    if (slowest == 0) {
        slow.add_entry(embedding, 1, 0);
    }
    if (slowest + 1 == out.stages.size()) {
        slow.add_entry(output, 1, full_rc);
        slow.add_entry(loss, 1, 0);
    }

    // Optimizer step over the local shard of the trained parameters (bandwidth-bound).
    const bool lora = t.finetune == FineTune::Lora;
    const double dense_local = (lora ? t.lora_adapter_params * (1.0 - t.lora_expert_share) : m.derived_dense_params()) /
                               (static_cast<double>(p.tp) * pp);
    const double expert_local = (lora ? t.lora_adapter_params * t.lora_expert_share : m.derived_expert_params()) /
                                (static_cast<double>(std::max(1, p.ep)) * std::max(1, p.etp) * pp);
    const bool shard = t.zero_stage >= 1 || t.distributed_optimizer;
    const double shard_params = dense_local / (shard ? static_cast<double>(p.dp) * p.cp : 1.0) +
                                (m.experts > 0 ? expert_local / (shard ? std::max(1, p.expert_dp) : 1.0) : 0.0);
    Work opt = memory_op(r, numbers::kAdamBytesPerParam * shard_params);
    if (r.table != nullptr && r.optimizer_ps > 0) {
        opt = measured(r, r.optimizer_ps, shard_params);
        opt += memory_op(r, r.optimizer_extra_bytes * shard_params);
    }
    out.optimizer_s = opt.seconds;
    if (host != nullptr) {  // the optimizer's host time: per layer's parameters on this stage's GPU
        const StageTime& st = out.stages[static_cast<std::size_t>(sched.slowest)];
        const double host_opt = units::kMicro * (host->optimizer_base_us + (st.layers - st.moe_layers) * host->optimizer_dense_us +
                                        st.moe_layers * (host->optimizer_moe_us + local_experts * host->optimizer_expert_us));
        out.host_wait_s += std::max(0.0, host_opt - opt.seconds);
        out.optimizer_s = std::max(opt.seconds, host_opt);
    }

    const double micro = out.micro_batches;
    for (std::size_t i = 0; i < slow.ops.size(); ++i) {
        ComputeOp o = slow.ops[i];
        o.flops *= micro;
        o.bytes *= micro;
        o.memory_bound = slow.memory_s[i] * numbers::kMemoryBoundMajority > o.seconds;
        o.seconds *= micro;
        out.ops.push_back(o);
    }
    out.ops.push_back({"optimizer", 0, opt.bytes, opt.seconds, true});
    out.host_wait_s += micro * out.stages[slowest].host_wait_s;
    if (out.host_wait_s > 0) {
        out.ops.push_back({"host", 0, 0, out.host_wait_s, false, true});
    }
    std::stable_sort(out.ops.begin(), out.ops.end(), [](const ComputeOp& a, const ComputeOp& b) { return a.seconds > b.seconds; });
    out.fwd_s = micro * out.stages[slowest].fwd_s;
    out.bwd_s = micro * out.stages[slowest].bwd_s;
    out.comp_s = out.fwd_s + out.bwd_s + out.optimizer_s;

    // Model FLOPs over all GPUs: each stage's useful FLOPs per rank × its ranks × micro-batches.
    const double ranks_per_stage = static_cast<double>(p.tp) * p.cp * p.dp;
    for (const double f : stage_model_flops) {
        out.model_flops += f * micro * ranks_per_stage;
    }
    out.gpus = ranks_per_stage * pp;
    return out;
}

}  // namespace

ComputeBreakdown compute_breakdown(const ModelSpec& m, const TrainingSpec& t, const ParallelSizes& p,
                                   const GpuSpec& gpu, double compute_scale) {
    ComputeBreakdown burst = breakdown_once(m, t, p, gpu, compute_scale);
    const KernelTable* table = burst.kernels.table.get();
    if (table == nullptr || !table->power || !table->power->applies_to(gpu.name)) {
        return burst;
    }
    // The duty: the compute-bound ops' (GEMMs, attention) share of the GPU's time at the model's own
    // burst rates (compute_scale 1: a fitted or given scale says how far a run fell short of the
    // model, not how hard its GPU worked), host waits and the pipeline bubble counted as time the
    // GPU is not drawing their power.
    std::optional<ComputeBreakdown> at_one;
    const ComputeBreakdown& own = compute_scale == 1.0 ? burst : at_one.emplace(breakdown_once(m, t, p, gpu, 1.0));
    double tensor_s = 0;
    for (const ComputeOp& o : own.ops) {
        if (o.flops > 0 && !o.memory_bound && !o.host_bound) {
            tensor_s += o.seconds;
        }
    }
    const double busy = own.comp_s + own.bubble_s;
    const double duty = busy > 0 ? std::min(1.0, tensor_s / busy) : 0.0;
    const double ratio = table->power->ratio(!t.fp8.empty(), duty);
    ComputeBreakdown out = ratio == 1.0 ? std::move(burst) : breakdown_once(m, t, p, gpu, compute_scale * ratio);
    out.kernels.power_duty = duty;
    out.kernels.power_ratio = ratio;
    out.kernels.power_gpu = table->power->gpus.front();
    return out;
}

ComputeBreakdown flat_compute(const ModelSpec& m, const TrainingSpec& t, const ParallelSizes& p, double peak_tflops,
                              double compute_scale) {
    ComputeBreakdown c;
    const double useful = t.finetune == FineTune::Lora ? numbers::kLoraFlopsPerParamToken
                                                       : numbers::kFlopsPerParamToken;  // fwd 2N; bwd 4N, 2N when frozen
    const double factor = useful + (t.recompute == Recompute::Full ? double{numbers::kForwardFlopsPerParamToken} : 0.0);
    const int v = std::max({1, p.vpp, t.vpp});
    c.micro_batches = t.micro_batches(p.dp);
    c.gpus = static_cast<double>(p.tp) * p.pp * p.cp * p.dp;
    c.peak_tflops = peak_tflops;
    const double tokens = static_cast<double>(t.global_batch) * t.seq_len;
    c.model_flops = useful * m.active_params() * tokens;
    c.basis = t.compute_time_s ? "compute_time_s" : "mfu";
    if (t.compute_time_s) {
        c.comp_s = *t.compute_time_s;
    } else {
        c.comp_s = factor * m.active_params() * tokens /
                   (c.gpus * peak_tflops * units::kTera * t.mfu.value_or(1.0) * compute_scale);
    }
    c.bubble_s = c.comp_s * (p.pp - 1.0) / (v * c.micro_batches);
    c.fwd_s = c.comp_s * numbers::kForwardFlopsPerParamToken / factor;
    c.bwd_s = c.comp_s - c.fwd_s;
    return c;
}

double mfu_of(const ComputeBreakdown& c, double step_s) {
    const double den = step_s * c.peak_tflops * units::kTera * c.gpus;
    return den > 0 ? c.model_flops / den : 0.0;
}

}  // namespace planlayout
