// Plan: the single library entry point — layout → cluster → spec → placement → groups → edges.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "planlayout/report.hpp"

namespace planlayout {

struct PlanRequest {
    std::string layout_text;      // the layout JSON (// comments allowed)
    std::string layout_name;      // for messages: the path, or "layouts/x.json (embedded)"
    std::string base_dir = ".";   // relative paths in the layout resolve against this
    bool files_anywhere = false;  // let the layout name files outside base_dir (--allow-outside-files)
    std::vector<std::string> kinds;  // only these kinds (empty: all)
    MemoryLimits memory_limits;      // GPU memory (default: the node templates') and headroom
    std::function<void(std::int64_t, std::int64_t)> progress;  // optional, for long runs
};

/// Runs the pipeline. Throws Error (BadInput, naming the file and JSON pointer) on bad input.
[[nodiscard]] Report plan(const PlanRequest& request);

/// The embedded default layout (the seed's layout A).
[[nodiscard]] PlanRequest embedded_default_request();

}  // namespace planlayout
