// CLI: parallel-spec flags, Megatron-LM aliases and launch-line files.
#include "parallel_flags.hpp"

#include <map>
#include <sstream>
#include <utility>

#include "messages.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/launch_script.hpp"

namespace planlayout::cli {
namespace {

// Sizes are checked by resolve_spec with Megatron's rules; here only the world limit (2^31), so a
// value beyond int64 is reported as given rather than wrapped.
constexpr std::int64_t kWide = kMaxWorld;

}  // namespace

ParsedArgs parallel_args_from(const MegatronArgs& m) {
    static constexpr std::pair<const char*, const char*> kRows[] = {
        {"/cluster/nodes", "--nodes"},
        {"/cluster/gpus_per_node", "--gpus-per-node"},
        {"/parallel/world", "--world"},
        {"/parallel/tp", "--tp"},
        {"/parallel/pp", "--pp"},
        {"/parallel/cp", "--cp"},
        {"/parallel/ep", "--ep"},
        {"/parallel/etp", "--etp"},
        {"/parallel/dp", "--dp"},
        {"/parallel/vpp", "--vpp"},
        {"/parallel/rank_offset", "--rank-offset"},
        {"/parallel/local_world_size", "--local-world-size"},
        {"/parallel/dist_opt_instances", "--num-distributed-optimizer-instances"},
        {"/parallel/gtp", "--gtp"},
        {"/parallel/egtp", "--egtp"},
    };
    ParsedArgs p;
    const auto spelled = [&m](const std::string& pointer) { return m.flags.at(pointer); };
    for (const auto& [pointer, name] : kRows) {
        const nlohmann::json::json_pointer at(pointer);
        if (m.layout.contains(at)) {
            p.add(name, spelled(pointer), std::to_string(m.layout.at(at).get<std::int64_t>()));
        }
    }
    const nlohmann::json::json_pointer order("/parallel/order");
    if (m.layout.contains(order)) {
        const bool mapping = spelled("/parallel/order") != "--order";  // --use-tp-pp-dp-mapping, as written
        p.add(mapping ? "--use-tp-pp-dp-mapping" : "--order", spelled("/parallel/order"),
              mapping ? "true" : m.layout.at(order).get<std::string>());
    }
    const nlohmann::json::json_pointer hcp("/parallel/hierarchical_cp");
    if (m.layout.contains(hcp)) {
        for (const auto& v : m.layout.at(hcp)) {
            p.add("--hierarchical-context-parallel-sizes", spelled(hcp.to_string()), std::to_string(v.get<std::int64_t>()));
        }
    }
    if (m.layout.contains(nlohmann::json::json_pointer("/parallel/hybrid_cp"))) {
        p.add("--hybrid-context-parallel", spelled("/parallel/hybrid_cp"), "true");
    }
    return p;
}

std::map<std::string, std::string> env_of(const ParsedArgs& args) {
    std::map<std::string, std::string> env;
    for (const auto& entry : args.get_all("--env")) {
        auto [var, value] = parse_env_assignment(entry, "--env " + entry);
        env[var] = std::move(value);
    }
    return env;
}

ParsedArgs with_megatron_args(ParsedArgs parsed, Context& ctx) {
    if (const auto file = parsed.get("--megatron-args")) {
        const std::string name = *file == "-" ? "stdin" : *file;
        const std::string text = read_input(*file, ctx, kMaxLaunchScriptBytes);
        parsed.fill_from(parallel_args_from(megatron_args_from_words(read_launch_command(text, name, env_of(parsed)), name)));
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
