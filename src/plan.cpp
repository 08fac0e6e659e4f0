// Plan: wires the stages; reads nothing but the layout text it is given (and files it names).
#include "planlayout/plan.hpp"

#include <nlohmann/json.hpp>

#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/analysis/cost_shape.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/json_fields.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout_embedded_layout.hpp"

namespace planlayout {
namespace {

// The score stage: traffic per kind on its worst group shape, per transport.
Score score_of(const Report& report, const JsonObject& top, const std::string& base_dir) {
    ScoreInput in;
    const std::string& file = report.layout_name;
    if (top.has("model")) {
        in.model = ModelSpec::from_json(top.at("model"), file);
    }
    if (top.has("training")) {
        in.training = TrainingSpec::from_json(top.at("training"), file);
    }
    if (top.has("transport")) {
        in.transport = TransportSpec::from_json(top.at("transport"), file);
    }
    if (top.has("score")) {
        in.given = ScoreFactors::from_json(top.at("score"), file);
    }
    const ResolvedSpec& s = report.groups.spec;
    auto narrow = [](std::int64_t v) { return static_cast<int>(v); };
    in.sizes = {narrow(s.tp), narrow(s.pp), narrow(s.cp), narrow(s.dp), narrow(s.ep), narrow(s.etp), narrow(s.expert_dp),
                narrow(s.vpp.value_or(1))};
    NodeHardware hw = node_hardware(report.cluster);
    apply_calibration_files(in.transport.calibrations, base_dir, in.transport, hw);
    const int gpus_per_node = report.cluster.facts.front().gpu_count;
    for (const auto& k : report.kinds) {
        if (!k.shapes.empty()) {
            in.shapes[k.kind] = cost_shape_from_edges(k.shapes.front(), gpus_per_node, hw, report.cluster.fabric.pxn);
        }
    }
    return compute_score(in);
}

}  // namespace

Report plan(const PlanRequest& request) {
    const nlohmann::json layout = parse_json_text(request.layout_text, request.layout_name);
    const JsonObject top(layout, request.layout_name, "");
    top.check_keys({"name", "description", "cluster", "parallel", "placement", "model", "training", "transport", "score"});
    Report report;
    report.layout_name = request.layout_name;
    if (!top.has("cluster")) {
        throw input_error(top.where("cluster"), "the layout has no \"cluster\"",
                          "add \"cluster\": {\"nodes\": 2, \"node\": \"h100-hgx-8gpu-8nic\"} or a path to a cluster file");
    }
    const auto& cluster_json = top.at("cluster");
    if (cluster_json.is_string()) {
        report.cluster = load_cluster_file(join_path(request.base_dir, cluster_json.get<std::string>()));
    } else {
        report.cluster = cluster_from_json(cluster_json, request.layout_name, "/cluster", request.base_dir);
    }
    const std::int64_t gpus = report.cluster.total_gpus();
    if (!top.has("parallel")) {
        throw input_error(top.where("parallel"), "the layout has no \"parallel\" spec", "add e.g. \"parallel\": {\"tp\": 1, \"ep\": 16}");
    }
    const SpecSource source{request.layout_name, "/parallel"};
    ParallelSpec spec = parallel_spec_from_json(top.at("parallel"), source);
    if (spec.world == 0) {
        spec.world = gpus;
    } else if (spec.world > gpus) {
        throw input_error(request.layout_name + " (/parallel/world)",
                          "world " + std::to_string(spec.world) + " exceeds the cluster's " + std::to_string(gpus) + " GPUs",
                          "drop \"world\" to use every GPU, or add nodes");
    }
    const ResolvedSpec resolved = resolve_spec(spec, source);
    report.groups = build_groups(resolved);
    if (top.has("placement")) {
        report.placement = placement_from_json(top.at("placement"), request.layout_name, "/placement", request.base_dir,
                                               report.cluster, resolved.world);
    } else {
        report.placement = node_major_placement(report.cluster, resolved.world);
    }
    report.kinds = classify_groups(report.groups, report.cluster, report.placement, request.kinds, request.progress);
    report.warnings = report.cluster.warnings;
    if (resolved.world < gpus) {
        report.warnings.push_back("the job uses " + std::to_string(resolved.world) + " of the cluster's " +
                                  std::to_string(gpus) + " GPUs");
    }
    bool scored = false;
    for (const char* key : {"model", "training", "transport", "score"}) {
        if (top.has(key)) {
            report.sections[key] = top.at(key);
            scored = true;
        }
    }
    if (scored) {
        report.score = score_of(report, top, request.base_dir);
        for (const auto& w : report.score->warnings) {
            report.warnings.push_back(w);
        }
    }
    return report;
}

PlanRequest embedded_default_request() {
    PlanRequest r;
    r.layout_text = kEmbeddedLayout;
    r.layout_name = kEmbeddedLayoutName;
    r.base_dir = ".";
    return r;
}

}  // namespace planlayout
