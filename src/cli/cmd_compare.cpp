// CLI: `plan-layout compare A.json B.json` — two layouts side by side, kind by kind.
#include "commands.hpp"
#include "planlayout/emit/compare_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::cli {
namespace {

Report plan_file(const std::string& path, Context& ctx) {
    return plan(layout_request(path, ctx));
}

}  // namespace

void define_compare(CommandSpec& spec) {
    spec.usage = "plan-layout compare A.json B.json [--format text|json] [-o FILE]";
    spec.description =
        "Analyzes two layouts and shows them side by side, kind by kind: groups, nodes spanned, used pairs per\n"
        "path class, bytes crossing nodes and time per transport, then both scores; '*' marks the kinds that\n"
        "differ, and a short 'why' names the kinds that cross nodes in one layout but not in the other.";
    spec.positionals = {2, 2, "two layouts",
                        "e.g. plan-layout compare layouts/seed-2x8-ep16.json layouts/seed-2x8-pp2-ep8.json"};
    add_options(spec, {
        {"--format", "text|json", "output format (default text)"},
        {"-o,--output", "FILE", "write to FILE atomically instead of standard output"},
        {"--help,-h", "", "show this help"},
    });
    check_choice(spec, "--format", "format", {"text", "json"});
    spec.examples = {"plan-layout compare layouts/seed-2x8-ep16.json layouts/seed-2x8-pp2-ep8.json"};
}

int run_compare(const ParsedArgs& parsed, Context& ctx) {
    const std::string format = parsed.get_or("--format", "text");
    const Report a = plan_file(parsed.positionals()[0], ctx);
    const Report b = plan_file(parsed.positionals()[1], ctx);
    write_output(parsed, format == "json" ? compare_json(a, b) : compare_text(a, b), ctx);
    return 0;
}

}  // namespace planlayout::cli
