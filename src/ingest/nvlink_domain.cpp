// Ingest: multi-node NVLink domains of a cluster (nodes per domain, cliques per host, nvidia-smi -q).
#include "planlayout/ingest/nvlink_domain.hpp"

#include <map>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/ingest/nvidia_smi_fabric.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/names.hpp"

namespace planlayout {
namespace {

std::map<std::string, std::size_t> host_positions(const Cluster& c) {
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < c.nodes.size(); ++i) {
        index.emplace(c.nodes[i].host, i);
    }
    return index;
}

// {host: value} → one value per node (empty where the host is not listed); value(text, where)
// turns each entry into the node's clique.
template <class Fn>
std::vector<std::string> per_host(const JsonReader& m, const Cluster& c, Fn&& value) {
    const auto index = host_positions(c);
    std::vector<std::string> cliques(c.nodes.size());
    for (const auto& item : m.json().items()) {
        const std::string& host = item.key();
        const auto it = index.find(host);
        if (it == index.end()) {
            throw input_error(m.where(host), "no node of the cluster is named '" + printable(host) + "'",
                              "use the cluster's host names (\"nodes\" or its topology)");
        }
        if (!item.value().is_string() || item.value().get<std::string>().empty()) {
            throw input_error(m.where(host), "the entry must be a non-empty string", "write \"" + host + "\": \"...\"");
        }
        cliques[it->second] = value(item.value().get<std::string>(), m.where(host));
    }
    return cliques;
}

// Node-major placement fills the nodes in cluster order: a domain listed in pieces is split.
void warn_interleaved(Cluster& c) {
    std::vector<bool> closed(c.nvlink.names.size(), false);
    std::int32_t current = -1;
    for (std::int64_t n = 0; n < c.node_count(); ++n) {
        const std::int32_t d = c.domain_of(n);
        if (d >= 0 && d != current && closed[static_cast<std::size_t>(d)]) {
            c.warnings.push_back("the node order interleaves NVLink domains (" + c.nodes[static_cast<std::size_t>(n)].host +
                                 " of " + c.nvlink.names[static_cast<std::size_t>(d)] +
                                 " comes after another domain began): node-major placement splits them; list each "
                                 "domain's nodes together, or place with \"placement\": {\"order\": \"fabric\"}");
            return;
        }
        if (current >= 0 && d != current) {
            closed[static_cast<std::size_t>(current)] = true;
        }
        current = d;
    }
}

NvlinkDomains blocks_as_domains(const JsonReader& d, const Cluster& cluster);

}  // namespace

NvlinkDomains domains_from_cliques(const std::vector<std::string>& cliques, const std::string& source) {
    NvlinkDomains d;
    std::map<std::string, std::int32_t> ids;
    d.node_domain.assign(cliques.size(), -1);
    for (std::size_t i = 0; i < cliques.size(); ++i) {
        if (cliques[i].empty()) {
            continue;
        }
        const auto [it, fresh] = ids.emplace(cliques[i], static_cast<std::int32_t>(d.names.size()));
        if (fresh) {
            d.names.push_back(cliques[i]);
        }
        d.node_domain[i] = it->second;
    }
    if (d.names.empty()) {
        d.node_domain.clear();  // no node in any clique: NVLink stays inside the nodes
    }
    d.source = source;
    return d;
}

NvlinkDomains read_nvlink_domain(const JsonReader& d, const Cluster& cluster, const FileScope& scope,
                                 std::vector<std::string>& files) {
    d.check_keys({"nodes_per_domain", "cliques", "nvidia_smi", "topology_blocks"});
    int ways = 0;
    for (const char* key : {"nodes_per_domain", "cliques", "nvidia_smi", "topology_blocks"}) {
        ways += d.has(key) ? 1 : 0;
    }
    if (ways != 1) {
        throw input_error(d.where(), ways == 0 ? "\"nvlink_domain\" gives no domains" : "\"nvlink_domain\" gives its domains two ways",
                          "give one of \"nodes_per_domain\": 18 (an NVL72 rack of 4-GPU trays), \"cliques\": {host: clique}, "
                          "\"nvidia_smi\": {host: \"nvidia-smi -q capture\"} or \"topology_blocks\": true");
    }
    if (d.has("topology_blocks")) {
        return blocks_as_domains(d, cluster);
    }
    if (const auto per = d.get_int("nodes_per_domain", 1, kMaxNodes)) {
        std::vector<std::string> cliques(cluster.nodes.size());
        for (std::size_t i = 0; i < cliques.size(); ++i) {
            cliques[i] = "nvl" + std::to_string(static_cast<std::int64_t>(i) / *per);
        }
        return domains_from_cliques(cliques, "nvlink_domain: " + std::to_string(*per) + " nodes per domain, in node order");
    }
    if (const auto m = d.get_object("cliques")) {
        return domains_from_cliques(per_host(*m, cluster, [](const std::string& v, const std::string& where) {
                                        require_device_name(v, where, "clique");
                                        return v;
                                    }),
                                    "nvlink_domain: cliques per host");
    }
    const auto m = d.get_object("nvidia_smi");
    if (!m) {
        throw input_error(d.where("nvidia_smi"), "\"nvidia_smi\" must map host names to nvidia-smi -q captures",
                          "write \"nvidia_smi\": {\"tray01\": \"tray01-smi-q.txt\", ...}");
    }
    return domains_from_cliques(per_host(*m, cluster, [&](const std::string& name, const std::string& where) {
                                    const std::string path = resolve_named_file(scope, name, where);
                                    files.push_back(path);
                                    return node_clique(read_nvidia_smi_fabric(read_text_file(path, kMaxCaptureBytes), path), path);
                                }),
                                "nvlink_domain: nvidia-smi -q Fabric (ClusterUUID.CliqueId) per host");
}

namespace {

// "topology_blocks": true: the blocks of the cluster's Slurm topology/block file (topograph writes
// one per NVL72 rack or partition) are the NVLink domains; the blocks already are its units.
NvlinkDomains blocks_as_domains(const JsonReader& d, const Cluster& cluster) {
    if (!d.get_bool("topology_blocks").value_or(false)) {
        throw input_error(d.where("topology_blocks"), "\"topology_blocks\" is false", "drop it, or set it to true");
    }
    if (!cluster.topology_blocks) {
        throw input_error(d.where("topology_blocks"),
                          "the cluster's \"topology\" has no blocks (" +
                              (cluster.topology_file.empty() ? std::string("no topology") : "a switch tree") + ")",
                          "give a Slurm topology/block file as \"topology\", or the domains as \"nodes_per_domain\" or \"cliques\"");
    }
    std::vector<std::string> cliques(cluster.nodes.size());
    for (std::size_t i = 0; i < cliques.size(); ++i) {
        cliques[i] = cluster.su_name(cluster.su_of(static_cast<std::int64_t>(i)));
    }
    return domains_from_cliques(cliques, "nvlink_domain: the blocks of topology " + cluster.topology_file);
}

}  // namespace

void check_nvlink_domains(const Cluster& cluster, const std::string& where) {
    for (std::int64_t n = 0; n < cluster.node_count(); ++n) {
        const std::int32_t d = cluster.domain_of(n);
        if (d >= 0 && cluster.facts_of(n).nvlink_gbyte_s <= 0) {
            const auto& host = cluster.nodes[static_cast<std::size_t>(n)].host;
            throw input_error(where, "node " + host + " is in NVLink domain " + cluster.nvlink.names[static_cast<std::size_t>(d)] +
                                         " but its template " + cluster.template_of(n).name + " has no NVLink",
                              "leave the node out of the domain, or give it a template with \"nvlink\" (e.g. gb200-nvl72-tray)");
        }
    }
}

void read_cluster_domains(const JsonReader& c, const FileScope& scope, const ImportedFabric* imported, Cluster& out) {
    const bool labelled = imported != nullptr && !imported->host_domains.empty();
    if (const auto d = c.get_object("nvlink_domain")) {
        out.nvlink = read_nvlink_domain(*d, out, scope, out.files);
        if (labelled) {
            out.warnings.push_back("topology " + out.topology_file + ": its " + imported->domain_label +
                                   " labels are not used: the cluster's \"nvlink_domain\" gives the NVLink domains");
        }
    } else if (labelled) {
        std::vector<std::string> cliques = imported->host_domains;  // "nodes": N takes the topology's first N hosts
        cliques.resize(out.nodes.size());
        out.nvlink = domains_from_cliques(cliques, "topology " + out.topology_file + ": label " + imported->domain_label);
        out.nvlink.label = imported->domain_label;
    }
    check_nvlink_domains(out, c.where("nvlink_domain"));
    warn_interleaved(out);
}

}  // namespace planlayout
