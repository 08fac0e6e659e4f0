// Plan: the single library entry point — layout → cluster → spec → placement → groups → edges.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/report.hpp"

namespace planlayout {

struct PlanRequest {
    std::string layout_text;      // the layout JSON (// comments allowed) ...
    std::optional<nlohmann::json> layout_json;  // ... or the layout already parsed (wins over the text)
    // Where values came from, by JSON pointer ("/model/hidden" → "launch.sh:12"), for values the
    // caller composed into the layout from other inputs; a pointer without an entry (nor a parent
    // with one) came from the layout itself. Errors and assumptions name these sources.
    std::map<std::string, std::string> sources;
    std::string layout_name;      // for messages: the path, or "layouts/x.json (embedded)"
    std::string base_dir = ".";   // relative paths in the layout resolve against this
    // The folder of the file that gave the transport section, when another layout did
    // (compare/search --model LAYOUT): its calibration files resolve against, and stay inside,
    // that folder, as when the layout is analyzed itself. Empty: base_dir.
    std::string transport_dir;
    bool files_anywhere = false;  // let the layout name files outside base_dir (--allow-outside-files)
    std::vector<std::string> kinds;  // only these kinds (empty: all)
    MemoryLimits memory_limits;      // GPU memory (default: the node templates') and headroom
    std::function<void(std::int64_t, std::int64_t)> progress;  // optional, for long runs
    std::vector<std::string> input_warnings;  // what the input readers warned about (a config.json's
                                              // unknown fields): the report's warnings, first
};

/// Runs the pipeline. Throws Error (BadInput, naming the file and JSON pointer) on bad input.
[[nodiscard]] Report plan(const PlanRequest& request);

/// The layout of a report with every value explicit and no file named (node templates and
/// captures read in, a hostfile's hosts listed): what `--save-layout` writes. Reads the files the
/// layout names (within the request's scope) again.
[[nodiscard]] nlohmann::json saved_layout(const Report& report, const PlanRequest& request);

/// An error about a value composed into the layout (where = "LAYOUT (/pointer)") named by the
/// value's recorded source instead: "launch.sh:12 (/model/layers): ..."; others unchanged.
[[nodiscard]] Error error_with_source(const Error& e, const std::string& layout_name,
                                      const std::map<std::string, std::string>& sources);

/// The embedded default layout (the seed's layout A).
[[nodiscard]] PlanRequest embedded_default_request();

}  // namespace planlayout
