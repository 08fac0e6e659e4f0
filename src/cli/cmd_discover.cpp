// CLI: `plan-layout discover` — this host through libhwloc → node template JSON.
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "planlayout/ingest/node_template_json.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/hwloc_topology.hpp"

namespace planlayout::cli {

int run_discover(const ParsedArgs& a, Context& ctx) {
    nlohmann::json j = to_json(discover_this_host());
    j["schema_version"] = 1;
    write_output(a, j.dump(2) + "\n", ctx);
    return 0;
}

}  // namespace planlayout::cli
