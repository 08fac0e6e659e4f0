// CLI: the scheduler, hostfile and launch formats of analyze (kept apart from cmd_analyze.cpp).
#include "analyze_launch.hpp"

#include "planlayout/emit/scheduler_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {

bool is_launch_format(const std::string& format) {
    return format == "scheduler" || format == "hostfile" || format == "launch";
}

int run_launch_format(const ParsedArgs& parsed, const std::string& format, Context& ctx) {
    PlanRequest request = embedded_default_request();
    if (!parsed.positionals().empty()) {
        request = layout_request(parsed.positionals().front(), ctx);
    }
    // Launchers need every group and every rank: --kinds does not apply.
    const Report report = plan(request);
    if (format == "scheduler") {
        write_output(parsed, scheduler_json(report), ctx);
    } else if (format == "hostfile") {
        write_output(parsed, hostfile_text(report), ctx);
    } else {
        write_output(parsed, launch_text(report), ctx);
    }
    return 0;
}

}  // namespace planlayout::cli
