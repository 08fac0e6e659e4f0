// Topology: node templates — NCCL-style path classes from the PCIe tree, canonical device order.
#include "planlayout/topology/node_template.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "planlayout/error.hpp"
#include "planlayout/names.hpp"

namespace planlayout {
namespace {

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

bool device_less(const std::string& a, const std::string& b) { return device_key(a) < device_key(b); }

void require_template_names(const NodeTemplate& t, const std::string& where) {
    for (const auto& n : t.nics) {
        if (!n.device.empty()) {
            require_device_name(n.device, where, n.name + " device");
        }
        if (!n.netdev.empty()) {
            require_device_name(n.netdev, where, n.name + " network interface");
        }
    }
    for (const auto& i : t.tcp) {
        require_device_name(i.name, where, "TCP interface");
    }
    for (const auto& c : t.cpus) {
        if (c.cpuset.find_first_not_of("0123456789,-") != std::string::npos) {
            throw input_error(where, c.name + " cpuset '" + printable(c.cpuset) + "' is not a CPU list",
                              "write it as taskset/numactl print it: 0-55,112-167");
        }
    }
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
