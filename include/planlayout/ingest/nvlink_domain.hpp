// Ingest: a cluster's multi-node NVLink domains (GB200/GB300 NVL72 racks, their partitions) from
// the cluster's "nvlink_domain" (nodes per domain, per-host cliques, or nvidia-smi -q captures) or
// from the clique labels of an imported Kubernetes node list (docs/formats/layout.md, "NVLink domains").
#pragma once

#include <string>
#include <vector>

#include "planlayout/ingest/cluster_fabric.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// Domains from one clique name per node (empty: the node is in none), numbered in node order.
/// `source` says where the names came from.
[[nodiscard]] NvlinkDomains domains_from_cliques(const std::vector<std::string>& cliques, const std::string& source);

/// Reads "nvlink_domain" ({"nodes_per_domain": N} | {"cliques": {host: clique}} |
/// {"nvidia_smi": {host: capture file}} | {"topology_blocks": true}: the blocks of the cluster's
/// Slurm topology/block "topology") for the cluster's nodes; capture files are resolved in
/// `scope` and added to `files`. Throws Error (BadInput) naming the JSON pointer for an unknown
/// host, two ways at once, or a capture whose GPUs are not ready (node_clique).
[[nodiscard]] NvlinkDomains read_nvlink_domain(const JsonReader& d, const Cluster& cluster, const FileScope& scope,
                                               std::vector<std::string>& files);

/// A cluster's domains: its "nvlink_domain" (read_nvlink_domain), else the cliques of the hosts of
/// an imported node list (`imported`, may be null; its domain_label names their label). The
/// cluster's own word wins (a warning says the labels are not used). Then check_nvlink_domains.
void read_cluster_domains(const JsonReader& c, const FileScope& scope, const ImportedFabric* imported, Cluster& out);

/// Checks that every node of a domain has NVLink (its template's nvlink_gbyte_s > 0). Throws
/// Error (BadInput) naming `where`, the host and its template.
void check_nvlink_domains(const Cluster& cluster, const std::string& where);

}  // namespace planlayout
