// Emit: one node of the plan as NCCL's topology XML (NCCL_TOPO_FILE), the structure NCCL reads
// and dumps (NVIDIA/nccl src/graph/xml.cc, topo.cc): <system version="1"> with a <cpu> per NUMA
// node, the PCIe tree of switches (<pci class="0x060400">), GPUs (<pci><gpu> with <nvlink target
// count tclass>) and NICs (<pci><nic><net name dev speed port>).
#pragma once

#include <string>

#include "planlayout/report.hpp"

namespace planlayout {

/// The NCCL topology XML of the plan's node `host` ("" = the job's first node), as NCCL loads it
/// (xml.cc's parser, topo.cc's required attributes): its CPUs (numaid, affinity from the cpuset,
/// arch/vendor/familyid/modelid where the template knows them), PCIe switches and links, GPUs at
/// their bus ids (no dev/sm/rank/gdr: NCCL fills them and would keep a written one), NVLink (to
/// the NVSwitch fabric, or per GPU pair) and RDMA NICs (device, port, speed in Mb/s, IB or
/// Ethernet class). Throws Error (BadInput) when the job has no node `host`, when a GPU has no
/// bus id, or when a node of several CPUs lacks a CPU's ids (NCCL would stop on it).
[[nodiscard]] std::string nccl_topo_xml(const Report& report, const std::string& host);

}  // namespace planlayout
