// Node templates: what one machine looks like inside (GPUs, NICs, the PCIe tree, NUMA, NVLink).
// Every topology source (cluster JSON, hwloc XML, nvidia-smi topo -m, NCCL topology XML) is
// turned into this one value type; the cluster model instantiates it once per node.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planlayout/topology/path_class.hpp"

namespace planlayout {

/// A CPU socket / PCIe root complex (host bridge) and the NUMA node it belongs to.
struct Cpu {
    std::string name;    // "CPU0"
    int numa = -1;       // NUMA node id, -1 unknown
    std::string cpuset;  // "0-55,112-167", empty if unknown
    // The processor as NCCL's topology XML names it (<cpu arch vendor familyid modelid>, from CPUID);
    // empty / -1 unknown. Captures give them (hwloc's CPUVendor, CPUFamilyNumber, CPUModelNumber).
    std::string arch;    // "x86_64", "arm64", "ppc64"
    std::string vendor;  // CPUID vendor: "GenuineIntel", "AuthenticAMD"
    int family_id = -1;
    int model_id = -1;
};

/// PCIe link state of one device or switch; 0 means unknown.
struct PcieLink {
    double gen = 0;        // current PCIe generation (1..6)
    int width = 0;         // current lanes
    double max_gen = 0;    // capability
    int max_width = 0;     // capability
    double gbyte_s = 0;    // link bandwidth as reported (hwloc "linkspeed", GB/s)
};

/// A PCIe switch or bridge. parent names a Cpu or another PcieSwitch.
struct PcieSwitch {
    std::string name;    // "PLX0" / bus id
    std::string parent;  // "CPU0" or another switch
    PcieLink link;
};

struct Gpu {
    std::string name;    // "GPU0" (canonical, index order)
    std::string model;   // "H100 80GB HBM3", empty if unknown
    std::string bus_id;  // "0000:18:00.0", empty if unknown
    std::string parent;  // PcieSwitch or Cpu name, empty if unknown
    int numa = -1;
    int nvswitch_links = 0;  // NVLinks to an NVSwitch fabric (0: none or point-to-point only)
    PcieLink pcie;
};

struct Nic {
    std::string name;        // "NIC0" (canonical)
    std::string device;      // "mlx5_0" (what NCCL_IB_HCA names), empty if unknown
    std::string bus_id;
    std::string parent;      // PcieSwitch or Cpu name
    int numa = -1;
    double speed_gbit_s = 0;  // port line rate, Gbit/s (400 for NDR); 0 unknown
    std::string link_layer;   // "IB", "RoCE", "Ethernet", empty if unknown
    int port = 1;
    std::string netdev;       // "ib0", "eth2", empty if unknown
    bool rdma = true;         // false for a plain Ethernet NIC
    std::string role = "compute";  // compute | storage | management
    PcieLink pcie;
};

/// The interface NCCL's socket transport uses (NCCL_SOCKET_IFNAME); often one per node.
struct TcpInterface {
    std::string name;         // "eth0"
    double speed_gbit_s = 0;  // 0 unknown
    int numa = -1;
};

/// The class of one unordered device pair. a/b are canonical names ("GPU0", "NIC3");
/// GPUs sort before NICs, then by index.
struct DevicePath {
    std::string a;
    std::string b;
    PathClass path_class = PathClass::Sys;
    int nvlinks = 0;  // NVLink count for Nv pairs (NV18 → 18)
};

struct NvlinkInfo {
    bool nvswitch = false;        // all GPUs reach each other through NVSwitch
    int links_per_gpu = 0;        // NVLinks per GPU (18 on H100 SXM)
    double gbyte_s_per_link = 0;  // unidirectional GB/s per link (25 for NVLink4)
};

struct NodeTemplate {
    std::string name;    // template name, e.g. "h100-hgx-8gpu-8nic"
    std::string source;  // where it came from ("layouts/nodes/x.json", "capture.xml")
    std::string gpu_model;
    double gpu_memory_bytes = 0;  // memory of one GPU as the driver reports it (nvidia-smi's
                                  // memory.total, CUDA's totalGlobalMem); the smallest when the
                                  // GPUs differ; 0 unknown
    NvlinkInfo nvlink;
    std::vector<Cpu> cpus;
    std::vector<PcieSwitch> pcie_switches;
    std::vector<Gpu> gpus;
    std::vector<Nic> nics;
    std::vector<TcpInterface> tcp;
    std::vector<DevicePath> paths;  // every unordered GPU/NIC pair once
    // The farthest GPU↔NIC path class over which GPUDirect RDMA works (NCCL_NET_GDR_LEVEL):
    // NCCL's default is PXB (a GPU reaching its NIC through the CPU, PHB/NODE/SYS, is
    // host-staged); Loc = no GPUDirect RDMA at all (no peermem/DMA-BUF, or NCCL reported gdr 0).
    PathClass gdr_level = PathClass::Pxb;
    std::vector<std::string> warnings;
};

/// The GPUDirect levels a template may name ("gdr_level"): LOC, PIX, PXB, PHB, NODE, SYS.
[[nodiscard]] std::optional<PathClass> parse_gdr_level(std::string_view s);

/// Canonical device order: GPUs before NICs, then by the number in the name ("GPU10" after
/// "GPU9"), then by name.
[[nodiscard]] bool device_less(const std::string& a, const std::string& b);

/// Fills `paths` for every GPU/NIC pair that has none, from the PCIe tree (parents, switches,
/// CPUs and NUMA) and the NVLink info, by NCCL's rules: NV for NVLink peers; PIX when both
/// hang off the same switch; PXB through several switches below one root; PHB through the
/// host bridge; NODE across root complexes of one NUMA node; SYS across NUMA nodes.
void derive_paths(NodeTemplate& t);

/// Checks the names of a template that reach shells and DOT (NIC device and netdev names, TCP
/// interface names: NCCL_IB_HCA / NCCL_SOCKET_IFNAME) with require_device_name; every reader
/// calls it on what it built. Throws Error (BadInput) at `where` naming the device.
void require_template_names(const NodeTemplate& t, const std::string& where);

/// The GPU↔NIC class table, row-major: [gpu index × nics.size() + nic index], by position in
/// `gpus` and `nics`; Sys where the template has no such pair. One pass over `paths`, so code
/// that asks about every GPU/NIC pair stays linear in the template (find_path scans `paths`).
[[nodiscard]] std::vector<PathClass> gpu_nic_classes(const NodeTemplate& t);

/// The class of the pair (a, b) by canonical name; nullopt when the template has no such pair.
/// Scans `paths`: for one lookup; use gpu_nic_classes for many.
[[nodiscard]] std::optional<DevicePath> find_path(const NodeTemplate& t,
                                                  const std::string& a,
                                                  const std::string& b);

}  // namespace planlayout
