// CLI: `plan-layout groups` — every communication group's ranks, as Megatron-Core builds them.
#include <algorithm>

#include "commands.hpp"
#include "framework_flags.hpp"
#include "messages.hpp"
#include "parallel_flags.hpp"
#include "plan_inputs.hpp"
#include "planlayout/analysis/model_fit.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/emit/groups_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/parallel/framework.hpp"
#include "planlayout/parallel/framework_compare.hpp"
#include "planlayout/parallel/groups.hpp"

namespace planlayout::cli {

namespace {

// Whether the command line names a cluster or a model: then the spec comes from the composed
// inputs (analyze's), the world from the cluster, and the model is checked against the sizes.
bool composes(const ParsedArgs& args) {
    if (has_framework_flags(args)) {
        return true;  // the framework's keys live in the layout's "parallel" section
    }
    for (const char* flag : {"--cluster", "--node", "--hostfile", "--nodelist", "--model-config"}) {
        if (args.has(flag)) {
            return true;
        }
    }
    const nlohmann::json defs = command_definitions();  // kept alive for the loop
    for (const auto& row : defs.at("sets").at("model")) {
        if (args.has(split_csv(row.at(0).get<std::string>()).front())) {
            return true;
        }
    }
    return false;
}

Groups composed_groups(const ParsedArgs& args, Context& ctx) {
    ComposeOptions options;
    options.embedded_default = false;
    options.need_cluster = false;
    ComposedInputs in = compose_inputs(args, ctx, options, nullptr);
    report_input_notes(in, args, ctx);
    const nlohmann::json& layout = *in.request.layout_json;
    const std::string& name = in.request.layout_name;
    try {
        FrameworkSpec spec = framework_spec_from_json(layout.at("parallel"), {name, "/parallel"});
        const bool named_nodes = layout.contains("cluster") && layout.at("cluster").is_object() &&
                                 (layout.at("cluster").contains("node") ||
                                  (layout.at("cluster").contains("nodes") && layout.at("cluster").at("nodes").is_array()));
        if (framework_world(spec) == 0 && named_nodes) {
            const std::string& dir = in.request.base_dir;
            set_framework_world(
                spec, cluster_from_json(layout.at("cluster"), name, "/cluster", FileScope{dir, dir, ctx.files_anywhere})
                          .total_gpus());
        }
        if (framework_world(spec) == 0) {
            const auto gpus = args.get_int("--gpus-per-node", 1, kMaxWorld);
            if (!gpus) {
                throw input_error("plan-layout", "the world size is missing",
                                  "give --world N, --nodes N --gpus-per-node G, or --nodes N --node TEMPLATE");
            }
            const auto nodes = layout.value("/cluster/nodes"_json_pointer, nlohmann::json(1));
            set_framework_world(spec, (nodes.is_number_integer() ? nodes.get<std::int64_t>() : 1) * *gpus);
        }
        Groups groups = build_framework_groups(spec, {name, "/parallel"});
        const ResolvedSpec& resolved = groups.spec;
        if (layout.contains("model")) {
            std::vector<std::string> warnings;
            // Only the sizes given are checked: groups needs no complete model.
            const nlohmann::json& m = layout.at("model");
            ModelSpec model;
            model.layers = m.value("layers", 0);
            model.heads = m.value("heads", 0);
            model.kv_heads = m.value("kv_heads", 0);
            model.experts = m.contains("moe") ? m.at("moe").value("experts", 0) : 0;
            model.vocab = 1;  // the vocabulary does not bear on groups
            check_model_fits(model, resolved, name, warnings);
            for (const auto& w : warnings) {
                print_message(ctx, "warning", w);
            }
        }
        return groups;
    } catch (const Error& e) {
        throw error_with_source(e, name, in.request.sources);
    }
}

}  // namespace

int run_groups(const ParsedArgs& args, Context& ctx) {
    const bool composed = composes(args);
    const ParsedArgs parsed = composed ? args : with_megatron_args(args, ctx);
    const std::string format = parsed.get_or("--format", "text");
    const Groups groups =
        composed ? composed_groups(args, ctx) : build_groups(resolve_spec(parallel_spec_from_args(parsed, /*require_world=*/true)));
    const ResolvedSpec& spec = groups.spec;
    std::vector<std::string> kinds;
    if (const auto k = parsed.get("--kinds")) {
        kinds = split_csv(*k);
        const auto names = all_kind_names(groups);
        for (const auto& name : kinds) {
            if (std::find(names.begin(), names.end(), name) == names.end()) {
                throw unknown_kind(*k, name, "kinds this spec creates: " + join(names, ","));
            }
        }
    }
    if (parsed.has("--same-as")) {
        // The comparison lists every group of every kind of both frameworks.
        constexpr std::int64_t kMaxCompareWorld = std::int64_t{1} << 22;
        if (spec.world > kMaxCompareWorld) {
            throw input_error("--same-as " + *parsed.get("--same-as"),
                              "compares every group whole, and world " + std::to_string(spec.world) + " is over its limit of " +
                                  std::to_string(kMaxCompareWorld) + " ranks",
                              "compare a smaller world with the same degrees: the conventions do not depend on the world size");
        }
        const Groups megatron = [&] {
            try {
                return megatron_counterpart(groups);
            } catch (const Error& e) {
                throw input_error("--same-as megatron", "Megatron refuses these degrees with its defaults (" + e.where() +
                                                            ": " + e.problem() + ")",
                                  "there is nothing to compare: " + e.hint());
            }
        }();
        const auto rows = compare_groups(groups, megatron);
        Output out(parsed, ctx);
        out.write(format == "json" ? comparison_json(groups, megatron, rows) : comparison_text(groups, megatron, rows));
        out.commit();
        return 0;
    }
    const auto rank = parsed.get_int("--rank", 0, spec.world - 1);
    if (format == "json") {  // before -o is opened
        if (rank) {
            check_rank_entry_limit(groups, *rank, kinds);
        } else {
            check_group_entry_limit(groups, kinds);
        }
    }
    // The listing is streamed into the output as it is computed (a 2^20-rank JSON is 140 MB).
    Output out(parsed, ctx);
    if (rank) {
        if (format == "json") {
            write_rank_json(out.stream(), groups, *rank, kinds);
        } else {
            out.write(rank_text(groups, *rank, kinds));
        }
    } else if (format == "json") {
        write_groups_json(out.stream(), groups, kinds);
    } else {
        write_groups_text(out.stream(), groups, kinds);
    }
    out.commit();
    return 0;
}

}  // namespace planlayout::cli
