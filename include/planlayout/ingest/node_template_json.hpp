// Ingest: node templates to and from JSON (docs/formats/layout.md, "Node templates").
#pragma once

#include <string>

#include <ostream>

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

/// The bytes of to_json(t), with the keys of `extra` added, dumped with indent 2, then '\n';
/// the device pairs are written to `out` one at a time (a 1,024-device template has 523,776:
/// their DOM took most of `import`'s time and memory).
void write_json(const NodeTemplate& t, const nlohmann::json& extra, std::ostream& out);

}  // namespace planlayout
