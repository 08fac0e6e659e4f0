// Plan: the library entry point. Reads the layout text it is given (and the files the layout
// names, through ingest/), then runs the one pipeline (analysis/pipeline.hpp).
// Over 500 lines for now: the request's sections are read here; moving that composition into its
// own module is issue 42's (the model as one module).
#include "planlayout/plan.hpp"

#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/assumptions.hpp"
#include "planlayout/analysis/model_fit.hpp"
#include "planlayout/analysis/pipeline.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/calibration_file.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/gpu_spec_json.hpp"
#include "planlayout/ingest/hostfile.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/model/batch.hpp"
#include "planlayout/parallel/framework.hpp"
#include "planlayout/parallel/placement.hpp"
#include "planlayout/text_format.hpp"
#include "planlayout_embedded_layout.hpp"

namespace planlayout {
namespace {

// The files a layout names resolve against its folder and stay inside it (unless allowed).
FileScope scope_of(const PlanRequest& request) { return {request.base_dir, request.base_dir, request.files_anywhere}; }

// The transport's calibration files: in the folder of the layout that gave the section.
FileScope transport_scope_of(const PlanRequest& request) {
    return request.transport_dir.empty() ? scope_of(request)
                                         : FileScope{request.transport_dir, request.transport_dir, request.files_anywhere};
}

// The score sections, and the calibration files the transport names (read here, within the
// layout's scope); their paths are added to `files`.
ScoreSetup score_setup_of(const JsonReader& top, const std::string& file, const FileScope& scope,
                          std::vector<std::string>& files) {
    ScoreSetup setup;
    if (top.has("model")) {
        setup.model = model_spec_from_json(top.at("model"), file);
    }
    if (top.has("training")) {
        setup.training = training_spec_from_json(top.at("training"), file);
    }
    if (top.has("transport")) {
        setup.transport = transport_spec_from_json(top.at("transport"), file);
    }
    if (top.has("score")) {
        setup.given = score_factors_from_json(top.at("score"), file);
    }
    std::vector<ComputeCalibration> compute;
    setup.calibrations =
        read_calibration_files(setup.transport.calibrations, scope, top.where("transport"), &files, &compute);
    // A compute calibration (calibrate --compute) sets compute_scale unless the training run
    // decides the compute itself; the last one listed wins.
    if (setup.training) {
        if (const ComputeCalibration* c = apply_compute_calibration(compute, *setup.training)) {
            setup.compute_calibration = *c;
        }
    }
    setup.gpus = builtin_gpu_specs();
    return setup;
}

Placement placement_of(const JsonReader& top, const PlanRequest& request, const Cluster& cluster, std::int64_t world,
                       std::vector<std::string>& files, std::vector<std::string>& warnings) {
    if (!top.has("placement")) {
        return node_major_placement(cluster, world);
    }
    const nlohmann::json& section = top.at("placement");
    std::optional<NamedHostfile> hostfile;
    if (const auto name = placement_hostfile_name(section)) {
        const std::string path = resolve_named_file(scope_of(request), *name, top.where("placement/hostfile"));
        files.push_back(path);
        NamedHostfile h{*name, path, {}};
        const auto entries = parse_hostfile(read_text_file(path, kMaxHostfileBytes), path);
        for (const auto& [host, slots] : entries) {
            h.hosts.push_back(host);
        }
        const std::int64_t ranks = cluster.templates.empty() ? 0 : static_cast<std::int64_t>(cluster.templates.front().gpus.size());
        if (const std::string note = hostfile_slots_note(entries, ranks, *name); !note.empty()) {
            warnings.push_back(note);
        }
        hostfile = std::move(h);
    }
    return placement_from_json(section, request.layout_name, "/placement", cluster, world, hostfile);
}

Report plan_layout(const PlanRequest& request, const nlohmann::json& layout);

// The batch as DeepSpeed and the Hugging Face Trainer give it — grad_accum with the global or the
// micro batch, or a DeepSpeed run without the global batch — settled over the data-parallel size
// as DeepSpeed settles it (model/batch.hpp). Megatron's way (global batch, gas derived) is left
// as it is. Returns the layout with /training's three sizes explicit, or nothing when it is
// unchanged (the caller reads the layout itself: no copy of a big document).
std::optional<nlohmann::json> with_settled_batch(const nlohmann::json& layout, const std::string& file, std::int64_t dp,
                                                 bool deepspeed, std::map<std::string, std::string>& derived) {
    if (!layout.contains("training") || !layout.at("training").is_object()) {
        return std::nullopt;
    }
    const JsonReader t(layout.at("training"), file, "/training");
    const bool gas = t.has("grad_accum");
    if (!gas && !(deepspeed && !t.has("global_batch"))) {
        return std::nullopt;
    }
    constexpr std::int64_t kMaxBatch = 1 << 30;  // TrainingSpec's range for each size
    const BatchGiven given{t.get_int("global_batch", 1, kMaxBatch), t.get_int("micro_batch", 1, kMaxBatch),
                           t.get_int("grad_accum", 1, kMaxBatch)};
    const Batch b = settle_batch(given, dp, {t.where("global_batch"), t.where("micro_batch"), t.where("grad_accum")});
    if (b.global_batch > kMaxBatch) {
        throw input_error(t.where(given.micro_batch ? "micro_batch" : "global_batch"),
                          "the global batch derived as micro x gas x dp = " + std::to_string(b.global_batch) + " is over 2^30",
                          "give smaller batch sizes");
    }
    const std::string rule = "derived as DeepSpeed derives it: train_batch_size = micro x gas x dp " + std::to_string(dp);
    for (const auto& [key, given_value] : {std::pair{"global_batch", given.global_batch}, std::pair{"micro_batch", given.micro_batch},
                                           std::pair{"grad_accum", given.grad_accum}}) {
        if (!given_value) {
            derived[std::string("/training/") + key] = rule;
        }
    }
    nlohmann::json out = layout;
    out["training"]["global_batch"] = b.global_batch;
    out["training"]["micro_batch"] = b.micro_batch;
    out["training"]["grad_accum"] = b.grad_accum;
    return out;
}

// The parallel section with every value explicit, in the keys parallel_spec_from_json reads.
nlohmann::json explicit_parallel(const ResolvedSpec& s) {
    nlohmann::json j{{"world", s.world}, {"tp", s.tp}, {"pp", s.pp}, {"cp", s.cp}, {"ep", s.ep},
                     {"etp", s.etp}, {"dp", s.dp}, {"order", s.order}};
    if (s.vpp) {
        j["vpp"] = *s.vpp;
    }
    if (s.rank_offset != 0 || s.grid_world != s.world) {
        j["rank_offset"] = s.rank_offset;
        j["local_world_size"] = s.grid_world;
    }
    if (s.dist_opt_instances != 1) {
        j["dist_opt_instances"] = s.dist_opt_instances;
    }
    if (s.gtp != 1 || s.egtp != 1) {
        j["gtp"] = s.gtp;
        j["egtp"] = s.egtp;
    }
    if (!s.hierarchical_cp.empty()) {
        j["hierarchical_cp"] = s.hierarchical_cp;
    }
    if (s.hybrid_cp) {
        j["hybrid_cp"] = true;
    }
    return j;
}

// The layout with every value the plan used written out (the cluster as given).
nlohmann::json effective_layout_of(const nlohmann::json& layout, const ResolvedSpec& spec,
                                   const std::optional<ScoreSetup>& setup) {
    nlohmann::json out = nlohmann::json::object();
    for (const char* key : {"name", "description", "cluster"}) {
        if (layout.contains(key)) {
            out[key] = layout.at(key);
        }
    }
    out["parallel"] = explicit_parallel(spec);
    if (layout.contains("placement")) {
        out["placement"] = layout.at("placement");
    }
    if (setup) {
        if (setup->model) {
            out["model"] = setup->model->to_json();
        }
        if (setup->training) {
            out["training"] = setup->training->to_json();
        }
        out["transport"] = to_json(setup->transport);
        if (!setup->transport.compare_given) {
            // Not asked for: the arms follow the hardware (analysis/arms.hpp); written out, the
            // default pair would become a request the hardware may not run.
            out["transport"].erase("compare");
        }
        if (layout.contains("score")) {
            out["score"] = layout.at("score");
        }
    }
    return out;
}

// Every number the plan used: the parallel, model, training and transport values, then what
// each node template gave (GPUs, NVLink, NIC and TCP speeds).
std::vector<Assumption> plan_assumptions(const Report& report, const std::optional<ScoreSetup>& setup,
                                         const std::string& layout_name) {
    std::vector<Assumption> out;
    const nlohmann::json& eff = report.effective_layout;
    auto section = [&](const char* key) {
        if (eff.contains(key)) {
            const auto part = list_assumptions(nlohmann::json{{key, eff.at(key)}}, report.layout, report.sources, layout_name);
            out.insert(out.end(), part.begin(), part.end());
        }
    };
    section("parallel");
    if (setup && setup->model) {  // the model knows which of its values are derived from others
        for (const auto& f : setup->model->fields()) {
            const std::string path = "/model" + f.pointer;
            std::string source = f.origin == ValueOrigin::Derived ? "derived" : f.origin == ValueOrigin::Default ? "default" : "";
            if (f.origin == ValueOrigin::Given) {
                source = source_of(report.sources, path);
                source = source.empty() ? layout_name : source;
            }
            out.push_back({path, f.value, source});
        }
    }
    section("training");
    if (report.score && report.score->has_model) {  // the GPU and the compute model's constants
        const Score& s = *report.score;
        const GpuSpec& g = s.gpu;
        out.push_back({"/compute/gpu", g.name, s.gpu_source});
        const std::string spec = g.source.empty() ? s.gpu_source : g.source;
        out.push_back({"/compute/gpu/bf16_tflops", g.bf16_tflops, spec});
        out.push_back({"/compute/gpu/fp8_tflops", g.fp8_tflops, spec});
        out.push_back({"/compute/gpu/hbm_gbyte_s", g.hbm_gbyte_s, spec});
        if (s.compute.modelled) {
            const std::string doc = "docs/cost-model.md (Compute: efficiency)";
            const KernelChoice& k = s.compute.kernels;
            if (!k.table || k.table->gemm.empty()) {  // the prior curve prices the GEMMs
                out.push_back({"/compute/gemm_efficiency_max", numbers::kGemmEfficiencyMax.value, doc});
                out.push_back({"/compute/gemm_half_dim", numbers::kGemmHalfDim.value, doc});
            }
            if (k.table) {  // attention, memory-bound blocks and the optimizer from the measured table
                const std::string kdoc = k.table->file + " (" + k.table->source + ")";
                out.push_back({"/compute/kernels/table", k.table->file, kdoc});
                out.push_back({"/compute/kernels/measured_on", k.table->gpu, kdoc});
                if (!k.table->gemm.empty()) {
                    const std::string gdoc = k.table->file + " (" + k.table->gemm.source() + "); docs/cost-model.md (Compute: GEMMs)";
                    out.push_back({"/compute/kernels/gemm_measured_on", k.table->gemm.measured_on(), gdoc});
                    out.push_back({"/compute/kernels/gemm_shapes", static_cast<double>(k.table->gemm.points().size()), gdoc});
                }
                if (!k.power_gpu.empty()) {
                    const std::string pdoc = k.table->file + " (" + k.table->power->source + "); docs/cost-model.md (Compute: the power limit)";
                    out.push_back({"/compute/kernels/power_duty", k.power_duty, "derived: the GEMMs' and attention's share of the step at burst rates"});
                    out.push_back({"/compute/kernels/power_ratio", k.power_ratio, pdoc});
                }
                if (k.derived) {
                    out.push_back({"/compute/kernels/memory_scale", k.mem_scale,
                                   "derived: " + k.table->gpu + "'s datasheet bandwidth / " + g.name + "'s (docs/cost-model.md, Compute: kernels)"});
                }
                const std::string how = "training.implementation " + std::string(to_string(k.implementation));
                out.push_back({"/compute/kernels/attention_backend", to_string(k.attention), how});
                out.push_back({"/compute/kernels/optimizer", std::string(to_string(k.optimizer)), how});
                if (!k.fp8_recipe.empty()) {
                    const std::string fdoc = k.table->file + " (" + k.table->fp8_source + "); docs/cost-model.md (Compute: FP8)";
                    out.push_back({"/compute/kernels/fp8_recipe", k.fp8_recipe, "training.fp8_recipe (Megatron --fp8-recipe; default delayed)"});
                    out.push_back({"/compute/kernels/fp8_gemm", k.fp8_gemm,
                                   k.fp8_recipe == "blockwise" ? "assumed: 1x128/128x128-scaled GEMMs run as the measured row-wise-scaled ones"
                                   : k.fp8_recipe == "mxfp8" ? "assumed: MX scales applied in the tensor core (Blackwell), as per-tensor scaling"
                                                             : fdoc});
                    out.push_back({"/compute/kernels/fp8_quant_ps", k.fp8_quant_ps, fdoc});
                }
            } else {
                out.push_back({"/compute/attention_efficiency_max", numbers::kAttentionEfficiencyMax.value, doc});
                out.push_back({"/compute/attention_half_seq", numbers::kAttentionHalfSeq.value, doc});
                out.push_back({"/compute/adam_bytes_per_param", numbers::kAdamBytesPerParam.value, doc});
            }
            out.push_back({"/compute/kernel_floor_us", numbers::kKernelFloorSeconds.value * 1e6, doc});
        }
        if (s.anchored) {
            out.push_back({"/compute/compute_scale", s.compute_scale, "fitted to /training/measured_step_time_s"});
        }
    }
    if (eff.contains("transport") && report.score) {  // the priors of the arms compared, not of the others
        nlohmann::json transport = eff.at("transport");
        for (const char* t : {"tcp", "rdma", "gdrdma"}) {
            if (t != to_string(report.score->baseline) && t != to_string(report.score->candidate) &&
                transport.contains(t)) {
                transport.erase(t);
            }
        }
        const auto part = list_assumptions(nlohmann::json{{"transport", transport}}, report.layout, report.sources, layout_name);
        out.insert(out.end(), part.begin(), part.end());
    } else {
        section("transport");
    }
    if (report.score && report.score->calibrated) {  // which calibrated fit each kind's collectives used
        for (const auto& k : report.score->by_kind) {
            const bool fitted = !k.fits.empty();
            out.push_back({("/transport/calibration_used"_json_pointer / k.kind).to_string(),
                           fitted ? nlohmann::json(k.fits) : nlohmann::json("priors"), fitted ? "calibration" : "default"});
        }
    }
    for (std::size_t i = 0; i < report.cluster.templates.size(); ++i) {
        const NodeTemplate& t = report.cluster.templates[i];
        const TemplateFacts& f = report.cluster.facts[i];
        const std::string base = ("/hardware"_json_pointer / t.name).to_string();  // the name as one token
        const std::string source = t.source.empty() ? t.name : t.source;
        out.push_back({base + "/gpus", f.gpu_count, source});
        out.push_back({base + "/nvlink_gbyte_s", f.nvlink_gbyte_s, source});
        out.push_back({base + "/pcie_gbyte_s", f.pcie_gbyte_s, source});
        const bool known = !f.rail_gbit_s.empty() &&
                           std::all_of(f.rail_gbit_s.begin(), f.rail_gbit_s.end(), [](double v) { return v > 0; });
        out.push_back({base + "/rail_nics", f.rail_nics.size(), source});
        if (!f.rail_gbit_s.empty()) {
            out.push_back({base + "/rail_gbit_s", known ? f.rail_gbit_s.front() : 400.0, known ? source : "default"});
        }
        out.push_back({base + "/tcp_gbit_s", f.tcp_gbit_s, source});
    }
    // The leaf uplinks' oversubscription prices every pair across leaf groups (XRAIL, XPOD): an
    // assumption wherever the cluster has more than one leaf group and the plan is costed.
    if (report.score && fabric_domains(report.cluster).leaf_group_names.size() > 1) {
        const std::string path = "/cluster/fabric/oversubscription";
        std::string source = report.layout.contains(nlohmann::json::json_pointer(path)) ? source_of(report.sources, path) : "";
        if (source.empty()) {
            source = report.layout.contains(nlohmann::json::json_pointer(path)) ? layout_name
                     : report.cluster.fabric.oversubscription != 1.0 ? "the cluster file"
                                                                      : "default";
        }
        out.push_back({path, report.cluster.fabric.oversubscription, source});
    }
    return out;
}

}  // namespace

Report plan(const PlanRequest& request) {
    if (!request.layout_json) {
        require_text_size(request.layout_text, request.layout_name, kMaxLayoutBytes, "kMaxLayoutBytes",
                          "a layout is a few kilobytes: check that this is the right file");
    }
    // Read in place, not copied (Report::layout keeps the one copy the report needs).
    std::optional<nlohmann::json> parsed;
    if (!request.layout_json) {
        parsed = parse_json_text(request.layout_text, request.layout_name);
    }
    const nlohmann::json& layout = request.layout_json ? *request.layout_json : *parsed;
    try {
        return plan_layout(request, layout);
    } catch (const Error& e) {
        throw error_with_source(e, request.layout_name, request.sources);
    }
}

namespace {

Report plan_layout(const PlanRequest& request, const nlohmann::json& layout) {
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
    FrameworkSpec spec = framework_spec_from_json(top.at("parallel"), source);
    // An allocation (placement.hosts: --nodelist, or --hostfile on a cluster naming hosts) is the
    // job: its hosts' GPUs are the default world.
    const std::int64_t allocated = top.has("placement") ? placement_hosts_gpus(top.at("placement"), report.cluster) : 0;
    if (framework_world(spec) == 0) {
        set_framework_world(spec, allocated > 0 ? allocated : gpus);
    } else if (framework_world(spec) > gpus) {
        throw input_error(request.layout_name + " (/parallel/world)",
                          "world " + std::to_string(framework_world(spec)) + " exceeds the cluster's " + std::to_string(gpus) +
                              " GPUs",
                          "drop \"world\" to use every GPU, or add nodes");
    }
    Groups groups = build_framework_groups(spec, source);
    const ResolvedSpec resolved = groups.spec;
    report.files = report.cluster.files;
    std::vector<std::string> placement_warnings;  // a hostfile's slots beside the ranks per node
    report.placement = placement_of(top, request, report.cluster, resolved.world, report.files, placement_warnings);
    report.warnings = request.input_warnings;
    report.warnings.insert(report.warnings.end(), report.cluster.warnings.begin(), report.cluster.warnings.end());
    report.warnings.insert(report.warnings.end(), placement_warnings.begin(), placement_warnings.end());
    if (resolved.world < gpus) {
        report.warnings.push_back("the job uses " + std::to_string(resolved.world) + " of the cluster's " +
                                  std::to_string(gpus) + " GPUs" +
                                  (report.cluster.topology_file.empty() || allocated > 0
                                       ? std::string()
                                       : ": placed on the first hosts in the fabric order of " +
                                             report.cluster.topology_file + " (leaf after leaf)"));
    }
    std::optional<ScoreSetup> setup;
    std::map<std::string, std::string> batch_sources;  // the batch sizes derived from the others
    for (const char* key : {"model", "training", "transport", "score"}) {
        if (top.has(key)) {
            report.sections[key] = top.at(key);
        }
    }
    // Composed from a script or flags, half a model/training pair is no reason to refuse the groups.
    const bool half = top.has("model") != top.has("training") && !top.has("score");
    if (half && !request.sources.empty()) {
        report.warnings.emplace_back(top.has("model") ? "no score and no memory: the training run is not given; give "
                                                     "--seq-length and --global-batch-size (and --micro-batch-size)"
                                                   : "no score and no memory: the model is not given; give "
                                                     "--model-config config.json or the model flags (--num-layers, ...)");
    } else if (!report.sections.is_null()) {
        const std::optional<nlohmann::json> settled = with_settled_batch(layout, request.layout_name, resolved.dp,
                                                                         spec.framework == Framework::DeepSpeed, batch_sources);
        setup = score_setup_of(JsonReader(settled ? *settled : layout, request.layout_name, ""), request.layout_name,
                               transport_scope_of(request), report.files);
    }
    if (setup && setup->model) {
        check_model_fits(*setup->model, resolved, request.layout_name, report.warnings);
    }
    report.layout = layout;
    report.sources = request.sources;
    report.sources.insert(batch_sources.begin(), batch_sources.end());
    if (setup && setup->compute_calibration) {
        const ComputeCalibration& c = *setup->compute_calibration;
        report.sources["/training/compute_scale"] = c.file + " (calibrate --compute: " + c.layout + ", " +
                                                    c.measured_transport + " step " + fixed_text(c.measured_step_time_s, 3) +
                                                    " s)";
    }
    report.effective_layout = effective_layout_of(layout, resolved, setup);
    if (spec.framework != Framework::Megatron) {
        // The framework's own degrees, as given, with the world they ran on.
        nlohmann::json parallel = top.at("parallel");
        parallel["world"] = framework_world(spec);
        report.effective_layout["parallel"] = parallel;
    }
    Evaluation evaluation = evaluate(report.cluster, report.placement, std::move(groups),
                                     {request.kinds, Coverage::Every, request.progress, true,
                                      allocated > 0 && static_cast<std::int64_t>(allocation_nodes(report.placement).size()) <
                                                           report.cluster.node_count()},
                                     setup);
    report.allocation = std::move(evaluation.allocation);
    report.groups = std::move(evaluation.groups);
    report.kinds = std::move(evaluation.kinds);
    report.score = std::move(evaluation.score);
    report.assumptions = plan_assumptions(report, setup, request.layout_name);
    if (setup && setup->compute_calibration && report.score && report.score->has_model &&
        setup->compute_calibration->gpu != report.score->gpu_name) {
        report.warnings.push_back(setup->compute_calibration->file + ": compute_scale was fitted on " +
                                  setup->compute_calibration->gpu + ", this layout computes on " +
                                  report.score->gpu_name + "; the scale carries kernel efficiency, not peak, so expect "
                                  "a larger error (calibrate --compute on this GPU)");
    }
    if (report.score) {
        for (const auto& w : report.score->warnings) {
            report.warnings.push_back(w);
        }
    }
    if (setup && setup->model && setup->training) {
        report.memory = MemoryReport{estimate_memory(parallel_sizes(report.groups), *setup->model, *setup->training,
                                                     state_owner(spec)),
                                     memory_budget(report.cluster, report.placement, request.memory_limits)};
        if (const auto w = memory_warning(*report.memory)) {
            report.warnings.push_back(*w);
        }
    }
    return report;
}

}  // namespace

nlohmann::json saved_layout(const Report& report, const PlanRequest& request) {
    nlohmann::json out = report.effective_layout;
    std::vector<std::string> files;
    if (out.contains("cluster")) {
        out["cluster"] = self_contained_cluster_json(out.at("cluster"), request.layout_name, "/cluster", scope_of(request), files);
    }
    if (out.contains("placement") && placement_hostfile_name(out.at("placement"))) {
        nlohmann::json& placement = out["placement"];
        placement.erase("hostfile");  // the hosts in their order, read in: the saved layout names no file
        placement["hosts"] = nlohmann::json::array();
        std::vector<bool> seen(report.cluster.nodes.size(), false);
        for (const std::int32_t n : report.placement.node) {  // nodes in the order ranks fill them
            if (!seen[static_cast<std::size_t>(n)]) {
                seen[static_cast<std::size_t>(n)] = true;
                placement["hosts"].push_back(report.cluster.nodes[static_cast<std::size_t>(n)].host);
            }
        }
    }
    return out;
}

Error error_with_source(const Error& e, const std::string& layout_name, const std::map<std::string, std::string>& sources) {
    const std::string prefix = layout_name + " (";
    if (sources.empty() || e.where().rfind(prefix, 0) != 0 || e.where().back() != ')') {
        return e;
    }
    const std::string pointer = e.where().substr(prefix.size(), e.where().size() - prefix.size() - 1);
    const std::string source = source_of(sources, pointer);
    if (source.empty()) {
        return e;
    }
    return {e.code(), source + " (" + pointer + ")", e.problem(), e.hint()};
}

PlanRequest embedded_default_request() {
    PlanRequest r;
    r.layout_text = kEmbeddedLayout;
    r.layout_name = kEmbeddedLayoutName;
    r.base_dir = ".";
    return r;
}

}  // namespace planlayout
