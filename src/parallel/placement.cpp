// Placement: node-major rank placement, hostfile order, local GPU permutations, explicit maps.
#include "planlayout/parallel/placement.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/names.hpp"

namespace planlayout {
namespace {

}  // namespace

FabricDomains fabric_domains(const Cluster& cluster) {
    FabricDomains d;
    const auto n = static_cast<std::size_t>(cluster.node_count());
    d.leaf_group.assign(n, -1);
    d.pod.assign(n, -1);
    std::map<std::int64_t, std::int64_t> id_of_key;  // leaf group key (SU or first leaf) → id, in key order
    for (std::size_t i = 0; i < n; ++i) {
        const auto node = static_cast<std::int64_t>(i);
        if (cluster.facts_of(node).rail_nics.empty()) {
            continue;
        }
        const std::int64_t leaf = cluster.leaf_of(node, 0);
        id_of_key.emplace(cluster.wiring.empty() ? cluster.su_of(node) : leaf, 0);
    }
    for (auto& [key, id] : id_of_key) {
        id = static_cast<std::int64_t>(d.leaf_group_names.size());
        d.leaf_group_names.push_back(cluster.wiring.empty() ? cluster.su_name(key) : cluster.leaf_name(key));
        const std::int64_t pod = cluster.wiring.empty() ? cluster.pod_of_leaf(key * std::max(cluster.rails, 1)) : 0;
        d.pod_of_leaf_group.push_back(pod);
        d.pods = std::max(d.pods, pod + 1);
    }
    for (std::size_t i = 0; i < n; ++i) {
        const auto node = static_cast<std::int64_t>(i);
        if (cluster.facts_of(node).rail_nics.empty()) {
            continue;
        }
        const std::int64_t key = cluster.wiring.empty() ? cluster.su_of(node) : cluster.leaf_of(node, 0);
        d.leaf_group[i] = id_of_key.at(key);
        d.pod[i] = d.pod_of_leaf_group[static_cast<std::size_t>(d.leaf_group[i])];
    }
    return d;
}

std::vector<std::int32_t> fabric_node_order(const Cluster& cluster, const std::vector<std::int32_t>& order) {
    std::vector<std::int32_t> out = order;
    if (out.empty()) {
        for (std::int64_t i = 0; i < cluster.node_count(); ++i) {
            out.push_back(static_cast<std::int32_t>(i));
        }
    }
    const FabricDomains d = fabric_domains(cluster);
    auto key = [&](std::int32_t node) {
        const auto i = static_cast<std::size_t>(node);
        // Nodes without a rail NIC (-1) go last.
        return d.leaf_group[i] < 0 ? std::pair<std::int64_t, std::int64_t>{d.pods, 0}
                                   : std::pair<std::int64_t, std::int64_t>{d.pod[i], d.leaf_group[i]};
    };
    // Multi-node NVLink: a domain's nodes stay together (ranks fill a domain before the next), the
    // domains in the order of their first node's leaf, leaf-major inside each.
    std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> domain_key;
    for (const std::int32_t node : out) {
        if (const std::int32_t dom = cluster.domain_of(node); dom >= 0) {
            const auto [it, fresh] = domain_key.emplace(dom, key(node));
            it->second = fresh ? it->second : std::min(it->second, key(node));
        }
    }
    auto full_key = [&](std::int32_t node) {
        const std::int32_t dom = cluster.domain_of(node);
        const auto own = key(node);
        const auto group = dom >= 0 ? domain_key.at(dom) : own;
        return std::make_tuple(group.first, group.second, dom, own.first, own.second);
    };
    std::stable_sort(out.begin(), out.end(), [&](std::int32_t a, std::int32_t b) { return full_key(a) < full_key(b); });
    return out;
}

Placement node_major_placement(const Cluster& cluster, std::int64_t world, const std::vector<std::int32_t>& node_order,
                               const std::vector<std::int32_t>& local_order, const std::string& where) {
    Placement p;
    p.description = "node-major";
    p.node.reserve(static_cast<std::size_t>(world));
    p.gpu.reserve(static_cast<std::size_t>(world));
    const std::size_t nodes = node_order.empty() ? cluster.nodes.size() : node_order.size();
    for (std::size_t i = 0; i < nodes && p.world() < world; ++i) {
        const std::int32_t n = node_order.empty() ? static_cast<std::int32_t>(i) : node_order[i];
        const int g = cluster.facts_of(n).gpu_count;
        for (int j = 0; j < g && p.world() < world; ++j) {
            p.node.push_back(n);
            p.gpu.push_back(local_order.empty() ? j : local_order[static_cast<std::size_t>(j) % local_order.size()]);
        }
    }
    if (p.world() < world) {
        throw input_error(where, "the world of " + std::to_string(world) + " ranks needs more GPUs than the " +
                                           std::to_string(p.world()) + " the placement offers",
                          node_order.empty() ? "add nodes to the cluster or reduce the world size"
                                             : "list more hosts (each host's GPUs take ranks in turn), or reduce the world size");
    }
    return p;
}

}  // namespace planlayout
