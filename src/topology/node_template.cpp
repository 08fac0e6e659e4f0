// Topology: node templates — NCCL-style path classes from the PCIe tree, canonical device order.
#include "planlayout/topology/node_template.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <tuple>
#include <unordered_map>
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

// Names of CPUs and switches as small integers, so that a device's ancestor chain is computed
// once and each of the O(devices²) pairs compares integers (issue #20: string chains per pair
// made a 400-GPU capture take minutes).
struct Tree {
    std::unordered_map<std::string, int> id;  // CPU or switch name → id
    std::vector<int> parent;                  // id → parent id, -1 at a root or an unknown name
    std::vector<int> cpu_numa;                // id → NUMA of a CPU (-1 unknown), -2 when not a CPU

    int intern(const std::string& name) {
        const auto [it, fresh] = id.emplace(name, static_cast<int>(parent.size()));
        if (fresh) {
            parent.push_back(-1);
            cpu_numa.push_back(-2);
        }
        return it->second;
    }
};

/// The chain of ancestors of a device: its parent, the parent's parent, ... ending at a CPU or
/// at an unknown name. Bounded, so a cycle cannot hang us (from_json rejects cycles anyway).
std::vector<int> ancestors(const Tree& tree, int parent) {
    std::vector<int> chain;
    int cur = parent;
    for (std::size_t guard = 0; cur >= 0 && guard < 256; ++guard) {
        chain.push_back(cur);
        cur = tree.parent[static_cast<std::size_t>(cur)];
    }
    return chain;
}

struct Endpoint {
    std::vector<int> chain;  // ancestors, nearest first
    int root_numa = -1;      // NUMA of the chain's root CPU, else the device's own
};

Endpoint endpoint(Tree& tree, const std::string& parent, int numa) {
    Endpoint e;
    // A name that is neither a CPU nor a switch is its own root: devices under it share it.
    e.chain = parent.empty() ? std::vector<int>() : ancestors(tree, tree.intern(parent));
    e.root_numa = numa;
    if (!e.chain.empty()) {
        const int root = tree.cpu_numa[static_cast<std::size_t>(e.chain.back())];
        if (root >= 0) {
            e.root_numa = root;
        }
    }
    return e;
}

PathClass pcie_class(const Tree& tree, const Endpoint& a, const Endpoint& b) {
    const auto& ca = a.chain;
    const auto& cb = b.chain;
    for (std::size_t i = 0; i < ca.size(); ++i) {
        const auto j = std::find(cb.begin(), cb.end(), ca[i]);
        if (j == cb.end()) {
            continue;
        }
        if (tree.cpu_numa[static_cast<std::size_t>(ca[i])] != -2) {
            return PathClass::Phb;  // common ancestor is the host bridge / root complex
        }
        // Distinct switches on a → L → b: those below L on each side, plus L itself.
        const auto below_b = static_cast<std::size_t>(j - cb.begin());
        return i + below_b + 1 == 1 ? PathClass::Pix : PathClass::Pxb;
    }
    // No common ancestor: compare the NUMA node of each side's root (or of the device).
    if (a.root_numa >= 0 && a.root_numa == b.root_numa) {
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
        tree.cpu_numa[static_cast<std::size_t>(tree.intern(c.name))] = c.numa;
    }
    for (const auto& s : t.pcie_switches) {
        const int self = tree.intern(s.name);
        const int up = s.parent.empty() ? -1 : tree.intern(s.parent);
        tree.parent[static_cast<std::size_t>(self)] = up;
    }
    struct Dev {
        std::string name;
        Endpoint end;
        bool has_parent = false;
        int nvlinks = 0;  // links into an NVSwitch fabric (GPUs only)
        bool gpu = false;
    };
    std::vector<Dev> devs;
    devs.reserve(t.gpus.size() + t.nics.size());
    for (const auto& g : t.gpus) {
        const int links = g.nvswitch_links > 0 ? g.nvswitch_links : t.nvlink.links_per_gpu;
        devs.push_back({g.name, endpoint(tree, g.parent, g.numa), !g.parent.empty(), t.nvlink.nvswitch ? links : 0, true});
    }
    for (const auto& n : t.nics) {
        devs.push_back({n.name, endpoint(tree, n.parent, n.numa), !n.parent.empty(), 0, false});
    }
    std::stable_sort(devs.begin(), devs.end(),
                     [](const Dev& x, const Dev& y) { return device_less(x.name, y.name); });
    std::unordered_map<std::string, std::size_t> dev_index;
    for (std::size_t i = 0; i < devs.size(); ++i) {
        dev_index.emplace(devs[i].name, i);
    }
    // Pairs the template already has, by device index (pairs naming other devices are kept
    // and sorted, but cover no device pair).
    std::vector<std::uint64_t> have;
    for (auto& p : t.paths) {
        if (device_less(p.b, p.a)) {
            std::swap(p.a, p.b);
        }
        const auto a = dev_index.find(p.a);
        const auto b = dev_index.find(p.b);
        if (a != dev_index.end() && b != dev_index.end()) {
            const auto lo = std::min(a->second, b->second);
            const auto hi = std::max(a->second, b->second);
            have.push_back((static_cast<std::uint64_t>(lo) << 32U) | hi);
        }
    }
    std::sort(have.begin(), have.end());
    const std::size_t given = t.paths.size();
    t.paths.reserve(given + devs.size() * (devs.size() - (devs.empty() ? 0 : 1)) / 2);
    std::size_t guessed = 0;
    for (std::size_t i = 0; i < devs.size(); ++i) {
        for (std::size_t k = i + 1; k < devs.size(); ++k) {
            const Dev& a = devs[i];
            const Dev& b = devs[k];
            if (!have.empty() && std::binary_search(have.begin(), have.end(), (static_cast<std::uint64_t>(i) << 32U) | k)) {
                continue;
            }
            DevicePath d{a.name, b.name, PathClass::Sys, 0};
            if (a.gpu && b.gpu && a.nvlinks > 0 && b.nvlinks > 0) {
                d.path_class = PathClass::Nv;
                d.nvlinks = std::min(a.nvlinks, b.nvlinks);
            } else {
                if (!a.has_parent || !b.has_parent) {
                    ++guessed;
                }
                d.path_class = pcie_class(tree, a.end, b.end);
            }
            t.paths.push_back(std::move(d));
        }
    }
    // Canonical order. The derived pairs are already in it; sort by each name's rank so a
    // comparison is two integers, not two device_key parses.
    if (given > 0) {
        std::vector<std::string> names;
        for (const auto& p : t.paths) {
            if (dev_index.count(p.a) == 0) {
                names.push_back(p.a);
            }
            if (dev_index.count(p.b) == 0) {
                names.push_back(p.b);
            }
        }
        for (const auto& d : devs) {
            names.push_back(d.name);
        }
        std::sort(names.begin(), names.end(), device_less);
        names.erase(std::unique(names.begin(), names.end()), names.end());
        std::unordered_map<std::string, std::size_t> rank;
        for (std::size_t i = 0; i < names.size(); ++i) {
            rank.emplace(names[i], i);
        }
        std::vector<std::pair<std::uint64_t, std::size_t>> order;
        order.reserve(t.paths.size());
        for (std::size_t i = 0; i < t.paths.size(); ++i) {
            order.emplace_back((static_cast<std::uint64_t>(rank.at(t.paths[i].a)) << 32U) | rank.at(t.paths[i].b), i);
        }
        std::stable_sort(order.begin(), order.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        std::vector<DevicePath> sorted;
        sorted.reserve(t.paths.size());
        for (const auto& [key, i] : order) {
            sorted.push_back(std::move(t.paths[i]));
        }
        t.paths = std::move(sorted);
    }
    if (guessed > 0) {
        t.warnings.push_back(std::to_string(guessed) +
                             " device pair(s) have no PCIe parent on one side; their class is "
                             "guessed from NUMA (NODE if the same node, else SYS)");
    }
}

std::optional<PathClass> parse_gdr_level(std::string_view s) {
    const auto c = parse_path_class(s);
    if (!c || *c == PathClass::Nv || *c == PathClass::Mnnvl || is_cross_node(*c) || s == "X") {
        return std::nullopt;
    }
    return c;
}

std::vector<PathClass> gpu_nic_classes(const NodeTemplate& t) {
    std::unordered_map<std::string, std::size_t> gpu_index;
    std::unordered_map<std::string, std::size_t> nic_index;
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
        gpu_index.emplace(t.gpus[i].name, i);
    }
    for (std::size_t i = 0; i < t.nics.size(); ++i) {
        nic_index.emplace(t.nics[i].name, i);
    }
    const std::size_t nics = t.nics.size();
    std::vector<PathClass> out(t.gpus.size() * nics, PathClass::Sys);
    for (const auto& p : t.paths) {
        auto g = gpu_index.find(p.a);
        auto n = nic_index.find(p.b);
        if (g == gpu_index.end() || n == nic_index.end()) {
            g = gpu_index.find(p.b);
            n = nic_index.find(p.a);
        }
        if (g != gpu_index.end() && n != nic_index.end()) {
            out[g->second * nics + n->second] = p.path_class;
        }
    }
    return out;
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
