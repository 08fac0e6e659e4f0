// Analysis: the one pipeline — groups → classified pairs → score.
#include "planlayout/analysis/pipeline.hpp"

#include <algorithm>
#include <iterator>

#include "planlayout/analysis/placed_group.hpp"
#include "planlayout/analysis/sampled_footprints.hpp"

namespace planlayout {

ParallelSizes parallel_sizes(const ResolvedSpec& s) {
    auto narrow = [](std::int64_t v) { return static_cast<int>(v); };
    return {narrow(s.tp), narrow(s.pp), narrow(s.cp), narrow(s.dp), narrow(s.ep), narrow(s.etp), narrow(s.expert_dp),
            narrow(s.vpp.value_or(1))};
}

ParallelSizes parallel_sizes(const Groups& groups) {
    ParallelSizes p = parallel_sizes(groups.spec);
    const auto size_of = [&groups](const char* role) {
        const GroupKind* k = groups.find_role(role);
        return k == nullptr ? 0 : static_cast<int>(k->group_size());
    };
    p.fsdp = size_of("fsdp");
    p.dp_replicate = size_of("dp_replicate");
    p.efsdp = size_of("efsdp");
    return p;
}

CalibratedHardware calibrated_hardware(const Cluster& cluster,
                                       const TransportSpec& transport,
                                       const std::vector<Calibration>& calibrations) {
    CalibratedHardware out{node_hardware(cluster), transport};
    for (const auto& c : calibrations) {
        apply_calibration(c, out.transport, c.file);  // per (transport, collective, class): none overwrites another op's
    }
    return out;
}

GpuChoice gpu_of_layout(const Cluster& cluster, const Placement& placement, const ScoreSetup& setup) {
    std::vector<bool> used(cluster.templates.size(), false);
    for (const std::int32_t node : placement.node) {
        used[static_cast<std::size_t>(cluster.nodes[static_cast<std::size_t>(node)].template_index)] = true;
    }
    std::vector<std::pair<std::string, std::string>> models;
    for (std::size_t i = 0; i < used.size(); ++i) {
        if (used[i]) {
            models.emplace_back(cluster.templates[i].name, cluster.templates[i].gpu_model);
        }
    }
    return choose_gpu(setup.gpus, setup.training ? setup.training->gpu : std::string(), models);
}

namespace {

// The requested candidate on the hardware arms.what_if describes: GPUDirect to every NIC, and
// where the nodes have no RDMA NIC, one per GPU on its own rail.
WhatIf what_if_of(const ScoreInput& in, const WhatIfHardware& h) {
    ScoreInput w = in;
    w.transport.candidate = h.transport;
    w.given = {};
    for (auto& [kind, g] : w.placed) {
        g.gpu_nic_sys = false;
        if (h.add_rail_nics) {
            g.rails_per_node = g.max_per_node;
            g.nic_gbit_s = h.nic_gbit_s;
            g.worst_cross = g.nodes > 1 ? PathClass::Rail : g.worst_cross;
        }
    }
    const Score s = predict_step(w);
    return {h.words, h.transport, s.step_time_s[1], s.rdma_benefit};
}

AllocationReport allocation_report(const Cluster& cluster, const Placement& placement, const Groups& groups,
                                   const std::vector<std::string>& kinds) {
    AllocationReport a;
    const FabricDomains d = fabric_domains(cluster);
    a.nodes = allocation_nodes(placement);
    a.span = span_of(cluster, d, a.nodes);
    a.kinds = straddles(cluster, placement, groups, kinds);
    if (const auto compact = compact_placement(cluster, placement, a.compact_where)) {
        a.compact_nodes = allocation_nodes(*compact);
        a.compact_span = span_of(cluster, d, a.compact_nodes);
    }
    return a;
}

void set_compact_times(AllocationReport& a, const Score& s, const Score& c) {
    a.scored = true;
    for (std::size_t arm = 0; arm < std::size(a.step_time_s); ++arm) {
        a.step_time_s[arm] = s.step_time_s[arm];
        a.compact_step_time_s[arm] = c.step_time_s[arm];
    }
    for (const auto& k : s.by_kind) {
        CompactKindTime t;
        t.kind = k.kind;
        const auto it = std::find_if(c.by_kind.begin(), c.by_kind.end(), [&](const KindBreakdown& x) { return x.kind == k.kind; });
        for (std::size_t arm = 0; arm < std::size(t.time_s); ++arm) {
            t.time_s[arm] = k.time_s[arm];
            t.compact_time_s[arm] = it == c.by_kind.end() ? 0.0 : it->time_s[arm];
        }
        a.by_kind.push_back(t);
    }
}

}  // namespace

Score score_kinds(const ScoreSetup& setup,
                  const ArmChoice& arms,
                  const CalibratedHardware& calibrated,
                  const ParallelSizes& sizes,
                  const std::vector<KindEdges>& kinds,
                  const FabricSpec& fabric) {
    ScoreInput in;
    in.model = setup.model;
    in.training = setup.training;
    in.transport = calibrated.transport;
    in.transport.baseline = arms.baseline;
    in.transport.candidate = arms.candidate;
    in.transport.network = arms.network;
    in.given = setup.given;
    in.gpu = setup.gpu;
    in.sizes = sizes;
    for (const auto& k : kinds) {
        if (!k.footprints.empty()) {
            PlacedGroup g = placed_group_of(k.footprints.front(), calibrated.hardware, fabric.pxn, fabric.oversubscription);
            // Every used GPU reaches its NIC within its template's gdr_level: none is host-staged.
            g.gpu_nic_sys = g.gpu_nic_sys && arms.reach != NetworkReach::GpuDirect;
            // Keyed by the traffic the kind carries: a framework's kinds carry Megatron's roles
            // under their own names; the first kind of a role places it.
            if (!k.role.empty() && in.placed.count(k.role) == 0) {
                in.placed[k.role] = g;
            }
        }
    }
    Score s = predict_step(in);
    s.requested_baseline = arms.requested_baseline;
    s.requested_candidate = arms.requested_candidate;
    s.arm_notes = arms.reasons;
    s.warnings.insert(s.warnings.end(), arms.warnings.begin(), arms.warnings.end());
    if (arms.what_if && s.has_model) {
        s.what_if = what_if_of(in, *arms.what_if);
    }
    return s;
}

Evaluation evaluate(const Cluster& cluster,
                    const Placement& placement,
                    const ResolvedSpec& spec,
                    const PipelineOptions& options,
                    const std::optional<ScoreSetup>& setup) {
    return evaluate(cluster, placement, build_groups(spec), options, setup);
}

Evaluation evaluate(const Cluster& cluster,
                    const Placement& placement,
                    Groups groups,
                    const PipelineOptions& options,
                    const std::optional<ScoreSetup>& setup) {
    Evaluation out;
    out.groups = std::move(groups);
    auto classify = [&](const Cluster& c) {
        return options.coverage == Coverage::Every ? classify_groups(out.groups, c, placement, options.kinds, options.progress)
                                                   : classify_groups_sampled(out.groups, c, placement, options.kinds);
    };
    out.kinds = classify(cluster);
    if (options.allocation) {
        out.allocation = allocation_report(cluster, placement, out.groups, options.kinds);
    }
    if (!setup) {
        return out;
    }
    const CalibratedHardware calibrated = calibrated_hardware(cluster, setup->transport, setup->calibrations);
    const ArmChoice arms = setup->arms ? *setup->arms : choose_arms(cluster, placement, setup->transport);
    ScoreSetup with_gpu = *setup;
    if (!setup->gpu && setup->training) {
        with_gpu.gpu = gpu_of_layout(cluster, placement, *setup);
    }
    out.score = score_kinds(with_gpu, arms, calibrated, parallel_sizes(out.groups), out.kinds, cluster.fabric);
    if (options.domain_what_if && !cluster.nvlink.empty() && out.score->has_model) {
        // The same placement and arms on the cluster without its domains: MNNVL pairs reclassified.
        Cluster flat = cluster;
        flat.nvlink = {};
        const Score s = score_kinds(with_gpu, arms, calibrated, parallel_sizes(out.groups), classify(flat), cluster.fabric);
        out.score->domain_what_if = DomainWhatIf{{s.step_time_s[0], s.step_time_s[1]}};
    }
    if (out.allocation && out.score->has_model && !out.allocation->compact_nodes.empty()) {
        // The same groups, setup and arms on the compact allocation.
        std::string where;
        const Placement compact = *compact_placement(cluster, placement, where);
        const std::vector<KindEdges> kinds = options.coverage == Coverage::Every
                                                 ? classify_groups(out.groups, cluster, compact, options.kinds, options.progress)
                                                 : classify_groups_sampled(out.groups, cluster, compact, options.kinds);
        const Score c = score_kinds(with_gpu, arms, calibrated, parallel_sizes(out.groups), kinds, cluster.fabric);
        set_compact_times(*out.allocation, *out.score, c);
    }
    return out;
}

}  // namespace planlayout
