// CLI: `plan-layout groups` — every communication group's ranks, as Megatron-Core builds them.
#include <algorithm>
#include <sstream>

#include "commands.hpp"
#include "messages.hpp"
#include "parallel_flags.hpp"
#include "planlayout/emit/groups_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/parallel/groups.hpp"

namespace planlayout::cli {

void define_groups(CommandSpec& spec) {
    spec.usage = "plan-layout groups (--world N | --nodes N --gpus-per-node G) [--tp N] [--pp N] [--cp N] [--ep N] [options]";
    spec.description =
        "Prints every communication group Megatron-Core creates for the spec, with the same ranks in the\n"
        "same order, in its creation order: dp_cp, dp, cp, mp, tp, pp, embd, pos_embd, tp_dp_cp, tp_dp,\n"
        "tp_cp, ep, expt_tp, tp_ep, tp_ep_pp, expt_dp, ... (singleton kinds included). Sizes follow\n"
        "Megatron's rules: dp = W/(tp*pp*cp), expert_dp = W/(etp*ep*pp); an invalid spec is refused with\n"
        "the arithmetic and a fix (exit 2). Megatron-LM's own flag names are accepted, so a launch line\n"
        "can be pasted, or read whole with --megatron-args.";
    spec.positionals = {0, 0, "", "groups takes only options; see 'plan-layout groups --help'"};
    define_parallel_flags(spec);
    add_options(spec, {
        {"--kinds", "K,K,...", "only these kinds (e.g. tp,ep,dp)"},
        {"--rank", "R", "show rank R's coordinates and its group in every kind"},
        {"--format", "text|json", "output format (default text)"},
        {"-o,--output", "FILE", "write to FILE atomically instead of standard output"},
        {"--help,-h", "", "show this help"},
    });
    check_choice(spec, "--format", "format", {"text", "json"});
    spec.examples = {
        "plan-layout groups --nodes 2 --gpus-per-node 8 --ep 16                # seed layout A",
        "plan-layout groups --nodes 2 --gpus-per-node 8 --pp 2 --ep 8          # seed layout B",
        "plan-layout groups --world 131072 --tp 8 --pp 16 --cp 2 --ep 64 --etp 1 --format json -o groups.json",
        "plan-layout groups --world 16 --tensor-model-parallel-size 2 --rank 5",
        "plan-layout groups --world 64 --megatron-args launch.sh --kinds tp,ep",
    };
}

int run_groups(const ParsedArgs& args, Context& ctx) {
    const ParsedArgs parsed = with_megatron_args(args, ctx);
    const std::string format = parsed.get_or("--format", "text");
    const ResolvedSpec spec = resolve_spec(parallel_spec_from_args(parsed, /*require_world=*/true));
    const Groups groups = build_groups(spec);
    std::vector<std::string> kinds;
    if (const auto k = parsed.get("--kinds")) {
        kinds = split_csv(*k);
        const auto names = all_kind_names(groups);
        for (const auto& name : kinds) {
            if (std::find(names.begin(), names.end(), name) == names.end()) {
                throw input_error("--kinds " + *k, "unknown or not created kind '" + name + "'",
                                  "kinds this spec creates: " + join(names, ","));
            }
        }
    }
    std::string text;
    if (const auto r = parsed.get_int("--rank", 0, spec.world - 1)) {
        text = format == "json" ? rank_json(groups, *r, kinds) : rank_text(groups, *r, kinds);
    } else {
        text = format == "json" ? groups_json(groups, kinds) : groups_text(groups, kinds);
    }
    write_output(parsed, text, ctx);
    return 0;
}

}  // namespace planlayout::cli
