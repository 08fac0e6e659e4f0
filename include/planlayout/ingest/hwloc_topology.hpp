// Ingest: hwloc topologies (lstopo XML, or this host through libhwloc) → NodeTemplate.
#pragma once

#include <string>

#include "planlayout/topology/node_template.hpp"

namespace planlayout {

/// Loads hwloc XML (2.x; 3.0 as far as libhwloc reads it) through libhwloc and builds the
/// template: GPUs (NVIDIA 3D/VGA PCI devices or CUDA/NVML/RSMI OS devices), NICs (one per
/// OpenFabrics device; plain Ethernet PCI NICs as rdma=false), PCIe switches by switch
/// identity, host bridges as Cpu entries with their NUMA node, and PIX/PXB/PHB/NODE/SYS for
/// every pair. Throws Error (BadInput) naming `where` (and the line for malformed XML).
[[nodiscard]] NodeTemplate read_hwloc_xml(const std::string& text, const std::string& where);

/// Runs libhwloc on this host (I/O devices included) and builds the same template. A host
/// without GPUs gives a template with the warning "no GPUs found on this host".
/// Throws Error (Io) when libhwloc cannot load the topology.
[[nodiscard]] NodeTemplate discover_this_host();

}  // namespace planlayout
