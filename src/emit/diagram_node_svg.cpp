// Emit: the node view as SVG, drawn with our SVG writer (the DOT form stays the graph of
// diagram_node.cpp). Graphviz drew the GPUs out of order (3,2,1,0 / 4,7,6,5), ran the NVLink
// curves across the NUMA boxes to an NVSwitch at the side, and gave the legend a third of a
// 2,100 px tall picture. Here every CPU's PCIe tree is a box (NUMA boxes left to right by their
// first GPU), switches above the devices they hold, GPUs and NICs on one row in index order,
// the NVSwitch a bar under that row (each GPU's NVLinks one short line down), direct NVLinks
// arcs under the row, SMP links arcs over the boxes, and a legend of a few lines.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "diagram_canvas.hpp"
#include "diagram_chart.hpp"

namespace planlayout::diagram {

using svg::Anchor;

namespace {

constexpr double kNodeMargin = 16;
constexpr double kRowH = 66;    // a tree level: box and the gap under it
constexpr double kBoxH = 38;
constexpr double kLeafH = 46;
constexpr double kNodeGap = 8;      // between sibling subtrees
constexpr double kNodeLine = 13;

int level_of(DeviceKind k) {
    return k == DeviceKind::Cpu ? 0 : k == DeviceKind::PcieSwitch ? 1 : 2;
}

// The node's devices as a forest under its CPUs: children ordered by the first GPU they hold.
struct DeviceTree {
    std::vector<std::vector<Vertex>> children;
    std::vector<int> first_gpu;  // the smallest GPU index in the subtree (a large number: none)
    std::vector<double> own;     // the box's width
    std::vector<double> width;   // the subtree's
    std::vector<double> x;       // left edge of the box
    std::vector<int> depth;
    std::vector<Vertex> roots;   // CPUs, then devices no CPU reaches (except NVSwitches)
    int max_depth = 0;
};

double base_width(const Device& d) {
    switch (d.kind) {
        case DeviceKind::Gpu:
            return 70;
        case DeviceKind::Nic:
        case DeviceKind::TcpInterface:
            return 84;
        default:
            return 64;
    }
}

// `own`: each device's box width (its text's).
DeviceTree build_tree(const Graph& g, std::vector<double> own) {
    const std::size_t n = boost::num_vertices(g);
    DeviceTree t;
    t.own = std::move(own);
    t.children.resize(n);
    t.first_gpu.assign(n, 1 << 30);
    t.width.assign(n, 0);
    t.x.assign(n, 0);
    t.depth.assign(n, -1);
    std::vector<Vertex> order;
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
        if (g[v].kind == DeviceKind::Cpu) {
            t.depth[v] = 0;
            order.push_back(v);
            t.roots.push_back(v);
        }
    }
    // Breadth first over PCIe links, outwards (a child's level is not above its parent's).
    for (std::size_t i = 0; i < order.size(); ++i) {
        const Vertex v = order[i];
        for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
            const Vertex w = boost::target(e, g);
            if (g[e].kind != LinkKind::Pcie || t.depth[w] >= 0 || level_of(g[w].kind) < level_of(g[v].kind)) {
                continue;
            }
            t.depth[w] = t.depth[v] + 1;
            t.children[v].push_back(w);
            order.push_back(w);
        }
    }
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
        if (t.depth[v] < 0 && g[v].kind != DeviceKind::NvSwitch) {
            t.depth[v] = 0;
            t.roots.push_back(v);
            order.push_back(v);
        }
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const Vertex v = *it;
        if (g[v].kind == DeviceKind::Gpu) {
            t.first_gpu[v] = g[v].index;
        }
        for (const Vertex c : t.children[v]) {
            t.first_gpu[v] = std::min(t.first_gpu[v], t.first_gpu[c]);
        }
        auto& ch = t.children[v];
        std::sort(ch.begin(), ch.end(), [&](Vertex a, Vertex b) {
            if (t.first_gpu[a] != t.first_gpu[b]) {
                return t.first_gpu[a] < t.first_gpu[b];
            }
            if (g[a].kind != g[b].kind) {
                return g[a].kind < g[b].kind;  // GPU before NIC before the rest
            }
            return device_less(g[a].name, g[b].name);
        });
        double sum = 0;
        for (const Vertex c : ch) {
            sum += t.width[c] + (sum > 0 ? kNodeGap : 0);
        }
        t.width[v] = std::max(t.own[v], sum);
        t.max_depth = std::max(t.max_depth, t.depth[v]);
    }
    std::stable_sort(t.roots.begin(), t.roots.end(), [&](Vertex a, Vertex b) { return t.first_gpu[a] < t.first_gpu[b]; });
    return t;
}

void place_subtree(DeviceTree& t, Vertex v, double left) {
    t.x[v] = left + (t.width[v] - t.own[v]) / 2;
    double x = left;
    double sum = 0;
    for (const Vertex c : t.children[v]) {
        sum += t.width[c] + (sum > 0 ? kNodeGap : 0);
    }
    x += (t.width[v] - sum) / 2;
    for (const Vertex c : t.children[v]) {
        place_subtree(t, c, x);
        x += t.width[c] + kNodeGap;
    }
}

// Leaves (GPUs, NICs) on the bottom row; switches and CPUs on their level's row.
double row_y(const DeviceTree& t, const Graph& g, Vertex v, double top) {
    const bool leaf = t.children[v].empty() && g[v].kind != DeviceKind::Cpu && g[v].kind != DeviceKind::PcieSwitch;
    return top + (leaf ? static_cast<double>(t.max_depth) : static_cast<double>(t.depth[v])) * kRowH;
}

svg::Attrs line_of(const LineStyle& l) {
    svg::Attrs a{{"stroke", plain_colour(l.color)}, {"stroke-width", svg::num(std::min(3.0, std::max(1.2, l.penwidth)))}, {"fill", "none"}};
    if (l.style.find("dashed") != std::string::npos) {
        a.emplace_back("stroke-dasharray", "6 3");
    } else if (l.style.find("dotted") != std::string::npos) {
        a.emplace_back("stroke-dasharray", "2 3");
    }
    return a;
}

// A device's lines of text.
std::vector<std::string> device_lines(const Device& d, const std::string& host, const NodeTemplate& tmpl,
                                      const TemplateFacts& f, bool& far) {
    std::vector<std::string> lines{d.name.substr(host.size() + 1)};
    far = false;
    if (d.kind == DeviceKind::Gpu) {
        const auto gi = static_cast<std::size_t>(d.index);
        const int rail = gi < f.gpu_rail.size() ? f.gpu_rail[gi] : -1;
        if (rail < 0) {
            lines.emplace_back("no RDMA NIC");
        } else {
            const PathClass pc = f.gpu_nic_class[gi];
            const Nic& nic = tmpl.nics[static_cast<std::size_t>(f.rail_nics[static_cast<std::size_t>(rail)])];
            far = pc == PathClass::Sys || (nic.numa >= 0 && d.numa >= 0 && nic.numa != d.numa);
            lines.push_back("NIC " + std::string(to_string(pc)) + (far ? " away" : ""));
        }
    } else if (d.kind == DeviceKind::Nic) {
        const Nic& nic = tmpl.nics[static_cast<std::size_t>(d.index)];
        std::string speed = nic.speed_gbit_s > 0 ? svg::num(nic.speed_gbit_s) + " Gb/s" : std::string();
        if (!nic.link_layer.empty()) {
            speed += (speed.empty() ? "" : " ") + nic.link_layer;
        }
        if (!speed.empty()) {
            lines.push_back(speed);
        }
        const auto r = std::find(f.rail_nics.begin(), f.rail_nics.end(), d.index);
        if (r != f.rail_nics.end()) {
            lines.push_back("rail " + std::to_string(r - f.rail_nics.begin()));
        } else if (nic.role != "compute") {
            lines.push_back(nic.role);
        }
    } else if (d.kind == DeviceKind::TcpInterface) {
        lines.emplace_back("TCP");
    }
    return lines;
}

// What a device's text is made of.
struct NodeFacts {
    const std::string& host;
    const NodeTemplate& tmpl;
    const TemplateFacts& facts;
};

// Every device but the NVSwitch: a box with its lines of text, far-NIC GPUs outlined.
void draw_devices(svg::Document& doc, const DiagramStyle& style, const DeviceTree& t, const Graph& g, const NodeFacts& nf,
                  double rows_top, double leaf_y) {
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
        const Device& d = g[v];
        if (d.kind == DeviceKind::NvSwitch) {
            continue;
        }
        bool far = false;
        const std::vector<std::string> lines = device_lines(d, nf.host, nf.tmpl, nf.facts, far);
        const double y = row_y(t, g, v, rows_top);
        const double h = y >= leaf_y ? kLeafH : kBoxH;
        const std::string fill = plain_colour(style.device(d.kind == DeviceKind::PcieSwitch ? "pcie_switch"
                                                           : d.kind == DeviceKind::TcpInterface ? "tcp"
                                                                                                 : to_string(d.kind)).fillcolor);
        svg::Attrs a{{"fill", fill}, {"stroke", far ? plain_colour(style.highlight.color) : style.ink},
                     {"stroke-width", far ? "3" : "1"}, {"rx", d.kind == DeviceKind::Cpu ? "0" : "3"}};
        doc.rect(t.x[v], y, t.own[v], h, a);
        const double first = y + (h - static_cast<double>(lines.size()) * kNodeLine) / 2 + 10;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            doc.text(t.x[v] + t.own[v] / 2, first + static_cast<double>(i) * kNodeLine, lines[i], Anchor::Middle,
                     {{"class", i == 0 ? "head" : "label"}});
        }
    }
}

// Where the NVLink part goes: under the device row, the bar's top, the boxes' left and right.
struct NvGeometry {
    double leaf_y;
    double nv_top;
    double left;
    double right;
};

// NVLink: each GPU one line down to the NVSwitch bar (its links said once on the bar when every
// GPU has as many); GPU pairs linked directly as arcs under the row.
void draw_nvlink(svg::Document& doc, const DiagramStyle& style, const DeviceTree& t, const Graph& g, const NvGeometry& at) {
    const LineStyle& nvl = style.link("nvlink");
    std::set<std::string> labels;
    int nvswitches = 0;
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
        nvswitches += g[v].kind == DeviceKind::NvSwitch ? 1 : 0;
    }
    for (auto e : boost::make_iterator_range(boost::edges(g))) {
        if (g[e].kind == LinkKind::NvLink) {
            labels.insert(link_label(g[e]));
        }
    }
    auto centre_x = [&](Vertex v) { return t.x[v] + t.own[v] / 2; };
    const double row_bottom = at.leaf_y + kLeafH;
    for (auto e : boost::make_iterator_range(boost::edges(g))) {
        if (g[e].kind != LinkKind::NvLink) {
            continue;
        }
        Vertex a = boost::source(e, g);
        Vertex b = boost::target(e, g);
        if (g[a].kind == DeviceKind::NvSwitch) {
            std::swap(a, b);
        }
        if (g[b].kind == DeviceKind::NvSwitch) {
            const double gx = centre_x(a);
            doc.line(gx, row_bottom, gx, at.nv_top, line_of(nvl));
            if (labels.size() > 1) {
                doc.text(gx + 3, at.nv_top - 6, link_label(g[e]), Anchor::Start, {{"class", "small"}});
            }
        } else {
            const double xa = centre_x(a);
            const double xb = centre_x(b);
            const double dip = std::min(60.0, 16 + std::abs(xb - xa) / 12);
            doc.path("M" + svg::num(xa) + "," + svg::num(row_bottom) + " Q" + svg::num((xa + xb) / 2) + "," +
                         svg::num(row_bottom + 2 * dip) + " " + svg::num(xb) + "," + svg::num(row_bottom),
                     line_of(nvl));
        }
    }
    if (nvswitches > 0) {
        const double left = at.left - 4;
        const double right = at.right + 4;
        doc.rect(left, at.nv_top, right - left, 26,
                 {{"fill", plain_colour(style.device("nvswitch").fillcolor)}, {"stroke", style.ink}, {"rx", "4"}});
        std::string text = nvswitches == 1 ? std::string("NVSwitch") : std::to_string(nvswitches) + " NVSwitches";
        if (labels.size() == 1) {
            text += ": every GPU " + *labels.begin() + (nvswitches > 1 ? " in all" : "");
        }
        doc.text((left + right) / 2, at.nv_top + 17, text, Anchor::Middle, {{"class", "head"}});
    }
}

// SMP links: arcs over the boxes, between the CPUs, the first one named. Whether there was one.
bool draw_smp(svg::Document& doc, const DiagramStyle& style, const DeviceTree& t, const Graph& g, double rows_top, double boxes_top) {
    bool any = false;
    auto centre_x = [&](Vertex v) { return t.x[v] + t.own[v] / 2; };
    for (auto e : boost::make_iterator_range(boost::edges(g))) {
        if (g[e].kind != LinkKind::Smp) {
            continue;
        }
        const double xa = centre_x(boost::source(e, g));
        const double xb = centre_x(boost::target(e, g));
        doc.path("M" + svg::num(xa) + "," + svg::num(rows_top) + " C" + svg::num(xa) + "," + svg::num(boxes_top - 30) + " " +
                     svg::num(xb) + "," + svg::num(boxes_top - 30) + " " + svg::num(xb) + "," + svg::num(rows_top),
                 line_of(style.link("smp")));
        if (!any) {
            doc.text((xa + xb) / 2, boxes_top - 26, "SMP (inter-socket)", Anchor::Middle, {{"class", "label"}});
            any = true;
        }
    }
    return any;
}

// Which line samples the legend shows.
struct LegendLines {
    bool nvlink;
    bool nvlink_alike;  // the NVSwitch bar gives the count
    bool smp;
};

// The legend at y: line samples and the far-NIC outline on one row, then the notes.
void draw_node_legend(svg::Document& doc, const DiagramStyle& style, double y, const LegendLines& which,
                 const std::vector<std::string>& notes) {
    double lx = kNodeMargin;
    std::vector<std::pair<std::string, const LineStyle*>> samples;
    if (which.nvlink) {
        samples.emplace_back(which.nvlink_alike ? "NVLink" : "NVLink (NV<links>)", &style.link("nvlink"));
    }
    samples.emplace_back("PCIe", &style.link("pcie"));
    if (which.smp) {
        samples.emplace_back("SMP / inter-socket", &style.link("smp"));
    }
    for (const auto& sample : samples) {
        doc.line(lx, y - 4, lx + 28, y - 4, line_of(*sample.second));
        doc.text(lx + 34, y, sample.first, Anchor::Start, {{"class", "label"}});
        lx += 34 + text_px(sample.first, 11) + 24;
    }
    doc.rect(lx, y - 11, 28, 12, {{"fill", "#FFFFFF"}, {"stroke", plain_colour(style.highlight.color)}, {"stroke-width", "3"}});
    doc.text(lx + 34, y, "GPU whose NIC is SYS away (other NUMA node)", Anchor::Start, {{"class", "label"}});
    y += kNodeLine + 6;
    for (const auto& note : notes) {
        doc.text(kNodeMargin, y, note, Anchor::Start, {{"class", "label"}});
        y += kNodeLine;
    }
}

}  // namespace

std::string node_svg(const Report& report, const DiagramOptions& options, const DiagramStyle& style) {
    const Cluster& cl = report.cluster;
    const std::int64_t n = node_index(cl, options.host);
    const std::string& host = cl.nodes[static_cast<std::size_t>(n)].host;
    const NodeTemplate& tmpl = cl.template_of(n);
    const TemplateFacts& f = cl.facts_of(n);
    const Topology topo = build_node_topology(tmpl, host);
    const Graph& g = topo.graph();
    std::vector<double> own(boost::num_vertices(g), 0);
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
        bool far = false;
        own[v] = base_width(g[v]);
        for (const auto& line : device_lines(g[v], host, tmpl, f, far)) {
            own[v] = std::max(own[v], text_px(line, 11) + 8);
        }
    }
    DeviceTree t = build_tree(g, own);

    // The PCIe labels: one line in the legend when every PCIe link reads alike.
    std::map<std::string, int> pcie_labels;
    std::map<std::string, int> nv_labels;
    std::vector<Vertex> nvswitches;
    for (auto e : boost::make_iterator_range(boost::edges(g))) {
        if (g[e].kind == LinkKind::Pcie) {
            ++pcie_labels[link_label(g[e])];
        } else if (g[e].kind == LinkKind::NvLink) {
            ++nv_labels[link_label(g[e])];
        }
    }
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
        if (g[v].kind == DeviceKind::NvSwitch) {
            nvswitches.push_back(v);
        }
    }
    // The most common PCIe label is said once; links that differ are labelled.
    std::string pcie_usual;
    int pcie_most = 0;
    for (const auto& pl : pcie_labels) {
        if (pl.second > pcie_most) {
            pcie_usual = pl.first;
            pcie_most = pl.second;
        }
    }
    const bool nv_alike = nv_labels.size() <= 1;

    const double boxes_top = 84;  // title, then room for the SMP arcs
    const double pad = 10;
    double x = kNodeMargin;
    std::vector<std::pair<double, double>> box_span;  // per root: left, right of its NUMA box
    for (const Vertex r : t.roots) {
        place_subtree(t, r, x + pad);
        box_span.emplace_back(x, x + t.width[r] + 2 * pad);
        x += t.width[r] + 2 * pad + 16;
    }
    const double content_w = x - 16 + kNodeMargin;
    const double rows_top = boxes_top + 26;
    const double leaf_y = rows_top + static_cast<double>(t.max_depth) * kRowH;
    const double boxes_bottom = leaf_y + kLeafH + pad;
    bool direct_nv = false;
    for (auto e : boost::make_iterator_range(boost::edges(g))) {
        direct_nv = direct_nv || (g[e].kind == LinkKind::NvLink && g[boost::source(e, g)].kind == DeviceKind::Gpu &&
                                  g[boost::target(e, g)].kind == DeviceKind::Gpu);
    }
    const double nv_top = boxes_bottom + (direct_nv ? 70 : 34);
    const double nv_bottom = nvswitches.empty() ? boxes_bottom + (direct_nv ? 70 : 0) : nv_top + 30;
    std::vector<std::string> notes;
    notes.push_back(host + ": " + tmpl.name + " (" + std::to_string(tmpl.gpus.size()) + " GPUs, " + std::to_string(tmpl.nics.size()) +
                    " NICs, " + std::to_string(tmpl.cpus.size()) + " CPUs); a box per CPU and its PCIe tree, GPUs in index order");
    if (!pcie_usual.empty()) {
        notes.push_back(pcie_labels.size() == 1 ? "every PCIe link: " + pcie_usual
                                                : "PCIe links: " + pcie_usual + " unless labelled");
    }
    std::vector<std::string> far_gpus;
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
        bool far = false;
        if (g[v].kind == DeviceKind::Gpu) {
            (void)device_lines(g[v], host, tmpl, f, far);
            if (far) {
                far_gpus.push_back(g[v].name.substr(host.size() + 1));
            }
        }
    }
    std::string far_text;
    for (const auto& s : far_gpus) {
        far_text += (far_text.empty() ? "" : ", ") + s;
    }
    notes.push_back("GPU - its NIC: the class NCCL sees (PIX one switch, PXB several, PHB/NODE the CPU, SYS the other socket); "
                    "NIC SYS away (outlined): " + (far_text.empty() ? std::string("none") : far_text));
    const double legend_top = nv_bottom + 28;
    const double width = std::max(content_w, 760.0);
    const double height = legend_top + 2 * kNodeLine + static_cast<double>(notes.size()) * kNodeLine + 10;

    svg::Document doc(width, height, title_of(report, "node " + host));
    chart_style(doc, style);
    doc.text(kNodeMargin, 22, title_of(report, "node " + host), Anchor::Start, {{"class", "title"}});

    // NUMA boxes.
    for (std::size_t i = 0; i < t.roots.size(); ++i) {
        const Device& d = g[t.roots[i]];
        const std::string head = d.kind == DeviceKind::Cpu ? (d.numa < 0 ? std::string("NUMA ?") : "NUMA " + std::to_string(d.numa))
                                                           : std::string("unattached");
        const double w = box_span[i].second - box_span[i].first;
        doc.rect(box_span[i].first, boxes_top, w, boxes_bottom - boxes_top,
                 {{"fill", style.cluster_fill}, {"stroke", style.muted}, {"rx", "6"}});
        doc.text(box_span[i].first + 8, boxes_top + 16, head, Anchor::Start, {{"class", "head"}});
    }
    // PCIe tree lines, labelled when the links differ.
    const LineStyle& pcie = style.link("pcie");
    auto centre_x = [&](Vertex v) { return t.x[v] + t.own[v] / 2; };
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
        for (const Vertex c : t.children[v]) {
            const double x1 = centre_x(v);
            const double y1 = row_y(t, g, v, rows_top) + kBoxH;
            const double x2 = centre_x(c);
            const double y2 = row_y(t, g, c, rows_top);
            // Square: down to a bus under the parent, across, down to the child (a line never
            // passes behind a sibling's box).
            const double bus = y1 + (kRowH - kBoxH) / 2;
            doc.polyline({{x1, y1}, {x1, bus}, {x2, bus}, {x2, y2}}, line_of(pcie));
            const auto e = boost::edge(v, c, g);
            if (e.second && link_label(g[e.first]) != pcie_usual) {
                doc.text(x2 + 3, y2 - 6, link_label(g[e.first]), Anchor::Start, {{"class", "small"}});
            }
        }
    }
    draw_devices(doc, style, t, g, {host, tmpl, f}, rows_top, leaf_y);
    draw_nvlink(doc, style, t, g, {leaf_y, nv_top, box_span.front().first, box_span.back().second});
    const bool smp_labelled = draw_smp(doc, style, t, g, rows_top, boxes_top);
    draw_node_legend(doc, style, legend_top, {!nv_labels.empty(), nv_alike, smp_labelled}, notes);
    return doc.str();
}

}  // namespace planlayout::diagram
