// Path classes: the field's vocabulary for how two devices are connected, ordered best to worst.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace planlayout {

/// Ordered best→worst: the class of a path is the worst class of any link on it (NCCL's rule).
/// Intra-node: Loc (same device), Nv (NVLink / NVSwitch), Pix (one PCIe switch), Pxb (several
/// PCIe switches, no host bridge), Phb (through a PCIe host bridge / CPU), Node (across host
/// bridges inside one NUMA node), Sys (across the inter-socket link).
/// Cross-node: Rail (NIC→leaf→NIC, same rail), Pxn (NVLink hop to the GPU on the peer's rail,
/// then the same rail), Xrail (leaf→spine→leaf), Xpod (beyond one spine tier).
enum class PathClass : int { Loc = 0, Nv, Pix, Pxb, Phb, Node, Sys, Rail, Pxn, Xrail, Xpod };

inline constexpr int kPathClassCount = 11;

/// "LOC", "NV", "PIX", ..., "XPOD".
[[nodiscard]] std::string_view to_string(PathClass c);

/// Parses the upper-case names above (also "X" → Loc, "NV#"/"NVB" → Nv); nullopt if unknown.
[[nodiscard]] std::optional<PathClass> parse_path_class(std::string_view s);

[[nodiscard]] inline bool is_cross_node(PathClass c) { return c >= PathClass::Rail; }

[[nodiscard]] inline PathClass worse(PathClass a, PathClass b) { return a < b ? b : a; }

}  // namespace planlayout
