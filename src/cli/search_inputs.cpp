// CLI: search inputs, options and candidates as layouts.
#include "search_inputs.hpp"

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "cost_options.hpp"
#include "messages.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/calibration_file.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/gpu_spec_json.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/plan.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout::cli {
namespace {

using nlohmann::json;

// Errors about composed values name their source (launch.sh:12, config.json (hidden_size)).
template <typename F>
auto with_sources(const PlanRequest& request, F&& f) {
    try {
        return f();
    } catch (const Error& e) {
        throw error_with_source(e, request.layout_name, request.sources);
    }
}

}  // namespace

SearchInputs search_inputs(const ParsedArgs& args, Context& ctx, bool cluster_positional) {
    SearchInputs out;
    ComposeOptions options;
    options.parallel = false;
    options.embedded_default = false;
    const auto& pos = args.positionals();
    out.inputs = compose_inputs(args, ctx, options, cluster_positional && !pos.empty() ? pos.data() : nullptr);
    report_input_notes(out.inputs, args, ctx);
    json& layout = *out.inputs.request.layout_json;
    const PlanRequest& request = out.inputs.request;
    if (const auto path = args.get("--model")) {  // model, training and transport sections of another file
        const json m = parse_json_text(read_input(*path, ctx, kMaxLayoutBytes), *path == "-" ? "<stdin>" : *path);
        if (!m.is_object() || !m.contains("model") || !m.contains("training")) {
            throw input_error(*path, "no \"model\" and \"training\" sections",
                              "point --model at a layout file such as layouts/seed-2x8-ep16.json");
        }
        for (const char* key : {"model", "training", "transport"}) {
            if (m.contains(key) && !layout.contains(key)) {
                layout[key] = m.at(key);
                out.inputs.request.sources["/" + std::string(key)] = *path == "-" ? "<stdin>" : *path;
                if (std::string(key) == "transport") {  // its calibration files are in that layout's folder
                    out.inputs.request.transport_dir = *path == "-" ? "." : parent_dir(*path);
                }
            }
        }
        out.files.push_back(*path);
    }
    if (!layout.contains("model") || !layout.contains("training")) {
        throw input_error(request.layout_name, "no model or no training run is given",
                          "give --megatron-args SCRIPT and/or --model-config config.json with --seq-length and "
                          "--global-batch-size, or --model LAYOUT (a layout's model, training and transport)");
    }
    const FileScope scope{request.base_dir, request.base_dir, ctx.files_anywhere};
    with_sources(request, [&] {
        out.cluster = cluster_from_json(layout.at("cluster"), request.layout_name, "/cluster", scope);
        out.model.model = model_spec_from_json(layout.at("model"), request.layout_name);
        out.model.training = training_spec_from_json(layout.at("training"), request.layout_name);
        if (layout.contains("transport")) {
            out.model.transport = transport_spec_from_json(layout.at("transport"), request.layout_name);
        }
        return 0;
    });
    const FileScope transport_scope =
        request.transport_dir.empty() ? scope : FileScope{request.transport_dir, request.transport_dir, ctx.files_anywhere};
    std::vector<ComputeCalibration> compute;
    out.model.calibrations = read_calibration_files(out.model.transport.calibrations, transport_scope,
                                                    request.layout_name + " (/transport)", &out.files, &compute);
    TrainingSpec& t = out.model.training;
    if ((t.measured_step_time_s || t.measured_compute_s) &&
        std::find(t.given.begin(), t.given.end(), "/compute_scale") == t.given.end()) {
        // A measured step belongs to the layout it was measured on: fit compute_scale there (the
        // layout's own parallel sizes), then rank every candidate with it.
        if (!layout.contains("parallel")) {
            throw input_error(request.layout_name + " (/training/measured_step_time_s)",
                              "a measured step, but not the parallel sizes it was measured with",
                              "give the layout's \"parallel\" section (or --megatron-args of the measured job to "
                              "analyze), or fit it first: calibrate --compute LAYOUT -o compute.json and list that file");
        }
        PlanRequest measured = request;
        measured.kinds.clear();
        const Report fitted = plan(measured);
        if (fitted.score && fitted.score->anchored) {
            t.compute_scale = fitted.score->compute_scale;
            out.model.transport.anchor_factors = fitted.score->anchor_factors;
            ctx.err << "plan-layout: note: compute_scale " << fixed_text(t.compute_scale, 6)
                    << " fitted to the measured step of the layout's own sizes; every candidate is ranked with it\n";
            for (const std::string& note : fitted.score->anchoring) {
                print_message(ctx, "note", "anchored " + note);
            }
        }
    } else {
        (void)apply_compute_calibration(compute, t);
    }
    out.model.gpus = builtin_gpu_specs();
    out.files.insert(out.files.end(), out.inputs.files.begin(), out.inputs.files.end());
    out.files.insert(out.files.end(), out.cluster.files.begin(), out.cluster.files.end());
    return out;
}

SearchOptions search_options(const ParsedArgs& args, const SearchModel& model, Context& ctx) {
    SearchOptions options;
    options.world = args.get_int("--world").value_or(0);
    options.max_tp = static_cast<int>(args.get_int("--max-tp").value_or(8));
    options.max_cp = static_cast<int>(args.get_int("--max-cp").value_or(8));
    options.even_pp = args.has("--even-pp");
    options.framework = args.get_or("--framework", "megatron");
    if (options.framework != "megatron" && args.has("--orders")) {
        throw input_error("--orders " + *args.get("--orders"), options.framework + " fixes its own rank order",
                          "drop --orders (or use --framework megatron)");
    }
    if (const auto eps = args.get("--ep")) {
        for (const auto& v : split_csv(*eps)) {
            char* end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (end == v.c_str() || *end != '\0' || n < 1 || n > (1L << 30)) {
                throw input_error("--ep " + *eps, "'" + v + "' is not a positive integer", "e.g. --ep 8,16");
            }
            options.ep.push_back(static_cast<int>(n));
        }
    }
    if (const auto vpps = args.get("--vpp")) {
        options.vpp.clear();
        for (const auto& v : split_csv(*vpps)) {
            char* end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (end == v.c_str() || *end != '\0' || n < 1 || n > 1024) {
                throw input_error("--vpp " + *vpps, "'" + v + "' is not a virtual pipeline size from 1 to 1024", "e.g. --vpp 1,2,4,8");
            }
            options.vpp.push_back(static_cast<int>(n));
        }
    }
    if (const auto orders = args.get("--orders")) {
        options.orders = split_csv(*orders);
    }
    options.memory_limits = memory_limits_of(args);
    // The layouts kept: those --top shows (0: all), and the one --save-layout writes; --explain
    // ranks its layout among all of them.
    const auto top = args.get_int("--top").value_or(20);
    options.keep = top > 0 && !args.has("--explain")
                       ? static_cast<std::size_t>(std::max<std::int64_t>(top, args.get_int("--save-layout").value_or(0)))
                       : 0;
    const std::string base(to_string(model.transport.baseline));
    const std::string cand(to_string(model.transport.candidate));
    const std::string sort = args.get_or("--sort", cand);
    if (sort == "benefit") {
        options.sort = SearchSort::Benefit;
    } else if (sort == base) {
        options.sort = SearchSort::Baseline;
    } else if (sort == cand) {
        options.sort = SearchSort::Candidate;
    } else {
        throw input_error("--sort " + sort, "not one of the compared transports",
                          "use " + base + ", " + cand + " or benefit (the model's transport.compare names the two)");
    }
    if (ctx.err_is_terminal) {
        options.progress = [&ctx](std::int64_t done, std::int64_t total) {
            if (total < 64) {
                return;  // short runs need no bar
            }
            const auto width = 30 * done / std::max<std::int64_t>(total, 1);
            ctx.err << "\rsearch [" << std::string(static_cast<std::size_t>(width), '#')
                    << std::string(static_cast<std::size_t>(30 - width), ' ') << "] " << done << "/" << total
                    << std::flush;
        };
    }
    return options;
}

PlanRequest candidate_request(const SearchInputs& in, const SearchResult& result, std::int64_t rank,
                              const std::string& where) {
    if (rank < 1 || rank > result.evaluated || rank > static_cast<std::int64_t>(result.layouts.size())) {
        throw input_error(where, "search ranked " + std::to_string(result.evaluated) + " layouts; there is no #" +
                                     std::to_string(rank),
                          result.evaluated == 0 ? "relax the search (--gpu-memory, --max-tp, --ep)"
                                                : "give a rank from 1 to " + std::to_string(result.evaluated));
    }
    const SearchLayout& l = result.layouts[static_cast<std::size_t>(rank - 1)];
    PlanRequest request = in.inputs.request;
    json& layout = *request.layout_json;
    const std::string source = "search #" + std::to_string(rank) + " (" + l.name() + ")";
    if (result.framework == "megatron") {
        layout["parallel"] = json{{"world", result.world}, {"tp", l.sizes.tp}, {"pp", l.sizes.pp}, {"cp", l.sizes.cp},
                                  {"ep", l.sizes.ep},       {"etp", l.sizes.etp}, {"order", l.order}};
        if (l.sizes.vpp > 1) {
            layout["parallel"]["vpp"] = l.sizes.vpp;
        }
    } else {  // the framework's own degrees: its order and expert grid are its own
        layout["parallel"] = json{{"framework", result.framework}, {"world", result.world}, {"tp", l.sizes.tp},
                                  {"pp", l.sizes.pp}, {"ep", l.sizes.ep}};
        if (l.sizes.cp > 1) {
            layout["parallel"]["cp"] = l.sizes.cp;
        }
    }
    request.sources["/parallel"] = source;
    if (!layout.contains("name")) {
        layout["name"] = l.name();
    }
    return request;
}

}  // namespace planlayout::cli
