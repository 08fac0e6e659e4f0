// CLI: `plan-layout search [CLUSTER|LAYOUT] [INPUTS]` — rank every valid layout for a cluster and
// a model; `--save-layout N` writes the N-th as a layout instead.
#include <sstream>

#include "commands.hpp"
#include "messages.hpp"
#include "plan_inputs.hpp"
#include "planlayout/emit/layout_emit.hpp"
#include "planlayout/emit/search_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/names.hpp"
#include "planlayout/text_format.hpp"
#include "search_inputs.hpp"

namespace planlayout::cli {

namespace {

// --explain NAME: the named layout among the ranked ones (the best-ranked of those that match what
// the name gives), or evaluated apart with why search left it out.
SearchExplanation explain_named(const std::string& text, const SearchInputs& in, const SearchOptions& options,
                                const SearchResult& result) {
    const std::string where = "--explain " + terminal_safe(text);
    NamedLayout n = parse_layout_name(text, where);
    const std::int64_t grid = static_cast<std::int64_t>(n.sizes.tp) * n.sizes.pp * n.sizes.cp;
    if (!n.dp_given) {
        n.sizes.dp = grid > 0 && result.world % grid == 0 ? static_cast<int>(result.world / grid) : 0;
    }
    if (n.sizes.dp < 1 || grid * n.sizes.dp != result.world) {
        throw input_error(where, "tp x pp x cp x dp is not the search's world of " + std::to_string(result.world),
                          "name a layout of this world (leave dp out to take the rest)");
    }
    n.sizes.expert_dp = static_cast<int>(result.world / (static_cast<std::int64_t>(n.sizes.ep) * n.sizes.etp * n.sizes.pp));
    for (std::size_t i = 0; i < result.layouts.size(); ++i) {
        const SearchLayout& l = result.layouts[i];
        const ParallelSizes& s = l.sizes;
        if (s.tp == n.sizes.tp && s.pp == n.sizes.pp && s.vpp == n.sizes.vpp && s.cp == n.sizes.cp && s.ep == n.sizes.ep &&
            (s.etp == n.sizes.etp || !n.etp_given || in.model.model.experts == 0) && s.dp == n.sizes.dp && (!n.order || *n.order == l.order)) {
            return explain_layout(result, l, options.sort, static_cast<std::int64_t>(i) + 1, "");
        }
    }
    SearchLayout apart;
    try {
        apart = evaluate_layout(in.cluster, in.model, n.sizes, n.order.value_or(options.orders.front()), options.framework);
    } catch (const Error& e) {
        throw input_error(where, std::string("cannot be evaluated: ") + e.what(), "name a layout " + (options.framework == "megatron" ? std::string("Megatron-Core") : options.framework) + " accepts");
    }
    std::string why = "not among the candidates searched (--max-tp, --max-cp, --ep, --vpp, --orders)";
    if (result.budget.known() && apart.memory.total_bytes() > result.budget.budget_bytes()) {
        why = "pruned: needs " + fixed_text(apart.memory.total_bytes() / kGiB, 1) +
              " GiB per GPU, over the budget of " + fixed_text(result.budget.budget_bytes() / kGiB, 1) + " GiB";
    }
    return explain_layout(result, apart, options.sort, 0, why);
}

}  // namespace

int run_search(const ParsedArgs& parsed, Context& ctx) {
    const std::string format = parsed.get_or("--format", "text");
    if (const auto list = parsed.get("--nodelist")) {  // search places every candidate node-major on the cluster
        throw input_error("--nodelist " + terminal_safe(*list), "search ranks layouts on the cluster's first nodes, not on an allocation",
                          "search without --nodelist, then analyze or compare the ranked layouts with --nodelist");
    }
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
    header.warnings = in.inputs.request.input_warnings;
    if (const auto named = parsed.get("--explain")) {
        header.explain = explain_named(*named, in, options, result);
    }
    write_output(parsed,
                 format == "json" ? search_json(result, in.cluster, header) : search_text(result, in.cluster, header),
                 ctx, in.files);
    return 0;
}

}  // namespace planlayout::cli
