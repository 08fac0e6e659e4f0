// Analysis: the one pipeline — groups → classified pairs → score.
#include "planlayout/analysis/pipeline.hpp"

#include "planlayout/analysis/placed_group.hpp"
#include "planlayout/analysis/sampled_footprints.hpp"

namespace planlayout {

ParallelSizes parallel_sizes(const ResolvedSpec& s) {
    auto narrow = [](std::int64_t v) { return static_cast<int>(v); };
    return {narrow(s.tp), narrow(s.pp), narrow(s.cp), narrow(s.dp), narrow(s.ep), narrow(s.etp), narrow(s.expert_dp),
            narrow(s.vpp.value_or(1))};
}

CalibratedHardware calibrated_hardware(const Cluster& cluster,
                                       const TransportSpec& transport,
                                       const std::vector<Calibration>& calibrations) {
    CalibratedHardware out{node_hardware(cluster), transport};
    for (const auto& c : calibrations) {
        apply_calibration(c, out.transport);
        apply_calibration(c, out.hardware);
    }
    return out;
}

Score score_kinds(const ScoreSetup& setup,
                  const CalibratedHardware& calibrated,
                  const ParallelSizes& sizes,
                  const std::vector<KindEdges>& kinds,
                  bool pxn) {
    ScoreInput in;
    in.model = setup.model;
    in.training = setup.training;
    in.transport = calibrated.transport;
    in.given = setup.given;
    in.sizes = sizes;
    for (const auto& k : kinds) {
        if (!k.footprints.empty()) {
            in.placed[k.kind] = placed_group_of(k.footprints.front(), calibrated.hardware, pxn);
        }
    }
    return compute_score(in);
}

Evaluation evaluate(const Cluster& cluster,
                    const Placement& placement,
                    const ResolvedSpec& spec,
                    const PipelineOptions& options,
                    const std::optional<ScoreSetup>& setup) {
    Evaluation out;
    out.groups = build_groups(spec);
    out.kinds = options.coverage == Coverage::Every
                    ? classify_groups(out.groups, cluster, placement, options.kinds, options.progress)
                    : classify_groups_sampled(out.groups, cluster, placement, options.kinds);
    if (setup) {
        const CalibratedHardware calibrated = calibrated_hardware(cluster, setup->transport, setup->calibrations);
        out.score = score_kinds(*setup, calibrated, parallel_sizes(spec), out.kinds, cluster.fabric.pxn);
    }
    return out;
}

}  // namespace planlayout
