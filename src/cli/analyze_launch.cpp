// CLI: the scheduler, hostfile and launch formats of analyze (kept apart from cmd_analyze.cpp),
// and the memory flags every non-diagram format of analyze takes.
#include "analyze_launch.hpp"

#include "plan_inputs.hpp"
#include "cost_options.hpp"
#include "planlayout/emit/sched_topology_emit.hpp"
#include "planlayout/emit/scheduler_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {

void apply_memory_flags(const ParsedArgs& parsed, PlanRequest& request) { request.memory_limits = memory_limits_of(parsed); }

int require_fit_code(const ParsedArgs& parsed, const Report& report) {
    if (!parsed.has("--require-fit")) {
        return 0;
    }
    if (!report.memory) {
        throw input_error("--require-fit", "the layout has no \"model\" and \"training\" sections, so no memory estimate",
                          "add them (docs/formats/layout.md), or drop --require-fit");
    }
    const auto fits = report.memory->fits();
    if (!fits) {
        throw input_error("--require-fit", "the memory budget is unknown (" + report.memory->budget.source + ")",
                          "give --gpu-memory SIZE, or add \"gpu_memory_mib\" to the node template");
    }
    return *fits ? 0 : static_cast<int>(ExitCode::CheckFailed);
}

bool is_launch_format(const std::string& format) {
    return format == "scheduler" || format == "hostfile" || format == "launch" || format == "slurm-topology" ||
           format == "slurm-topology-yaml" || format == "kueue" || format == "volcano";
}

int run_launch_format(const ParsedArgs& parsed, const std::string& format, Context& ctx) {
    PlanRequest request = plan_request_of(parsed, ctx);
    apply_memory_flags(parsed, request);
    // Launchers need every group and every rank: --kinds does not apply.
    const Report report = plan(request);
    const int code = require_fit_code(parsed, report);
    save_layout_if_asked(parsed, report, request, ctx);
    Output out(parsed, ctx, report.files);  // the files the layout named are inputs too
    if (format == "scheduler") {
        out.write(scheduler_json(report));
    } else if (format == "hostfile") {
        out.write(hostfile_text(report));
    } else if (format == "slurm-topology") {
        out.write(slurm_topology_conf(report));
    } else if (format == "slurm-topology-yaml") {
        out.write(slurm_topology_yaml(report));
    } else if (format == "kueue") {
        out.write(kueue_yaml(report));
    } else if (format == "volcano") {
        out.write(volcano_yaml(report));
    } else {
        out.write(launch_text(report));
    }
    out.commit();
    return code;
}

}  // namespace planlayout::cli
