// Topology: the device graph (Boost.Graph) — GPUs, NICs, TCP interfaces, PCIe switches, CPUs,
// NVSwitch, leaf / spine / core switches — built once, immutable afterwards.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "planlayout/topology/cluster.hpp"

namespace planlayout {

enum class DeviceKind { Gpu, Nic, TcpInterface, PcieSwitch, Cpu, NvSwitch, Leaf, Spine, Core };

[[nodiscard]] const char* to_string(DeviceKind k);

/// Ordered best→worst: a path's class is decided by the worst link kind it crosses.
enum class LinkKind { NvLink, Pcie, Smp, Network };

[[nodiscard]] const char* to_string(LinkKind k);

struct Device {
    DeviceKind kind = DeviceKind::Gpu;
    std::string name;    // stable: "node3/gpu5", "node3/mlx5_5", "node3/plx2", "leaf5", "spine0"
    std::string host;    // "node3"; empty for switches of the fabric
    int numa = -1;
    int index = -1;      // GPU / NIC index on its node, rail for leaves
};

struct Link {
    LinkKind kind = LinkKind::Pcie;
    double bandwidth_gbyte_s = 0;  // one direction
    double pcie_gen = 0;
    int pcie_width = 0;
    int nvlinks = 0;
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, Device, Link>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

/// The graph and its name index, kept in step. Immutable once built.
class Topology {
public:
    Vertex add_device(const Device& d);
    void connect(const std::string& a, const std::string& b, Link link);

    [[nodiscard]] const Graph& graph() const { return graph_; }

    /// The vertex of a name; throws Error naming near matches when unknown.
    [[nodiscard]] Vertex at(const std::string& name) const;

    [[nodiscard]] bool contains(const std::string& name) const { return index_.count(name) > 0; }

    [[nodiscard]] std::size_t device_count() const { return boost::num_vertices(graph_); }

    [[nodiscard]] std::size_t link_count() const { return boost::num_edges(graph_); }

private:
    Graph graph_;
    std::map<std::string, Vertex> index_;
};

/// One node's inside: CPUs (with the SMP link between NUMA nodes), PCIe switches, GPUs, NICs,
/// TCP interfaces, and an NVSwitch (or point-to-point NVLinks). Names carry the host prefix.
[[nodiscard]] Topology build_node_topology(const NodeTemplate& t, const std::string& host);

/// The whole cluster: every node's inside plus leaves (one per rail per scalable unit, or the
/// explicit wiring), spines (one tier per pod) and a core tier above pods when there are several.
[[nodiscard]] Topology build_cluster_topology(const Cluster& cluster);

/// Widest path between two devices using only links no worse than max_kind: the bottleneck
/// bandwidth (one direction, GB/s), or nullopt when no such path exists. Filters the graph
/// (filtered_graph) and runs a widest-path Dijkstra inside it.
[[nodiscard]] std::optional<double> widest_path_gbyte_s(const Topology& topo,
                                                        const std::string& from,
                                                        const std::string& to,
                                                        LinkKind max_kind = LinkKind::Network);

}  // namespace planlayout
