// Placement: node-major rank placement, hostfile order, local GPU permutations, explicit maps.
#include "planlayout/parallel/placement.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/names.hpp"
#include "planlayout/ingest/json_reader.hpp"

namespace planlayout {
namespace {

std::map<std::string, std::int32_t> host_index(const Cluster& c) {
    std::map<std::string, std::int32_t> m;
    for (std::size_t i = 0; i < c.nodes.size(); ++i) {
        m[c.nodes[i].host] = static_cast<std::int32_t>(i);
    }
    return m;
}

std::int32_t lookup_host(const std::map<std::string, std::int32_t>& hosts, const std::string& host, const std::string& where) {
    const auto it = hosts.find(host);
    if (it == hosts.end()) {
        std::string some;
        int shown = 0;
        for (const auto& [h, i] : hosts) {
            if (shown++ == 4) {
                some += ", ...";
                break;
            }
            some += (some.empty() ? "" : ", ") + h;
        }
        throw input_error(where, "unknown host '" + printable(host) + "'", "use a host of the cluster (" + some + ")");
    }
    return it->second;
}

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
    std::stable_sort(out.begin(), out.end(), [&](std::int32_t a, std::int32_t b) { return key(a) < key(b); });
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

std::optional<std::string> placement_hostfile_name(const nlohmann::json& j) {
    if (j.is_object() && j.contains("hostfile") && j.at("hostfile").is_string()) {
        return j.at("hostfile").get<std::string>();
    }
    return std::nullopt;
}

Placement placement_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer,
                              const Cluster& cluster, std::int64_t world, const std::optional<NamedHostfile>& hostfile) {
    const JsonReader o(j, file, pointer);
    o.check_keys({"hosts", "hostfile", "local_order", "order", "ranks"});
    const auto hosts = host_index(cluster);
    const std::string node_order = o.get_string("order").value_or("node-major");
    if (node_order != "node-major" && node_order != "fabric") {
        throw input_error(o.where("order"), "unknown order '" + printable(node_order) + "'",
                          "use \"node-major\" (the hosts in the order given) or \"fabric\" (leaf-major: rings stay inside leaves)");
    }
    if (o.has("ranks")) {
        if (o.has("order")) {
            throw input_error(o.where("order"), "an explicit rank map has no node order to choose", "drop \"order\" or \"ranks\"");
        }
        const auto& ranks = o.at("ranks");
        if (!ranks.is_array() || static_cast<std::int64_t>(ranks.size()) != world) {
            throw input_error(o.where("ranks"), "expected a list of " + std::to_string(world) + " placements, one per rank",
                              "write [{\"host\": \"node0\", \"gpu\": 0}, ...] in rank order");
        }
        Placement p;
        p.description = "explicit rank map";
        std::set<std::pair<std::int32_t, std::int32_t>> used;
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            const JsonReader e(ranks[r], file, pointer + "/ranks/" + std::to_string(r));
            e.check_keys({"host", "gpu", "rank"});
            const auto host = e.get_string("host");
            if (!host) {
                throw input_error(e.where("host"), "missing host", "write {\"host\": \"node0\", \"gpu\": 0}");
            }
            const std::int32_t n = lookup_host(hosts, *host, e.where("host"));
            const auto g = static_cast<std::int32_t>(e.get_int("gpu", 0, cluster.facts_of(n).gpu_count - 1).value_or(-1));
            if (g < 0) {
                throw input_error(e.where("gpu"), "missing gpu", "write the local GPU index");
            }
            if (!used.emplace(n, g).second) {
                throw input_error(e.where(), "GPU " + std::to_string(g) + " of " + *host + " is given to two ranks",
                                  "give every rank its own GPU");
            }
            p.node.push_back(n);
            p.gpu.push_back(g);
        }
        return p;
    }
    std::vector<std::int32_t> order;
    std::vector<std::string> order_where;  // where each entry of order was given, for messages
    std::string description = "node-major";
    if (o.has("hosts") && o.has("hostfile")) {
        throw input_error(o.where("hostfile"), "both \"hosts\" and \"hostfile\" are given", "keep one of them");
    }
    if (o.has("hosts")) {
        const auto& list = o.at("hosts");
        if (!list.is_array()) {
            throw input_error(o.where("hosts"), "hosts must be a list of host names", "write [\"node1\", \"node0\"]");
        }
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (!list[i].is_string()) {
                throw input_error(o.where("hosts/" + std::to_string(i)), "host names must be strings", "write \"node0\"");
            }
            order.push_back(lookup_host(hosts, list[i].get<std::string>(), o.where("hosts/" + std::to_string(i))));
            order_where.push_back(o.where("hosts/" + std::to_string(i)));
        }
        description = "node-major in the given host order";
    }
    if (const auto hf = o.get_string("hostfile")) {
        if (!hostfile || hostfile->name != *hf) {
            throw Error(ExitCode::Internal, o.where("hostfile"), "the hostfile was not read before the placement");
        }
        for (const auto& host : hostfile->hosts) {
            order.push_back(lookup_host(hosts, host, hostfile->path));
            order_where.push_back(hostfile->path + " (host " + std::to_string(order.size()) + ")");
        }
        description = "node-major in hostfile order (" + *hf + ")";
    }
    std::map<std::int32_t, std::size_t> first_seen;
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (const auto [it, fresh] = first_seen.emplace(order[i], i); !fresh) {
            throw input_error(order_where[i],
                              "host '" + cluster.nodes[static_cast<std::size_t>(order[i])].host + "' is listed twice (first at " +
                                  order_where[it->second] + ")",
                              "list every host once");
        }
    }
    std::vector<std::int32_t> local;
    if (o.has("local_order")) {
        const auto& lo = o.at("local_order");
        // One permutation for every node: only meaningful when every node has as many GPUs.
        const int g = cluster.facts_of(0).gpu_count;
        for (std::int64_t n = 1; n < cluster.node_count(); ++n) {
            if (cluster.facts_of(n).gpu_count != g) {
                throw input_error(o.where("local_order"),
                                  "the nodes have different GPU counts (" + cluster.nodes[0].host + ": " + std::to_string(g) + ", " +
                                      cluster.nodes[static_cast<std::size_t>(n)].host + ": " +
                                      std::to_string(cluster.facts_of(n).gpu_count) + "), so one local order cannot fit all",
                                  "give \"ranks\": [{\"host\": ..., \"gpu\": ...}, ...] instead");
            }
        }
        std::set<int> seen;
        if (!lo.is_array() || static_cast<int>(lo.size()) != g) {
            throw input_error(o.where("local_order"), "expected a permutation of the " + std::to_string(g) + " local GPUs",
                              "write e.g. [0, 2, 1, 3, 4, 6, 5, 7] (a CUDA_VISIBLE_DEVICES order)");
        }
        for (const auto& v : lo) {
            if (!v.is_number_integer() || v.get<int>() < 0 || v.get<int>() >= g || !seen.insert(v.get<int>()).second) {
                throw input_error(o.where("local_order"), "not a permutation of 0.." + std::to_string(g - 1),
                                  "list every local GPU index exactly once");
            }
            local.push_back(v.get<std::int32_t>());
        }
        description += ", local GPU order " + lo.dump();
    }
    if (node_order == "fabric") {
        std::vector<std::int32_t> given = order;
        if (given.empty()) {
            for (std::int64_t n = 0; n < cluster.node_count(); ++n) {
                given.push_back(static_cast<std::int32_t>(n));
            }
        }
        order = fabric_node_order(cluster, given);
        description = order == given ? description + ", fabric order (leaf-major: the same nodes in the same order)"
                                     : "fabric order (leaf-major) of " + description;
    }
    Placement p = node_major_placement(cluster, world, order, local, o.where());
    p.description = description;
    return p;
}

}  // namespace planlayout
