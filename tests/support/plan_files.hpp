// Test support: the plan of a layout file of the source tree (unit tests; needs PLANLAYOUT_SOURCE_DIR).
#pragma once

#include <string>
#include <vector>

#include "planlayout/ingest/read_file.hpp"
#include "planlayout/plan.hpp"

namespace planlayout::testing {

/// plan() of SOURCE_DIR/rel, with the files it names resolved from layouts/ and only `kinds`
/// analysed when given.
inline Report plan_source_file(const std::string& rel, const std::vector<std::string>& kinds = {}) {
    PlanRequest r;
    r.layout_name = std::string(PLANLAYOUT_SOURCE_DIR) + "/" + rel;
    r.layout_text = read_text_file(r.layout_name);
    r.base_dir = std::string(PLANLAYOUT_SOURCE_DIR) + "/layouts";
    r.kinds = kinds;
    return plan(r);
}

}  // namespace planlayout::testing
