// CLI: `plan-layout compare A.json B.json` — two layouts side by side, kind by kind.
#include "commands.hpp"
#include "planlayout/emit/compare_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {
namespace {

CommandHelp compare_help() {
    CommandHelp h;
    h.name = "compare";
    h.usage = "plan-layout compare A.json B.json [--format text|json] [-o FILE]";
    h.description =
        "Analyzes two layouts and shows them side by side, kind by kind: groups, nodes spanned, used pairs per\n"
        "path class, bytes crossing nodes and time per transport, then both scores; '*' marks the kinds that\n"
        "differ, and a short 'why' names the kinds that cross nodes in one layout but not in the other.";
    h.options = {
        {"--format", "text|json", "output format (default text)"},
        {"-o,--output", "FILE", "write to FILE atomically instead of standard output"},
        {"--help,-h", "", "show this help"},
    };
    h.examples = {"plan-layout compare layouts/seed-2x8-ep16.json layouts/seed-2x8-pp2-ep8.json"};
    return h;
}

Report plan_file(const std::string& path, Context& ctx) {
    return plan(layout_request(path, ctx));
}

}  // namespace

int cmd_compare(const std::vector<std::string>& args, Context& ctx) {
    const CommandHelp help = compare_help();
    const ParsedArgs parsed = parse_args(args, help);
    if (handle_help(parsed, help, ctx)) {
        return 0;
    }
    if (parsed.positionals().size() != 2) {
        throw input_error("plan-layout compare", "expected two layouts, got " + std::to_string(parsed.positionals().size()),
                          "e.g. plan-layout compare layouts/seed-2x8-ep16.json layouts/seed-2x8-pp2-ep8.json");
    }
    const std::string format = parsed.get_or("--format", "text");
    if (format != "text" && format != "json") {
        throw input_error("--format " + format, "unknown format", "use text or json");
    }
    const Report a = plan_file(parsed.positionals()[0], ctx);
    const Report b = plan_file(parsed.positionals()[1], ctx);
    write_output(parsed, format == "json" ? compare_json(a, b) : compare_text(a, b), ctx);
    return 0;
}

}  // namespace planlayout::cli
