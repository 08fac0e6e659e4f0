// Ingest: node templates to and from JSON (docs/formats/layout.md, "Node templates").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "planlayout/topology/node_template.hpp"

namespace planlayout {

/// Reads a node template; `file` and `pointer` locate `j` for messages ("layouts/x.json",
/// "/cluster/node"). Missing "paths" are derived from the PCIe tree with derive_paths(). Throws
/// Error (BadInput) naming the pointer and the fix.
[[nodiscard]] NodeTemplate node_template_from_json(const nlohmann::json& j,
                                                   const std::string& file,
                                                   const std::string& pointer = "");

/// The JSON form of a template; node_template_from_json(to_json(t)) == t.
[[nodiscard]] nlohmann::json to_json(const NodeTemplate& t);

}  // namespace planlayout
