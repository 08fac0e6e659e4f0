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
/// Mnnvl: two nodes of one multi-node NVLink domain (the same clique of a GB200/GB300 NVL72 rack):
/// NVLink through the rack's NVLink switches. NCCL fuses a clique's nodes into one (src/graph/topo.cc,
/// ncclTopoGetSystem under comm->MNNVL), so Mnnvl ranks with the NVLink classes, not the network's.
/// Cross-node: Rail (NIC→leaf→NIC, same rail), Pxn (NVLink hop to the GPU on the peer's rail,
/// then the same rail), Xrail (leaf→spine→leaf), Xpod (beyond one spine tier).
enum class PathClass : int { Loc = 0, Nv, Mnnvl, Pix, Pxb, Phb, Node, Sys, Rail, Pxn, Xrail, Xpod };

inline constexpr int kPathClassCount = static_cast<int>(PathClass::Xpod) + 1;  // Xpod is the last

/// "LOC", "NV", "MNNVL", "PIX", ..., "XPOD".
[[nodiscard]] std::string_view to_string(PathClass c);

/// Parses the upper-case names above (also "X" → Loc, "NV#"/"NVB" → Nv); nullopt if unknown.
[[nodiscard]] std::optional<PathClass> parse_path_class(std::string_view s);

/// Over the network (RAIL and worse): the classes a transport (TCP, RDMA) carries. MNNVL pairs are on
/// two nodes but not on the network.
[[nodiscard]] inline bool is_cross_node(PathClass c) { return c >= PathClass::Rail; }

/// Loc, NV or MNNVL: the path is NVLink (or none), costed at the NVLink rate.
[[nodiscard]] inline bool over_nvlink(PathClass c) { return c <= PathClass::Mnnvl; }

[[nodiscard]] inline PathClass worse(PathClass a, PathClass b) { return a < b ? b : a; }

}  // namespace planlayout
