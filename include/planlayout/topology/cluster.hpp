// Cluster: node templates instantiated per node, and the rail / leaf / spine fabric between them.
// Cross-node classification is arithmetic over these values (no path search per pair).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planlayout/topology/node_template.hpp"
#include "planlayout/topology/path_class.hpp"

namespace planlayout {

/// What one template implies for placement and classification, computed once per template.
struct TemplateFacts {
    int gpu_count = 0;
    std::vector<int> rail_nics;             // rail r → index into NodeTemplate::nics (compute RDMA NICs)
    std::vector<int> gpu_rail;              // GPU → rail of its NIC (-1: no RDMA NIC)
    std::vector<std::vector<int>> gpu_local_rails;  // GPU → every equally nearest rail (NCCL may use any)
    std::vector<PathClass> gpu_nic_class;   // GPU → class of the path to its NIC
    std::vector<PathClass> gpu_gpu;         // g * gpu_count + h → class
    std::vector<int> gpu_gpu_nvlinks;       // NVLink count for NV pairs
    std::vector<int> rail_gpu;              // rail → first GPU that uses it (-1 none): PXN relay
    double nvlink_gbyte_s = 0;              // per GPU, one direction (links × per-link)
    double pcie_gbyte_s = 0;                // GPU PCIe link, one direction
    std::vector<double> rail_gbit_s;        // NIC line rate per rail
    double tcp_gbit_s = 0;                  // sum of the node's TCP interfaces
    int tcp_interfaces = 0;
    int gpu_numa_nodes = 0;                 // distinct NUMA nodes of the GPUs (0: one of them unknown)
};

/// One-direction GB/s of a PCIe link: the reported figure, else per-lane rate by generation ×
/// width (gen 4 ×16 when unknown).
[[nodiscard]] double pcie_link_gbyte_s(const PcieLink& link);

/// Computes the facts: each GPU's NIC is the nearest compute RDMA NIC; equally near NICs are
/// spread over the GPUs that share them in index order, as NCCL does (ties by index).
[[nodiscard]] TemplateFacts template_facts(const NodeTemplate& t);

struct FabricSpec {
    bool aligned = true;             // NIC i of every node on leaf i of its scalable unit
    std::int64_t nodes_per_su = 0;   // nodes per scalable unit (0: all nodes in one; irregular: the largest unit's)
    std::int64_t sus_per_pod = 0;    // scalable units under one spine tier (0: all; irregular: the largest pod's)
    int leaf_uplinks = 0;            // uplinks per leaf (0: unknown)
    double oversubscription = 1.0;   // leaf down:up bandwidth ratio (1 = non-blocking)
    bool pxn = true;                 // NCCL PXN (NCCL_PXN_DISABLE=0)
};

/// Multi-node NVLink domains (GB200/GB300 NVL72): the nodes whose GPUs share one NVLink clique
/// (nvidia-smi -q's Fabric ClusterUUID + CliqueId, the GPU operator's nvidia.com/gpu.clique label, or
/// the cluster's "nvlink_domain"). Two GPUs on different nodes of one domain talk over NVLink (MNNVL);
/// a user partition splitting a rack is simply another domain.
struct NvlinkDomains {
    std::vector<std::int32_t> node_domain;  // node → domain id (-1: none); empty: NVLink stays inside a node
    std::vector<std::string> names;          // domain id → name (the clique, label value or "nvl0", ...)
    std::string source;                      // where they came from, for the outputs
    std::string label{};                     // the Kubernetes node label they were read from ("" otherwise)

    [[nodiscard]] bool empty() const { return node_domain.empty(); }
};

struct Cluster;

/// Sets the scalable units and pods of a cluster whose nodes are in fabric order (unit after
/// unit): su_sizes[i] nodes in unit i, pod_sizes[p] units in pod p (empty: no pods). Equal sizes
/// (the last unit or pod may be short) give the regular arithmetic; others the lookup tables.
/// The sizes must cover the nodes (their sum is the node count) and the units (pods).
void set_unit_sizes(Cluster& cluster, const std::vector<std::int64_t>& su_sizes,
                    const std::vector<std::int64_t>& pod_sizes);

struct NodeInstance {
    std::string host;       // "node3" or the name the cluster spec gives
    int template_index = 0;
};

/// The whole cluster: immutable once built by the cluster reader.
struct Cluster {
    std::string source;
    std::vector<NodeTemplate> templates;
    std::vector<TemplateFacts> facts;  // parallel to templates
    std::vector<NodeInstance> nodes;
    FabricSpec fabric;
    NvlinkDomains nvlink;                    // multi-node NVLink domains (empty: none)
    int rails = 0;                           // max compute NICs per node = leaves per scalable unit
    std::vector<std::vector<int>> wiring;    // explicit wiring: node → rail → leaf id (empty if aligned)
    // An irregular fabric (leaves of different sizes, pods of different leaf counts: a partly
    // populated SuperPOD): node → scalable unit and scalable unit → pod, looked up instead of
    // divided. Empty for a regular fabric (nodes_per_su and sus_per_pod are exact). Set by
    // set_unit_sizes.
    std::vector<std::int32_t> node_su;
    std::vector<std::int32_t> su_pod;
    std::vector<std::string> leaf_names;     // leaf id → name, for explicit wiring
    std::vector<std::string> su_names;       // scalable unit → name (an imported fabric's leaf switch; empty: "su0", ...)
    std::vector<std::string> pod_names;      // pod → name (an imported fabric's spine switch; empty: "pod0", ...)
    std::string core_name;                   // the switch above the pods (an imported fabric's; empty: "core")
    std::string topology_file;               // the imported topology the hosts and units came from, empty if none
    bool topology_blocks = false;            // its units are blocks (topology/block), not leaf switches
    std::vector<std::string> node_labels;    // k8s: the node labels naming the leaf, then the spine (empty: none)
    std::vector<std::string> warnings;
    std::vector<std::string> files;          // files read to build it (cluster file, node templates, captures), as opened

    [[nodiscard]] std::int64_t node_count() const { return static_cast<std::int64_t>(nodes.size()); }

    [[nodiscard]] const TemplateFacts& facts_of(std::int64_t node) const {
        return facts[static_cast<std::size_t>(nodes[static_cast<std::size_t>(node)].template_index)];
    }

    [[nodiscard]] const NodeTemplate& template_of(std::int64_t node) const {
        return templates[static_cast<std::size_t>(nodes[static_cast<std::size_t>(node)].template_index)];
    }

    /// NVLink domain of a node, -1 when it is in none.
    [[nodiscard]] std::int32_t domain_of(std::int64_t node) const {
        return nvlink.node_domain.empty() ? -1 : nvlink.node_domain[static_cast<std::size_t>(node)];
    }

    /// True when two different nodes share an NVLink domain (their GPUs pair over MNNVL).
    [[nodiscard]] bool same_nvlink_domain(std::int64_t a, std::int64_t b) const {
        const std::int32_t d = domain_of(a);
        return d >= 0 && d == domain_of(b);
    }

    [[nodiscard]] std::int64_t su_of(std::int64_t node) const {
        if (!node_su.empty()) {
            return node_su[static_cast<std::size_t>(node)];
        }
        return fabric.nodes_per_su > 0 ? node / fabric.nodes_per_su : 0;
    }

    /// Pod of scalable unit su.
    [[nodiscard]] std::int64_t pod_of_su(std::int64_t su) const {
        if (!su_pod.empty()) {
            return su_pod[static_cast<std::size_t>(su)];
        }
        return fabric.sus_per_pod > 0 ? su / fabric.sus_per_pod : 0;
    }

    /// True when the scalable units are nodes_per_su nodes each (the last may be short) and the
    /// pods sus_per_pod units each: arithmetic views (blocks of nodes_per_su) may be drawn.
    [[nodiscard]] bool regular_units() const { return node_su.empty() && su_pod.empty(); }

    /// Nodes of each scalable unit, in unit order (empty: no units, all nodes in one).
    [[nodiscard]] std::vector<std::int64_t> su_sizes() const;

    /// "8 nodes per scalable unit", or for an irregular fabric "scalable units of 8 to 18 nodes"
    /// (empty: no units).
    [[nodiscard]] std::string su_size_text() const;

    /// nodes_per_su when the units are regular, else 0 (for views that cut the nodes into equal blocks).
    [[nodiscard]] std::int64_t regular_su_size() const { return regular_units() ? fabric.nodes_per_su : 0; }

    /// Leaf switch id that rail r of node n plugs into; -1 if the node has no such rail.
    [[nodiscard]] std::int64_t leaf_of(std::int64_t node, int rail) const;

    /// Spine tier (pod) of a leaf.
    [[nodiscard]] std::int64_t pod_of_leaf(std::int64_t leaf) const;

    [[nodiscard]] std::string leaf_name(std::int64_t leaf) const;

    /// Name of scalable unit su ("su3", or the imported fabric's leaf switch).
    [[nodiscard]] std::string su_name(std::int64_t su) const;

    /// Name of pod p ("pod1", or the imported fabric's spine switch).
    [[nodiscard]] std::string pod_name(std::int64_t pod) const;

    /// Name of the tier above the pods ("core", or the imported fabric's top switch).
    [[nodiscard]] std::string core() const { return core_name.empty() ? "core" : core_name; }

    [[nodiscard]] std::int64_t total_gpus() const;

    /// True when every node uses the same template.
    [[nodiscard]] bool homogeneous() const;
};

}  // namespace planlayout
