// Emit: the fabric view at scale (an aggregated cluster), drawn with our SVG writer: the core, one
// spine bar per pod (per row of units), and one box per scalable unit (or block of nodes) with
// its leaves, the busiest NIC and the uplink bytes per step from analysis/fabric_load (never more
// boxes than the style's node_boxes_max); line widths grow with the bytes. Graphviz's layout of
// the same aggregated graph is one row of boxes, 10,000 px wide at 1,024 nodes; this stays
// within 2,000 x 2,000 px.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "diagram_chart.hpp"
#include "planlayout/analysis/fabric_load.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout::diagram {

using svg::Anchor;

namespace {


constexpr int kDetailedUnits = 8;        // up to this many units, boxes list their leaves
constexpr double kCoreBarX = 16;
constexpr double kRowsX = 70;
constexpr double kGap = 6;

struct Unit {
    std::int64_t first = 0;
    std::int64_t last = 0;
    std::int64_t pod = 0;
    std::set<std::int64_t> leaves;
    double nic_max = 0;          // the busiest NIC of its nodes
    std::string nic_max_name;
    double up_bytes = 0;         // its leaves' uplinks together
    double up_gbyte_s = 0;
    bool bottleneck = false;
};

std::string leaf_line(const Cluster& cl, const FabricLoad& load, const Unit& u, std::int64_t leaf) {
    double nic = 0;
    for (std::int64_t n = u.first; n <= u.last; ++n) {
        for (int r = 0; r < load.rails; ++r) {
            if (cl.leaf_of(n, r) == leaf) {
                nic = std::max(nic, load.nic_bytes[static_cast<std::size_t>(n * load.rails + r)]);
            }
        }
    }
    return cl.leaf_name(leaf) + ": NIC " + human_bytes(nic) + ", up " + human_bytes(load.leaf_up_bytes[static_cast<std::size_t>(leaf)]);
}

// The bottleneck link's node (a NIC tier) or leaf (the leaf uplinks), to outline its unit; -1: none.
struct HotSpot {
    std::int64_t node = -1;
    std::int64_t leaf = -1;
};

// Where the bottleneck link is, from its busiest link's name.
HotSpot hot_spot(const Cluster& cl, const FabricLoad& load) {
    HotSpot hot;
    if (!load.bottleneck) {
        return hot;
    }
    const TierLoad& b = load.rows[*load.bottleneck];
    if (b.tier == LinkTier::NodeLeaf || b.tier == LinkTier::NodeTcp) {
        for (std::int64_t n = 0; n < cl.node_count() && hot.node < 0; ++n) {
            if (b.busiest.rfind(cl.nodes[static_cast<std::size_t>(n)].host + " ", 0) == 0) {
                hot.node = n;
            }
        }
    } else if (b.tier == LinkTier::LeafSpine) {
        for (std::int64_t l = 0; l < load.leaves && hot.leaf < 0; ++l) {
            if (b.busiest.rfind(cl.leaf_name(l) + " ", 0) == 0) {
                hot.leaf = l;
            }
        }
    }
    return hot;
}

// The units of `block` nodes each (by index), with their leaves, busiest NIC and uplinks.
std::vector<Unit> units_of(const Cluster& cl, const FabricLoad& load, std::int64_t block, const HotSpot& hot) {
    const std::int64_t nodes = cl.node_count();
    std::vector<Unit> units;
    for (std::int64_t first = 0; first < nodes; first += block) {
        Unit u;
        u.first = first;
        u.last = std::min(nodes, first + block) - 1;
        for (std::int64_t n = u.first; n <= u.last; ++n) {
            const auto rails = static_cast<int>(cl.facts_of(n).rail_nics.size());
            for (int r = 0; r < rails; ++r) {
                const std::int64_t leaf = cl.leaf_of(n, r);
                if (leaf >= 0) {
                    u.leaves.insert(leaf);
                }
                const double b = load.nic_bytes.empty() ? 0.0 : load.nic_bytes[static_cast<std::size_t>(n * load.rails + r)];
                if (b > u.nic_max || u.nic_max_name.empty()) {
                    u.nic_max = b;
                    u.nic_max_name = cl.nodes[static_cast<std::size_t>(n)].host + " rail " + std::to_string(r);
                }
            }
            u.bottleneck = u.bottleneck || n == hot.node;
        }
        for (const auto leaf : u.leaves) {
            u.up_bytes += load.leaf_up_bytes[static_cast<std::size_t>(leaf)];
            u.up_gbyte_s += load.leaf_up_gbyte_s[static_cast<std::size_t>(leaf)];
            u.bottleneck = u.bottleneck || leaf == hot.leaf;
        }
        u.pod = u.leaves.empty() ? 0 : cl.pod_of_leaf(*u.leaves.begin());
        units.push_back(std::move(u));
    }
    return units;
}

// One row of boxes: units [begin, end) of one pod.
struct Row {
    std::int64_t pod = 0;
    std::size_t begin = 0;
    std::size_t end = 0;
    bool first_of_pod = true;
};

// The rows: units of one pod, per_row at a time.
std::vector<Row> rows_of(const std::vector<Unit>& units, std::size_t per_row) {
    std::vector<Row> rows;
    for (std::size_t i = 0; i < units.size();) {
        std::size_t j = i;
        while (j < units.size() && units[j].pod == units[i].pod && j - i < per_row) {
            ++j;
        }
        rows.push_back({units[i].pod, i, j, rows.empty() || rows.back().pod != units[i].pod});
        i = j;
    }
    return rows;
}

// The line naming the bottleneck link, or why there is none.
std::string bottleneck_text(const FabricLoad& load, bool known) {
    if (!load.bottleneck) {
        return known ? "No link crosses nodes" : "Add model and training sections to the layout for bytes per step";
    }
    const TierLoad& b = load.rows[*load.bottleneck];
    return "Bottleneck: " + b.busiest + " carries " + human_bytes(b.max_bytes) + " per step (" +
           (b.capacity_gbyte_s > 0 ? seconds_text(b.seconds) + " s at its capacity" : std::string("capacity unknown")) +
           "); its unit is outlined";
}

// What the rows are drawn with.
struct TierPaint {
    const Cluster& cl;
    const FabricLoad& load;
    const DiagramStyle& style;
    const std::vector<Unit>& units;
    std::string word;  // "su" or "block"
    bool detailed = false;
    double box_w = 0;
    double box_h = 0;
    double max_up = 0;   // the largest unit's uplink bytes
    double max_pod = 0;  // the largest pod's uplink bytes
    std::string alarm;
    std::string net;
    bool known = true;  // the score gives bytes: without, the boxes print none (not "0 B")
};

// Unit i's box at (x, box_y) and its uplink line up to the spine bar at y + 24.
void draw_unit(svg::Document& doc, const TierPaint& p, std::size_t i, double x, double y, double box_y) {
    const Unit& u = p.units[i];
    const DiagramStyle& style = p.style;
    const double w = 1 + 5 * (p.max_up > 0 ? u.up_bytes / p.max_up : 0.0);
    doc.tooltip("uplinks of " + std::to_string(u.leaves.size()) + " leaves: " + human_bytes(u.up_bytes) + " per step, capacity " +
                fixed_text(u.up_gbyte_s * 8 / 1000, 1) + " Tbit/s");
    doc.line(x + p.box_w / 2, y + 24, x + p.box_w / 2, box_y, {{"stroke", p.net}, {"stroke-width", svg::num(w)}});
    const std::string name = p.word + std::to_string(i);
    const std::string range = "nodes " + std::to_string(u.first) + "-" + std::to_string(u.last);
    doc.tooltip(name + ": " + p.cl.nodes[static_cast<std::size_t>(u.first)].host + " - " +
                p.cl.nodes[static_cast<std::size_t>(u.last)].host + "; busiest NIC " + u.nic_max_name + ": " + human_bytes(u.nic_max) +
                " per step");
    doc.rect(x, box_y, p.box_w, p.box_h,
             {{"fill", style.device("leaf").fillcolor},
              {"stroke", u.bottleneck ? p.alarm : style.ink},
              {"stroke-width", u.bottleneck ? "3" : "1"}});
    doc.text(x + 5, box_y + 14, name, Anchor::Start, {{"class", "head"}});
    doc.text(x + 5, box_y + 27, range + (p.detailed ? ", " + std::to_string(u.leaves.size()) + " leaves" : ""), Anchor::Start,
             {{"class", "small"}});
    if (p.known) {  // without a score the subtitle says "no score: no bytes"
        doc.text(x + 5, box_y + 40, "NIC " + human_bytes(u.nic_max), Anchor::Start, {{"class", "small"}});
        doc.text(x + 5, box_y + 53, "up " + human_bytes(u.up_bytes), Anchor::Start, {{"class", "small"}});
    }
    if (p.detailed) {
        double ly = box_y + (p.known ? 67 : 41);
        for (const auto leaf : u.leaves) {
            doc.text(x + 5, ly, p.known ? leaf_line(p.cl, p.load, u, leaf) : p.cl.leaf_name(leaf), Anchor::Start,
                     {{"class", "small"}, {"fill", style.muted}});
            ly += 14;
        }
    }
}

// One row at y: the pod's spine bar over it (and its line to the core), then its units' boxes.
void draw_row(svg::Document& doc, const TierPaint& p, const Row& row, double y) {
    const FabricLoad& load = p.load;
    const double bar_w = static_cast<double>(row.end - row.begin) * (p.box_w + kGap) - kGap;
    const double pod_bytes = load.pod_up_bytes.empty() ? 0.0 : load.pod_up_bytes[static_cast<std::size_t>(row.pod)];
    if (load.pods > 1) {
        const double w = 1 + 5 * (p.max_pod > 0 ? pod_bytes / p.max_pod : 0.0);
        doc.line(kCoreBarX + 24, y + 12, kRowsX, y + 12, {{"stroke", p.net}, {"stroke-width", svg::num(w)}});
    }
    doc.tooltip("spine" + std::to_string(row.pod) + (load.pods > 1 ? " -> core: " + human_bytes(pod_bytes) + " per step" : std::string()));
    doc.rect(kRowsX, y, bar_w, 24, {{"fill", p.style.device("spine").fillcolor}, {"stroke", p.style.ink}});
    std::string bar_text = "spine" + std::to_string(row.pod) + (load.pods > 1 ? " (pod " + std::to_string(row.pod) + ")" : "");
    if (!row.first_of_pod) {
        bar_text += ", continued";
    } else if (load.pods > 1) {
        bar_text += ": " + human_bytes(pod_bytes) + " per step to the core";
    }
    doc.text(kRowsX + 8, y + 16, bar_text, Anchor::Start, {{"class", "label"}});
    const double box_y = y + 24 + 16;
    for (std::size_t i = row.begin; i < row.end; ++i) {
        draw_unit(doc, p, i, kRowsX + static_cast<double>(i - row.begin) * (p.box_w + kGap), y, box_y);
    }
}

}  // namespace

std::string fabric_tiers_svg(const Report& report, const DiagramOptions& /*options*/, const DiagramStyle& style) {
    const Cluster& cl = report.cluster;
    const FabricLoad load = fabric_load(cl, report.placement, report.groups, kind_traffic(report.score));
    const bool known = !load.kinds.empty();
    const std::int64_t nodes = cl.node_count();
    const std::int64_t su = cl.regular_su_size();
    std::int64_t block = su > 0 ? su : std::max(1, style.block_nodes);
    while ((nodes + block - 1) / block > std::max(1, style.node_boxes_max)) {
        block *= 2;
    }
    const bool su_units = su > 0 && block == su;
    const std::vector<Unit> units = units_of(cl, load, block, hot_spot(cl, load));
    TierPaint paint{cl, load, style, units, su_units ? "su" : "block", false, 0, 0, 0, 0, {}, {}, known};
    paint.detailed = static_cast<int>(units.size()) <= kDetailedUnits;
    std::size_t max_leaves = 0;
    for (const auto& u : units) {
        max_leaves = std::max(max_leaves, u.leaves.size());
        paint.max_up = std::max(paint.max_up, u.up_bytes);
    }
    for (const double b : load.pod_up_bytes) {
        paint.max_pod = std::max(paint.max_pod, b);
    }
    paint.box_w = paint.detailed ? 250 : 104;
    paint.box_h = paint.detailed ? 64 + 14 * static_cast<double>(max_leaves) : 62;
    const auto per_row =
        static_cast<std::size_t>(std::max(1.0, std::floor((kChartMaxPx - kRowsX - 20 + kGap) / (paint.box_w + kGap))));
    const std::vector<Row> rows = rows_of(units, per_row);
    const std::size_t widest = std::min(per_row, units.size());
    const std::string title = "Fabric: " + std::to_string(nodes) + " nodes in " + std::to_string(units.size()) + " " +
                              (su_units ? (units.size() == 1 ? "scalable unit" : "scalable units")
                                        : (units.size() == 1 ? "block of " : "blocks of ") + std::to_string(block) + " nodes") + ", " +
                              std::to_string(load.leaves) + " leaves, " + std::to_string(std::max<std::int64_t>(load.pods, 1)) +
                              (load.pods > 1 ? " pods under a core" : " spine tier");
    const std::string subtitle = spec_line(report) + " | " + (known ? "bytes per step in each direction, from the score" : "no score: no bytes");
    const std::string bottleneck_line = bottleneck_text(load, known);
    const std::vector<std::string> notes = {
        "Box: a " + std::string(su_units ? "scalable unit" : "block") + " (nodes by index), its leaves, its busiest NIC (node -> leaf) and its leaves' uplinks to the spine.",
        "Line width grows with the bytes: unit -> spine its uplinks' bytes, spine -> core the pod's. --view load charts every tier.",
        std::string("Wiring: ") + (cl.wiring.empty() ? "rail-aligned (NIC i of every node on leaf i of its unit)" : "explicit") +
            "; PXN " + (cl.fabric.pxn ? "on" : "off") +
            (cl.fabric.oversubscription > 1.0 ? "; leaf oversubscription " + svg::num(cl.fabric.oversubscription) + ":1" : "") + ".",
    };
    double text_w = std::max({text_px(title, 16), text_px(subtitle, 11), text_px(bottleneck_line, 12)});
    for (const auto& n : notes) {
        text_w = std::max(text_w, text_px(n, 11));
    }
    const double row_h = 24 + 16 + paint.box_h + 18;
    const double top = 96;
    const double width = std::ceil(std::max(kRowsX + static_cast<double>(widest) * (paint.box_w + kGap) + 20, text_w + 32));
    const double height = std::ceil(top + static_cast<double>(rows.size()) * row_h + 20 + static_cast<double>(notes.size()) * 17 + 10);

    svg::Document doc(width, height, "plan-layout: fabric at scale");
    chart_style(doc, style);
    paint.alarm = plain_colour(style.highlight.color);
    paint.net = plain_colour(style.link("network").color);
    doc.text(16, 26, title, Anchor::Start, {{"class", "title"}});
    doc.text(16, 46, subtitle, Anchor::Start, {{"class", "label"}});
    doc.text(16, 70, bottleneck_line, Anchor::Start, {{"class", "head"}, {"fill", load.bottleneck ? paint.alarm : style.ink}});

    const double rows_bottom = top + static_cast<double>(rows.size()) * row_h;
    if (load.pods > 1) {
        doc.tooltip("core: every pod's spine connects here");
        doc.rect(kCoreBarX, top, 24, rows_bottom - top - 18, {{"fill", style.device("core").fillcolor}, {"stroke", style.ink}});
        doc.text(kCoreBarX + 16, top + 40, "core", Anchor::Start,
                 {{"class", "head"}, {"transform", "rotate(-90 " + svg::num(kCoreBarX + 16) + " " + svg::num(top + 40) + ")"}});
    }
    double y = top;
    for (const auto& row : rows) {
        draw_row(doc, paint, row, y);
        y += row_h;
    }
    double ny = rows_bottom + 20;
    for (const auto& n : notes) {
        doc.text(16, ny, n, Anchor::Start, {{"class", "label"}, {"fill", style.muted}});
        ny += 17;
    }
    return doc.str();
}

}  // namespace planlayout::diagram
