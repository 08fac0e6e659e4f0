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

int run_compare(const ParsedArgs& parsed, Context& ctx) {
    const std::string format = parsed.get_or("--format", "text");
    const Report a = plan_file(parsed.positionals()[0], ctx);
    const Report b = plan_file(parsed.positionals()[1], ctx);
    std::vector<std::string> files = a.files;  // the files the layouts named are inputs too
    files.insert(files.end(), b.files.begin(), b.files.end());
    Output out(parsed, ctx, files);
    out.write(format == "json" ? compare_json(a, b) : compare_text(a, b));
    out.commit();
    return 0;
}

}  // namespace planlayout::cli
