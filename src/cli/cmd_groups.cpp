// CLI: `plan-layout groups` — every communication group's ranks, as Megatron-Core builds them.
#include <algorithm>

#include "commands.hpp"
#include "messages.hpp"
#include "parallel_flags.hpp"
#include "planlayout/emit/groups_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/parallel/groups.hpp"

namespace planlayout::cli {

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
                throw unknown_kind(*k, name, "kinds this spec creates: " + join(names, ","));
            }
        }
    }
    const auto rank = parsed.get_int("--rank", 0, spec.world - 1);
    if (!rank && format == "json") {
        check_group_entry_limit(groups, kinds);  // before -o is opened
    }
    // The listing is streamed into the output as it is computed (a 2^20-rank JSON is 140 MB).
    Output out(parsed, ctx);
    if (rank) {
        out.write(format == "json" ? rank_json(groups, *rank, kinds) : rank_text(groups, *rank, kinds));
    } else if (format == "json") {
        write_groups_json(out.stream(), groups, kinds);
    } else {
        write_groups_text(out.stream(), groups, kinds);
    }
    out.commit();
    return 0;
}

}  // namespace planlayout::cli
