// Plan: the library entry point. Reads the layout text it is given (and the files the layout
// names, through ingest/), then runs the one pipeline (analysis/pipeline.hpp).
#include "planlayout/plan.hpp"

#include <nlohmann/json.hpp>

#include "planlayout/analysis/pipeline.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/calibration_file.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/hostfile.hpp"
#include "planlayout/ingest/json_reader.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout_embedded_layout.hpp"

namespace planlayout {
namespace {

// The files a layout names resolve against its folder and stay inside it (unless allowed).
FileScope scope_of(const PlanRequest& request) { return {request.base_dir, request.base_dir, request.files_anywhere}; }

// The score sections, and the calibration files the transport names (read here, within the
// layout's scope); their paths are added to `files`.
ScoreSetup score_setup_of(const JsonReader& top, const std::string& file, const FileScope& scope,
                          std::vector<std::string>& files) {
    ScoreSetup setup;
    if (top.has("model")) {
        setup.model = ModelSpec::from_json(top.at("model"), file);
    }
    if (top.has("training")) {
        setup.training = TrainingSpec::from_json(top.at("training"), file);
    }
    if (top.has("transport")) {
        setup.transport = TransportSpec::from_json(top.at("transport"), file);
    }
    if (top.has("score")) {
        setup.given = ScoreFactors::from_json(top.at("score"), file);
    }
    setup.calibrations = read_calibration_files(setup.transport.calibrations, scope, top.where("transport"), &files);
    return setup;
}

Placement placement_of(const JsonReader& top, const PlanRequest& request, const Cluster& cluster, std::int64_t world,
                       std::vector<std::string>& files) {
    if (!top.has("placement")) {
        return node_major_placement(cluster, world);
    }
    const nlohmann::json& section = top.at("placement");
    std::optional<NamedHostfile> hostfile;
    if (const auto name = placement_hostfile_name(section)) {
        const std::string path = resolve_named_file(scope_of(request), *name, top.where("placement/hostfile"));
        files.push_back(path);
        NamedHostfile h{*name, path, {}};
        for (const auto& [host, slots] : parse_hostfile(read_text_file(path), path)) {
            h.hosts.push_back(host);
        }
        hostfile = std::move(h);
    }
    return placement_from_json(section, request.layout_name, "/placement", cluster, world, hostfile);
}

}  // namespace

Report plan(const PlanRequest& request) {
    const nlohmann::json layout = parse_json_text(request.layout_text, request.layout_name);
    const JsonReader top(layout, request.layout_name, "");
    top.check_keys({"name", "description", "cluster", "parallel", "placement", "model", "training", "transport", "score"});
    Report report;
    report.layout_name = request.layout_name;
    if (!top.has("cluster")) {
        throw input_error(top.where("cluster"), "the layout has no \"cluster\"",
                          "add \"cluster\": {\"nodes\": 2, \"node\": \"h100-hgx-8gpu-8nic\"} or a path to a cluster file");
    }
    const auto& cluster_json = top.at("cluster");
    if (cluster_json.is_string()) {
        const std::string path = resolve_named_file(scope_of(request), cluster_json.get<std::string>(), top.where("cluster"));
        report.cluster = load_cluster_file(path, scope_of(request).for_file(path));
    } else {
        report.cluster = cluster_from_json(cluster_json, request.layout_name, "/cluster", scope_of(request));
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
    report.files = report.cluster.files;
    report.placement = placement_of(top, request, report.cluster, resolved.world, report.files);
    report.warnings = report.cluster.warnings;
    if (resolved.world < gpus) {
        report.warnings.push_back("the job uses " + std::to_string(resolved.world) + " of the cluster's " +
                                  std::to_string(gpus) + " GPUs");
    }
    std::optional<ScoreSetup> setup;
    for (const char* key : {"model", "training", "transport", "score"}) {
        if (top.has(key)) {
            report.sections[key] = top.at(key);
        }
    }
    if (!report.sections.is_null()) {
        setup = score_setup_of(top, request.layout_name, scope_of(request), report.files);
    }
    Evaluation evaluation =
        evaluate(report.cluster, report.placement, resolved, {request.kinds, Coverage::Every, request.progress}, setup);
    report.groups = std::move(evaluation.groups);
    report.kinds = std::move(evaluation.kinds);
    report.score = std::move(evaluation.score);
    if (report.score) {
        for (const auto& w : report.score->warnings) {
            report.warnings.push_back(w);
        }
    }
    if (setup && setup->model && setup->training) {
        report.memory = MemoryReport{estimate_memory(parallel_sizes(resolved), *setup->model, *setup->training),
                                     memory_budget(report.cluster, report.placement, request.memory_limits)};
        if (const auto w = memory_warning(*report.memory)) {
            report.warnings.push_back(*w);
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
