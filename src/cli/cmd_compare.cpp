// CLI: `plan-layout compare A B` — two layouts side by side, kind by kind. A and B are layout
// files or search rank numbers (the search runs on the same inputs).
#include <algorithm>
#include <optional>

#include "commands.hpp"
#include "plan_inputs.hpp"
#include "planlayout/emit/compare_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/plan.hpp"
#include "search_inputs.hpp"

namespace planlayout::cli {
namespace {

// "3" → 3; a file name → nothing.
std::optional<std::int64_t> rank_number(const std::string& text) {
    if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    return std::stoll(text);
}

}  // namespace

int run_compare(const ParsedArgs& parsed, Context& ctx) {
    const std::string format = parsed.get_or("--format", "text");
    const auto& pos = parsed.positionals();
    std::vector<PlanRequest> requests;
    std::vector<std::string> files;
    std::optional<SearchInputs> searched;
    std::optional<SearchResult> result;
    ComposeOptions options;
    options.parallel = false;  // each side's parallel spec is its own
    for (std::size_t i = 0; i < 2; ++i) {
        if (const auto rank = rank_number(pos[i])) {
            if (!searched) {
                searched = search_inputs(parsed, ctx, false);
                SearchOptions searching = search_options(parsed, searched->model, ctx);
                searching.keep = 0;  // the ranks compared, whichever they are
                for (const auto& p : pos) {
                    searching.keep = std::max<std::size_t>(searching.keep, static_cast<std::size_t>(rank_number(p).value_or(0)));
                }
                result = search_layouts(searched->cluster, searched->model, searching);
                files.insert(files.end(), searched->files.begin(), searched->files.end());
            }
            requests.push_back(candidate_request(*searched, *result, *rank, "compare " + pos[i]));
            requests.back().layout_name = "search #" + pos[i] + " on " + requests.back().layout_name;  // A/B labels
            continue;
        }
        ComposedInputs in = compose_inputs(parsed, ctx, options, &pos[i]);
        if (const auto framework = parsed.get("--framework"); framework && in.request.layout_json) {
            // Both sides in that framework's convention (a layout naming its own is overridden).
            (*in.request.layout_json)["parallel"]["framework"] = *framework;
            in.request.sources["/parallel/framework"] = "command line (--framework)";
        }
        if (i == 0) {
            report_input_notes(in, parsed, ctx);
        }
        files.insert(files.end(), in.files.begin(), in.files.end());
        requests.push_back(std::move(in.request));
    }
    const Report a = plan(requests[0]);
    const Report b = plan(requests[1]);
    files.insert(files.end(), a.files.begin(), a.files.end());  // the files the layouts named are inputs too
    files.insert(files.end(), b.files.begin(), b.files.end());
    Output out(parsed, ctx, files);
    out.write(format == "json" ? compare_json(a, b) : compare_text(a, b));
    out.commit();
    return 0;
}

}  // namespace planlayout::cli
