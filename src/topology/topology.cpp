// Topology: building the device graph and widest-path queries over it.
#include "planlayout/topology/topology.hpp"

#include <algorithm>
#include <functional>
#include <limits>

#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>

#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/model/numbers/hardware.hpp"
#include "planlayout/model/units.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout {
namespace {

Link pcie(const PcieLink& l) {
    Link k;
    k.kind = LinkKind::Pcie;
    k.bandwidth_gbyte_s = pcie_link_gbyte_s(l);
    k.pcie_gen = l.gen;
    k.pcie_width = l.width;
    return k;
}

// Keeps only links no worse than a kind: the "links of class <= X" view.
struct LinkFilter {
    const Graph* g = nullptr;
    LinkKind max_kind = LinkKind::Network;

    bool operator()(const boost::graph_traits<Graph>::edge_descriptor& e) const { return (*g)[e].kind <= max_kind; }
};

}  // namespace

const char* to_string(DeviceKind k) {
    static const char* const kNames[] = {"gpu", "nic", "tcp", "pcie_switch", "cpu", "nvswitch", "leaf", "spine", "core"};
    return kNames[static_cast<int>(k)];
}

const char* to_string(LinkKind k) {
    static const char* const kNames[] = {"nvlink", "pcie", "smp", "network"};
    return kNames[static_cast<int>(k)];
}

Vertex Topology::add_device(const Device& d) {
    const std::string name = d.name;
    const Vertex v = boost::add_vertex(d, graph_);
    index_.emplace(name, v);
    return v;
}

void Topology::connect(const std::string& a, const std::string& b, Link link) {
    boost::add_edge(at(a), at(b), link, graph_);
}

Vertex Topology::at(const std::string& name) const {
    const auto it = index_.find(name);
    if (it != index_.end()) {
        return it->second;
    }
    std::string near;
    for (auto i = index_.lower_bound(name.substr(0, name.find('/') + 1)); i != index_.end() && near.size() < kMaxNearNamesChars; ++i) {
        near += (near.empty() ? "" : ", ") + i->first;
    }
    throw input_error("topology", "no device named '" + name + "'", near.empty() ? "check the name" : "devices there: " + near);
}

Topology build_node_topology(const NodeTemplate& t, const std::string& host) {
    Topology topo;
    const std::string p = host + "/";
    auto local = [&](const std::string& n) { return p + ascii_lower(n); };
    for (const auto& c : t.cpus) {
        topo.add_device({DeviceKind::Cpu, local(c.name), host, c.numa, -1});
    }
    // CPUs of different NUMA nodes are joined by the SMP interconnect; root complexes of one
    // NUMA node by the host-bridge fabric (also Smp here, bandwidth of a socket link).
    for (std::size_t i = 0; i + 1 < t.cpus.size(); ++i) {
        Link smp;
        smp.kind = LinkKind::Smp;
        smp.bandwidth_gbyte_s = numbers::kDeviceGraphSmpGbyteS;
        topo.connect(local(t.cpus[i].name), local(t.cpus[i + 1].name), smp);
    }
    for (const auto& s : t.pcie_switches) {
        topo.add_device({DeviceKind::PcieSwitch, local(s.name), host, -1, -1});
    }
    for (const auto& s : t.pcie_switches) {
        if (!s.parent.empty() && topo.contains(local(s.parent))) {
            topo.connect(local(s.name), local(s.parent), pcie(s.link));
        }
    }
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
        const auto& g = t.gpus[i];
        topo.add_device({DeviceKind::Gpu, p + "gpu" + std::to_string(i), host, g.numa, static_cast<int>(i)});
        if (!g.parent.empty() && topo.contains(local(g.parent))) {
            topo.connect(p + "gpu" + std::to_string(i), local(g.parent), pcie(g.pcie));
        }
    }
    for (std::size_t i = 0; i < t.nics.size(); ++i) {
        const auto& n = t.nics[i];
        const std::string name = p + (n.device.empty() ? ascii_lower(n.name) : n.device);
        topo.add_device({DeviceKind::Nic, name, host, n.numa, static_cast<int>(i)});
        if (!n.parent.empty() && topo.contains(local(n.parent))) {
            topo.connect(name, local(n.parent), pcie(n.pcie));
        }
    }
    for (const auto& tcp : t.tcp) {
        topo.add_device({DeviceKind::TcpInterface, p + tcp.name, host, tcp.numa, -1});
        // Without a PCIe location, hang the interface off the CPU of its NUMA node.
        for (const auto& c : t.cpus) {
            if (c.numa == tcp.numa || tcp.numa < 0) {
                Link l = pcie({});
                topo.connect(p + tcp.name, local(c.name), l);
                break;
            }
        }
    }
    if (t.nvlink.nvswitch) {
        topo.add_device({DeviceKind::NvSwitch, p + "nvswitch", host, -1, -1});
        for (std::size_t i = 0; i < t.gpus.size(); ++i) {
            Link nv;
            nv.kind = LinkKind::NvLink;
            nv.nvlinks = t.gpus[i].nvswitch_links > 0 ? t.gpus[i].nvswitch_links : t.nvlink.links_per_gpu;
            nv.bandwidth_gbyte_s = nv.nvlinks * t.nvlink.gbyte_s_per_link;
            topo.connect(p + "gpu" + std::to_string(i), p + "nvswitch", nv);
        }
    } else {
        for (const auto& path : t.paths) {
            if (path.path_class == PathClass::Nv && path.a.rfind("GPU", 0) == 0 && path.b.rfind("GPU", 0) == 0) {
                Link nv;
                nv.kind = LinkKind::NvLink;
                nv.nvlinks = path.nvlinks;
                nv.bandwidth_gbyte_s = path.nvlinks * (t.nvlink.gbyte_s_per_link > 0 ? t.nvlink.gbyte_s_per_link : numbers::kNvlinkLinkGbyteS);
                topo.connect(p + ascii_lower(path.a), p + ascii_lower(path.b), nv);
            }
        }
    }
    return topo;
}

Topology build_cluster_topology(const Cluster& cluster) {
    Topology topo;
    // Each node's inside, then the fabric. Node graphs are copied vertex by vertex.
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
        const Topology node = build_node_topology(cluster.template_of(static_cast<std::int64_t>(n)), cluster.nodes[n].host);
        const Graph& g = node.graph();
        for (auto v : boost::make_iterator_range(boost::vertices(g))) {
            topo.add_device(g[v]);
        }
        for (auto e : boost::make_iterator_range(boost::edges(g))) {
            topo.connect(g[boost::source(e, g)].name, g[boost::target(e, g)].name, g[e]);
        }
    }
    std::int64_t leaves = 0;
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
        const auto& f = cluster.facts_of(static_cast<std::int64_t>(n));
        for (std::size_t r = 0; r < f.rail_nics.size(); ++r) {
            leaves = std::max(leaves, cluster.leaf_of(static_cast<std::int64_t>(n), static_cast<int>(r)) + 1);
        }
    }
    std::int64_t pods = 0;
    for (std::int64_t l = 0; l < leaves; ++l) {
        topo.add_device({DeviceKind::Leaf, cluster.leaf_name(l), "", -1, static_cast<int>(cluster.rails > 0 ? l % cluster.rails : 0)});
        pods = std::max(pods, cluster.pod_of_leaf(l) + 1);
    }
    for (std::int64_t p = 0; p < pods; ++p) {
        topo.add_device({DeviceKind::Spine, "spine" + std::to_string(p), "", -1, static_cast<int>(p)});
    }
    if (pods > 1) {
        topo.add_device({DeviceKind::Core, "core", "", -1, -1});
    }
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
        const auto& t = cluster.template_of(static_cast<std::int64_t>(n));
        const auto& f = cluster.facts_of(static_cast<std::int64_t>(n));
        for (std::size_t r = 0; r < f.rail_nics.size(); ++r) {
            const Nic& nic = t.nics[static_cast<std::size_t>(f.rail_nics[r])];
            Link net;
            net.kind = LinkKind::Network;
            net.bandwidth_gbyte_s = nic.speed_gbit_s / units::kBitsPerByte;
            topo.connect(cluster.nodes[n].host + "/" + (nic.device.empty() ? ascii_lower(nic.name) : nic.device),
                         cluster.leaf_name(cluster.leaf_of(static_cast<std::int64_t>(n), static_cast<int>(r))), net);
        }
    }
    for (std::int64_t l = 0; l < leaves; ++l) {
        Link up;
        up.kind = LinkKind::Network;
        // A leaf's uplink capacity: its downlinks divided by the oversubscription.
        up.bandwidth_gbyte_s = numbers::kDeviceGraphLeafUplinkPerNodeGbyteS * static_cast<double>(std::max<std::int64_t>(1, cluster.fabric.nodes_per_su)) / cluster.fabric.oversubscription;
        topo.connect(cluster.leaf_name(l), "spine" + std::to_string(cluster.pod_of_leaf(l)), up);
    }
    for (std::int64_t p = 0; pods > 1 && p < pods; ++p) {
        Link up;
        up.kind = LinkKind::Network;
        up.bandwidth_gbyte_s = numbers::kDeviceGraphCoreGbyteS;
        topo.connect("spine" + std::to_string(p), "core", up);
    }
    return topo;
}

std::optional<double> widest_path_gbyte_s(const Topology& topo, const std::string& from, const std::string& to,
                                          LinkKind max_kind) {
    const Graph& g = topo.graph();
    const LinkFilter filter{&g, max_kind};
    const boost::filtered_graph<Graph, LinkFilter> view(g, filter);
    std::vector<double> width(boost::num_vertices(g), 0.0);
    const Vertex s = topo.at(from);
    const Vertex t = topo.at(to);
    // Widest path: maximize the minimum bandwidth along the path.
    boost::dijkstra_shortest_paths(
        view, s,
        boost::weight_map(boost::get(&Link::bandwidth_gbyte_s, g))
            .distance_map(boost::make_iterator_property_map(width.begin(), boost::get(boost::vertex_index, g)))
            .distance_compare(std::greater<>())
            .distance_combine([](double a, double b) { return std::min(a, b); })
            .distance_inf(0.0)
            .distance_zero(std::numeric_limits<double>::infinity()));
    if (s == t) {
        return std::numeric_limits<double>::infinity();
    }
    if (width[t] <= 0.0) {
        return std::nullopt;
    }
    return width[t];
}

}  // namespace planlayout
