// CLI: `plan-layout report [LAYOUT]` — the plan as one self-contained HTML page, with the
// acceptance results of --verify (NCCL logs) and --ab (step logs) when given.
#include <algorithm>
#include <utility>

#include "acceptance_inputs.hpp"
#include "analyze_launch.hpp"
#include "commands.hpp"
#include "messages.hpp"
#include "plan_inputs.hpp"
#include "planlayout/emit/html_report.hpp"
#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {
namespace {

// The A/B of --ab, with the plan's predicted change and band beside each comparison.
verify::AbReport ab_of(const ParsedArgs& parsed, const Report& report, Context& ctx) {
    verify::AbOptions options;
    if (const auto w = parsed.get("--window")) {
        options.window = verify::parse_window(*w, "plan-layout report --window");
    }
    if (const auto gb = parsed.get_int("--global-batch")) {
        options.global_batch = static_cast<int>(*gb);
    } else if (const auto* training = report.effective_layout.is_object() && report.effective_layout.contains("training")
                                          ? &report.effective_layout.at("training")
                                          : nullptr;
               training != nullptr && training->is_object() && training->contains("global_batch") &&
               training->at("global_batch").is_number_integer()) {
        options.global_batch = static_cast<int>(std::clamp<std::int64_t>(training->at("global_batch").get<std::int64_t>(), 0, 100000000));
    }
    StepLogOptions log_options;
    if (const auto t = parsed.get_double("--tokens-per-gpu-step")) {
        log_options.tokens_per_gpu_step = *t;
    }
    verify::AbReport ab = verify::analyze_ab(
        read_ab_runs(parsed.get_all("--ab"), parsed.get_all("--run"), ctx, log_options), options);
    if (report.score) {
        const verify::AbPrediction p = prediction_of(*report.score, base_name(report.layout_name));
        for (const auto& c : ab.comparisons) {
            verify::attach_prediction(ab, c.arm, p);
        }
    }
    return ab;
}

}  // namespace

int run_report(const ParsedArgs& parsed, Context& ctx) {
    if (!parsed.has("--ab") && !parsed.has("--run")) {  // the A/B options need runs from either
        for (const char* name : {"--window", "--global-batch", "--tokens-per-gpu-step"}) {
            if (parsed.has(name)) {
                throw usage_error("report", std::string(name) + " needs --ab or --run", "give both, or drop " + std::string(name));
            }
        }
    }
    HtmlReportOptions options;
    if (const auto f = parsed.get("--style")) {
        options.style = diagram_style_from_json(read_input(*f, ctx, kMaxStyleBytes), *f == "-" ? "<stdin>" : *f);
    }
    PlanRequest request = plan_request_of(parsed, ctx);
    apply_memory_flags(parsed, request);
    if (ctx.err_is_terminal) {
        request.progress = [&ctx](std::int64_t done, std::int64_t total) {
            ctx.err << "\rclassifying groups: " << (100 * done / std::max<std::int64_t>(total, 1)) << "%" << std::flush;
        };
    }
    const Report report = plan(request);
    if (ctx.err_is_terminal) {
        ctx.err << "\r" << std::string(32, ' ') << "\r" << std::flush;
    }
    int code = require_fit_code(parsed, report);
    if (const auto logs = parsed.get_all("--verify"); !logs.empty()) {
        const auto expect = verify::parse_expected_transport(parsed.get_or("--expect", "gdrdma"), "plan-layout report --expect");
        verify::VerifyExpectation expectation = expectation_of(report, expect);
        expectation.intra = parsed.get_or("--intra", "p2p") == "shm" ? verify::ExpectedIntra::Shm : verify::ExpectedIntra::P2p;
        options.verify = verify::verify_log(read_nccl_logs(logs, ctx), expectation);
        for (const auto& log : logs) {
            options.verify_logs.push_back(log == "-" ? "<stdin>" : base_name(log));
        }
        if (!options.verify->passed()) {
            code = static_cast<int>(ExitCode::CheckFailed);
        }
    }
    if (parsed.has("--ab") || parsed.has("--run")) {
        options.ab = ab_of(parsed, report, ctx);
    }
    Output out(parsed, ctx, report.files);  // the files the layout named are inputs too
    options.input_paths = ctx.inputs;       // named by base name wherever the page quotes one
    out.write(html_report(report, options));
    out.commit();
    return code;
}

}  // namespace planlayout::cli
