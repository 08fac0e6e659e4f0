// A downstream program: plans the embedded default layout through the installed library
// (planlayout::core) and runs `plan-layout --version` in-process (planlayout::cli).
// check_consumer.sh builds it with find_package(planlayout) and with pkg-config, and checks its output.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "planlayout/cli/run.hpp"
#include "planlayout/plan.hpp"
#include "planlayout/version.hpp"

int main() {
    const planlayout::Report report = planlayout::plan(planlayout::embedded_default_request());
    std::cout << "planlayout " << planlayout::kVersion << " schema " << planlayout::kSchemaVersion << "\n"
              << "layout: " << report.layout_name << "\n"
              << "nodes: " << report.cluster.node_count() << " gpus: " << report.cluster.total_gpus()
              << " kinds: " << report.kinds.size() << "\n";
    std::ostringstream out;
    std::ostringstream err;
    const int rc = planlayout::run_cli({"plan-layout", "--version"}, out, err);
    std::cout << "run_cli: " << rc << " " << out.str();
    return rc;
}
