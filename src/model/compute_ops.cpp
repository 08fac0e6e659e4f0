// Compute model, the layer ops: Work and Rates, each GEMM, attention and memory-bound op priced
// from the spec sheet or the measured kernel table, one layer's entries (attention, MLP, MoE,
// norms) from them, and one op timed alone (op_seconds, for calibrate --ops). The rest of the
// compute model: compute_kernels.cpp (the kernel table and GPU chosen), compute_host.cpp (the
// host's time and the power limit), compute_schedule.cpp (stages, the pipeline schedule, MFU).
#include "compute_ops.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "planlayout/model/compute_model.hpp"
#include "planlayout/model/numbers/compute.hpp"
#include "planlayout/model/numbers/gpu.hpp"
#include "planlayout/model/numbers/memory.hpp"
#include "planlayout/model/units.hpp"

namespace planlayout {
namespace compute_ops {

namespace {

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

/// Measured blocks, each over its elements, summed into one entry (forward and backward apart).
LayerEntry blocks_entry(const std::string& name, const Rates& r, const std::vector<std::pair<BlockCost, double>>& parts) {
    LayerEntry e{name, {}, {}, {}, 0.0};
    for (const auto& [c, elements] : parts) {
        e.fwd += measured(r, c.fwd_ps, elements);
        e.bwd += measured(r, c.bwd_ps, elements);
    }
    return e;
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

}  // namespace

/// The same rates with FP8 off: the layers Transformer Engine keeps in bf16 (output layer, router).
Rates bf16_rates(Rates r) {
    r.fp8_gemm.clear();
    r.quant_ps = 0;
    if (r.bf16_flops_s > 0) {
        r.gemm_flops_s = r.bf16_flops_s;
    }
    return r;
}

Work gemm(const Rates& r, double m, double n, double k, double count) {
    return gemm_at(r, m, n, k, count, dense_efficiency(r, m, n, k));
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

/// A GEMM entry: backward = dgrad + wgrad, each the forward's shape permuted (same FLOPs, bytes
/// and efficiency), only dgrad when the weights are frozen (LoRA).
/// FP8 operands' quantization (quant_fwd_s, quant_bwd_s) is added to each pass as memory-bound time.
LayerEntry gemm_entry(const std::string& name, const Work& fwd, bool frozen, double useful, double replicated) {
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

LayerEntry block_entry(const std::string& name, const Rates& r, const BlockCost& c, double elements) {
    return blocks_entry(name, r, {{c, elements}});
}

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

}  // namespace compute_ops

double op_seconds(const ModelOp& op, const GpuSpec& gpu, double compute_scale) {
    using compute_ops::attention_fwd;
    using compute_ops::gemm;
    using compute_ops::LayerEntry;
    using compute_ops::measured_attention;
    using compute_ops::memory_op;
    using compute_ops::Rates;
    using compute_ops::Work;
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

double gemm_efficiency(double m, double n, double k) {
    const auto f = [](double x) { return x > 0 ? x / (x + numbers::kGemmHalfDim) : 0.0; };
    return numbers::kGemmEfficiencyMax * f(m) * f(n) * f(k);
}

double attention_efficiency(double seq) { return seq > 0 ? numbers::kAttentionEfficiencyMax * seq / (seq + numbers::kAttentionHalfSeq) : 0.0; }

}  // namespace planlayout
