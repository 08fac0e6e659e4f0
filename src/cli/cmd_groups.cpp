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
