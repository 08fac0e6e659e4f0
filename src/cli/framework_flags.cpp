// CLI: the framework flags as a fragment of the layout (framework_flags.hpp).
#include "framework_flags.hpp"

#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"

namespace planlayout::cli {
namespace {

constexpr const char* kFrameworkFlags[] = {"--framework", "--dp-replicate", "--dp-shard", "--torchtitan-config",
                                           "--moe-path",  "--deepspeed-config", "--mesh", "--flatten"};

std::string flag_source(const ParsedArgs& args, const char* flag) {
    return "command line (" + args.spelling(flag) + ")";
}

}  // namespace

bool has_framework_flags(const ParsedArgs& args) {
    for (const char* flag : kFrameworkFlags) {
        if (args.has(flag)) {
            return true;
        }
    }
    return false;
}

FrameworkFragment framework_fragment(const ParsedArgs& args, Context& ctx) {
    (void)ctx;
    FrameworkFragment out;
    auto set = [&out](const std::string& pointer, const nlohmann::json& value, const std::string& source) {
        out.layout[nlohmann::json::json_pointer(pointer)] = value;
        out.sources[pointer] = source;
    };
    std::string implied;
    std::string implied_by;
    auto imply = [&](const char* flag, const char* framework) {
        if (args.has(flag)) {
            if (!implied.empty() && implied != framework) {
                throw input_error(args.spelling(flag), "conflicts with " + implied_by + " (" + implied + ")",
                                  "give the flags of one framework");
            }
            implied = framework;
            implied_by = args.spelling(flag);
        }
    };
    imply("--mesh", "mesh");
    imply("--flatten", "mesh");
    imply("--torchtitan-config", "torchtitan");
    imply("--dp-replicate", "torchtitan");
    imply("--dp-shard", "torchtitan");
    imply("--deepspeed-config", "deepspeed");
    imply("--moe-path", "deepspeed");
    if (const auto name = args.get("--framework")) {
        const std::string family = name->substr(0, name->find(':'));
        if (!implied.empty() && family != implied) {
            throw input_error("--framework " + *name, implied_by + " is " + implied + "'s",
                              "give --framework " + implied + ", or drop " + implied_by);
        }
        set("/parallel/framework", *name, flag_source(args, "--framework"));
    } else if (!implied.empty()) {
        set("/parallel/framework", implied, "implied by " + implied_by);
    }
    for (const auto& [flag, key] : {std::pair{"--dp-replicate", "dp_replicate"}, std::pair{"--dp-shard", "dp_shard"}}) {
        if (const auto v = args.get_int(flag, -kMaxWorld, kMaxWorld)) {
            set(std::string("/parallel/") + key, *v, flag_source(args, flag));
        }
    }
    if (const auto path = args.get("--moe-path")) {
        set("/parallel/moe_path", *path, flag_source(args, "--moe-path"));
    }
    if (const auto mesh = args.get("--mesh")) {
        set("/parallel/mesh", *mesh, flag_source(args, "--mesh"));
    }
    if (args.has("--flatten")) {
        set("/parallel/flatten", args.get_all("--flatten"), flag_source(args, "--flatten"));
    }
    for (const char* flag : {"--torchtitan-config", "--deepspeed-config"}) {
        if (args.has(flag)) {
            throw input_error(std::string(flag) + " " + *args.get(flag), "this reader is not available yet",
                              "give the degrees as flags");
        }
    }
    return out;
}

}  // namespace planlayout::cli
