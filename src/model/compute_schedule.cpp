// Compute model, the schedule: the layers of each pipeline chunk (layers_per_chunk), the stages'
// times from the layer ops (breakdown_once: per stage, the slowest stage's ops, the optimizer and
// the model FLOPs), the 1F1B / interleaved schedule (pipeline_schedule), the flat model
// (flat_compute) and MFU.
#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "compute_ops.hpp"
#include "planlayout/model/compute_model.hpp"
#include "planlayout/model/numbers/compute.hpp"
#include "planlayout/model/numbers/memory.hpp"
#include "planlayout/model/units.hpp"

namespace planlayout {
namespace compute_ops {

namespace {

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

}  // namespace compute_ops

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
