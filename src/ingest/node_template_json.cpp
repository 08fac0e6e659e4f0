// Ingest: node templates from JSON, through the one JSON reader (the writer is
// node_template_json_write.cpp).
#include "planlayout/ingest/node_template_json.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "planlayout/error.hpp"
#include "planlayout/names.hpp"
#include "ingest_util.hpp"
#include "planlayout/json_reader.hpp"

namespace planlayout {
namespace {

using nlohmann::json;

// Limits: real templates have a few dozen devices; the numbers keep every later computation
// (speeds, widths) finite and meaningful.
constexpr int kMaxNuma = 1 << 20;
constexpr int kMaxLinks = 1024;
constexpr double kMaxGbitS = 1e5;     // 100 Tb/s per NIC
constexpr double kMaxLinkGbyteS = 1e4;    // 10 TB/s per link
constexpr double kMaxPcieGen = 16;
constexpr double kMinGbitS = 1e-3;    // 1 Mbit/s: anything slower is a typo (and its times overflow)
constexpr double kMaxGpuMemoryMib = 0x1p30;  // 1 PiB per GPU
constexpr double kMiB = 0x1p20;

// A line rate in Gbit/s: 0 (or absent) = unknown, else from 1 Mbit/s to 100 Tbit/s.
double read_gbit_s(const JsonReader& o, const std::string& key) { return o.get_rate(key, kMinGbitS, kMaxGbitS).value_or(0); }

// A PCIe generation: 0 (or absent) = unknown, else 1 to 16.
double read_pcie_gen(const JsonReader& r, const std::string& key) {
    const double v = r.get<double>(key, 0, kMaxPcieGen).value_or(0);
    if (v != 0 && v < 1) {
        throw input_error(r.where(key), key + " = " + r.at(key).dump() + " is not a PCIe generation",
                          "give 1 to 6 as lspci's LnkSta speed says (2.5GT/s = 1 ... 64GT/s = 6), or 0 when unknown");
    }
    return v;
}

std::string required_string(const JsonReader& r, const std::string& key) {
    auto v = r.get<std::string>(key);
    if (!v) {
        throw input_error(r.where(), "missing \"" + key + "\"", "add \"" + key + "\": \"...\"");
    }
    return std::move(*v);
}

PcieLink read_pcie(const JsonReader& parent) {
    PcieLink link;
    const auto r = parent.get_object("pcie");
    if (!r) {
        return link;
    }
    r->check_keys({"gen", "width", "max_gen", "max_width", "gbyte_s"});
    link.gen = read_pcie_gen(*r, "gen");
    link.width = r->get<int>("width", 0, 64).value_or(0);
    link.max_gen = read_pcie_gen(*r, "max_gen");
    link.max_width = r->get<int>("max_width", 0, 64).value_or(0);
    link.gbyte_s = r->get_rate("gbyte_s", kMinGbitS, kMaxLinkGbyteS).value_or(0);
    return link;
}

std::string join_names(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) {
        s += (s.empty() ? "" : ", ") + x;
    }
    return s;
}

void check_unique(const std::string& name, std::set<std::string>& seen, const JsonReader& r) {
    if (!seen.insert(name).second) {
        throw input_error(r.where("name"), "duplicate name '" + name + "'",
                          "give every CPU, switch, GPU and NIC a distinct name");
    }
}

// Calls read(element reader) for each element of array `key`.
template <class Read>
void each(const JsonReader& r, const std::string& key, Read read) {
    if (const json* arr = r.get_array(key)) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            read(r.element(key, i));
        }
    }
}

// Parents must name a CPU or a switch, and the switch tree must have no cycle.
void check_parents(const NodeTemplate& t, const JsonReader& r) {
    std::vector<std::string> hosts;
    for (const auto& c : t.cpus) {
        hosts.push_back(c.name);
    }
    for (const auto& s : t.pcie_switches) {
        hosts.push_back(s.name);
    }
    auto check_parent = [&](const std::string& parent, const std::string& ptr) {
        if (!parent.empty() && std::find(hosts.begin(), hosts.end(), parent) == hosts.end()) {
            throw input_error(r.where(ptr + "/parent"), "parent '" + parent + "' is neither a CPU nor a PCIe switch",
                              hosts.empty() ? "add it under \"cpus\" or \"pcie_switches\"" : "use one of: " + join_names(hosts));
        }
    };
    std::map<std::string, std::string> sw_parent;
    for (std::size_t i = 0; i < t.pcie_switches.size(); ++i) {
        check_parent(t.pcie_switches[i].parent, "pcie_switches/" + std::to_string(i));
        sw_parent[t.pcie_switches[i].name] = t.pcie_switches[i].parent;
    }
    for (std::size_t i = 0; i < t.pcie_switches.size(); ++i) {
        std::string cur = t.pcie_switches[i].parent;
        for (std::size_t steps = 0; !cur.empty(); ++steps) {
            if (cur == t.pcie_switches[i].name || steps > sw_parent.size()) {
                throw input_error(r.where("pcie_switches/" + std::to_string(i) + "/parent"),
                                  "switch '" + t.pcie_switches[i].name + "' is its own ancestor (a cycle of parents)",
                                  "make the chain of parents end at a CPU");
            }
            const auto it = sw_parent.find(cur);
            cur = it == sw_parent.end() ? std::string() : it->second;
        }
    }
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
        check_parent(t.gpus[i].parent, "gpus/" + std::to_string(i));
    }
    for (std::size_t i = 0; i < t.nics.size(); ++i) {
        check_parent(t.nics[i].parent, "nics/" + std::to_string(i));
    }
}

// A device's "bus_id": written into NCCL topology XML, so only a PCI bus id (nvidia-smi's
// 00000000:0F:00.0 is read as 0000:0f:00.0); empty when absent.
std::string bus_id(const JsonReader& o) {
    const auto raw = o.get<std::string>("bus_id");
    if (!raw || raw->empty()) {
        return {};
    }
    std::string id = ingest_detail::normalize_bus_id(*raw);
    require_bus_id(id, o.where("bus_id"), "bus id");
    return id;
}

Nic read_nic(const JsonReader& o) {
    o.check_keys({"name", "device", "bus_id", "parent", "numa", "speed_gbit_s", "link_layer", "port", "netdev", "rdma", "role",
                  "pcie"});
    Nic n;
    n.name = required_string(o, "name");
    n.device = o.get<std::string>("device").value_or("");
    n.bus_id = bus_id(o);
    n.parent = o.get<std::string>("parent").value_or("");
    n.numa = o.get<int>("numa", -1, kMaxNuma).value_or(-1);
    n.speed_gbit_s = read_gbit_s(o, "speed_gbit_s");
    n.link_layer = o.get<std::string>("link_layer").value_or("");
    if (!n.link_layer.empty() && n.link_layer != "IB" && n.link_layer != "RoCE" && n.link_layer != "Ethernet") {
        throw input_error(o.where("link_layer"), "unknown link layer '" + n.link_layer + "'",
                          "use IB, RoCE or Ethernet (or leave it out when unknown)");
    }
    n.port = o.get<int>("port", 0, kMaxLinks).value_or(1);
    n.netdev = o.get<std::string>("netdev").value_or("");
    n.rdma = o.get<bool>("rdma").value_or(true);
    n.role = o.get<std::string>("role").value_or("compute");
    if (n.role != "compute" && n.role != "storage" && n.role != "management") {
        throw input_error(o.where("role"), "unknown role '" + n.role + "'", "use compute, storage or management");
    }
    n.pcie = read_pcie(o);
    return n;
}

void read_paths(const JsonReader& r, NodeTemplate& t) {
    std::set<std::string> devices;
    for (const auto& g : t.gpus) {
        devices.insert(g.name);
    }
    for (const auto& n : t.nics) {
        devices.insert(n.name);
    }
    std::set<std::pair<std::string, std::string>> seen_pairs;
    each(r, "paths", [&](const JsonReader& o) {
        o.check_keys({"a", "b", "class", "nvlinks"});
        DevicePath d;
        d.a = required_string(o, "a");
        d.b = required_string(o, "b");
        for (const auto* end : {&d.a, &d.b}) {
            if (devices.count(*end) == 0) {
                throw input_error(o.where(end == &d.a ? "a" : "b"), "'" + *end + "' is not a GPU or NIC of this template",
                                  "name a device listed under \"gpus\" or \"nics\"");
            }
        }
        if (d.a == d.b) {
            throw input_error(o.where(), "a path from '" + d.a + "' to itself", "list only pairs of two different devices");
        }
        const std::string cls = required_string(o, "class");
        const auto pc = parse_path_class(cls);
        if (!pc || *pc == PathClass::Loc || *pc == PathClass::Mnnvl || is_cross_node(*pc)) {
            throw input_error(o.where("class"), "unknown class '" + cls + "'", "use one of: NV, PIX, PXB, PHB, NODE, SYS");
        }
        d.path_class = *pc;
        d.nvlinks = o.get<int>("nvlinks", 0, kMaxLinks).value_or(0);
        if (device_less(d.b, d.a)) {
            std::swap(d.a, d.b);
        }
        if (!seen_pairs.insert({d.a, d.b}).second) {
            throw input_error(o.where(), "the pair " + d.a + "-" + d.b + " is listed twice", "keep one entry per pair");
        }
        t.paths.push_back(std::move(d));
    });
}

}  // namespace

NodeTemplate node_template_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer) {
    const JsonReader r(j, file, pointer);
    r.check_keys({"schema_version", "name", "source", "gpu_model", "gpu_memory_mib", "nvlink", "cpus", "pcie_switches", "gpus",
                  "nics", "tcp", "paths", "gdr_level", "warnings"});
    if (const auto v = r.get<int>("schema_version", 0, 1000000); v && *v != 1) {
        throw input_error(r.where("schema_version"), "schema_version " + std::to_string(*v) + " is not supported",
                          "this plan-layout reads schema_version 1");
    }
    NodeTemplate t;
    t.name = r.get<std::string>("name").value_or("");
    t.source = r.get<std::string>("source").value_or("");
    t.gpu_model = r.get<std::string>("gpu_model").value_or("");
    t.gpu_memory_bytes = r.get_rate("gpu_memory_mib", 1, kMaxGpuMemoryMib).value_or(0) * kMiB;
    if (const auto nv = r.get_object("nvlink")) {
        nv->check_keys({"nvswitch", "links_per_gpu", "gbyte_s_per_link"});
        t.nvlink.nvswitch = nv->get<bool>("nvswitch").value_or(false);
        t.nvlink.links_per_gpu = nv->get<int>("links_per_gpu", 0, kMaxLinks).value_or(0);
        t.nvlink.gbyte_s_per_link = nv->get_rate("gbyte_s_per_link", kMinGbitS, kMaxLinkGbyteS).value_or(0);
    }
    std::set<std::string> names;
    each(r, "cpus", [&](const JsonReader& o) {
        o.check_keys({"name", "numa", "cpuset", "arch", "vendor", "familyid", "modelid"});
        Cpu c;
        c.name = required_string(o, "name");
        c.numa = o.get<int>("numa", -1, kMaxNuma).value_or(-1);
        c.cpuset = o.get<std::string>("cpuset").value_or("");
        c.arch = ingest_detail::cpu_id_text(o.get<std::string>("arch").value_or(""), o.where("arch"), "arch");
        c.vendor = ingest_detail::cpu_id_text(o.get<std::string>("vendor").value_or(""), o.where("vendor"), "vendor");
        c.family_id = o.get<int>("familyid", 0, 0xffff).value_or(-1);
        c.model_id = o.get<int>("modelid", 0, 0xffff).value_or(-1);
        check_unique(c.name, names, o);
        t.cpus.push_back(std::move(c));
    });
    each(r, "pcie_switches", [&](const JsonReader& o) {
        o.check_keys({"name", "parent", "pcie"});
        PcieSwitch s;
        s.name = required_string(o, "name");
        s.parent = o.get<std::string>("parent").value_or("");
        s.link = read_pcie(o);
        check_unique(s.name, names, o);
        t.pcie_switches.push_back(std::move(s));
    });
    each(r, "gpus", [&](const JsonReader& o) {
        o.check_keys({"name", "model", "bus_id", "parent", "numa", "nvswitch_links", "pcie"});
        Gpu g;
        g.name = required_string(o, "name");
        g.model = o.get<std::string>("model").value_or("");
        g.bus_id = bus_id(o);
        g.parent = o.get<std::string>("parent").value_or("");
        g.numa = o.get<int>("numa", -1, kMaxNuma).value_or(-1);
        g.nvswitch_links = o.get<int>("nvswitch_links", 0, kMaxLinks).value_or(0);
        g.pcie = read_pcie(o);
        check_unique(g.name, names, o);
        t.gpus.push_back(std::move(g));
    });
    each(r, "nics", [&](const JsonReader& o) {
        Nic n = read_nic(o);
        check_unique(n.name, names, o);
        t.nics.push_back(std::move(n));
    });
    each(r, "tcp", [&](const JsonReader& o) {
        o.check_keys({"name", "speed_gbit_s", "numa"});
        TcpInterface tcp;
        tcp.name = required_string(o, "name");
        tcp.speed_gbit_s = read_gbit_s(o, "speed_gbit_s");
        tcp.numa = o.get<int>("numa", -1, kMaxNuma).value_or(-1);
        t.tcp.push_back(std::move(tcp));
    });
    t.gdr_level = r.get_enum<PathClass>("gdr_level", parse_gdr_level, "LOC, PIX, PXB, PHB, NODE or SYS").value_or(PathClass::Pxb);
    t.warnings = r.get_strings("warnings").value_or(std::vector<std::string>{});
    ingest_detail::require_node_size(t.gpus.size(), t.nics.size(), r.where());
    check_parents(t, r);
    read_paths(r, t);
    derive_paths(t);
    require_template_names(t, r.where());
    return t;
}

}  // namespace planlayout
