// Emit: one node of the plan as NCCL's topology XML (NCCL_TOPO_FILE), the structure NCCL reads
// and dumps (NVIDIA/nccl src/graph/xml.cc, topo.cc): <system version="1"> with a <cpu> per NUMA
// node, the PCIe tree of switches (<pci class="0x060400">), GPUs (<pci><gpu dev sm rank gdr>
// with <nvlink target count tclass>) and NICs (<pci><nic><net name dev speed port gdr>).
#pragma once

#include <string>

#include "planlayout/report.hpp"

namespace planlayout {

/// The NCCL topology XML of the plan's node `host` ("" = the job's first node): its CPUs (numaid,
/// affinity from the cpuset), PCIe switches and links, GPUs (dev = CUDA index, rank = the plan's
/// global rank on that GPU, gdr), NVLink (to the NVSwitch fabric, or per GPU pair), NICs (device,
/// port, speed in Mb/s, IB or Ethernet class) and TCP interfaces. What the template does not know
/// is left out, so NCCL reads it from the machine (arch, vendor, PCI ids, link state); bus ids
/// the template lacks are written as placeholders, said in a comment: replace them with the real
/// ones before use. Throws Error (BadInput) when the job has no node `host`.
[[nodiscard]] std::string nccl_topo_xml(const Report& report, const std::string& host);

}  // namespace planlayout
