// CLI: `plan-layout calibrate` — nccl-tests outputs → per collective, a floor, alpha and an
// efficiency curve of one transport on one link class, with per-row residuals; -o writes the
// calibration file (every fit in one file).
#include <algorithm>
#include <sstream>

#include "commands.hpp"
#include "cost_options.hpp"
#include "planlayout/emit/calibration_emit.hpp"
#include "planlayout/emit/charts.hpp"
#include "planlayout/text_format.hpp"
#include "messages.hpp"
#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/emit/output_file.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/bench_ops_json.hpp"
#include "planlayout/ingest/gpu_spec_json.hpp"
#include "planlayout/ingest/nccl_tests.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "plan_inputs.hpp"

namespace planlayout::cli {

namespace {

// `calibrate --compute LAYOUT --measured-step ARM=S`: the compute_scale that makes the measured
// arm's predicted step equal the measurement, as a calibration file other layouts list.
int run_calibrate_compute(const ParsedArgs& args, Context& ctx) {
    const auto& pos = args.positionals();
    if (pos.size() != 1) {
        throw input_error("calibrate --compute", "expected one layout, got " + std::to_string(pos.size()) + " files",
                          "give the layout the step was measured on: calibrate --compute LAYOUT --measured-step tcp=4.49");
    }
    for (const char* flag : {"--transport", "--nodes", "--gpus-per-node", "--class", "--op", "--min-size", "--cluster",
                             "--layout", "--kind"}) {
        if (args.has(flag)) {
            throw input_error(std::string("calibrate --compute ") + flag,
                              "belongs to a collective fit, not to the compute one",
                              "drop it: the layout gives the cluster, the model and the parallel sizes");
        }
    }
    PlanRequest request = layout_request(pos.front(), ctx);
    nlohmann::json layout = parse_json_text(request.layout_text, request.layout_name);
    if (!layout.is_object()) {
        throw input_error(request.layout_name, "a layout must be a JSON object", "see docs/formats/layout.md");
    }
    if (!args.has("--measured-step") && !layout.contains("/training/measured_step_time_s"_json_pointer)) {
        throw missing_option("calibrate --compute", "--measured-step",
                             "give the layout's measured step: --measured-step tcp=4.49 (seconds) or tcp=train.csv, or "
                             "training.measured_step_time_s in the layout");
    }
    std::vector<std::string> notes;
    std::vector<std::string> files;
    apply_measured_step(layout, request.sources, notes, args, ctx, files);
    for (const auto& n : notes) {
        print_message(ctx, "note", n);
    }
    ctx.inputs.insert(ctx.inputs.end(), files.begin(), files.end());
    request.layout_json = std::move(layout);
    const Report report = plan(request);
    if (!report.score || !report.score->has_model) {
        throw input_error(request.layout_name, "has no model and training run to fit the compute of",
                          "give the layout's \"model\" and \"training\" sections (or analyze ... --save-layout from a launch script)");
    }
    if (!report.score->anchored) {  // compute_time_s gives the compute outright
        throw input_error(request.layout_name + " (/training/compute_time_s)", "the compute is given, so there is nothing to fit",
                          "drop training.compute_time_s to fit compute_scale to the measured step");
    }
    const Score& s = *report.score;
    ComputeCalibration c;
    c.compute_scale = s.compute_scale;
    c.gpu = s.gpu_name;
    c.layout = base_name(pos.front());
    c.spec = sizes_text(report.groups.spec);
    const std::string arm = report.effective_layout.at("training").value("measured_transport", std::string("tcp"));
    c.measured_transport = arm;
    c.measured_step_time_s = report.effective_layout.at("training").value("measured_step_time_s", 0.0);
    c.compute_s = s.compute_s;
    c.mfu = arm == std::string(to_string(s.candidate)) ? s.mfu[1] : s.mfu[0];
    for (const auto& w : report.warnings) {
        print_message(ctx, "warning", w);
    }
    const std::string file_text = to_json(c).dump(2) + "\n";
    if (const auto o = args.get("-o"); o && *o != "-") {
        OutputFile file(*o, ctx.inputs);
        file.write(file_text);
        file.commit();
    }
    ctx.out << (args.get_or("--format", "text") == "json" ? file_text : render_text(c));
    check_standard_output(ctx.out);
    return 0;
}

// `calibrate --ops RUN...`: the compute model against measured kernels, op by op.
int run_calibrate_ops(const ParsedArgs& args, Context& ctx) {
    for (const char* flag : {"--transport", "--nodes", "--gpus-per-node", "--class", "--op", "--min-size", "--compute",
                             "--measured-step", "-o"}) {
        if (args.has(flag)) {
            throw input_error(std::string("calibrate --ops ") + flag, "does not apply to the compute check",
                              "drop it: --ops reads micro-benchmark runs and prints predicted vs measured (--format json for every row)");
        }
    }
    std::vector<std::vector<BenchOp>> runs;
    std::string device;
    for (const auto& path : args.positionals()) {
        BenchRun run = bench_run_from_json(read_input(path, ctx), path == "-" ? "stdin" : path);
        if (device.empty()) {
            device = run.device;
        }
        runs.push_back(std::move(run.ops));
    }
    const std::vector<GpuSpec> specs = builtin_gpu_specs();
    const std::string wanted = args.get_or("--gpu", device);
    const GpuSpec* gpu = match_gpu(specs, wanted);
    if (!gpu) {
        std::string known;
        for (const auto& g : specs) {
            known += (known.empty() ? "" : ", ") + g.name;
        }
        throw input_error(args.has("--gpu") ? "--gpu " + wanted : args.positionals().front() + " (/device)",
                          wanted.empty() ? "the run names no GPU" : "no GPU spec matches \"" + wanted + "\"",
                          "give --gpu NAME, one of: " + known);
    }
    const int largest =
        static_cast<int>(int_in_range("--largest", args.get_or("--largest", "10"), 0, 1000000));
    if (args.get_or("--format", "text") == "svg") {
        throw input_error("calibrate --ops --format svg", "the compute check has no picture",
                          "use --format text (the summary) or json (every op's row)");
    }
    const OpCheck check = check_ops(merge_bench_runs(runs), *gpu, 1.0, largest);
    ctx.out << (args.get_or("--format", "text") == "json" ? to_json(check).dump(2) + "\n" : render_text(check));
    check_standard_output(ctx.out);
    return 0;
}

// `calibrate --format svg`: each fit's predicted busbw over its measured sizes (the fit applied
// to the cost model, sampled densely in log size) and the measured rows as markers.
std::string fits_chart_svg(const std::vector<Calibration>& fits, const PlacedGroup& shape) {
    BusbwChart chart;
    chart.title = "plan-layout calibrate: " + std::to_string(shape.n) + " ranks = " + std::to_string(shape.nodes) +
                  (shape.nodes == 1 ? " node x " : " nodes x ") + std::to_string(shape.max_per_node) + " GPUs";
    chart.subtitle = "busbw over message size: the fits (lines) and the rows they were fitted to (markers); GB = 10^9 B";
    for (const auto& c : fits) {
        TransportSpec spec;
        spec.tcp.inside_node = c.socket_inside_node;
        apply_calibration(c, spec, "this fit");
        const TransportModel x = transport_model(spec, c.transport);
        BusbwCurve curve;
        curve.transport = std::string(to_string(c.transport));
        curve.collective = std::string(to_string(c.op));
        curve.label = curve.transport + " " + curve.collective + " " + std::string(to_string(c.link_class)) + " fit: floor " +
                      fixed_text(c.floor_us, 1) + " us, alpha " + fixed_text(c.alpha_us, 1) + " us/step, efficiency " +
                      fixed_text(c.efficiency, 2) + " of " + c.line + " at the largest size";
        double lo = 0;
        double hi = 0;
        for (const auto& row : c.rows) {
            lo = lo == 0 ? row.size_bytes : std::min(lo, row.size_bytes);
            hi = std::max(hi, row.size_bytes);
            curve.measured.emplace_back(row.size_bytes, row.measured_busbw_gbyte_s);
        }
        for (const double size : curve_sizes(lo, hi)) {
            curve.predicted.emplace_back(size, collective_cost(c.op, shape, size, x).busbw_gbyte_s);
        }
        curve.measured_label = "measured: " + c.source + " (" + std::to_string(c.rows.size()) + " rows)";
        chart.curves.push_back(std::move(curve));
    }
    return busbw_chart_svg(chart);
}

}  // namespace

int run_calibrate(const ParsedArgs& args, Context& ctx) {
    if (args.has("--compute")) {
        if (args.get_or("--format", "text") == "svg") {
            throw input_error("calibrate --compute --format svg", "the compute fit has no busbw to plot",
                              "use --format text or json with --compute");
        }
        return run_calibrate_compute(args, ctx);
    }
    if (args.has("--ops")) {
        return run_calibrate_ops(args, ctx);
    }
    if (!args.has("--transport")) {
        throw missing_option("calibrate", "--transport", "say which transport the test used: --transport gdrdma|rdma|tcp, or shm for a one-node run with NCCL_P2P_DISABLE=1");
    }
    const bool json = args.get_or("--format", "text") == "json";
    const PlacedGroup shape = shape_from(args, "calibrate", ctx);
    const Transport transport = transport_from(args, "gdrdma");
    std::optional<PathClass> cls;
    if (const auto c = args.get("--class")) {
        cls = parse_path_class(*c);
        if (!cls) {
            throw unknown_choice("--class", *c, "link class",
                                 "NV, MNNVL, PIX, PXB, PHB, NODE, SYS (inside a node or an NVLink clique) or RAIL, PXN, XRAIL, XPOD");
        }
        if (is_cross_node(*cls) != (shape.nodes >= 2)) {
            throw input_error("--class " + *c,
                              "class " + *c + (is_cross_node(*cls) ? " crosses nodes but --nodes is 1"
                                                                    : " is inside a node but the test spans nodes"),
                              is_cross_node(*cls)           ? "give --nodes K with K >= 2"
                              : *cls == PathClass::Mnnvl ? "give the NVLink clique as one node: --nodes 1 --gpus-per-node N"
                                                          : "use RAIL, PXN or XRAIL");
        }
    }
    NcclTestsOptions opt;
    opt.ranks = shape.n;
    if (const auto o = args.get("--op")) {
        opt.op = parse_collective_op(*o);  // checked by the option's validator
    }
    double min_size = 0;
    if (const auto m = args.get("--min-size")) {
        min_size = parse_size_bytes(*m, "--min-size");
    }
    // Every file: its collective from its test name (or --op); files of one collective are pooled.
    std::vector<NcclTestsRun> runs;
    std::vector<std::string> names;
    std::vector<std::vector<std::string>> warnings;  // per file
    for (const auto& path : args.positionals()) {
        const std::string name = path == "-" ? "stdin" : base_name(path);
        NcclTestsRun run = parse_nccl_tests(read_input(path, ctx), path, opt);
        warnings.emplace_back();
        for (auto w : run.warnings) {
            if (w.rfind(path, 0) == 0) {
                w = name + w.substr(path.size());
            }
            warnings.back().push_back(w);
        }
        runs.push_back(std::move(run));
        names.push_back(name);
    }
    std::vector<Calibration> fits = fit_calibrations(runs, shape, transport, cls, min_size, socket_inside_node(args, transport));
    const bool several = runs.size() > 1;
    for (auto& c : fits) {
        std::string source;
        std::size_t row = 0;
        for (std::size_t i = 0; i < runs.size(); ++i) {
            if (runs[i].op != c.op) {
                continue;
            }
            source += (source.empty() ? "" : ", ") + names[i];
            c.warnings.insert(c.warnings.end(), warnings[i].begin(), warnings[i].end());
            for (std::size_t k = 0; k < runs[i].rows.size() && row < c.rows.size(); ++k, ++row) {
                c.rows[row].source = several ? names[i] : "";
            }
        }
        c.source = source;
    }
    if (const auto o = args.get("-o"); o && *o != "-") {  // the calibration file; the report still prints
        OutputFile file(*o, ctx.inputs);
        file.write(to_json(fits).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
        file.commit();
    }
    if (args.get_or("--format", "text") == "svg") {
        ctx.out << fits_chart_svg(fits, shape);
    } else {
        ctx.out << (json ? to_json(fits).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n" : render_text(fits));
    }
    check_standard_output(ctx.out);
    return 0;
}

}  // namespace planlayout::cli
