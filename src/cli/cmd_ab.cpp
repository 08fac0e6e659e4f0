// CLI: `plan-layout ab` — step-time logs of an A/B run → stable-step statistics and the benefit.
#include "acceptance_inputs.hpp"
#include "commands.hpp"
#include "messages.hpp"
#include "planlayout/emit/ab_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/plan.hpp"
#include "planlayout/ingest/step_log.hpp"
#include "planlayout/verify/ab.hpp"

namespace planlayout::cli {

int run_ab(const ParsedArgs& a, Context& ctx) {
    const std::string format = a.get_or("--format", "text");
    verify::AbOptions options;
    if (const auto w = a.get("--window")) {
        options.window = verify::parse_window(*w, "plan-layout ab --window");
    }
    if (const auto gb = a.get_int("--global-batch")) {
        options.global_batch = static_cast<int>(*gb);
    }
    if (const auto t = a.get_double("--threshold")) {
        options.threshold = *t;
    }
    options.baseline = a.get_or("--baseline", "");
    StepLogOptions log_options;
    if (const auto t = a.get_double("--tokens-per-gpu-step")) {
        log_options.tokens_per_gpu_step = *t;
    }
    const std::vector<StepSeries> runs = read_ab_runs(a.positionals(), a.get_all("--run"), ctx, log_options);
    if (runs.empty()) {
        throw usage_error("ab", "no runs given",
                          "pass one step log per run, or --run ARM:ROUND=FILE");
    }
    auto report = verify::analyze_ab(runs, options);
    std::vector<std::string> layout_files;  // files the layout named: inputs too
    if (const auto layout = a.get("--layout")) {
        // The plan's predicted benefit (and its band) beside every measured comparison.
        PlanRequest request = layout_request(*layout, ctx);
        const Report plan_report = plan(request);
        layout_files = plan_report.files;
        if (!plan_report.score) {
            throw input_error(*layout, "the layout has no model/training/transport (or score) sections, so it predicts nothing",
                              "add them (see layouts/seed-2x8-ep16.json) or drop --layout");
        }
        const verify::AbPrediction p = prediction_of(*plan_report.score, *layout);
        for (const auto& c : report.comparisons) {
            verify::attach_prediction(report, c.arm, p);
        }
    }
    write_output(a, format == "json" ? verify::to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
                                     : verify::render_text(report),
                 ctx, layout_files);
    return 0;
}

}  // namespace planlayout::cli
