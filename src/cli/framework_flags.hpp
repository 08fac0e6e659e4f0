// CLI: the framework flags (--framework, torchtitan's and DeepSpeed's degrees and config files,
// a raw DeviceMesh) as a fragment of the layout's "parallel" section, each value with its source.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "context.hpp"

namespace planlayout::cli {

struct FrameworkFragment {
    nlohmann::json layout = nlohmann::json::object();  // {"parallel": {...}} (and "training" from a config file)
    std::map<std::string, std::string> sources;       // JSON pointer → "command line (--dp-shard)", "job.toml:12"
    std::vector<std::string> files;                   // config files read
};

/// True when any framework flag is given.
[[nodiscard]] bool has_framework_flags(const ParsedArgs& args);

/// The framework flags as a layout fragment: /parallel/framework (given, or implied by --mesh,
/// --torchtitan-config, --deepspeed-config), dp_replicate, dp_shard, moe_path, mesh, flatten, and
/// what a config file gives (flags win over the file).
[[nodiscard]] FrameworkFragment framework_fragment(const ParsedArgs& args, Context& ctx);

}  // namespace planlayout::cli
