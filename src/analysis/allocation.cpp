// Analysis: an allocation against a compact one (allocation.hpp).
#include "planlayout/analysis/allocation.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace planlayout {
namespace {

std::string host_of(const Cluster& c, std::int32_t node) { return c.nodes[static_cast<std::size_t>(node)].host; }

// Where a node is: its leaf group, and with NVLink domains its domain ("su0", "su0/nvl1").
std::string place_of(const Cluster& c, const FabricDomains& d, std::int32_t node) {
    const std::int64_t leaf = d.leaf_group[static_cast<std::size_t>(node)];
    std::string s = leaf < 0 ? std::string("no leaf") : d.leaf_group_names[static_cast<std::size_t>(leaf)];
    if (!c.nvlink.empty()) {
        const std::int32_t dom = c.domain_of(node);
        s += "/" + (dom < 0 ? std::string("no domain") : c.nvlink.names[static_cast<std::size_t>(dom)]);
    }
    return s;
}

// "su0 h100-012..h100-018, su1 h100-019": a group's nodes by leaf group (and domain), in node order.
std::string nodes_by_leaf(const Cluster& c, const FabricDomains& d, const std::vector<std::int32_t>& nodes) {
    std::string out;
    std::size_t i = 0;
    while (i < nodes.size()) {
        const std::string place = place_of(c, d, nodes[i]);
        std::size_t j = i;
        while (j + 1 < nodes.size() && place_of(c, d, nodes[j + 1]) == place) {
            ++j;
        }
        out += (out.empty() ? "" : ", ") + place + " " + host_of(c, nodes[i]) +
               (j > i ? ".." + host_of(c, nodes[j]) : std::string());
        i = j + 1;
    }
    return out;
}

}  // namespace

std::vector<std::int32_t> allocation_nodes(const Placement& placement) {
    std::vector<std::int32_t> out;
    std::set<std::int32_t> seen;
    for (const std::int32_t n : placement.node) {
        if (seen.insert(n).second) {
            out.push_back(n);
        }
    }
    return out;
}

Span span_of(const Cluster& cluster, const FabricDomains& d, const std::vector<std::int32_t>& nodes) {
    std::set<std::int64_t> leaves;
    std::set<std::int64_t> pods;
    std::set<std::int64_t> domains;
    for (const std::int32_t n : nodes) {
        const auto i = static_cast<std::size_t>(n);
        if (d.leaf_group[i] >= 0) {
            leaves.insert(d.leaf_group[i]);
            pods.insert(d.pod[i]);
        }
        if (cluster.domain_of(n) >= 0) {
            domains.insert(cluster.domain_of(n));
        }
    }
    return {static_cast<std::int64_t>(nodes.size()), static_cast<std::int64_t>(leaves.size()),
            static_cast<std::int64_t>(pods.size()), static_cast<std::int64_t>(domains.size())};
}

std::vector<KindStraddle> straddles(const Cluster& cluster, const Placement& placement, const Groups& groups,
                                    const std::vector<std::string>& kinds) {
    const FabricDomains d = fabric_domains(cluster);
    std::vector<KindStraddle> out;
    for (const auto& k : groups.kinds) {
        if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), k.name) == kinds.end()) {
            continue;
        }
        KindStraddle s;
        s.kind = k.name;
        s.groups = k.group_count();
        s.size = k.group_size();
        for (std::int64_t g = 0; g < s.groups; ++g) {
            const std::vector<std::int64_t> ranks = k.group(g);
            std::vector<std::int32_t> nodes;
            nodes.reserve(ranks.size());
            for (const std::int64_t r : ranks) {
                nodes.push_back(placement.node[static_cast<std::size_t>(r)]);
            }
            std::sort(nodes.begin(), nodes.end());
            nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
            const Span sp = span_of(cluster, d, nodes);
            const bool partly_outside = !cluster.nvlink.empty() && sp.domains >= 1 &&
                                        std::any_of(nodes.begin(), nodes.end(),
                                                    [&](std::int32_t n) { return cluster.domain_of(n) < 0; });
            const bool leaves = sp.leaves > 1;
            const bool domains = sp.domains > 1 || partly_outside;
            s.over_leaves += leaves ? 1 : 0;
            s.over_pods += sp.pods > 1 ? 1 : 0;
            s.over_domains += domains ? 1 : 0;
            if (s.example.empty() && (leaves || domains) && !ranks.empty()) {
                const auto [lo, hi] = std::minmax_element(ranks.begin(), ranks.end());
                s.example = "group " + std::to_string(g) + " (ranks " + std::to_string(*lo) + ".." + std::to_string(*hi) +
                            "): " + nodes_by_leaf(cluster, d, nodes);
            }
        }
        out.push_back(std::move(s));
    }
    return out;
}

std::optional<Placement> compact_placement(const Cluster& cluster, const Placement& placement, std::string& where) {
    const std::vector<std::int32_t> used = allocation_nodes(placement);
    const auto n = static_cast<std::int64_t>(used.size());
    if (n == 0 || n > cluster.node_count()) {
        return std::nullopt;
    }
    const FabricDomains d = fabric_domains(cluster);
    // Candidate starts: node 0 and the first node of every leaf group (fabric order).
    std::vector<std::int32_t> starts{0};
    for (std::int64_t i = 1; i + n <= cluster.node_count(); ++i) {
        if (d.leaf_group[static_cast<std::size_t>(i)] != d.leaf_group[static_cast<std::size_t>(i - 1)] ||
            cluster.domain_of(i) != cluster.domain_of(i - 1)) {
            starts.push_back(static_cast<std::int32_t>(i));
        }
    }
    std::vector<int> need(used.size(), 0);  // GPUs each allocated node must offer: its highest local GPU + 1
    std::vector<std::int64_t> index_of(static_cast<std::size_t>(cluster.node_count()), -1);
    for (std::size_t i = 0; i < used.size(); ++i) {
        index_of[static_cast<std::size_t>(used[i])] = static_cast<std::int64_t>(i);
    }
    for (std::int64_t r = 0; r < placement.world(); ++r) {
        auto& v = need[static_cast<std::size_t>(index_of[static_cast<std::size_t>(placement.node[static_cast<std::size_t>(r)])])];
        v = std::max(v, placement.gpu[static_cast<std::size_t>(r)] + 1);
    }
    std::optional<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int32_t>> best;
    for (const std::int32_t s : starts) {
        bool fits = true;
        std::vector<std::int32_t> window;
        for (std::int64_t i = 0; i < n && fits; ++i) {
            window.push_back(static_cast<std::int32_t>(s + i));
            fits = cluster.facts_of(s + i).gpu_count >= need[static_cast<std::size_t>(i)];
        }
        if (!fits) {
            continue;
        }
        const Span sp = span_of(cluster, d, window);
        const auto key = std::make_tuple(sp.domains, sp.pods, sp.leaves, s);
        if (!best || key < *best) {
            best = key;
        }
    }
    if (!best) {
        return std::nullopt;
    }
    const std::int32_t start = std::get<3>(*best);
    Placement p;
    p.description = "compact: " + std::to_string(n) + " consecutive nodes from " + host_of(cluster, start);
    p.gpu = placement.gpu;
    p.node.reserve(placement.node.size());
    for (const std::int32_t node : placement.node) {
        p.node.push_back(static_cast<std::int32_t>(start + index_of[static_cast<std::size_t>(node)]));
    }
    const std::int64_t leaf = d.leaf_group[static_cast<std::size_t>(start)];
    if (std::get<2>(*best) == 1 && leaf >= 0) {
        where = "one leaf group (" + d.leaf_group_names[static_cast<std::size_t>(leaf)] + ")";
    } else if (std::get<1>(*best) == 1 && leaf >= 0) {
        where = "one spine pod (" + cluster.pod_name(d.pod[static_cast<std::size_t>(start)]) + ")";
    } else if (std::get<0>(*best) == 1) {
        where = "one NVLink domain (" + cluster.nvlink.names[static_cast<std::size_t>(cluster.domain_of(start))] + ")";
    } else {
        where = "consecutive nodes from " + host_of(cluster, start) + " (no leaf group or pod holds " + std::to_string(n) + ")";
    }
    return p;
}

}  // namespace planlayout
