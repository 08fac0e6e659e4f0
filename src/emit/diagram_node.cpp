// Emit: the diagram's node view.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "diagram_canvas.hpp"
#include "planlayout/error.hpp"
#include "planlayout/topology/topology.hpp"

namespace planlayout::diagram {

std::string link_label(const Link& l) {
    switch (l.kind) {
        case LinkKind::NvLink:
            return "NV" + std::to_string(l.nvlinks);
        case LinkKind::Pcie: {
            std::string s = "PCIe";
            if (l.pcie_gen > 0) {
                s += num(l.pcie_gen);
            }
            if (l.pcie_width > 0) {
                s += " x" + std::to_string(l.pcie_width);
            }
            return s;
        }
        case LinkKind::Smp:
            return "SMP";
        case LinkKind::Network:
            return "net";
    }
    return "";
}

// The node's index in the cluster: the one named by --node, else the first.
std::int64_t node_index(const Cluster& cl, const std::string& host) {
    if (host.empty()) {
        return 0;
    }
    for (std::size_t i = 0; i < cl.nodes.size(); ++i) {
        if (cl.nodes[i].host == host) {
            return static_cast<std::int64_t>(i);
        }
    }
    std::string hosts;
    for (std::size_t i = 0; i < cl.nodes.size() && i < 8; ++i) {
        hosts += (i ? ", " : "") + cl.nodes[i].host;
    }
    throw input_error("--node " + host, "no node of that name in the cluster",
                      "nodes are " + hosts + (cl.nodes.size() > 8 ? ", ..." : ""));
}

namespace {

// The NUMA node of each CPU and PCIe switch (lower-case local name → NUMA): switches follow
// their parents up to a CPU.
std::map<std::string, int> numa_by_name(const NodeTemplate& t) {
    std::map<std::string, int> numa_of;
    for (const auto& cpu : t.cpus) {
        numa_of[lower(cpu.name)] = cpu.numa;
    }
    for (std::size_t round = 0; round <= t.pcie_switches.size(); ++round) {
        for (const auto& s : t.pcie_switches) {
            const auto it = numa_of.find(lower(s.parent));
            if (it != numa_of.end()) {
                numa_of.emplace(lower(s.name), it->second);
            }
        }
    }
    return numa_of;
}

// A device box's label: a GPU's NIC when far (then `extra` outlines it and its name joins
// `highlighted`), a NIC's speed and rail or role.
std::string device_label(const Device& d, const std::string& host, const NodeTemplate& t, const TemplateFacts& f,
                         const DiagramStyle& st, Attrs& extra, std::vector<std::string>& highlighted) {
    std::string label = d.name.substr(host.size() + 1);
    if (d.kind == DeviceKind::Gpu) {
        const auto gi = static_cast<std::size_t>(d.index);
        const int rail = f.gpu_rail[gi];
        if (rail >= 0) {
            const PathClass pc = f.gpu_nic_class[gi];
            const Nic& nic = t.nics[static_cast<std::size_t>(f.rail_nics[static_cast<std::size_t>(rail)])];
            const bool far = pc == PathClass::Sys || (nic.numa >= 0 && d.numa >= 0 && nic.numa != d.numa);
            if (far) {
                label += "\nNIC " + std::string(to_string(pc)) + " away";
                extra = {{"color", st.highlight.color},
                         {"penwidth", num(st.highlight.penwidth)},
                         {"style", st.highlight.style}};
                highlighted.push_back(label.substr(0, label.find('\n')));
            }
        } else {
            label += "\nno RDMA NIC";
        }
    } else if (d.kind == DeviceKind::Nic) {
        const Nic& nic = t.nics[static_cast<std::size_t>(d.index)];
        if (nic.speed_gbit_s > 0) {
            label += "\n" + num(nic.speed_gbit_s) + " Gb/s";
        }
        if (!nic.link_layer.empty()) {
            label += " " + nic.link_layer;
        }
        const auto r = std::find(f.rail_nics.begin(), f.rail_nics.end(), d.index);
        if (r != f.rail_nics.end()) {
            label += "\nrail " + std::to_string(r - f.rail_nics.begin());
        } else if (nic.role != "compute") {
            label += "\n" + nic.role;
        }
    } else if (d.kind == DeviceKind::NvSwitch) {
        label = "NVSwitch";
    }
    return label;
}

// A device's column, left to right: CPU, PCIe switch, GPUs and NICs, NVSwitch.
int link_level(DeviceKind k) {
    switch (k) {
        case DeviceKind::Cpu:
            return 0;
        case DeviceKind::PcieSwitch:
            return 1;
        case DeviceKind::NvSwitch:
            return 3;
        default:
            return 2;
    }
}

// The topology's links. Edges run from the CPU side outwards (CPU → PCIe switches → GPUs/NICs →
// NVSwitch), so the layout reads left to right. The topology connects children to parents:
// reverse those.
void draw_links(Canvas& c, const Graph& g, const std::vector<NodeRef>& vnode, const std::string& host) {
    const DiagramStyle& st = c.style();
    int smp_links = 0;
    for (auto e : boost::make_iterator_range(boost::edges(g))) {
        const Link& l = g[e];
        Vertex a = boost::source(e, g);
        Vertex b = boost::target(e, g);
        if (l.kind == LinkKind::Smp) {
            // CPUs share a rank: Graphviz 2.42 draws a flat edge across clusters twice. The link
            // meets at a label node left of both CPUs instead, each half a ranked edge: drawn once.
            const Attrs half = line_attrs(st.link("smp"));
            const NodeRef mid = c.node(Canvas::root(), host + "/smp" + std::to_string(smp_links++),
                                       {{"shape", "plaintext"}, {"style", "solid"}, {"label", "SMP\n(inter-socket)"}});
            c.edge(mid, vnode[a], half);
            c.edge(mid, vnode[b], half);
            continue;
        }
        if (link_level(g[a].kind) > link_level(g[b].kind) ||
            (link_level(g[a].kind) == link_level(g[b].kind) && l.kind != LinkKind::Smp)) {
            std::swap(a, b);
        }
        Attrs attrs = line_attrs(st.link(to_string(l.kind)));
        attrs.emplace_back("label", link_label(l));
        c.edge(vnode[a], vnode[b], attrs);
    }
}

// Each GPU's NIC (NCCL's choice: the nearest compute RDMA NIC), labelled with its class; the
// count of GPUs per class.
ClassCounts draw_gpu_nics(Canvas& c, const NodeTemplate& t, const TemplateFacts& f, const std::string& host) {
    const DiagramStyle& st = c.style();
    ClassCounts nic_classes{};
    for (std::size_t gi = 0; gi < t.gpus.size(); ++gi) {
        const int rail = f.gpu_rail[gi];
        if (rail < 0) {
            continue;
        }
        const PathClass pc = f.gpu_nic_class[gi];
        ++nic_classes[static_cast<std::size_t>(pc)];
        const Nic& nic = t.nics[static_cast<std::size_t>(f.rail_nics[static_cast<std::size_t>(rail)])];
        const std::string nic_id = host + "/" + (nic.device.empty() ? lower(nic.name) : nic.device);
        Attrs a = line_attrs(st.of(pc));
        // xlabel, not label: Graphviz 2.42's dot frees a labelled flat edge twice (flat_edges).
        a.emplace_back("xlabel", std::string(to_string(pc)));
        a.emplace_back("constraint", "false");
        c.edge(*c.find(host + "/gpu" + std::to_string(gi)), *c.find(nic_id), a);
    }
    return nic_classes;
}

// The legend: the link styles, each GPU-to-NIC class drawn, the far-NIC outline, and notes naming
// the node and its far GPUs.
void node_legend(Canvas& c, const NodeTemplate& t, const std::string& host, const ClassCounts& nic_classes,
                 const std::vector<std::string>& highlighted) {
    const DiagramStyle& st = c.style();
    std::vector<LegendLine> lines;
    for (const char* k : {"nvlink", "pcie", "smp"}) {
        const LineStyle& l = st.link(k);
        lines.push_back({std::string(k == std::string("nvlink") ? "NVLink (NV<links>)"
                                     : k == std::string("pcie") ? "PCIe link (gen, width)"
                                                                : "SMP / inter-socket link"),
                         l});
    }
    for (int pc = 0; pc < kPathClassCount; ++pc) {
        if (nic_classes[static_cast<std::size_t>(pc)] > 0) {
            const auto cls = static_cast<PathClass>(pc);
            lines.push_back({"GPU - its NIC: " + std::string(to_string(cls)) + " (" +
                                 std::to_string(nic_classes[static_cast<std::size_t>(pc)]) + " GPUs)",
                             st.of(cls)});
        }
    }
    std::vector<LegendSwatch> swatches;
    swatches.push_back({"GPU whose NIC is SYS away\n(other NUMA node)", st.device("gpu").fillcolor, st.highlight.style,
                        st.highlight.color, st.highlight.penwidth});
    std::vector<std::string> notes;
    notes.push_back(host + ": " + t.name + " (" + std::to_string(t.gpus.size()) + " GPUs, " + std::to_string(t.nics.size()) +
                    " NICs, " + std::to_string(t.cpus.size()) + " CPUs)");
    std::string far;
    for (const auto& h : highlighted) {
        far += (far.empty() ? "" : ", ") + h;
    }
    notes.push_back("GPUs whose NIC is SYS away: " + (far.empty() ? std::string("none") : far));
    add_legend(c, lines, swatches, notes, true);
}

}  // namespace

void node_view(Canvas& c, const Report& report, const DiagramOptions& options) {
    const Cluster& cl = report.cluster;
    const std::int64_t n = node_index(cl, options.host);
    const std::string& host = cl.nodes[static_cast<std::size_t>(n)].host;
    const NodeTemplate& t = cl.template_of(n);
    const TemplateFacts& f = cl.facts_of(n);
    const DiagramStyle& st = c.style();
    const Topology topo = build_node_topology(t, host);
    const Graph& g = topo.graph();

    const std::map<std::string, int> numa_of = numa_by_name(t);
    auto numa_of_vertex = [&](const Device& d) {
        if (d.numa >= 0 || d.kind != DeviceKind::PcieSwitch) {
            return d.numa;
        }
        const auto it = numa_of.find(d.name.substr(host.size() + 1));
        return it == numa_of.end() ? -1 : it->second;
    };

    std::map<int, Sub> numa_box;
    for (const auto& cpu : t.cpus) {
        if (numa_box.count(cpu.numa) == 0) {
            numa_box[cpu.numa] = c.box(Canvas::root(), "numa" + std::to_string(cpu.numa < 0 ? 0 : cpu.numa),
                                       cpu.numa < 0 ? std::string("NUMA ?") : "NUMA " + std::to_string(cpu.numa));
        }
    }
    std::vector<std::string> highlighted;
    std::vector<NodeRef> vnode(boost::num_vertices(g), 0);
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
        const Device& d = g[v];
        Attrs extra;
        const std::string label = device_label(d, host, t, f, st, extra, highlighted);
        const int numa = numa_of_vertex(d);
        Sub where = Canvas::root();
        if (d.kind != DeviceKind::NvSwitch) {
            const auto it = numa_box.find(numa);
            if (it != numa_box.end()) {
                where = it->second;
            }
        }
        NodeRef node = c.device(where, d.name, to_string(d.kind), label);
        c.set(node, extra);
        vnode[v] = node;
    }
    draw_links(c, g, vnode, host);
    const ClassCounts nic_classes = draw_gpu_nics(c, t, f, host);
    node_legend(c, t, host, nic_classes, highlighted);
}
}  // namespace planlayout::diagram
