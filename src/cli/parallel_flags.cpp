// CLI: parallel-spec flags, Megatron-LM aliases and launch-line files.
#include "parallel_flags.hpp"

#include <sstream>

#include <CLI/CLI.hpp>

#include "messages.hpp"
#include "planlayout/error.hpp"

namespace planlayout::cli {
namespace {

// Sizes are checked by resolve_spec with Megatron's rules; here only the world limit (2^31), so a
// value beyond int64 is reported as given rather than wrapped.
constexpr std::int64_t kWide = kMaxWorld;

}  // namespace

ParsedArgs parse_megatron_words(const std::vector<std::string>& words) {
    CLI::App app("flags of a Megatron-LM launch line");
    CommandSpec spec = standalone_command(app, "groups");
    spec.positionals = {0, words.size(), "", ""};
    app.allow_extras();  // the launch line's other flags (--lr 1e-4, ...) and its script
    define_options(spec, {"@parallel"}, command_definitions());
    return parse_command(app, spec, words);
}

ParsedArgs with_megatron_args(ParsedArgs parsed, Context& ctx) {
    if (const auto file = parsed.get("--megatron-args")) {
        const std::string text = read_input(*file, ctx);
        parsed.fill_from(parse_megatron_words(split_shell_words(text, *file == "-" ? "stdin" : *file)));
    }
    return parsed;
}

ParallelSpec parallel_spec_from_args(const ParsedArgs& args, bool require_world) {
    ParallelSpec s;
    const auto world = args.get_int("--world", -kWide, kWide);
    const auto nodes = args.get_int("--nodes", -kWide, kWide);
    const auto gpus = args.get_int("--gpus-per-node", -kWide, kWide);
    if (nodes || gpus) {
        if (!nodes || !gpus) {
            throw input_error(nodes ? args.spelling("--nodes") + " " + std::to_string(*nodes)
                                    : args.spelling("--gpus-per-node") + " " + std::to_string(*gpus),
                              "--nodes and --gpus-per-node go together",
                              "give both, e.g. --nodes 2 --gpus-per-node 8, or give --world");
        }
        for (const auto& [flag, v] : {std::pair{"--nodes", *nodes}, std::pair{"--gpus-per-node", *gpus}}) {
            if (v < 1) {
                throw input_error(std::string(flag) + " " + std::to_string(v), std::string(flag).substr(2) + " must be at least 1",
                                  "give a positive count");
            }
        }
        if (*nodes > kMaxWorld || *gpus > kMaxWorld || *nodes * *gpus > kMaxWorld) {
            throw input_error("--nodes " + std::to_string(*nodes) + " --gpus-per-node " + std::to_string(*gpus),
                              "world size " + std::to_string(*nodes) + "*" + std::to_string(*gpus) +
                                  " is over the limit of 2^31 ranks",
                              "plan-layout handles up to 2147483648 ranks");
        }
        s.world = *nodes * *gpus;
        if (world && *world != s.world) {
            throw input_error("--world " + std::to_string(*world),
                              "disagrees with --nodes * --gpus-per-node = " + std::to_string(*nodes) + "*" +
                                  std::to_string(*gpus) + " = " + std::to_string(s.world),
                              "drop --world or make them agree");
        }
    } else if (world) {
        s.world = *world;
    } else if (require_world) {
        throw input_error("plan-layout", "the world size is missing",
                          "give --world N, or --nodes N --gpus-per-node G (e.g. --nodes 2 --gpus-per-node 8)");
    }
    s.tp = args.get_int("--tp", -kWide, kWide).value_or(1);
    s.pp = args.get_int("--pp", -kWide, kWide).value_or(1);
    s.cp = args.get_int("--cp", -kWide, kWide).value_or(1);
    s.ep = args.get_int("--ep", -kWide, kWide).value_or(1);
    s.etp = args.get_int("--etp", -kWide, kWide);
    s.dp = args.get_int("--dp", -kWide, kWide);
    s.vpp = args.get_int("--vpp", -kWide, kWide);
    s.local_world_size = args.get_int("--local-world-size", -kWide, kWide);
    s.rank_offset = args.get_int("--rank-offset", -kWide, kWide).value_or(0);
    s.dist_opt_instances = args.get_int("--num-distributed-optimizer-instances", -kWide, kWide).value_or(1);
    s.gtp = args.get_int("--gtp", -kWide, kWide).value_or(1);
    s.egtp = args.get_int("--egtp", -kWide, kWide).value_or(1);
    s.hybrid_cp = args.has("--hybrid-context-parallel");
    if (args.has("--use-tp-pp-dp-mapping")) {
        if (args.has("--order")) {
            throw input_error("--use-tp-pp-dp-mapping", "conflicts with --order", "give one of the two");
        }
        s.order = "tp-cp-ep-pp-dp";
    }
    if (const auto order = args.get("--order")) {
        s.order = *order;
    }
    if (args.has("--hierarchical-context-parallel-sizes")) {
        const std::string h = join(args.get_all("--hierarchical-context-parallel-sizes"), ",");
        std::stringstream ss(h);
        for (std::string item; std::getline(ss, item, ',');) {
            char* end = nullptr;
            const long long v = std::strtoll(item.c_str(), &end, 10);
            if (item.empty() || end != item.c_str() + item.size()) {
                throw input_error("--hierarchical-context-parallel-sizes " + h, "'" + item + "' is not an integer",
                                  "give sizes like 2,4 (or 2 4)");
            }
            s.hierarchical_cp.push_back(v);
        }
    }
    return s;
}

}  // namespace planlayout::cli
