// Ingest: NCCL topology XML (NCCL_TOPO_FILE seeds and NCCL_TOPO_DUMP_FILE dumps) → NodeTemplate.
#pragma once

#include <string>

#include "planlayout/topology/node_template.hpp"

namespace planlayout {

/// Parses an NCCL topology XML (<system version="1">): <cpu> → Cpu, <pci> switches →
/// PcieSwitch (Broadcom two-level switches flattened as NCCL does), <gpu>/<nvlink> → GPUs and
/// NVLink, <nic>/<net> → one Nic per <net>. Sparse seeds are accepted: each value filled from
/// NCCL's defaults (width 0 → x16, unknown speed → Gen3, NIC speed ≤ 0 → 10 Gb/s) adds a
/// warning. Throws Error (BadInput): malformed XML names where:line; semantic errors name the
/// element path ("/system/cpu[1]/pci[2]").
[[nodiscard]] NodeTemplate read_nccl_topo_xml(const std::string& text, const std::string& where);

}  // namespace planlayout
