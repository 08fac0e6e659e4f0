// Topology: node templates to and from JSON, and NCCL-style path classes from the PCIe tree.
#include "planlayout/topology/node_template.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"

namespace planlayout {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Canonical device order: GPUs before NICs, then by the number in the name ("GPU10" after "GPU9").

std::tuple<int, long, std::string> device_key(const std::string& name) {
    int kind = 2;
    if (name.rfind("GPU", 0) == 0) {
        kind = 0;
    } else if (name.rfind("NIC", 0) == 0) {
        kind = 1;
    }
    long index = -1;
    if (kind < 2 && name.size() > 3 &&
        name.find_first_not_of("0123456789", 3) == std::string::npos) {
        index = std::strtol(name.c_str() + 3, nullptr, 10);
    }
    return {kind, index, name};
}

bool device_less(const std::string& a, const std::string& b) {
    return device_key(a) < device_key(b);
}

// ---------------------------------------------------------------------------------------------
// JSON reading helpers: every error names `where` plus the JSON pointer of the offending value.

/// "file.json (/cluster/node)" + "/gpus/3" → "file.json (/cluster/node/gpus/3)".
std::string at(const std::string& where, const std::string& pointer) {
    const auto open = where.rfind(" (/");
    if (open != std::string::npos && !where.empty() && where.back() == ')') {
        return where.substr(0, where.size() - 1) + pointer + ")";
    }
    return where + " (" + pointer + ")";
}

const char* type_name(const json& j) { return j.type_name(); }

void check_object(const json& j, const std::string& where, const std::string& ptr,
                  const std::vector<std::string>& known) {
    if (!j.is_object()) {
        throw input_error(at(where, ptr.empty() ? "/" : ptr),
                          std::string("expected an object, found ") + type_name(j),
                          "write {\"key\": value, ...} here");
    }
    for (const auto& item : j.items()) {
        if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
            std::string list;
            for (const auto& k : known) {
                list += (list.empty() ? "" : ", ") + k;
            }
            throw input_error(at(where, ptr + "/" + item.key()),
                              "unknown key '" + item.key() + "'",
                              "use one of: " + list);
        }
    }
}

std::string get_string(const json& obj, const char* key, const std::string& where,
                       const std::string& ptr, const std::string& fallback, bool required = false) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
        if (required) {
            throw input_error(at(where, ptr), std::string("missing \"") + key + "\"",
                              std::string("add \"") + key + "\": \"...\"");
        }
        return fallback;
    }
    if (!it->is_string()) {
        throw input_error(at(where, ptr + "/" + key),
                          std::string("expected a string, found ") + type_name(*it),
                          "quote the value");
    }
    return it->get<std::string>();
}

int get_int(const json& obj, const char* key, const std::string& where, const std::string& ptr,
            int fallback, int min, int max) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
        return fallback;
    }
    if (!it->is_number_integer()) {
        throw input_error(at(where, ptr + "/" + key),
                          std::string("expected an integer, found ") + type_name(*it),
                          "write a whole number");
    }
    const auto v = it->get<long long>();
    if (v < min || v > max) {
        throw input_error(at(where, ptr + "/" + key),
                          std::to_string(v) + " is out of range [" + std::to_string(min) + ", " +
                              std::to_string(max) + "]",
                          "give a value in that range");
    }
    return static_cast<int>(v);
}

double get_double(const json& obj, const char* key, const std::string& where,
                  const std::string& ptr, double fallback) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
        return fallback;
    }
    if (!it->is_number()) {
        throw input_error(at(where, ptr + "/" + key),
                          std::string("expected a number, found ") + type_name(*it),
                          "write a number without quotes");
    }
    const double v = it->get<double>();
    if (v < 0) {
        throw input_error(at(where, ptr + "/" + key), "must not be negative",
                          "use 0 for unknown");
    }
    return v;
}

bool get_bool(const json& obj, const char* key, const std::string& where, const std::string& ptr,
              bool fallback) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
        return fallback;
    }
    if (!it->is_boolean()) {
        throw input_error(at(where, ptr + "/" + key),
                          std::string("expected true or false, found ") + type_name(*it),
                          "write true or false without quotes");
    }
    return it->get<bool>();
}

const json* get_array(const json& obj, const char* key, const std::string& where,
                      const std::string& ptr) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
        return nullptr;
    }
    if (!it->is_array()) {
        throw input_error(at(where, ptr + "/" + key),
                          std::string("expected an array, found ") + type_name(*it),
                          "write [ ... ]");
    }
    return &*it;
}

PcieLink read_pcie(const json& obj, const std::string& where, const std::string& ptr) {
    PcieLink link;
    const auto it = obj.find("pcie");
    if (it == obj.end()) {
        return link;
    }
    const std::string p = ptr + "/pcie";
    check_object(*it, where, p, {"gen", "width", "max_gen", "max_width", "gbyte_s"});
    link.gen = get_double(*it, "gen", where, p, 0);
    link.width = get_int(*it, "width", where, p, 0, 0, 64);
    link.max_gen = get_double(*it, "max_gen", where, p, 0);
    link.max_width = get_int(*it, "max_width", where, p, 0, 0, 64);
    link.gbyte_s = get_double(*it, "gbyte_s", where, p, 0);
    return link;
}

json pcie_json(const PcieLink& l) {
    json j = json::object();
    if (l.gen != 0) {
        j["gen"] = l.gen;
    }
    if (l.width != 0) {
        j["width"] = l.width;
    }
    if (l.max_gen != 0) {
        j["max_gen"] = l.max_gen;
    }
    if (l.max_width != 0) {
        j["max_width"] = l.max_width;
    }
    if (l.gbyte_s != 0) {
        j["gbyte_s"] = l.gbyte_s;
    }
    return j;
}

void put_pcie(json& j, const PcieLink& l) {
    json p = pcie_json(l);
    if (!p.empty()) {
        j["pcie"] = std::move(p);
    }
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) {
        s += (s.empty() ? "" : ", ") + x;
    }
    return s;
}

void check_unique(const std::string& name, std::set<std::string>& seen, const std::string& where,
                  const std::string& ptr) {
    if (!seen.insert(name).second) {
        throw input_error(at(where, ptr + "/name"), "duplicate name '" + name + "'",
                          "give every CPU, switch, GPU and NIC a distinct name");
    }
}

// ---------------------------------------------------------------------------------------------
// Path derivation over the PCIe tree.

struct Tree {
    std::map<std::string, std::string> switch_parent;  // switch → parent
    std::map<std::string, int> cpu_numa;               // cpu → numa
};

/// The chain of ancestors of a device: its parent, the parent's parent, ... ending at a CPU or
/// at an unknown name. Bounded, so a cycle cannot hang us (from_json rejects cycles anyway).
std::vector<std::string> ancestors(const Tree& tree, const std::string& parent) {
    std::vector<std::string> chain;
    std::string cur = parent;
    for (std::size_t guard = 0; !cur.empty() && guard < 256; ++guard) {
        chain.push_back(cur);
        const auto it = tree.switch_parent.find(cur);
        if (it == tree.switch_parent.end()) {
            break;
        }
        cur = it->second;
    }
    return chain;
}

struct Endpoint {
    std::string parent;
    int numa = -1;
};

PathClass pcie_class(const Tree& tree, const Endpoint& a, const Endpoint& b) {
    const auto ca = ancestors(tree, a.parent);
    const auto cb = ancestors(tree, b.parent);
    for (std::size_t i = 0; i < ca.size(); ++i) {
        const auto j = std::find(cb.begin(), cb.end(), ca[i]);
        if (j == cb.end()) {
            continue;
        }
        if (tree.cpu_numa.count(ca[i]) > 0) {
            return PathClass::Phb;  // common ancestor is the host bridge / root complex
        }
        // Distinct switches on a → L → b: those below L on each side, plus L itself.
        const auto below_b = static_cast<std::size_t>(j - cb.begin());
        return i + below_b + 1 == 1 ? PathClass::Pix : PathClass::Pxb;
    }
    // No common ancestor: compare the NUMA node of each side's root (or of the device).
    auto numa_of = [&](const std::vector<std::string>& chain, int fallback) {
        if (!chain.empty()) {
            const auto it = tree.cpu_numa.find(chain.back());
            if (it != tree.cpu_numa.end() && it->second >= 0) {
                return it->second;
            }
        }
        return fallback;
    };
    const int na = numa_of(ca, a.numa);
    const int nb = numa_of(cb, b.numa);
    if (na >= 0 && na == nb) {
        return PathClass::Node;
    }
    return PathClass::Sys;
}

}  // namespace

// -------------------------------------------------------------------------------------------------

NodeTemplate node_template_from_json(const nlohmann::json& j, const std::string& where) {
    check_object(j, where, "",
                 {"schema_version", "name", "source", "gpu_model", "nvlink", "cpus",
                  "pcie_switches", "gpus", "nics", "tcp", "paths", "warnings"});
    if (j.contains("schema_version")) {
        const int v = get_int(j, "schema_version", where, "", 1, 0, 1000000);
        if (v != 1) {
            throw input_error(at(where, "/schema_version"),
                              "schema_version " + std::to_string(v) + " is not supported",
                              "this plan-layout reads schema_version 1");
        }
    }
    NodeTemplate t;
    t.name = get_string(j, "name", where, "", "");
    t.source = get_string(j, "source", where, "", "");
    t.gpu_model = get_string(j, "gpu_model", where, "", "");
    if (const auto it = j.find("nvlink"); it != j.end()) {
        check_object(*it, where, "/nvlink", {"nvswitch", "links_per_gpu", "gbyte_s_per_link"});
        t.nvlink.nvswitch = get_bool(*it, "nvswitch", where, "/nvlink", false);
        t.nvlink.links_per_gpu = get_int(*it, "links_per_gpu", where, "/nvlink", 0, 0, 1024);
        t.nvlink.gbyte_s_per_link = get_double(*it, "gbyte_s_per_link", where, "/nvlink", 0);
    }

    std::set<std::string> names;
    if (const json* arr = get_array(j, "cpus", where, "")) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string p = "/cpus/" + std::to_string(i);
            const json& o = (*arr)[i];
            check_object(o, where, p, {"name", "numa", "cpuset"});
            Cpu c;
            c.name = get_string(o, "name", where, p, "", true);
            c.numa = get_int(o, "numa", where, p, -1, -1, 1 << 20);
            c.cpuset = get_string(o, "cpuset", where, p, "");
            check_unique(c.name, names, where, p);
            t.cpus.push_back(std::move(c));
        }
    }
    if (const json* arr = get_array(j, "pcie_switches", where, "")) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string p = "/pcie_switches/" + std::to_string(i);
            const json& o = (*arr)[i];
            check_object(o, where, p, {"name", "parent", "pcie"});
            PcieSwitch s;
            s.name = get_string(o, "name", where, p, "", true);
            s.parent = get_string(o, "parent", where, p, "");
            s.link = read_pcie(o, where, p);
            check_unique(s.name, names, where, p);
            t.pcie_switches.push_back(std::move(s));
        }
    }
    if (const json* arr = get_array(j, "gpus", where, "")) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string p = "/gpus/" + std::to_string(i);
            const json& o = (*arr)[i];
            check_object(o, where, p,
                         {"name", "model", "bus_id", "parent", "numa", "nvswitch_links", "pcie"});
            Gpu g;
            g.name = get_string(o, "name", where, p, "", true);
            g.model = get_string(o, "model", where, p, "");
            g.bus_id = get_string(o, "bus_id", where, p, "");
            g.parent = get_string(o, "parent", where, p, "");
            g.numa = get_int(o, "numa", where, p, -1, -1, 1 << 20);
            g.nvswitch_links = get_int(o, "nvswitch_links", where, p, 0, 0, 1024);
            g.pcie = read_pcie(o, where, p);
            check_unique(g.name, names, where, p);
            t.gpus.push_back(std::move(g));
        }
    }
    if (const json* arr = get_array(j, "nics", where, "")) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string p = "/nics/" + std::to_string(i);
            const json& o = (*arr)[i];
            check_object(o, where, p,
                         {"name", "device", "bus_id", "parent", "numa", "speed_gbit_s",
                          "link_layer", "port", "netdev", "rdma", "role", "pcie"});
            Nic n;
            n.name = get_string(o, "name", where, p, "", true);
            n.device = get_string(o, "device", where, p, "");
            n.bus_id = get_string(o, "bus_id", where, p, "");
            n.parent = get_string(o, "parent", where, p, "");
            n.numa = get_int(o, "numa", where, p, -1, -1, 1 << 20);
            n.speed_gbit_s = get_double(o, "speed_gbit_s", where, p, 0);
            n.link_layer = get_string(o, "link_layer", where, p, "");
            if (!n.link_layer.empty() && n.link_layer != "IB" && n.link_layer != "RoCE" &&
                n.link_layer != "Ethernet") {
                throw input_error(at(where, p + "/link_layer"),
                                  "unknown link layer '" + n.link_layer + "'",
                                  "use IB, RoCE or Ethernet (or leave it out when unknown)");
            }
            n.port = get_int(o, "port", where, p, 1, 0, 1024);
            n.netdev = get_string(o, "netdev", where, p, "");
            n.rdma = get_bool(o, "rdma", where, p, true);
            n.role = get_string(o, "role", where, p, "compute");
            if (n.role != "compute" && n.role != "storage" && n.role != "management") {
                throw input_error(at(where, p + "/role"), "unknown role '" + n.role + "'",
                                  "use compute, storage or management");
            }
            n.pcie = read_pcie(o, where, p);
            check_unique(n.name, names, where, p);
            t.nics.push_back(std::move(n));
        }
    }
    if (const json* arr = get_array(j, "tcp", where, "")) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string p = "/tcp/" + std::to_string(i);
            const json& o = (*arr)[i];
            check_object(o, where, p, {"name", "speed_gbit_s", "numa"});
            TcpInterface tcp;
            tcp.name = get_string(o, "name", where, p, "", true);
            tcp.speed_gbit_s = get_double(o, "speed_gbit_s", where, p, 0);
            tcp.numa = get_int(o, "numa", where, p, -1, -1, 1 << 20);
            t.tcp.push_back(std::move(tcp));
        }
    }
    if (const json* arr = get_array(j, "warnings", where, "")) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            if (!(*arr)[i].is_string()) {
                throw input_error(at(where, "/warnings/" + std::to_string(i)),
                                  "expected a string", "write each warning as a quoted string");
            }
            t.warnings.push_back((*arr)[i].get<std::string>());
        }
    }

    // Parents must name a CPU or a switch, and the switch tree must have no cycle.
    std::vector<std::string> hosts;
    for (const auto& c : t.cpus) {
        hosts.push_back(c.name);
    }
    for (const auto& s : t.pcie_switches) {
        hosts.push_back(s.name);
    }
    auto check_parent = [&](const std::string& parent, const std::string& ptr) {
        if (!parent.empty() && std::find(hosts.begin(), hosts.end(), parent) == hosts.end()) {
            throw input_error(at(where, ptr + "/parent"),
                              "parent '" + parent + "' is neither a CPU nor a PCIe switch",
                              hosts.empty() ? "add it under \"cpus\" or \"pcie_switches\""
                                            : "use one of: " + join(hosts));
        }
    };
    std::map<std::string, std::string> sw_parent;
    for (std::size_t i = 0; i < t.pcie_switches.size(); ++i) {
        check_parent(t.pcie_switches[i].parent, "/pcie_switches/" + std::to_string(i));
        sw_parent[t.pcie_switches[i].name] = t.pcie_switches[i].parent;
    }
    for (std::size_t i = 0; i < t.pcie_switches.size(); ++i) {
        std::string cur = t.pcie_switches[i].parent;
        for (std::size_t steps = 0; !cur.empty(); ++steps) {
            if (cur == t.pcie_switches[i].name || steps > sw_parent.size()) {
                throw input_error(at(where, "/pcie_switches/" + std::to_string(i) + "/parent"),
                                  "switch '" + t.pcie_switches[i].name +
                                      "' is its own ancestor (a cycle of parents)",
                                  "make the chain of parents end at a CPU");
            }
            const auto it = sw_parent.find(cur);
            cur = it == sw_parent.end() ? std::string() : it->second;
        }
    }
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
        check_parent(t.gpus[i].parent, "/gpus/" + std::to_string(i));
    }
    for (std::size_t i = 0; i < t.nics.size(); ++i) {
        check_parent(t.nics[i].parent, "/nics/" + std::to_string(i));
    }

    std::set<std::string> devices;
    for (const auto& g : t.gpus) {
        devices.insert(g.name);
    }
    for (const auto& n : t.nics) {
        devices.insert(n.name);
    }
    std::set<std::pair<std::string, std::string>> seen_pairs;
    if (const json* arr = get_array(j, "paths", where, "")) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string p = "/paths/" + std::to_string(i);
            const json& o = (*arr)[i];
            check_object(o, where, p, {"a", "b", "class", "nvlinks"});
            DevicePath d;
            d.a = get_string(o, "a", where, p, "", true);
            d.b = get_string(o, "b", where, p, "", true);
            for (const auto* end : {&d.a, &d.b}) {
                if (devices.count(*end) == 0) {
                    throw input_error(at(where, p + (end == &d.a ? "/a" : "/b")),
                                      "'" + *end + "' is not a GPU or NIC of this template",
                                      "name a device listed under \"gpus\" or \"nics\"");
                }
            }
            if (d.a == d.b) {
                throw input_error(at(where, p), "a path from '" + d.a + "' to itself",
                                  "list only pairs of two different devices");
            }
            const std::string cls = get_string(o, "class", where, p, "", true);
            const auto pc = parse_path_class(cls);
            if (!pc || *pc == PathClass::Loc || is_cross_node(*pc)) {
                throw input_error(at(where, p + "/class"), "unknown class '" + cls + "'",
                                  "use one of: NV, PIX, PXB, PHB, NODE, SYS");
            }
            d.path_class = *pc;
            d.nvlinks = get_int(o, "nvlinks", where, p, 0, 0, 1024);
            if (device_less(d.b, d.a)) {
                std::swap(d.a, d.b);
            }
            if (!seen_pairs.insert({d.a, d.b}).second) {
                throw input_error(at(where, p), "the pair " + d.a + "-" + d.b + " is listed twice",
                                  "keep one entry per pair");
            }
            t.paths.push_back(std::move(d));
        }
    }
    derive_paths(t);
    return t;
}

nlohmann::json to_json(const NodeTemplate& t) {
    json j = json::object();
    if (!t.name.empty()) {
        j["name"] = t.name;
    }
    if (!t.source.empty()) {
        j["source"] = t.source;
    }
    if (!t.gpu_model.empty()) {
        j["gpu_model"] = t.gpu_model;
    }
    json nv = json::object();
    nv["nvswitch"] = t.nvlink.nvswitch;
    nv["links_per_gpu"] = t.nvlink.links_per_gpu;
    nv["gbyte_s_per_link"] = t.nvlink.gbyte_s_per_link;
    j["nvlink"] = nv;

    json cpus = json::array();
    for (const auto& c : t.cpus) {
        json o = {{"name", c.name}, {"numa", c.numa}};
        if (!c.cpuset.empty()) {
            o["cpuset"] = c.cpuset;
        }
        cpus.push_back(std::move(o));
    }
    j["cpus"] = std::move(cpus);

    json sws = json::array();
    for (const auto& s : t.pcie_switches) {
        json o = {{"name", s.name}};
        if (!s.parent.empty()) {
            o["parent"] = s.parent;
        }
        put_pcie(o, s.link);
        sws.push_back(std::move(o));
    }
    j["pcie_switches"] = std::move(sws);

    json gpus = json::array();
    for (const auto& g : t.gpus) {
        json o = {{"name", g.name}, {"numa", g.numa}};
        if (!g.model.empty()) {
            o["model"] = g.model;
        }
        if (!g.bus_id.empty()) {
            o["bus_id"] = g.bus_id;
        }
        if (!g.parent.empty()) {
            o["parent"] = g.parent;
        }
        if (g.nvswitch_links != 0) {
            o["nvswitch_links"] = g.nvswitch_links;
        }
        put_pcie(o, g.pcie);
        gpus.push_back(std::move(o));
    }
    j["gpus"] = std::move(gpus);

    json nics = json::array();
    for (const auto& n : t.nics) {
        json o = {{"name", n.name},
                  {"numa", n.numa},
                  {"rdma", n.rdma},
                  {"role", n.role},
                  {"speed_gbit_s", n.speed_gbit_s}};
        if (!n.device.empty()) {
            o["device"] = n.device;
        }
        if (!n.bus_id.empty()) {
            o["bus_id"] = n.bus_id;
        }
        if (!n.parent.empty()) {
            o["parent"] = n.parent;
        }
        if (!n.link_layer.empty()) {
            o["link_layer"] = n.link_layer;
        }
        if (n.port != 1) {
            o["port"] = n.port;
        }
        if (!n.netdev.empty()) {
            o["netdev"] = n.netdev;
        }
        put_pcie(o, n.pcie);
        nics.push_back(std::move(o));
    }
    j["nics"] = std::move(nics);

    json tcp = json::array();
    for (const auto& i : t.tcp) {
        json o = {{"name", i.name}, {"numa", i.numa}, {"speed_gbit_s", i.speed_gbit_s}};
        tcp.push_back(std::move(o));
    }
    j["tcp"] = std::move(tcp);

    std::vector<DevicePath> paths = t.paths;
    for (auto& p : paths) {
        if (device_less(p.b, p.a)) {
            std::swap(p.a, p.b);
        }
    }
    std::sort(paths.begin(), paths.end(), [](const DevicePath& x, const DevicePath& y) {
        if (x.a != y.a) {
            return device_less(x.a, y.a);
        }
        return device_less(x.b, y.b);
    });
    json pj = json::array();
    for (const auto& p : paths) {
        json o = {{"a", p.a}, {"b", p.b}, {"class", std::string(to_string(p.path_class))}};
        if (p.nvlinks != 0) {
            o["nvlinks"] = p.nvlinks;
        }
        pj.push_back(std::move(o));
    }
    j["paths"] = std::move(pj);
    j["warnings"] = t.warnings;
    return j;
}

void derive_paths(NodeTemplate& t) {
    Tree tree;
    for (const auto& c : t.cpus) {
        tree.cpu_numa[c.name] = c.numa;
    }
    for (const auto& s : t.pcie_switches) {
        tree.switch_parent[s.name] = s.parent;
    }
    std::set<std::pair<std::string, std::string>> have;
    for (auto& p : t.paths) {
        if (device_less(p.b, p.a)) {
            std::swap(p.a, p.b);
        }
        have.insert({p.a, p.b});
        have.insert({p.b, p.a});
    }
    struct Dev {
        std::string name;
        Endpoint end;
        int nvlinks = 0;  // links into an NVSwitch fabric (GPUs only)
        bool gpu = false;
    };
    std::vector<Dev> devs;
    for (const auto& g : t.gpus) {
        const int links = g.nvswitch_links > 0 ? g.nvswitch_links : t.nvlink.links_per_gpu;
        devs.push_back({g.name, {g.parent, g.numa}, t.nvlink.nvswitch ? links : 0, true});
    }
    for (const auto& n : t.nics) {
        devs.push_back({n.name, {n.parent, n.numa}, 0, false});
    }
    std::sort(devs.begin(), devs.end(),
              [](const Dev& x, const Dev& y) { return device_less(x.name, y.name); });
    std::size_t guessed = 0;
    for (std::size_t i = 0; i < devs.size(); ++i) {
        for (std::size_t k = i + 1; k < devs.size(); ++k) {
            const Dev& a = devs[i];
            const Dev& b = devs[k];
            if (have.count({a.name, b.name}) > 0) {
                continue;
            }
            DevicePath d{a.name, b.name, PathClass::Sys, 0};
            if (a.gpu && b.gpu && a.nvlinks > 0 && b.nvlinks > 0) {
                d.path_class = PathClass::Nv;
                d.nvlinks = std::min(a.nvlinks, b.nvlinks);
            } else {
                if (a.end.parent.empty() || b.end.parent.empty()) {
                    ++guessed;
                }
                d.path_class = pcie_class(tree, a.end, b.end);
            }
            t.paths.push_back(std::move(d));
        }
    }
    std::sort(t.paths.begin(), t.paths.end(), [](const DevicePath& x, const DevicePath& y) {
        if (x.a != y.a) {
            return device_less(x.a, y.a);
        }
        return device_less(x.b, y.b);
    });
    if (guessed > 0) {
        t.warnings.push_back(std::to_string(guessed) +
                             " device pair(s) have no PCIe parent on one side; their class is "
                             "guessed from NUMA (NODE if the same node, else SYS)");
    }
}

std::optional<DevicePath> find_path(const NodeTemplate& t, const std::string& a,
                                    const std::string& b) {
    for (const auto& p : t.paths) {
        if ((p.a == a && p.b == b) || (p.a == b && p.b == a)) {
            return p;
        }
    }
    return std::nullopt;
}

}  // namespace planlayout
