// Ingest: hwloc topologies → NodeTemplate through libhwloc (docs/formats/captures.md).
// Over 500 lines on purpose: the XML structure checks that keep libhwloc from crashing or
// allocating 2^32-bit bitmaps on hostile input (docs/hardening.md) sit next to the walk they guard
// (which also reads each GPU's memory from its CUDA or OpenCL OS device).
#include "planlayout/ingest/hwloc_topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <utility>
#include <tuple>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include "ingest_util.hpp"
#include "planlayout/error.hpp"

namespace planlayout {
namespace {

struct HwlocDeleter {
    void operator()(hwloc_topology_t t) const { hwloc_topology_destroy(t); }
};
using HwlocTopology = std::unique_ptr<hwloc_topology, HwlocDeleter>;

struct BitmapString {
    char* s = nullptr;
    BitmapString() = default;
    BitmapString(const BitmapString&) = delete;
    BitmapString& operator=(const BitmapString&) = delete;
    ~BitmapString() { std::free(s); }  // NOLINT(cppcoreguidelines-no-malloc): hwloc allocates
};

std::string pci_bus_id(const hwloc_obj_attr_u::hwloc_pcidev_attr_s& p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%01x", static_cast<unsigned>(p.domain),
                  static_cast<unsigned>(p.bus), static_cast<unsigned>(p.dev),
                  static_cast<unsigned>(p.func));
    return buf;
}

std::tuple<unsigned, unsigned, unsigned, unsigned> bus_key(hwloc_obj_t o) {
    const auto& p = o->attr->pcidev;
    return {p.domain, p.bus, p.dev, p.func};
}

/// hwloc stores GB/s as a float: keep three decimals so outputs do not carry float noise.
double gbyte_s(float v) { return std::round(static_cast<double>(v) * 1000.0) / 1000.0; }

/// An enum field of an hwloc object as the integer libhwloc stored. libhwloc copies XML values
/// into these fields unchecked (bridge_type="2"): loading one as the enum type is undefined
/// behaviour (found by fuzzing with UBSan), reading the bytes as an integer is not.
template <typename Enum>
unsigned raw_enum(const Enum& field) {
    static_assert(sizeof(Enum) == sizeof(unsigned), "hwloc enums are int-sized");
    unsigned v = 0;
    std::memcpy(&v, &field, sizeof v);
    return v;
}

bool is_bridge(hwloc_obj_t o) { return o != nullptr && o->type == HWLOC_OBJ_BRIDGE; }

bool is_host_bridge(hwloc_obj_t o) {
    return is_bridge(o) && raw_enum(o->attr->bridge.upstream_type) == HWLOC_OBJ_BRIDGE_HOST;
}

bool same_pci_id(hwloc_obj_t a, hwloc_obj_t b) {
    if (!is_bridge(a) || !is_bridge(b) || is_host_bridge(a) || is_host_bridge(b)) {
        return false;
    }
    const auto& x = a->attr->bridge.upstream.pci;
    const auto& y = b->attr->bridge.upstream.pci;
    return x.vendor_id == y.vendor_id && x.device_id == y.device_id;
}

enum class PortRole { RootPort, Upstream, Downstream };

/// Below a root port, switch ports alternate: an upstream port, then its downstream ports
/// (same vendor:device as the upstream), then the next switch's upstream port, ... A bridge
/// that is not a downstream port of its parent starts a switch (a lone bridge counts as one).
PortRole port_role_of(hwloc_obj_t b) {
    if (is_host_bridge(b->parent) || !is_bridge(b->parent)) {
        return PortRole::RootPort;
    }
    if (same_pci_id(b->parent, b) && port_role_of(b->parent) == PortRole::Upstream) {
        return PortRole::Downstream;
    }
    return PortRole::Upstream;
}

/// The switch a bridge belongs to (its upstream port), nullptr for a root port (part of the
/// host bridge).
hwloc_obj_t switch_of(hwloc_obj_t b) {
    switch (port_role_of(b)) {
        case PortRole::RootPort: return nullptr;
        case PortRole::Upstream: return b;
        case PortRole::Downstream: return b->parent;
    }
    return nullptr;
}

bool is_gpu_osdev(hwloc_obj_t o) {
    const std::string n = o->name ? o->name : "";
    const std::string sub = o->subtype ? o->subtype : "";
    return n.rfind("cuda", 0) == 0 || n.rfind("nvml", 0) == 0 || n.rfind("rsmi", 0) == 0 ||
           sub == "CUDA" || sub == "NVML" || sub == "RSMI";
}

/// The memory an OS device of a GPU reports, in KiB: CUDAGlobalMemorySize (the CUDA backend's
/// totalGlobalMem >> 10) or OpenCLGlobalMemorySize (CL_DEVICE_GLOBAL_MEM_SIZE >> 10); hwloc 2.x
/// writes the number of KiB, hwloc 3.0 XML adds the unit ("11796032KiB"). 0 when it gives none
/// or a value that is not a size.
double memory_kib(hwloc_obj_t o) {
    for (const char* name : {"CUDAGlobalMemorySize", "OpenCLGlobalMemorySize"}) {
        if (const char* v = hwloc_obj_get_info_by_name(o, name)) {
            char* end = nullptr;
            const double n = std::strtod(v, &end);
            const std::string unit = end != nullptr ? end : "";
            const double kib = unit.empty() || unit == "KiB" ? n : unit == "MiB" ? n * 1024 : unit == "GiB" ? n * 1048576 : 0;
            return end != v && kib >= 1 && kib <= 0x1p40 ? std::floor(kib) : 0.0;
        }
    }
    return 0;
}

/// The memory of GPU OS devices that hwloc did not place under a PCI device (an OpenCL device
/// in a VM hangs beside its GPU): the CUDA ones, else the OpenCL GPUs.
std::vector<double> unplaced_gpu_kib(hwloc_topology_t topo) {
    std::vector<double> cuda;
    std::vector<double> opencl;
    for (hwloc_obj_t o = hwloc_get_next_osdev(topo, nullptr); o != nullptr; o = hwloc_get_next_osdev(topo, o)) {
        if (o->parent != nullptr && o->parent->type == HWLOC_OBJ_PCI_DEVICE) {
            continue;
        }
        const std::string sub = o->subtype != nullptr ? o->subtype : "";
        const char* type = hwloc_obj_get_info_by_name(o, "OpenCLDeviceType");
        if (sub == "CUDA" && memory_kib(o) > 0) {
            cuda.push_back(memory_kib(o));
        } else if (sub == "OpenCL" && type != nullptr && std::string(type) == "GPU" && memory_kib(o) > 0) {
            opencl.push_back(memory_kib(o));
        }
    }
    return cuda.empty() ? opencl : cuda;
}

bool is_rdma_osdev(hwloc_obj_t o) {
    if (raw_enum(o->attr->osdev.type) == HWLOC_OBJ_OSDEV_OPENFABRICS) {
        return true;
    }
    const std::string n = o->name ? o->name : "";
    for (const char* p : {"mlx4_", "mlx5_", "hfi1_", "bnxt_re", "rdmap", "efa_", "irdma", "qedr",
                          "ionic_"}) {
        if (n.rfind(p, 0) == 0) {
            return true;
        }
    }
    return false;
}

class Builder {
public:
    Builder(hwloc_topology_t topo, bool this_host, std::string where)
        : topo_(topo), this_host_(this_host), where_(std::move(where)) {}

    NodeTemplate build() {
        std::vector<hwloc_obj_t> pcidevs;
        for (hwloc_obj_t o = hwloc_get_next_pcidev(topo_, nullptr); o != nullptr;
             o = hwloc_get_next_pcidev(topo_, o)) {
            pcidevs.push_back(o);
        }
        std::sort(pcidevs.begin(), pcidevs.end(),
                  [](hwloc_obj_t a, hwloc_obj_t b) { return bus_key(a) < bus_key(b); });
        int nvswitches = 0;
        for (hwloc_obj_t o : pcidevs) {
            const auto& p = o->attr->pcidev;
            const unsigned cls = p.class_id;
            bool gpu_osdev = false;
            std::vector<hwloc_obj_t> rdma;
            std::vector<hwloc_obj_t> netdevs;
            std::string gpu_model;
            double kib = 0;  // the CUDA device's figure wins over the OpenCL one
            for (hwloc_obj_t c = o->io_first_child; c != nullptr; c = c->next_sibling) {
                if (c->type != HWLOC_OBJ_OS_DEVICE) {
                    continue;
                }
                const std::string sub = c->subtype != nullptr ? c->subtype : "";
                if (memory_kib(c) > 0 && (kib == 0 || sub == "CUDA")) {
                    kib = memory_kib(c);
                }
                if (is_gpu_osdev(c)) {
                    gpu_osdev = true;
                    if (const char* m = hwloc_obj_get_info_by_name(c, "GPUModel")) {
                        gpu_model = m;
                    }
                } else if (is_rdma_osdev(c)) {
                    rdma.push_back(c);
                } else if (raw_enum(c->attr->osdev.type) == HWLOC_OBJ_OSDEV_NETWORK) {
                    netdevs.push_back(c);
                }
            }
            const bool nvidia = p.vendor_id == 0x10de;
            if (nvidia && (cls >> 8U) == 0x06 && (cls & 0xffU) == 0x80) {
                ++nvswitches;
                continue;
            }
            if ((nvidia && (cls == 0x0302 || cls == 0x0300)) || gpu_osdev) {
                add_gpu(o, gpu_model);
                gpu_kib_.push_back(kib);
            } else if (!rdma.empty()) {
                for (hwloc_obj_t r : rdma) {
                    add_nic(o, r->name ? r->name : "", netdevs, true);
                }
            } else if ((cls >> 8U) == 0x02 && !netdevs.empty()) {
                add_nic(o, "", netdevs, false);
            } else if ((cls >> 8U) == 0x02) {
                notes_.push_back("network PCI device " + pci_bus_id(p) +
                                 " has no network interface (no driver?); ignored");
            }
        }
        finish(nvswitches);
        return std::move(t_);
    }

private:
    /// The template parent of a device (switch or CPU), creating both as needed.
    std::string parent_of(hwloc_obj_t dev, int& numa) {
        std::vector<hwloc_obj_t> switches;
        hwloc_obj_t host = nullptr;
        for (hwloc_obj_t a = dev->parent; is_bridge(a); a = a->parent) {
            if (is_host_bridge(a)) {
                host = a;
                break;
            }
            if (hwloc_obj_t s = switch_of(a); s != nullptr &&
                                              (switches.empty() || switches.back() != s)) {
                switches.push_back(s);
            }
        }
        const std::string cpu = cpu_of(host, dev, numa);
        std::string above = cpu;
        for (auto it = switches.rbegin(); it != switches.rend(); ++it) {
            const auto found = switch_names_.find(*it);
            if (found != switch_names_.end()) {
                above = found->second;
                continue;
            }
            PcieSwitch s;
            s.name = "SW" + std::to_string(t_.pcie_switches.size());
            s.parent = above;
            s.link.gbyte_s = gbyte_s((*it)->attr->bridge.upstream.pci.linkspeed);
            switch_names_[*it] = s.name;
            t_.pcie_switches.push_back(s);
            above = s.name;
        }
        return above;
    }

    std::string cpu_of(hwloc_obj_t host, hwloc_obj_t dev, int& numa) {
        hwloc_obj_t key = host != nullptr ? host : hwloc_get_non_io_ancestor_obj(topo_, dev);
        const auto it = cpu_names_.find(key);
        hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo_, dev);
        numa = -1;
        if (anc != nullptr && anc->nodeset != nullptr && hwloc_bitmap_weight(anc->nodeset) == 1) {
            numa = hwloc_bitmap_first(anc->nodeset);
        }
        if (it != cpu_names_.end()) {
            return it->second;
        }
        Cpu c;
        c.name = "CPU" + std::to_string(t_.cpus.size());
        c.numa = numa;
        if (anc != nullptr && anc->cpuset != nullptr) {
            BitmapString s;
            if (hwloc_bitmap_list_asprintf(&s.s, anc->cpuset) >= 0 && s.s != nullptr) {
                c.cpuset = s.s;
            }
        }
        cpu_ids(anc, c);
        cpu_names_[key] = c.name;
        t_.cpus.push_back(c);
        return c.name;
    }

    /// The processor ids NCCL's <cpu> needs: the machine's Architecture (hwloc's uname, spelt as
    /// NCCL spells it) and CPUID's vendor, family and model of the package above `anc` (the first
    /// package when `anc` spans several).
    void cpu_ids(hwloc_obj_t anc, Cpu& c) const {
        if (const char* a = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo_), "Architecture")) {
            const std::string arch = a;
            c.arch = ingest_detail::cpu_id_text(arch == "aarch64" ? "arm64" : arch.rfind("ppc64", 0) == 0 ? "ppc64" : arch,
                                                where_ + " (Architecture)", "arch");
        }
        hwloc_obj_t pkg = anc;
        while (pkg != nullptr && pkg->type != HWLOC_OBJ_PACKAGE) {
            pkg = pkg->parent;
        }
        if (pkg == nullptr) {
            pkg = hwloc_get_next_obj_by_type(topo_, HWLOC_OBJ_PACKAGE, nullptr);
        }
        if (pkg == nullptr) {
            return;
        }
        if (const char* v = hwloc_obj_get_info_by_name(pkg, "CPUVendor")) {
            c.vendor = ingest_detail::cpu_id_text(v, where_ + " (CPUVendor)", "vendor");
        }
        const auto number = [&](const char* name) {
            const char* v = hwloc_obj_get_info_by_name(pkg, name);
            const long n = v != nullptr ? ingest_detail::parse_uint(v) : -1;
            return n >= 0 && n <= 0xffff ? static_cast<int>(n) : -1;
        };
        c.family_id = number("CPUFamilyNumber");
        c.model_id = number("CPUModelNumber");
    }

    void add_gpu(hwloc_obj_t o, std::string model) {
        Gpu g;
        g.name = "GPU" + std::to_string(t_.gpus.size());
        g.bus_id = pci_bus_id(o->attr->pcidev);
        if (model.empty()) {
            model = ingest_detail::nvidia_model(o->attr->pcidev.device_id);
        }
        if (model.rfind("NVIDIA ", 0) == 0 || model.rfind("Tesla ", 0) == 0) {
            model = model.substr(model.find(' ') + 1);
        }
        g.model = model;
        g.parent = parent_of(o, g.numa);
        g.pcie.gbyte_s = gbyte_s(o->attr->pcidev.linkspeed);
        t_.gpus.push_back(g);
    }

    void add_nic(hwloc_obj_t o, const std::string& device, const std::vector<hwloc_obj_t>& netdevs,
                 bool rdma) {
        Nic n;
        n.name = "NIC" + std::to_string(t_.nics.size());
        n.device = device;
        n.bus_id = pci_bus_id(o->attr->pcidev);
        n.rdma = rdma;
        for (hwloc_obj_t d : netdevs) {
            const std::string nd = d->name != nullptr ? d->name : "";
            if (n.netdev.empty() || (nd.rfind("ib", 0) == 0 && n.netdev.rfind("ib", 0) != 0)) {
                n.netdev = nd;
            }
        }
        if (!rdma) {
            n.link_layer = "Ethernet";
        } else if (n.netdev.rfind("ib", 0) == 0 || (o->attr->pcidev.class_id == 0x0207)) {
            n.link_layer = "IB";
        } else if (!n.netdev.empty()) {
            n.link_layer = "RoCE";
        }
        n.parent = parent_of(o, n.numa);
        n.pcie.gbyte_s = gbyte_s(o->attr->pcidev.linkspeed);
        t_.nics.push_back(n);
        if (!rdma && !n.netdev.empty()) {
            t_.tcp.push_back({n.netdev, 0, n.numa});
        }
    }

    void finish(int nvswitches) {
        if (!t_.gpus.empty()) {
            const std::string m = t_.gpus.front().model;
            if (std::all_of(t_.gpus.begin(), t_.gpus.end(),
                            [&](const Gpu& g) { return g.model == m; })) {
                t_.gpu_model = m;
            }
        }
        if (t_.gpus.empty()) {
            t_.warnings.emplace_back(this_host_ ? "no GPUs found on this host"
                                             : "no GPUs found in this topology");
        } else if (nvswitches > 0) {
            t_.nvlink.nvswitch = true;
            t_.nvlink.links_per_gpu = ingest_detail::nvlinks_for_model(t_.gpu_model);
            t_.nvlink.gbyte_s_per_link = ingest_detail::nvlink_gbyte_s_for_model(t_.gpu_model);
            t_.warnings.push_back(std::to_string(nvswitches) +
                                  " NVSwitch PCI devices: GPUs assumed to be NVSwitch peers with " +
                                  std::to_string(t_.nvlink.links_per_gpu) +
                                  " links each (from the GPU model; hwloc has no NVLink counts)");
        } else if (t_.gpus.size() > 1) {
            t_.warnings.emplace_back("hwloc does not describe NVLink: GPU pairs are classed by "
                                  "their PCIe path only");
        }
        if (std::any_of(t_.nics.begin(), t_.nics.end(), [](const Nic& n) { return n.rdma; })) {
            t_.warnings.emplace_back("hwloc does not record NIC port speeds: speed_gbit_s is 0 "
                                  "(unknown)");
        } else {
            t_.warnings.emplace_back("no RDMA NIC (OpenFabrics device) found");
        }
        const auto known = std::count_if(gpu_kib_.begin(), gpu_kib_.end(), [](double k) { return k > 0; });
        const std::vector<double> beside = known == 0 ? unplaced_gpu_kib(topo_) : std::vector<double>{};
        if (known > 0 && static_cast<std::size_t>(known) == gpu_kib_.size()) {
            t_.gpu_memory_bytes = *std::min_element(gpu_kib_.begin(), gpu_kib_.end()) * 1024.0;
        } else if (!gpu_kib_.empty() && beside.size() == gpu_kib_.size()) {
            t_.gpu_memory_bytes = *std::min_element(beside.begin(), beside.end()) * 1024.0;
            t_.warnings.push_back("GPU memory from " + std::to_string(beside.size()) +
                                  " GPU OS device(s) that hwloc did not place under a PCI device, matched to the GPUs by count");
        } else if (known > 0) {
            t_.warnings.push_back("only " + std::to_string(known) + " of " + std::to_string(gpu_kib_.size()) +
                                  " GPUs report their memory: gpu_memory_mib is left unknown");
        }
        for (auto& w : notes_) {
            t_.warnings.push_back(std::move(w));
        }
        ingest_detail::require_node_size(t_.gpus.size(), t_.nics.size(), where_);
        derive_paths(t_);
    }

    hwloc_topology_t topo_;
    bool this_host_;
    std::string where_;  // names the capture in errors
    NodeTemplate t_;
    std::map<hwloc_obj_t, std::string> switch_names_;
    std::map<hwloc_obj_t, std::string> cpu_names_;
    std::vector<std::string> notes_;
    std::vector<double> gpu_kib_;  // per GPU in t_.gpus order: its memory in KiB, 0 unknown
};

HwlocTopology make_topology(const std::string& where) {
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) {
        throw io_error(where, "libhwloc could not initialise a topology", "");
    }
    HwlocTopology topo(raw);
    hwloc_topology_set_io_types_filter(topo.get(), HWLOC_TYPE_FILTER_KEEP_ALL);
    return topo;
}

/// hwloc 3.0 XML → the 2.x dialect libhwloc 2.x loads: the version attribute, and osdev_type
/// as a bitmask (3.0) → the 2.x enumeration. Other 3.0 additions (id="objN") are ignored by 2.x.
std::string downgrade_v3(const std::string& text) {
    std::string out = std::regex_replace(text, std::regex("<topology version=\"3\\.[0-9]+\""),
                                         "<topology version=\"2.0\"");
    static const std::regex kOsdevType("osdev_type=\"([0-9]+)\"");
    std::string result;
    auto begin = std::sregex_iterator(out.begin(), out.end(), kOsdevType);
    std::size_t last = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
        const long bits = ingest_detail::parse_uint((*it)[1].str());
        int v2 = 0;  // storage / memory / unknown → block device
        if ((bits & 32) != 0) {
            v2 = 3;  // OpenFabrics
        } else if ((bits & 16) != 0) {
            v2 = 2;  // network
        } else if ((bits & 8) != 0) {
            v2 = 5;  // co-processor (CUDA, OpenCL, ...)
        } else if ((bits & 4) != 0) {
            v2 = 1;  // GPU
        } else if ((bits & 64) != 0) {
            v2 = 4;  // DMA
        }
        result += out.substr(last, static_cast<std::size_t>(it->position(0)) - last);
        result += "osdev_type=\"" + std::to_string(v2) + "\"";
        last = static_cast<std::size_t>(it->position(0) + it->length(0));
    }
    result += out.substr(last);
    return result;
}

/// hwloc bitmap text as lstopo writes it: comma-separated hex words ("0x0000ffff,0xffffffff"),
/// the first may be the infinite prefix "0xf...f", a zero word may be left empty ("0x3,,0x1").
bool valid_bitmap(const std::string& v) {
    if (v.empty() || v.find_first_not_of(',') == std::string::npos) {
        return false;
    }
    std::size_t start = 0;
    for (bool first = true;; first = false) {
        const std::size_t comma = v.find(',', start);
        std::string word = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!(first && word == "0xf...f")) {
            if (word.rfind("0x", 0) == 0) {
                word = word.substr(2);
                if (word.empty()) {
                    return false;
                }
            }
            if (word.size() > 16 ||
                word.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
                return false;
            }
        }
        if (comma == std::string::npos) {
            return true;
        }
        start = comma + 1;
    }
}

/// libhwloc trusts its XML: an <object> without a type, an unknown type or an empty cpuset
/// crashes hwloc_topology_load (2.9, found by fuzzing). Checks the structure first, without
/// recursion (a deep document must not exhaust the stack), and names the object's path.
void check_hwloc_objects(const boost::property_tree::ptree& topology, const std::string& where) {
    static const std::set<std::string> kTypes = {
        "Machine", "Package", "Die", "Core", "PU", "Group", "NUMANode", "MemCache", "L1Cache", "L2Cache",
        "L3Cache", "L4Cache", "L5Cache", "L1iCache", "L2iCache", "L3iCache", "Bridge", "PCIDev", "OSDev", "Misc"};
    static const char* const kSets[] = {"cpuset", "complete_cpuset", "allowed_cpuset",
                                        "nodeset", "complete_nodeset", "allowed_nodeset"};
    constexpr std::size_t kMaxDepth = 256;
    struct Item {
        const boost::property_tree::ptree* node;
        std::string path;
    };
    std::vector<Item> todo{{&topology, "/topology"}};
    std::size_t objects = 0;
    while (!todo.empty()) {
        const Item item = todo.back();
        todo.pop_back();
        if (static_cast<std::size_t>(std::count(item.path.begin(), item.path.end(), '/')) > kMaxDepth) {
            throw input_error(where + " (" + item.path.substr(0, 60) + "...)",
                              "objects nested more than " + std::to_string(kMaxDepth) + " levels deep",
                              "pass the output of 'lstopo --of xml' (real topologies are a few levels deep)");
        }
        for (const auto& [name, child] : *item.node) {
            if (name != "object") {
                continue;
            }
            const std::string path = item.path + "/object[" + std::to_string(++objects) + "]";
            const std::string type = child.get<std::string>("<xmlattr>.type", "");
            if (kTypes.count(type) == 0) {
                throw input_error(where + " (" + path + ")",
                                  type.empty() ? "object without a type attribute"
                                               : "unknown object type '" + type + "'",
                                  "pass the unmodified output of 'lstopo --of xml' (hwloc 2.x)");
            }
            for (const char* set : kSets) {
                const auto v = child.get_optional<std::string>(std::string("<xmlattr>.") + set);
                if (v && !valid_bitmap(*v)) {
                    throw input_error(where + " (" + path + ")",
                                      std::string(set) + "=\"" + v->substr(0, 40) + "\" is not an hwloc bitmap",
                                      "bitmaps are hex words such as 0x0000ffff,0xffffffff");
                }
            }
            // hwloc's tree: memory objects hang off normal objects (MemCache above NUMANode), I/O
            // objects only hold I/O objects, and Misc may sit anywhere; a NUMANode holding a cache
            // crashed libhwloc 2.9 (hwloc_insert_object_by_parent).
            const std::string parent_type = item.node == &topology ? "" : item.node->get<std::string>("<xmlattr>.type", "");
            const auto is_io = [](const std::string& t) { return t == "Bridge" || t == "PCIDev" || t == "OSDev"; };
            const bool allowed = type == "Misc" || parent_type.empty() ||
                                 (parent_type == "NUMANode" ? false
                                  : parent_type == "MemCache" ? (type == "MemCache" || type == "NUMANode")
                                  : is_io(parent_type)        ? is_io(type)
                                  : parent_type == "Misc" || parent_type == "PU" ? false
                                                                                 : true);
            if (!allowed) {
                throw input_error(where + " (" + path + ")",
                                  "a " + type + " object inside a " + parent_type + " object",
                                  "pass the unmodified output of 'lstopo --of xml' (hwloc 2.x)");
            }
            // A PU or NUMANode without os_index (or a huge one) made libhwloc build a bitmap of
            // 2^32 bits (512 MiB, seconds per file; found by fuzzing): lstopo always writes it.
            if (type == "PU" || type == "NUMANode") {
                const std::string os_index = child.get<std::string>("<xmlattr>.os_index", "");
                if (os_index.empty() || os_index.size() > 7 ||
                    os_index.find_first_not_of("0123456789") != std::string::npos ||
                    std::stol(os_index) > (1L << 20)) {
                    throw input_error(where + " (" + path + ")",
                                      type + " object with " + (os_index.empty() ? "no os_index" : "os_index=\"" + os_index.substr(0, 20) + "\""),
                                      "lstopo writes the OS index of every PU and NUMA node (at most 2^20 here)");
                }
            }
            const bool io_or_misc = type == "Bridge" || type == "PCIDev" || type == "OSDev" || type == "Misc";
            // A missing (complete_)nodeset crashed libhwloc 2.9 too (hwloc_bitmap_set on NULL when
            // a NUMANode is inserted below): lstopo writes all four sets on every CPU-side object.
            for (const char* set : {"cpuset", "complete_cpuset", "nodeset", "complete_nodeset"}) {
                if (!io_or_misc && !child.get_optional<std::string>(std::string("<xmlattr>.") + set)) {
                    throw input_error(where + " (" + path + ")", type + " object without " + set,
                                      "pass the unmodified output of 'lstopo --of xml' (hwloc 2.x)");
                }
            }
            todo.push_back({&child, path});
        }
    }
}

}  // namespace

NodeTemplate read_hwloc_xml(const std::string& text, const std::string& where) {
    ingest_detail::require_utf8(text, where);
    ingest_detail::require_xml_depth(text, where);
    std::string version;
    // Well-formedness first: libhwloc's own messages go to stderr and carry no line numbers.
    try {
        boost::property_tree::ptree doc;
        std::istringstream in(text);
        boost::property_tree::read_xml(in, doc);
        if (doc.get_child_optional("topology") == boost::none) {
            const bool nccl = doc.get_child_optional("system") != boost::none;
            throw input_error(where, nccl ? "this is NCCL topology XML (<system>), not hwloc XML"
                                          : "no <topology> element: not hwloc XML",
                              nccl ? "use 'plan-layout import nccl-xml' for it"
                                   : "pass the output of 'lstopo --of xml'");
        }
        version = doc.get<std::string>("topology.<xmlattr>.version", "");
        if (version.empty()) {
            throw input_error(where + " (<topology>)",
                              "hwloc 1.x XML (no version attribute) is not supported",
                              "convert it with hwloc 2's lstopo: lstopo -i old.xml new.xml");
        }
        check_hwloc_objects(doc.get_child("topology"), where);
    } catch (const boost::property_tree::xml_parser_error& e) {
        throw input_error(where + ":" + std::to_string(e.line()), "malformed XML: " + e.message(),
                          "fix the XML there (is the file truncated or not XML?)");
    }
    std::string xml = text;
    bool converted = false;
    if (version.rfind('3', 0) == 0 && HWLOC_API_VERSION < 0x00030000) {
        xml = downgrade_v3(text);
        converted = true;
    }
    if (xml.size() > static_cast<std::size_t>(std::numeric_limits<int>::max() - 1)) {
        throw input_error(where, "XML too large for libhwloc", "pass a smaller file");
    }
    HwlocTopology topo = make_topology(where);
    if (hwloc_topology_set_xmlbuffer(topo.get(), xml.c_str(), static_cast<int>(xml.size() + 1)) !=
            0 ||
        hwloc_topology_load(topo.get()) != 0) {
        throw input_error(where, "libhwloc " HWLOC_VERSION " could not load this XML",
                          "check that it is lstopo output of hwloc 2.x (lstopo --of xml)");
    }
    NodeTemplate t = Builder(topo.get(), false, where).build();
    t.source = where;
    if (converted) {
        t.warnings.insert(t.warnings.begin(),
                          "hwloc 3.0 XML read through libhwloc " HWLOC_VERSION
                          " after mapping it to the 2.x dialect (version, osdev_type bitmask)");
    }
    require_template_names(t, where);
    return t;
}

NodeTemplate discover_this_host() {
    HwlocTopology topo = make_topology("this host");
    if (hwloc_topology_load(topo.get()) != 0) {
        throw io_error("this host", "libhwloc could not read the topology of this machine",
                       "check that /sys is readable (inside containers, mount it)");
    }
    NodeTemplate t = Builder(topo.get(), true, "this host").build();
    t.source = "this host (libhwloc " HWLOC_VERSION ")";
    require_template_names(t, t.source);
    return t;
}

}  // namespace planlayout
