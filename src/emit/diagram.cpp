// Emit: diagrams. The graph is built with cgraph (agopen/agsubg/agnode/agedge/agsafeset), DOT is
// cgraph's own agwrite into a string (before any layout, so no positions), SVG is gvLayout("dot")
// + gvRenderData("svg"). Every cgraph/gvc handle has an RAII owner.
#include "planlayout/emit/diagram.hpp"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "planlayout/emit/report_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/topology/topology.hpp"
#include "planlayout_embedded_style.hpp"

namespace planlayout {
namespace {

// ---------------------------------------------------------------------------------------------
// cgraph / gvc owners and helpers

// cgraph takes char* for strings it only reads (and copies into its own string pool).
char* cs(const std::string& s) { return const_cast<char*>(s.c_str()); }

char* cs(const char* s) { return const_cast<char*>(s); }

struct GraphCloser {
    void operator()(Agraph_t* g) const noexcept { agclose(g); }
};

using GraphPtr = std::unique_ptr<Agraph_t, GraphCloser>;

struct ContextCloser {
    void operator()(GVC_t* c) const noexcept { gvFreeContext(c); }
};

using ContextPtr = std::unique_ptr<GVC_t, ContextCloser>;

struct RenderDataFree {
    void operator()(char* p) const noexcept { gvFreeRenderData(p); }
};

/// Frees a layout (gvFreeLayout) when the render is done, whatever happens in between.
class LayoutGuard {
public:
    LayoutGuard(GVC_t* gvc, Agraph_t* g) : gvc_(gvc), g_(g) {}

    ~LayoutGuard() { gvFreeLayout(gvc_, g_); }

    LayoutGuard(const LayoutGuard&) = delete;
    LayoutGuard& operator=(const LayoutGuard&) = delete;
    LayoutGuard(LayoutGuard&&) = delete;
    LayoutGuard& operator=(LayoutGuard&&) = delete;

private:
    GVC_t* gvc_;
    Agraph_t* g_;
};

// agwrite's output goes through the graph's I/O discipline: this one appends to a std::string.
int put_string(void* chan, const char* s) {
    static_cast<std::string*>(chan)->append(s);
    return 0;
}

int flush_nothing(void* /*chan*/) { return 0; }

// cgraph's default ID discipline uses string addresses as IDs, and agwrite orders subgraphs by
// ID: the order would follow malloc. This one numbers names in creation order (even IDs; odd for
// anonymous objects, as cgraph expects), so the DOT is the same on every run.
struct NameIds {
    Agraph_t* root = nullptr;
    std::map<std::string, IDTYPE> ids;
    std::vector<char*> names;  // cgraph pool strings (agstrdup): agwrite checks them for HTML marks
    IDTYPE next_anonymous = 1;
};

void* ids_open(Agraph_t* g, Agdisc_t* /*disc*/) {
    auto state = std::make_unique<NameIds>();
    state->root = g;
    return state.release();
}

long ids_map(void* state, int /*objtype*/, char* str, IDTYPE* id, int createflag) {
    auto* s = static_cast<NameIds*>(state);
    if (str == nullptr) {
        *id = s->next_anonymous;
        s->next_anonymous += 2;
        return 1;
    }
    const auto it = s->ids.find(str);
    if (it != s->ids.end()) {
        *id = it->second;
        return 1;
    }
    if (createflag == 0) {
        return 0;
    }
    s->names.push_back(agstrdup(s->root, str));
    *id = 2 * static_cast<IDTYPE>(s->names.size());
    s->ids.emplace(str, *id);
    return 1;
}

long ids_alloc(void* /*state*/, int /*objtype*/, IDTYPE id) { return (id % 2 == 1) ? 1 : 0; }

// Names stay in the graph's string pool until agclose frees the pool.
void ids_free(void* /*state*/, int /*objtype*/, IDTYPE /*id*/) {}

char* ids_print(void* state, int /*objtype*/, IDTYPE id) {
    auto* s = static_cast<NameIds*>(state);
    if (id % 2 == 1 || id == 0 || id / 2 > s->names.size()) {
        return nullptr;
    }
    return s->names[static_cast<std::size_t>(id / 2 - 1)];
}

void ids_close(void* state) { std::unique_ptr<NameIds>(static_cast<NameIds*>(state)).reset(); }

void ids_register(void* /*state*/, int /*objtype*/, void* /*obj*/) {}

Agdisc_t* string_disc() {
    static Agiodisc_t io{AgIoDisc.afread, put_string, flush_nothing};
    static Agiddisc_t ids{ids_open, ids_map, ids_alloc, ids_free, ids_print, ids_close, ids_register};
    static Agdisc_t disc{&AgMemDisc, &ids, &io};
    return &disc;
}

using Attrs = std::vector<std::pair<const char*, std::string>>;

// Labels are written with DOT's "\\n" escape rather than raw newlines.
std::string escape_newlines(const std::string& v) {
    std::string out;
    out.reserve(v.size());
    for (const char ch : v) {
        if (ch == '\n') {
            out += "\\n";
        } else {
            out += ch;
        }
    }
    return out;
}

void set_attrs(void* obj, const Attrs& attrs) {
    for (const auto& [k, v] : attrs) {
        agsafeset(obj, cs(k), cs(std::string(k) == "label" ? escape_newlines(v) : v), cs(""));
    }
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;
    while (!s.empty() && s.back() == '0') {
        s.pop_back();
    }
    if (!s.empty() && s.back() == '.') {
        s.pop_back();
    }
    return s;
}

std::string bytes_text(double b) {
    const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (b >= 1000.0 && u < 5) {
        b /= 1000.0;
        ++u;
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3g %s", b, units[u]);
    return buf;
}

std::string first_colour(const std::string& colour_list) { return colour_list.substr(0, colour_list.find(':')); }

Attrs line_attrs(const LineStyle& l, double width_scale = 1.0) {
    return {{"color", l.color}, {"style", l.style}, {"penwidth", num(l.penwidth * width_scale)}};
}

/// The graph being drawn, and its look.
class Canvas {
public:
    Canvas(const std::string& title, const DiagramStyle& style, const char* rankdir) : style_(style) {
        graph_.reset(agopen(cs("plan_layout"), Agundirected, string_disc()));
        if (!graph_) {
            throw Error(ExitCode::Internal, "diagram", "cgraph could not open a graph");
        }
        // Defaults first, so that the DOT header declares them in a fixed order.
        const std::string fs = num(style.fontsize);
        agattr(g(), AGRAPH, cs("fontname"), cs(style.font));
        agattr(g(), AGRAPH, cs("fontsize"), cs(num(style.fontsize + 3)));
        agattr(g(), AGRAPH, cs("bgcolor"), cs(style.background));
        agattr(g(), AGRAPH, cs("rankdir"), cs(rankdir));
        agattr(g(), AGRAPH, cs("newrank"), cs("true"));
        agattr(g(), AGRAPH, cs("labelloc"), cs("t"));
        agattr(g(), AGRAPH, cs("label"), cs(escape_newlines(title)));
        agattr(g(), AGNODE, cs("fontname"), cs(style.font));
        agattr(g(), AGNODE, cs("fontsize"), cs(fs));
        agattr(g(), AGNODE, cs("shape"), cs("box"));
        agattr(g(), AGNODE, cs("style"), cs("filled"));
        agattr(g(), AGNODE, cs("fillcolor"), cs("#FFFFFF"));
        agattr(g(), AGNODE, cs("color"), cs(style.ink));
        agattr(g(), AGEDGE, cs("fontname"), cs(style.font));
        agattr(g(), AGEDGE, cs("fontsize"), cs(num(style.fontsize - 1)));
        agattr(g(), AGEDGE, cs("color"), cs(style.ink));
    }

    [[nodiscard]] Agraph_t* g() const { return graph_.get(); }

    [[nodiscard]] const DiagramStyle& style() const { return style_; }

    /// A cluster box (subgraph named cluster_<name>).
    Agraph_t* box(Agraph_t* parent, const std::string& name, const std::string& label) {
        Agraph_t* s = agsubg(parent, cs("cluster_" + name), 1);
        set_attrs(s, {{"label", label},
                      {"color", style_.cluster.color},
                      {"style", style_.cluster.style + ",filled"},
                      {"fillcolor", style_.cluster_fill}});
        return s;
    }

    /// A plain subgraph (rank constraints).
    Agraph_t* sub(Agraph_t* parent, const std::string& name, const Attrs& attrs) {
        Agraph_t* s = agsubg(parent, cs(name), 1);
        set_attrs(s, attrs);
        return s;
    }

    Agnode_t* node(Agraph_t* where, const std::string& name, const Attrs& attrs) {
        Agnode_t* n = agnode(where, cs(name), 1);
        set_attrs(n, attrs);
        return n;
    }

    Agnode_t* device(Agraph_t* where, const std::string& name, const std::string& kind, const std::string& label) {
        const DeviceStyle d = style_.device(kind);
        return node(where, name, {{"shape", d.shape}, {"fillcolor", d.fillcolor}, {"label", label}});
    }

    // Not const: it adds an edge to the graph this object owns (through a pointer).
    Agedge_t* edge(Agnode_t* a, Agnode_t* b, const Attrs& attrs) {  // NOLINT(readability-make-member-function-const)
        Agedge_t* e = agedge(g(), a, b, nullptr, 1);
        set_attrs(e, attrs);
        return e;
    }

    /// cgraph's own DOT writer, into a string.
    [[nodiscard]] std::string dot() const {
        std::string out;
        if (agwrite(g(), &out) != 0) {
            throw Error(ExitCode::Internal, "diagram", "cgraph could not write the graph");
        }
        return out;
    }

    /// Layout with the dot engine, rendered to SVG in memory.
    [[nodiscard]] std::string svg() const {
        agseterr(AGERR);  // layout warnings (e.g. label sizes) are not the user's problem
        const ContextPtr gvc(gvContext());
        if (!gvc) {
            throw Error(ExitCode::Internal, "diagram", "Graphviz could not create a context");
        }
        if (gvLayout(gvc.get(), g(), "dot") != 0) {
            throw Error(ExitCode::Internal, "diagram", "Graphviz's dot layout failed",
                        "check that the Graphviz plugins are installed (dot -c)");
        }
        const LayoutGuard layout(gvc.get(), g());
        char* data = nullptr;
        unsigned int length = 0;
        if (gvRenderData(gvc.get(), g(), "svg", &data, &length) != 0 || data == nullptr) {
            throw Error(ExitCode::Internal, "diagram", "Graphviz could not render SVG",
                        "check that the Graphviz core plugin is installed (dot -c)");
        }
        const std::unique_ptr<char, RenderDataFree> owned(data);
        return {data, length};
    }

private:
    const DiagramStyle& style_;
    GraphPtr graph_;
};

// ---------------------------------------------------------------------------------------------
// Legend: sample lines drawn with the very styles they explain, colour swatches, notes.

struct LegendLine {
    std::string text;
    LineStyle line;
};

struct LegendSwatch {
    std::string text;
    std::string fill;
    std::string style;
    std::string border;
    double penwidth = 1.0;
};

void add_legend(Canvas& c,
                const std::vector<LegendLine>& lines,
                const std::vector<LegendSwatch>& swatches,
                const std::vector<std::string>& notes,
                bool left_to_right) {
    Agraph_t* box = c.box(c.g(), "legend", "Legend");
    std::vector<Agnode_t*> column;  // top to bottom, chained for top-to-bottom layouts
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string id = "legend/line" + std::to_string(i);
        Agraph_t* row = left_to_right ? box : c.sub(box, "legend_row" + std::to_string(i), {{"rank", "same"}});
        Agnode_t* text = c.node(row, id, {{"shape", "plaintext"}, {"style", "solid"}, {"label", lines[i].text}});
        Agnode_t* end = c.node(row, id + "/end",
                               {{"shape", "point"}, {"width", "0.06"}, {"label", ""}, {"color", first_colour(lines[i].line.color)}});
        Attrs a = line_attrs(lines[i].line);
        a.emplace_back("minlen", "2");
        c.edge(text, end, a);
        column.push_back(text);
    }
    for (std::size_t i = 0; i < swatches.size(); ++i) {
        const auto& s = swatches[i];
        column.push_back(c.node(box, "legend/swatch" + std::to_string(i),
                                {{"shape", "box"},
                                 {"style", s.style},
                                 {"fillcolor", s.fill},
                                 {"color", s.border.empty() ? c.style().ink : s.border},
                                 {"penwidth", num(s.penwidth)},
                                 {"label", s.text}}));
    }
    if (!notes.empty()) {
        std::string text;
        for (const auto& n : notes) {
            text += n + "\\l";
        }
        column.push_back(c.node(box, "legend/notes", {{"shape", "plaintext"}, {"style", "solid"}, {"label", text}}));
    }
    if (!left_to_right) {
        for (std::size_t i = 0; i + 1 < column.size(); ++i) {
            c.edge(column[i], column[i + 1], {{"style", "invis"}});
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Shared facts

std::string base_name(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string title_of(const Report& report, const std::string& what) {
    return "plan-layout: " + base_name(report.layout_name) + " - " + what;
}

const char* pattern_text(Pattern p) {
    switch (p) {
        case Pattern::Ring:
            return "ring all-reduce";
        case Pattern::AllToAll:
            return "all-to-all";
        case Pattern::PipelineP2p:
            return "pipeline send/recv";
        case Pattern::Embedding:
            return "embedding all-reduce";
    }
    return "";
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return s;
}

/// How a diagram aggregates: the unit of each node (itself, or its block / scalable unit).
struct Units {
    bool aggregated = false;
    std::int64_t block = 1;  // nodes per unit
    std::string word;        // "node", "scalable unit", "block"

    [[nodiscard]] std::int64_t of(std::int64_t node) const { return node / block; }
};

Units units_for(const Report& report, const DiagramStyle& style) {
    Units u;
    const std::int64_t nodes = report.cluster.node_count();
    u.aggregated = nodes > style.full_max_nodes || report.cluster.total_gpus() > style.full_max_gpus;
    u.word = "node";
    if (u.aggregated && nodes > style.node_boxes_max) {
        const std::int64_t su = report.cluster.fabric.nodes_per_su;
        u.block = su > 0 ? su : std::max(1, style.block_nodes);
        u.word = su > 0 ? "scalable unit" : "block";
    }
    return u;
}

std::string unit_label(const Report& report, const Units& u, std::int64_t unit) {
    const std::int64_t nodes = report.cluster.node_count();
    const std::int64_t first = unit * u.block;
    const std::int64_t last = std::min(nodes, first + u.block) - 1;
    if (first == last) {
        return report.cluster.nodes[static_cast<std::size_t>(first)].host;
    }
    const std::string prefix = u.word == "scalable unit" ? "su" : "block";
    return prefix + std::to_string(unit) + ": " + report.cluster.nodes[static_cast<std::size_t>(first)].host + " - " +
           report.cluster.nodes[static_cast<std::size_t>(last)].host + " (" + std::to_string(last - first + 1) + " nodes)";
}

std::string unit_id(const Report& report, const Units& u, std::int64_t unit) {
    return u.block == 1 ? report.cluster.nodes[static_cast<std::size_t>(unit)].host : "unit" + std::to_string(unit);
}

// ---------------------------------------------------------------------------------------------
// View: one node's inside

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

    std::map<int, Agraph_t*> numa_box;
    for (const auto& cpu : t.cpus) {
        if (numa_box.count(cpu.numa) == 0) {
            numa_box[cpu.numa] = c.box(c.g(), "numa" + std::to_string(cpu.numa < 0 ? 0 : cpu.numa),
                                       cpu.numa < 0 ? std::string("NUMA ?") : "NUMA " + std::to_string(cpu.numa));
        }
    }
    std::vector<std::string> highlighted;
    std::vector<Agnode_t*> vnode(boost::num_vertices(g), nullptr);
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
        Agraph_t* where = c.g();
        if (d.kind != DeviceKind::NvSwitch) {
            const auto it = numa_box.find(numa);
            if (it != numa_box.end()) {
                where = it->second;
            }
        }
        Agnode_t* node = c.device(where, d.name, to_string(d.kind), label);
        set_attrs(node, extra);
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
    for (auto e : boost::make_iterator_range(boost::edges(g))) {
        const Link& l = g[e];
        Vertex a = boost::source(e, g);
        Vertex b = boost::target(e, g);
        if (level(g[a].kind) > level(g[b].kind) || (level(g[a].kind) == level(g[b].kind) && l.kind != LinkKind::Smp)) {
            std::swap(a, b);
        }
        Attrs attrs = line_attrs(st.link(to_string(l.kind)));
        if (l.kind == LinkKind::Smp) {
            attrs.emplace_back("xlabel", link_label(l));  // between CPUs of one rank: a flat edge
            attrs.emplace_back("constraint", "false");
        } else {
            attrs.emplace_back("label", link_label(l));
        }
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
        c.edge(agnode(c.g(), cs(host + "/gpu" + std::to_string(gi)), 0), agnode(c.g(), cs(nic_id), 0), a);
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

// ---------------------------------------------------------------------------------------------
// View: a kind's groups and the pairs its collective uses

struct GroupColour {
    std::string fill;
    std::string style;
};

GroupColour group_colour(const DiagramStyle& st, std::int64_t g) {
    if (g < 0) {
        return {st.device("gpu").fillcolor, "filled"};
    }
    const auto p = static_cast<std::int64_t>(std::max<std::size_t>(1, st.groups.size()));
    const auto s = static_cast<std::int64_t>(std::max<std::size_t>(1, st.group_styles.size()));
    return {st.groups.empty() ? std::string("#FFFFFF") : st.groups[static_cast<std::size_t>(g % p)],
            st.group_styles.empty() ? std::string("filled") : st.group_styles[static_cast<std::size_t>((g / p) % s)]};
}

void groups_view(Canvas& c, const Report& report, const DiagramOptions& options, const Units& units) {
    const GroupKind* kind = report.groups.find(options.kind);
    if (kind == nullptr) {
        std::string kinds;
        for (const auto& k : report.groups.kinds) {
            kinds += (kinds.empty() ? "" : ", ") + k.name;
        }
        throw input_error("--kind " + options.kind, "unknown or not created kind", "this spec creates: " + kinds);
    }
    const DiagramStyle& st = c.style();
    const Cluster& cl = report.cluster;
    const Placement& pl = report.placement;
    const PairClassifier classifier(cl, pl);
    const std::int64_t world = pl.world();
    std::vector<std::int64_t> group_of(static_cast<std::size_t>(world), -1);
    const std::int64_t groups = kind->group_count();

    ClassCounts totals{};
    // Pairs, by endpoints: GPU level when drawn in full, unit level when aggregated.
    std::map<std::pair<std::int64_t, std::int64_t>, ClassCounts> unit_pairs;  // (ua, ub), ua < ub
    std::map<std::int64_t, ClassCounts> inside_unit;
    std::map<std::int64_t, std::set<std::int64_t>> unit_groups;
    std::vector<std::tuple<std::int64_t, std::int64_t, PathClass>> gpu_pairs;  // full view only
    std::vector<std::int64_t> ranks;
    for (std::int64_t gi = 0; gi < groups; ++gi) {
        ranks = kind->group(gi);
        for (const auto r : ranks) {
            group_of[static_cast<std::size_t>(r)] = gi;
            unit_groups[units.of(pl.node[static_cast<std::size_t>(r)])].insert(gi);
        }
        for (const auto& [a, b] : used_pairs(kind->pattern, ranks, classifier, pl)) {
            const PathClass pc = classifier.classify(a, b);
            ++totals[static_cast<std::size_t>(pc)];
            if (!units.aggregated) {
                gpu_pairs.emplace_back(a, b, pc);
                continue;
            }
            const std::int64_t ua = units.of(pl.node[static_cast<std::size_t>(a)]);
            const std::int64_t ub = units.of(pl.node[static_cast<std::size_t>(b)]);
            if (ua == ub) {
                ++inside_unit[ua][static_cast<std::size_t>(pc)];
            } else {
                ++unit_pairs[{std::min(ua, ub), std::max(ua, ub)}][static_cast<std::size_t>(pc)];
            }
        }
    }

    std::vector<LegendLine> lines;
    std::vector<std::string> notes;
    std::int64_t cross = 0;
    std::int64_t total = 0;
    for (int pc = 0; pc < kPathClassCount; ++pc) {
        total += totals[static_cast<std::size_t>(pc)];
        if (is_cross_node(static_cast<PathClass>(pc))) {
            cross += totals[static_cast<std::size_t>(pc)];
        }
    }
    notes.push_back(kind->name + ": " + std::to_string(groups) + (groups == 1 ? " group" : " groups") + " x " +
                    std::to_string(kind->group_size()) + " ranks, " + pattern_text(kind->pattern));
    notes.push_back("used pairs: " + std::to_string(total) + " (" + class_counts_text(totals) + ")");
    notes.push_back("cross-node pairs: " + std::to_string(cross) + " of " + std::to_string(total) +
                    (cross == 0 ? " - the collective stays inside NVLink/PCIe" : " - these go over the network (RDMA/TCP)"));

    if (!units.aggregated) {
        // Every GPU of every node, coloured by its group; NVLink pairs of NVSwitch nodes meet at
        // the node's NVSwitch (a hub labelled with their count) so all-to-all stays readable.
        std::vector<std::vector<std::int64_t>> rank_at(cl.nodes.size());
        for (std::size_t n = 0; n < cl.nodes.size(); ++n) {
            rank_at[n].assign(static_cast<std::size_t>(cl.facts_of(static_cast<std::int64_t>(n)).gpu_count), -1);
        }
        for (std::int64_t r = 0; r < world; ++r) {
            rank_at[static_cast<std::size_t>(pl.node[static_cast<std::size_t>(r)])]
                   [static_cast<std::size_t>(pl.gpu[static_cast<std::size_t>(r)])] = r;
        }
        std::vector<std::int64_t> nv_pairs(cl.nodes.size(), 0);
        std::vector<std::set<std::int64_t>> nv_gpus(cl.nodes.size());
        std::vector<std::tuple<std::int64_t, std::int64_t, PathClass>> direct;
        for (const auto& [a, b, pc] : gpu_pairs) {
            const auto na = static_cast<std::size_t>(pl.node[static_cast<std::size_t>(a)]);
            const auto nb = static_cast<std::size_t>(pl.node[static_cast<std::size_t>(b)]);
            if (na == nb && pc == PathClass::Nv && cl.template_of(static_cast<std::int64_t>(na)).nvlink.nvswitch) {
                ++nv_pairs[na];
                nv_gpus[na].insert(pl.gpu[static_cast<std::size_t>(a)]);
                nv_gpus[na].insert(pl.gpu[static_cast<std::size_t>(b)]);
            } else {
                direct.emplace_back(a, b, pc);
            }
        }
        std::vector<Agnode_t*> gpu_node(static_cast<std::size_t>(world), nullptr);
        for (std::size_t n = 0; n < cl.nodes.size(); ++n) {
            const std::string& host = cl.nodes[n].host;
            Agraph_t* box = c.box(c.g(), host, host + " - " + cl.templates[static_cast<std::size_t>(cl.nodes[n].template_index)].name);
            // GPUs of a node share a rank, kept in index order by invisible flat edges.
            Agraph_t* column = c.sub(box, "gpus_" + host, {{"rank", "same"}});
            Agnode_t* previous = nullptr;
            Agnode_t* hub = nullptr;
            if (nv_pairs[n] > 0) {
                hub = c.device(box, host + "/nvswitch", "nvswitch",
                               "NVSwitch\n" + std::to_string(nv_pairs[n]) + " NV pairs");
            }
            for (std::size_t gi = 0; gi < rank_at[n].size(); ++gi) {
                const std::int64_t r = rank_at[n][gi];
                const std::int64_t grp = r >= 0 ? group_of[static_cast<std::size_t>(r)] : -1;
                const GroupColour colour = group_colour(st, grp);
                std::string label = "gpu" + std::to_string(gi);
                label += r < 0 ? std::string("\n(idle)") : "\nrank " + std::to_string(r);
                if (grp >= 0) {
                    label += "\nG" + std::to_string(grp);
                }
                Agnode_t* gn = c.device(column, host + "/gpu" + std::to_string(gi), "gpu", label);
                set_attrs(gn, {{"fillcolor", colour.fill}, {"style", colour.style}});
                if (previous != nullptr) {
                    c.edge(previous, gn, {{"style", "invis"}});
                }
                previous = gn;
                if (r >= 0) {
                    gpu_node[static_cast<std::size_t>(r)] = gn;
                }
                if (hub != nullptr && nv_gpus[n].count(static_cast<std::int64_t>(gi)) > 0) {
                    // Hubs sit on the outer side of their GPUs: left for the first half of nodes.
                    const bool left = 2 * n < cl.nodes.size();
                    c.edge(left ? hub : gn, left ? gn : hub, line_attrs(st.of(PathClass::Nv)));
                }
            }
        }
        // Node n+1's GPUs to the right of node n's, whether or not the kind's pairs cross.
        for (std::size_t n = 0; n + 1 < cl.nodes.size(); ++n) {
            Agnode_t* a = agnode(c.g(), cs(cl.nodes[n].host + "/gpu0"), 0);
            Agnode_t* b = agnode(c.g(), cs(cl.nodes[n + 1].host + "/gpu0"), 0);
            if (a != nullptr && b != nullptr) {
                c.edge(a, b, {{"style", "invis"}});
            }
        }
        for (const auto& [a, b, pc] : direct) {
            c.edge(gpu_node[static_cast<std::size_t>(a)], gpu_node[static_cast<std::size_t>(b)], line_attrs(st.of(pc)));
        }
    } else {
        std::int64_t unit_count = units.of(cl.node_count() - 1) + 1;
        std::vector<Agnode_t*> unit_node(static_cast<std::size_t>(unit_count), nullptr);
        for (std::int64_t u = 0; u < unit_count; ++u) {
            std::string label = unit_label(report, units, u);
            const auto it = unit_groups.find(u);
            std::int64_t only = -1;
            if (it == unit_groups.end() || it->second.empty()) {
                label += "\n(idle)";
            } else if (it->second.size() == 1) {
                only = *it->second.begin();
                label += "\nG" + std::to_string(only);
            } else {
                label += "\nG" + std::to_string(*it->second.begin()) + " - G" + std::to_string(*it->second.rbegin()) + " (" +
                         std::to_string(it->second.size()) + " groups)";
            }
            const auto in = inside_unit.find(u);
            if (in != inside_unit.end()) {
                label += "\ninside: " + class_counts_text(in->second);
            }
            const GroupColour colour = group_colour(st, only);
            unit_node[static_cast<std::size_t>(u)] =
                c.device(c.g(), unit_id(report, units, u), "node", label);
            set_attrs(unit_node[static_cast<std::size_t>(u)], {{"fillcolor", colour.fill}, {"style", colour.style}});
        }
        // A grid rather than one long column: unit u+k one rank to the right of unit u.
        const auto k = static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(unit_count))));
        for (std::int64_t u = 0; u + k < unit_count; ++u) {
            c.edge(unit_node[static_cast<std::size_t>(u)], unit_node[static_cast<std::size_t>(u + k)], {{"style", "invis"}});
        }
        for (const auto& [ends, counts] : unit_pairs) {
            PathClass worst = PathClass::Loc;
            std::int64_t n = 0;
            for (int pc = 0; pc < kPathClassCount; ++pc) {
                if (counts[static_cast<std::size_t>(pc)] > 0) {
                    worst = static_cast<PathClass>(pc);
                    n += counts[static_cast<std::size_t>(pc)];
                }
            }
            Attrs a = line_attrs(st.of(worst), 1.0 + std::log10(static_cast<double>(n)) / 2.0);
            a.emplace_back("xlabel", class_counts_text(counts));  // units may share a rank: no flat labels
            c.edge(unit_node[static_cast<std::size_t>(ends.first)], unit_node[static_cast<std::size_t>(ends.second)], a);
        }
        notes.push_back("aggregated (" + std::to_string(cl.node_count()) + " nodes, " + std::to_string(cl.total_gpus()) +
                        " GPUs): one box per " + units.word + (units.block > 1 ? " of " + std::to_string(units.block) + " nodes" : "") +
                        "; edge labels = used pairs by class, line = worst class, width grows with the count");
    }

    for (int pc = 1; pc < kPathClassCount; ++pc) {
        const auto cls = static_cast<PathClass>(pc);
        if (totals[static_cast<std::size_t>(pc)] > 0) {
            std::string text = std::string(to_string(cls)) + ": " + st.of(cls).meaning + " (" +
                               std::to_string(totals[static_cast<std::size_t>(pc)]) + " pairs)";
            if (cls == PathClass::Nv && !units.aggregated) {
                text += "\nNVSwitch nodes: drawn to the hub";
            }
            lines.push_back({text, st.of(cls)});
        }
    }
    std::vector<LegendSwatch> swatches;
    // Aggregated boxes are coloured only when they hold one group.
    bool any_single = !units.aggregated;
    for (const auto& [u, gs] : unit_groups) {
        any_single = any_single || gs.size() == 1;
    }
    const std::int64_t shown = any_single ? std::min<std::int64_t>(groups, units.aggregated ? 8 : 16) : 0;
    for (std::int64_t gi = 0; gi < shown; ++gi) {
        const GroupColour colour = group_colour(st, gi);
        swatches.push_back({"G" + std::to_string(gi) + ": " + kind->name + " group " + std::to_string(gi), colour.fill, colour.style,
                            "", 1.0});
    }
    if (shown == 0) {
        notes.emplace_back("boxes hold several groups each: white, with the range of groups they hold");
    } else if (groups > shown) {
        notes.push_back("groups G" + std::to_string(shown) + " and on: colours repeat (border style changes every " +
                        std::to_string(st.groups.size()) + " groups)");
    }
    add_legend(c, lines, swatches, notes, true);
}

// ---------------------------------------------------------------------------------------------
// View: the fabric (nodes, rails, leaves, spines)

LineStyle rail_line(const DiagramStyle& st, int rail, double scale) {
    LineStyle l = st.link("network");
    if (!st.rails.empty()) {
        const auto p = static_cast<int>(st.rails.size());
        l.color = st.rails[static_cast<std::size_t>(rail % p)];
        if (!st.rail_styles.empty()) {
            l.style = st.rail_styles[static_cast<std::size_t>((rail / p) % static_cast<int>(st.rail_styles.size()))];
        }
    }
    l.penwidth *= scale;
    return l;
}

void fabric_view(Canvas& c, const Report& report, const DiagramOptions& options, const Units& units) {
    const DiagramStyle& st = c.style();
    const Cluster& cl = report.cluster;
    const std::map<int, double> traffic = options.rail_bytes.empty() ? rail_traffic(report) : options.rail_bytes;
    double max_bytes = 0;
    for (const auto& [r, b] : traffic) {
        max_bytes = std::max(max_bytes, b);
    }
    auto scale_of = [&](int rail) {
        const auto it = traffic.find(rail);
        return (it == traffic.end() || max_bytes <= 0) ? 1.0 : 1.0 + 3.0 * it->second / max_bytes;
    };

    // leaf → rails that reach it; unit → leaf → links
    std::map<std::int64_t, std::set<int>> leaf_rails;
    std::map<std::int64_t, std::map<std::int64_t, std::int64_t>> unit_leaf_links;
    std::map<std::int64_t, std::map<std::int64_t, int>> unit_leaf_rail;  // one rail per (unit, leaf), for colour
    std::int64_t pods = 1;
    for (std::int64_t n = 0; n < cl.node_count(); ++n) {
        const auto rails = static_cast<int>(cl.facts_of(n).rail_nics.size());
        for (int r = 0; r < rails; ++r) {
            const std::int64_t leaf = cl.leaf_of(n, r);
            if (leaf < 0) {
                continue;
            }
            leaf_rails[leaf].insert(r);
            ++unit_leaf_links[units.of(n)][leaf];
            unit_leaf_rail[units.of(n)].emplace(leaf, r);
            pods = std::max(pods, cl.pod_of_leaf(leaf) + 1);
        }
    }
    const bool leaves_each = leaf_rails.size() <= 64;

    std::vector<Agnode_t*> spine(static_cast<std::size_t>(pods));
    Agraph_t* spine_row = c.sub(c.g(), "rank_spines", {{"rank", "same"}});
    for (std::int64_t p = 0; p < pods; ++p) {
        spine[static_cast<std::size_t>(p)] =
            c.device(spine_row, "spine" + std::to_string(p), "spine", "spine" + std::to_string(p) + (pods > 1 ? " (pod " + std::to_string(p) + ")" : ""));
    }
    if (pods > 1) {
        Agnode_t* core = c.device(c.g(), "core", "core", "core");
        for (auto* s : spine) {
            c.edge(core, s, line_attrs(st.link("network")));
        }
    }
    auto rail_text = [&](const std::set<int>& rails) {
        std::string s = rails.size() == 1 ? "rail " : "rails ";
        std::string list;
        for (const int r : rails) {
            list += (list.empty() ? "" : ",") + std::to_string(r);
        }
        s += list;
        for (const int r : rails) {
            const auto it = traffic.find(r);
            if (it != traffic.end()) {
                s += "\n" + (rails.size() > 1 ? "r" + std::to_string(r) + ": " : std::string()) + bytes_text(it->second) + "/step";
            }
        }
        return s;
    };

    std::map<std::int64_t, Agnode_t*> leaf_node;
    const std::int64_t unit_count = units.of(cl.node_count() - 1) + 1;
    std::map<std::int64_t, Agnode_t*> tier_node;  // aggregated leaves: one per unit
    if (leaves_each) {
        Agraph_t* leaf_row = c.sub(c.g(), "rank_leaves", {{"rank", "same"}});
        Agnode_t* previous = nullptr;
        for (const auto& [leaf, rails] : leaf_rails) {
            Agnode_t* ln = c.device(leaf_row, cl.leaf_name(leaf), "leaf", cl.leaf_name(leaf) + "\n" + rail_text(rails));
            if (previous != nullptr) {
                c.edge(previous, ln, {{"style", "invis"}});  // keeps leaves in id order
            }
            previous = ln;
            leaf_node[leaf] = ln;
            c.edge(spine[static_cast<std::size_t>(cl.pod_of_leaf(leaf))], ln, line_attrs(st.link("network")));
        }
    } else {
        Agraph_t* leaf_row = c.sub(c.g(), "rank_leaves", {{"rank", "same"}});
        for (std::int64_t u = 0; u < unit_count; ++u) {
            const auto& leaves = unit_leaf_links[u];
            if (leaves.empty()) {
                continue;
            }
            std::set<int> rails;
            for (const auto& [leaf, links] : leaves) {
                rails.insert(leaf_rails[leaf].begin(), leaf_rails[leaf].end());
            }
            Agnode_t* tn = c.device(leaf_row, unit_id(report, units, u) + "/leaves", "leaf",
                                    std::to_string(leaves.size()) + " leaves\n" + rail_text(rails));
            tier_node[u] = tn;
            std::set<std::int64_t> unit_pods;
            for (const auto& [leaf, links] : leaves) {
                unit_pods.insert(cl.pod_of_leaf(leaf));
            }
            for (const auto p : unit_pods) {
                Attrs a = line_attrs(st.link("network"));
                a.emplace_back("label", std::to_string(leaves.size()) + " uplink groups");
                c.edge(spine[static_cast<std::size_t>(p)], tn, a);
            }
        }
    }
    Agraph_t* node_row = c.sub(c.g(), "rank_nodes", {{"rank", "same"}});
    Agnode_t* previous_unit = nullptr;
    for (std::int64_t u = 0; u < unit_count; ++u) {
        std::string label = unit_label(report, units, u);
        if (units.block == 1) {
            const auto& f = cl.facts_of(u);
            label += "\n" + std::to_string(f.gpu_count) + " GPUs, " + std::to_string(f.rail_nics.size()) + " rails";
        }
        Agnode_t* un = c.device(node_row, unit_id(report, units, u), "node", label);
        if (previous_unit != nullptr) {
            c.edge(previous_unit, un, {{"style", "invis"}});  // keeps nodes in cluster order
        }
        previous_unit = un;
        if (!leaves_each) {
            const auto it = tier_node.find(u);
            if (it != tier_node.end()) {
                std::int64_t links = 0;
                for (const auto& [leaf, k] : unit_leaf_links[u]) {
                    links += k;
                }
                Attrs a = line_attrs(st.link("network"), 2.0);
                a.emplace_back("label", std::to_string(links) + " links");
                c.edge(it->second, un, a);
            }
            continue;
        }
        for (const auto& [leaf, links] : unit_leaf_links[u]) {
            const int rail = unit_leaf_rail[u][leaf];
            Attrs a = line_attrs(rail_line(st, rail, scale_of(rail)));
            if (units.block > 1) {
                a.emplace_back("label", std::to_string(links) + " links");
            }
            c.edge(leaf_node[leaf], un, a);
        }
    }

    std::vector<LegendLine> lines;
    if (leaves_each) {
        lines.push_back({"rail r: a node's NIC r - its leaf\n(one colour per rail; the leaf names its rails)", rail_line(st, 0, 1.0)});
    }
    lines.push_back({"leaf - spine uplinks", st.link("network")});
    std::vector<std::string> notes;
    notes.push_back(std::to_string(cl.node_count()) + " nodes, " + std::to_string(cl.total_gpus()) + " GPUs, " +
                    std::to_string(cl.rails) + " rails, " + std::to_string(leaf_rails.size()) + " leaves, " +
                    std::to_string(pods) + (pods == 1 ? " spine tier" : " spine tiers"));
    notes.push_back(cl.wiring.empty() ? std::string("wiring: rail-aligned (NIC i of every node on leaf i of its unit)")
                                      : std::string("wiring: explicit (a node's NIC i may sit on any leaf)"));
    notes.push_back(std::string("PXN: ") + (cl.fabric.pxn ? "on" : "off") +
                    (cl.fabric.oversubscription > 1.0 ? ", leaf oversubscription " + num(cl.fabric.oversubscription) + ":1" : ""));
    notes.push_back(traffic.empty() ? std::string("traffic per rail: not available (no score in the report)")
                                    : std::string("traffic per rail: from the score, bytes per step; line width grows with it"));
    if (units.aggregated) {
        notes.push_back("aggregated: one box per " + units.word +
                        (units.block > 1 ? " of " + std::to_string(units.block) + " nodes" : std::string()) +
                        (leaves_each ? std::string() : "; leaves grouped per " + units.word));
    }
    add_legend(c, lines, {}, notes, false);
}

// ---------------------------------------------------------------------------------------------
// Style parsing

LineStyle line_from(const nlohmann::json& j, const std::string& where, const LineStyle& fallback) {
    LineStyle l = fallback;
    if (!j.is_object()) {
        throw input_error(where, "expected an object {\"color\", \"style\", \"penwidth\"}");
    }
    try {
        if (j.contains("color")) {
            l.color = j.at("color").get<std::string>();
        }
        if (j.contains("style")) {
            l.style = j.at("style").get<std::string>();
        }
        if (j.contains("penwidth")) {
            l.penwidth = j.at("penwidth").get<double>();
        }
        if (j.contains("meaning")) {
            l.meaning = j.at("meaning").get<std::string>();
        }
    } catch (const nlohmann::json::exception& e) {
        throw input_error(where, std::string("wrong type: ") + e.what(), "color/style/meaning are strings, penwidth a number");
    }
    if (l.penwidth <= 0 || l.penwidth > 20) {
        throw input_error(where + "/penwidth", "pen width out of range", "use a number in (0, 20]");
    }
    return l;
}

std::vector<std::string> strings_from(const nlohmann::json& j, const std::string& where) {
    if (!j.is_array() || j.empty()) {
        throw input_error(where, "expected a non-empty array of strings");
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
        if (!j[i].is_string()) {
            throw input_error(where + "/" + std::to_string(i), "expected a string (a colour or style)");
        }
        out.push_back(j[i].get<std::string>());
    }
    return out;
}

}  // namespace

std::optional<DiagramView> parse_diagram_view(std::string_view s) {
    if (s == "node") {
        return DiagramView::Node;
    }
    if (s == "groups") {
        return DiagramView::Groups;
    }
    if (s == "fabric") {
        return DiagramView::Fabric;
    }
    return std::nullopt;
}

std::string_view to_string(DiagramView v) {
    switch (v) {
        case DiagramView::Node:
            return "node";
        case DiagramView::Groups:
            return "groups";
        case DiagramView::Fabric:
            return "fabric";
    }
    return "";
}

const LineStyle& DiagramStyle::link(const std::string& name) const {
    static const LineStyle kFallback;
    const auto it = links.find(name);
    return it == links.end() ? kFallback : it->second;
}

DeviceStyle DiagramStyle::device(const std::string& name) const {
    const auto it = devices.find(name);
    return it == devices.end() ? DeviceStyle{} : it->second;
}

DiagramStyle diagram_style_from_json(const std::string& text, const std::string& where) {
    const nlohmann::json j = parse_json_text(text, where);
    if (!j.is_object()) {
        throw input_error(where, "a style file is a JSON object", "start from viz/style.json");
    }
    DiagramStyle s;
    const std::set<std::string> known{"//",     "font",   "fontsize",     "background", "ink",   "muted",      "highlight",
                                      "classes", "links", "devices",      "groups",     "group_styles", "rails",
                                      "rail_styles", "cluster", "thresholds"};
    for (const auto& [k, v] : j.items()) {
        if (known.count(k) == 0) {
            throw input_error(where + " (/" + k + ")", "unknown key", "see viz/style.json for the keys");
        }
    }
    auto str = [&](const char* key, std::string& out) {
        if (j.contains(key)) {
            if (!j.at(key).is_string()) {
                throw input_error(where + " (/" + key + ")", "expected a string");
            }
            out = j.at(key).get<std::string>();
        }
    };
    str("font", s.font);
    str("background", s.background);
    str("ink", s.ink);
    str("muted", s.muted);
    if (j.contains("fontsize")) {
        if (!j.at("fontsize").is_number() || j.at("fontsize").get<double>() < 4 || j.at("fontsize").get<double>() > 72) {
            throw input_error(where + " (/fontsize)", "expected a number in [4, 72]");
        }
        s.fontsize = j.at("fontsize").get<double>();
    }
    if (j.contains("highlight")) {
        s.highlight = line_from(j.at("highlight"), where + " (/highlight)", s.highlight);
    }
    if (j.contains("classes")) {
        const auto& cls = j.at("classes");
        if (!cls.is_object()) {
            throw input_error(where + " (/classes)", "expected an object keyed by path class (NV, PIX, ..., XPOD)");
        }
        for (const auto& [k, v] : cls.items()) {
            const auto pc = parse_path_class(k);
            if (!pc) {
                throw input_error(where + " (/classes/" + k + ")", "unknown path class",
                                  "use NV, PIX, PXB, PHB, NODE, SYS, RAIL, PXN, XRAIL or XPOD");
            }
            s.classes[static_cast<std::size_t>(*pc)] = line_from(v, where + " (/classes/" + k + ")", {});
        }
    }
    if (j.contains("links")) {
        for (const auto& [k, v] : j.at("links").items()) {
            s.links[k] = line_from(v, where + " (/links/" + k + ")", {});
        }
    }
    if (j.contains("devices")) {
        for (const auto& [k, v] : j.at("devices").items()) {
            DeviceStyle d;
            if (!v.is_object()) {
                throw input_error(where + " (/devices/" + k + ")", "expected {\"shape\", \"fillcolor\"}");
            }
            d.shape = v.value("shape", d.shape);
            d.fillcolor = v.value("fillcolor", d.fillcolor);
            s.devices[k] = d;
        }
    }
    if (j.contains("groups")) {
        s.groups = strings_from(j.at("groups"), where + " (/groups)");
    }
    if (j.contains("group_styles")) {
        s.group_styles = strings_from(j.at("group_styles"), where + " (/group_styles)");
    }
    if (j.contains("rails")) {
        s.rails = strings_from(j.at("rails"), where + " (/rails)");
    }
    if (j.contains("rail_styles")) {
        s.rail_styles = strings_from(j.at("rail_styles"), where + " (/rail_styles)");
    }
    if (j.contains("cluster")) {
        s.cluster = line_from(j.at("cluster"), where + " (/cluster)", s.cluster);
        s.cluster_fill = j.at("cluster").value("fillcolor", s.cluster_fill);
    }
    if (j.contains("thresholds")) {
        const auto& t = j.at("thresholds");
        auto get = [&](const char* key, auto& out, std::int64_t lo, std::int64_t hi) {
            if (t.contains(key)) {
                if (!t.at(key).is_number_integer() || t.at(key).get<std::int64_t>() < lo || t.at(key).get<std::int64_t>() > hi) {
                    throw input_error(where + " (/thresholds/" + key + ")",
                                      "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
                }
                out = static_cast<std::remove_reference_t<decltype(out)>>(t.at(key).get<std::int64_t>());
            }
        };
        get("full_max_nodes", s.full_max_nodes, 1, 4096);
        get("full_max_gpus", s.full_max_gpus, 1, 1 << 20);
        get("node_boxes_max", s.node_boxes_max, 1, 100000);
        get("block_nodes", s.block_nodes, 1, 1 << 20);
    }
    return s;
}

const DiagramStyle& default_diagram_style() {
    static const DiagramStyle kStyle = diagram_style_from_json(kEmbeddedStyle, kEmbeddedStyleName);
    return kStyle;
}

// Estimated bytes per step each rail carries, from the score: every cross-node kind's bytes per
// rank, times the share of its used pairs that cross nodes, summed over the ranks of its
// node-spanning groups on each rail.
std::map<int, double> rail_traffic_from_score(const Report& report) {
    std::map<int, double> out;
    const PairClassifier classifier(report.cluster, report.placement);
    for (const auto& kb : report.score->by_kind) {
        if (!kb.cross_node || kb.bytes_per_step <= 0) {
            continue;
        }
        const GroupKind* kind = report.groups.find(kb.kind);
        const KindEdges* edges = nullptr;
        for (const auto& k : report.kinds) {
            if (k.kind == kb.kind) {
                edges = &k;
            }
        }
        if (kind == nullptr || edges == nullptr || edges->total_pairs() == 0) {
            continue;
        }
        const double cross_share = static_cast<double>(edges->cross_pairs()) / static_cast<double>(edges->total_pairs());
        for (std::int64_t g = 0; g < kind->group_count(); ++g) {
            const auto ranks = kind->group(g);
            const auto first = report.placement.node[static_cast<std::size_t>(ranks.front())];
            const bool spans = std::any_of(ranks.begin(), ranks.end(), [&](std::int64_t r) {
                return report.placement.node[static_cast<std::size_t>(r)] != first;
            });
            if (!spans) {
                continue;
            }
            for (const auto r : ranks) {
                const int rail = classifier.rail_of(r);
                if (rail >= 0) {
                    out[rail] += kb.bytes_per_step * cross_share;
                }
            }
        }
    }
    return out;
}

std::map<int, double> rail_traffic(const Report& report) {
    std::map<int, double> out;
    if (!report.sections.is_object() || !report.sections.contains("score")) {
        return report.score ? rail_traffic_from_score(report) : out;
    }
    const auto& score = report.sections.at("score");
    if (!score.is_object() || !score.contains("rail_bytes")) {
        return report.score ? rail_traffic_from_score(report) : out;
    }
    const auto& rb = score.at("rail_bytes");
    if (rb.is_array()) {
        for (std::size_t i = 0; i < rb.size(); ++i) {
            if (rb[i].is_number()) {
                out[static_cast<int>(i)] = rb[i].get<double>();
            }
        }
    } else if (rb.is_object()) {
        for (const auto& [k, v] : rb.items()) {
            if (v.is_number() && !k.empty() && std::all_of(k.begin(), k.end(), [](unsigned char ch) { return std::isdigit(ch); })) {
                out[std::stoi(k)] = v.get<double>();
            }
        }
    }
    return out;
}

bool diagram_aggregated(const Report& report, const DiagramStyle& style) { return units_for(report, style).aggregated; }

namespace {

std::unique_ptr<Canvas> build_diagram(const Report& report, const DiagramOptions& options, const DiagramStyle& style) {
    const Units units = units_for(report, style);
    std::string what;
    switch (options.view) {
        case DiagramView::Node:
            what = "node " + (options.host.empty() ? report.cluster.nodes.front().host : options.host);
            break;
        case DiagramView::Groups:
            what = options.kind + " groups and the pairs their collective uses";
            break;
        case DiagramView::Fabric:
            what = "fabric (nodes, rails, leaves, spines)";
            break;
    }
    auto canvas = std::make_unique<Canvas>(title_of(report, what), style, options.view == DiagramView::Fabric ? "TB" : "LR");
    switch (options.view) {
        case DiagramView::Node:
            node_view(*canvas, report, options);
            break;
        case DiagramView::Groups:
            groups_view(*canvas, report, options, units);
            break;
        case DiagramView::Fabric:
            fabric_view(*canvas, report, options, units);
            break;
    }
    return canvas;
}

}  // namespace

std::string diagram_dot(const Report& report, const DiagramOptions& options, const DiagramStyle& style) {
    return build_diagram(report, options, style)->dot();
}

std::string diagram_svg(const Report& report, const DiagramOptions& options, const DiagramStyle& style) {
    return build_diagram(report, options, style)->svg();
}

}  // namespace planlayout
