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
namespace {

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

}  // namespace

void node_view(Canvas& c, const Report& report, const DiagramOptions& options) {
    const Cluster& cl = report.cluster;
    std::int64_t n = 0;
    if (!options.host.empty()) {
        n = -1;
        for (std::size_t i = 0; i < cl.nodes.size(); ++i) {
            if (cl.nodes[i].host == options.host) {
                n = static_cast<std::int64_t>(i);
                break;
            }
        }
        if (n < 0) {
            std::string hosts;
            for (std::size_t i = 0; i < cl.nodes.size() && i < 8; ++i) {
                hosts += (i ? ", " : "") + cl.nodes[i].host;
            }
            throw input_error("--node " + options.host, "no node of that name in the cluster",
                              "nodes are " + hosts + (cl.nodes.size() > 8 ? ", ..." : ""));
        }
    }
    const std::string& host = cl.nodes[static_cast<std::size_t>(n)].host;
    const NodeTemplate& t = cl.template_of(n);
    const TemplateFacts& f = cl.facts_of(n);
    const DiagramStyle& st = c.style();
    const Topology topo = build_node_topology(t, host);
    const Graph& g = topo.graph();

    // NUMA of PCIe switches: follow parents up to a CPU.
    std::map<std::string, int> numa_of;  // lower-case local name → NUMA
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
        std::string label = d.name.substr(host.size() + 1);
        Attrs extra;
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
    // Edges run from the CPU side outwards (CPU → PCIe switches → GPUs/NICs → NVSwitch), so the
    // layout reads left to right. The topology connects children to parents: reverse those.
    auto level = [](DeviceKind k) {
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
    };
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
        if (level(g[a].kind) > level(g[b].kind) || (level(g[a].kind) == level(g[b].kind) && l.kind != LinkKind::Smp)) {
            std::swap(a, b);
        }
        Attrs attrs = line_attrs(st.link(to_string(l.kind)));
        attrs.emplace_back("label", link_label(l));
        c.edge(vnode[a], vnode[b], attrs);
    }
    // Each GPU's NIC (NCCL's choice: the nearest compute RDMA NIC), labelled with its class.
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
}  // namespace planlayout::diagram
