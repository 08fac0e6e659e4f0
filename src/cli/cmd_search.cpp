// CLI: `plan-layout search [CLUSTER|LAYOUT] [INPUTS]` — rank every valid layout for a cluster and
// a model; `--save-layout N` writes the N-th as a layout instead.
#include <sstream>

#include "commands.hpp"
#include "messages.hpp"
#include "plan_inputs.hpp"
#include "planlayout/emit/layout_emit.hpp"
#include "planlayout/emit/search_emit.hpp"
#include "planlayout/error.hpp"
#include "search_inputs.hpp"

namespace planlayout::cli {

int run_search(const ParsedArgs& parsed, Context& ctx) {
    const std::string format = parsed.get_or("--format", "text");
    const SearchInputs in = search_inputs(parsed, ctx, true);
    const SearchOptions options = search_options(parsed, in.model, ctx);
    const SearchResult result = search_layouts(in.cluster, in.model, options);
    if (ctx.err_is_terminal && options.progress) {
        ctx.err << "\r" << std::string(60, ' ') << "\r" << std::flush;
    }
    if (const auto rank = parsed.get_int("--save-layout")) {
        PlanRequest request = candidate_request(in, result, *rank, "--save-layout " + std::to_string(*rank));
        request.memory_limits = options.memory_limits;
        const Report report = plan(request);
        write_output(parsed, saved_layout_text(report, request, "search"), ctx, in.files);
        return 0;
    }
    SearchHeader header;
    header.cluster_source = in.inputs.request.layout_name;
    header.model_source = parsed.get_or("--model", in.inputs.request.layout_name);
    header.sort = parsed.get_or("--sort", std::string(to_string(in.model.transport.candidate)));
    if (options.sort != SearchSort::Benefit && !result.layouts.empty()) {
        // The arms the hardware allows (analysis/arms.hpp) may differ from the ones named.
        const Score& s = result.layouts.front().score;
        header.sort = std::string(to_string(options.sort == SearchSort::Baseline ? s.baseline : s.candidate));
    }
    header.top = parsed.get_int("--top").value_or(20);
    write_output(parsed,
                 format == "json" ? search_json(result, in.cluster, header) : search_text(result, in.cluster, header),
                 ctx, in.files);
    return 0;
}

}  // namespace planlayout::cli
