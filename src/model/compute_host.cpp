// Compute model, the host and the power limit: the kernel table's host section chosen for the
// implementation and checked against the sizes it was measured on (HostGap), each stage's host time
// outside its layers, and compute_breakdown, which prices a step once at burst rates and again at
// the power curve's sustained share (docs/cost-model.md, "Compute: host time", "the power limit").
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compute_ops.hpp"
#include "planlayout/model/compute_model.hpp"
#include "planlayout/model/units.hpp"

namespace planlayout {
namespace compute_ops {

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

}  // namespace compute_ops

ComputeBreakdown compute_breakdown(const ModelSpec& m, const TrainingSpec& t, const ParallelSizes& p,
                                   const GpuSpec& gpu, double compute_scale) {
    using compute_ops::breakdown_once;
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

}  // namespace planlayout
