// Plan: wires the stages; reads nothing but the layout text it is given (and files it names).
#include "planlayout/plan.hpp"

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/json_fields.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout_embedded_layout.hpp"

namespace planlayout {

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
        const std::string rel = cluster_json.get<std::string>();
        const std::string path = (rel.empty() || rel[0] == '/' || request.base_dir == ".") ? rel : request.base_dir + "/" + rel;
        report.cluster = load_cluster_file(path);
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
    for (const char* key : {"model", "training", "transport", "score"}) {
        if (top.has(key)) {
            report.sections[key] = top.at(key);
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
