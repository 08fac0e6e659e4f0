// CLI: `plan-layout analyze [LAYOUT]` — the whole pipeline on a layout file (or the embedded default).
#include <algorithm>
#include <iostream>
#include <sstream>

#include "analyze_launch.hpp"
#include "commands.hpp"
#include "messages.hpp"
#include "plan_inputs.hpp"
#include "planlayout/emit/diagram.hpp"
#include "planlayout/emit/report_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {
int run_analyze(const ParsedArgs& parsed, Context& ctx) {
    const std::string format = parsed.get_or("--format", "text");
    if (is_launch_format(format)) {  // scheduler | hostfile | launch: analyze_launch.cpp
        return run_launch_format(parsed, format, ctx);
    }
    require_format_flags(parsed, format);
    const bool diagram = format == "dot" || format == "svg";
    for (const char* flag : {"--view", "--kind", "--host", "--style"}) {
        if (!diagram && parsed.has(flag)) {
            throw input_error(parsed.spelling(flag), "only applies to diagrams", "add --format dot or --format svg");
        }
    }
    for (const char* flag : {"--gpu-memory", "--memory-headroom", "--require-fit"}) {
        if (diagram && parsed.has(flag)) {
            throw input_error(flag, "does not apply to diagrams", "drop it, or use --format text or json");
        }
    }
    if (diagram && parsed.has("--ranks")) {
        throw input_error("--ranks", "only applies to text output", "drop --ranks, or use --format text");
    }
    DiagramOptions diagram_options;
    if (const auto v = parsed.get("--view")) {
        diagram_options.view = *parse_diagram_view(*v);  // checked by the option's validator
    }
    if (diagram_options.view == DiagramView::Score && format == "dot") {
        throw input_error("--view score", "the step-time chart is not a graph: it has no DOT form",
                          "use --format svg with --view score");
    }
    diagram_options.kind = parsed.get_or("--kind", "ep");
    diagram_options.host = parsed.get_or("--host", "");
    const bool chart = diagram_options.view == DiagramView::Matrix || diagram_options.view == DiagramView::Load;
    if (format == "dot" && chart) {
        throw input_error("--view " + std::string(to_string(diagram_options.view)), "is a chart, not a graph: it has no DOT",
                          "use --format svg");
    }
    if (parsed.has("--kind") && diagram_options.view != DiagramView::Groups && diagram_options.view != DiagramView::Matrix) {
        throw input_error("--kind", "only applies to --view groups and --view matrix", "add --view groups or matrix, or drop --kind");
    }
    if (parsed.has("--host") && diagram_options.view != DiagramView::Node) {
        throw input_error("--host", "only applies to --view node", "add --view node, or drop --host");
    }
    DiagramStyle style = default_diagram_style();
    if (const auto f = parsed.get("--style")) {
        style = diagram_style_from_json(read_input(*f, ctx, kMaxStyleBytes), *f == "-" ? "<stdin>" : *f);
    }
    PlanRequest request = plan_request_of(parsed, ctx);
    apply_memory_flags(parsed, request);
    if (const auto k = parsed.get("--kinds")) {
        if (diagram) {
            throw input_error("--kinds", "does not apply to diagrams", "use --kind K with --view groups");
        }
        request.kinds = split_csv(*k);
    }
    if (diagram && (diagram_options.view == DiagramView::Groups || diagram_options.view == DiagramView::Matrix)) {
        request.kinds = {diagram_options.kind};  // only the drawn kind needs classifying
    } else if (diagram && diagram_options.view == DiagramView::Node) {
        request.kinds = {"tp"};  // the node view classifies nothing
    }  // the fabric and load views classify every kind: their traffic comes from the score
    if (ctx.err_is_terminal) {
        request.progress = [&ctx](std::int64_t done, std::int64_t total) {
            ctx.err << "\rclassifying groups: " << (100 * done / std::max<std::int64_t>(total, 1)) << "%" << std::flush;
        };
    }
    const Report report = plan(request);
    if (ctx.err_is_terminal && request.progress) {
        ctx.err << "\r" << std::string(32, ' ') << "\r" << std::flush;
    }
    if (parsed.has("--kinds")) {
        for (const auto& k : request.kinds) {
            if (report.groups.find(k) == nullptr) {
                throw unknown_kind(*parsed.get("--kinds"), k, "see 'plan-layout groups' for the kinds this spec creates");
            }
        }
    }
    if (diagram && diagram_options.view == DiagramView::Score && (!report.score || !report.score->has_model)) {
        throw input_error("--view score", report.score ? "the layout gives the score's factors, not a model to time the step with"
                                                       : "the layout has no model and training sections to time the step with",
                          "add the \"model\" and \"training\" sections (docs/formats/layout.md), or --model-config and Megatron-LM's flags");
    }
    const int code = require_fit_code(parsed, report);  // before writing: it may refuse
    save_layout_if_asked(parsed, report, request, ctx);
    Output out(parsed, ctx, report.files);  // the files the layout named are inputs too
    if (diagram) {
        out.write(format == "dot" ? diagram_dot(report, diagram_options, style) : diagram_svg(report, diagram_options, style));
    } else {
        ReportOptions options;
        options.ranks = parsed.has("--ranks");
        if (format == "json") {  // streamed: the placement and --ranks have an entry per rank
            write_report_json(out.stream(), report);
        } else {
            write_report_text(out.stream(), report, options);
        }
    }
    out.commit();
    return code;
}

}  // namespace planlayout::cli
