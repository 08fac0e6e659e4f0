// Emit: two analysis reports side by side, kind by kind, with the differences marked.
#pragma once

#include <string>

#include "planlayout/report.hpp"

namespace planlayout {

/// Per kind: groups × size, nodes spanned, pairs per class, bytes crossing nodes and time per
/// transport for A and B, '*' where they differ; then the scores and, in words, which kinds
/// cross nodes in one layout and stay inside a node in the other.
[[nodiscard]] std::string compare_text(const Report& a, const Report& b);

/// {"schema_version":1,"command":"compare","a":{...},"b":{...},"kinds":[...],"explanation":[...]}.
[[nodiscard]] std::string compare_json(const Report& a, const Report& b);

}  // namespace planlayout
