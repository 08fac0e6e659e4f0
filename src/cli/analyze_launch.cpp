// CLI: the scheduler, hostfile and launch formats of analyze (kept apart from cmd_analyze.cpp).
#include "analyze_launch.hpp"

#include "plan_inputs.hpp"
#include "planlayout/emit/scheduler_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {

bool is_launch_format(const std::string& format) {
    return format == "scheduler" || format == "hostfile" || format == "launch";
}

int run_launch_format(const ParsedArgs& parsed, const std::string& format, Context& ctx) {
    const PlanRequest request = plan_request_of(parsed, ctx);
    // Launchers need every group and every rank: --kinds does not apply.
    const Report report = plan(request);
    save_layout_if_asked(parsed, report, request, ctx);
    Output out(parsed, ctx, report.files);  // the files the layout named are inputs too
    if (format == "scheduler") {
        out.write(scheduler_json(report));
    } else if (format == "hostfile") {
        out.write(hostfile_text(report));
    } else {
        out.write(launch_text(report));
    }
    out.commit();
    return 0;
}

}  // namespace planlayout::cli
