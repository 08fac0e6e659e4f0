// Emit: the diagram's fabric view.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "diagram_canvas.hpp"
#include "planlayout/error.hpp"

namespace planlayout::diagram {
namespace {

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

// Bytes per step per rail, from the score or the options.
using RailBytes = std::map<int, double>;

// "rail 3" or "rails 0,1" and each rail's bytes per step when known.
std::string rail_text(const std::set<int>& rails, const RailBytes& traffic) {
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
}

// The fabric's links as drawn: leaf → rails that reach it; unit → leaf → links, and one rail per
// (unit, leaf) for colour; the pods.
struct FabricLinks {
    std::map<std::int64_t, std::set<int>> leaf_rails;
    std::map<std::int64_t, std::map<std::int64_t, std::int64_t>> unit_leaf_links;
    std::map<std::int64_t, std::map<std::int64_t, int>> unit_leaf_rail;
    std::int64_t pods = 1;
};

// Every node's rail NICs counted by leaf and unit.
FabricLinks fabric_links(const Cluster& cl, const Units& units) {
    FabricLinks out;
    for (std::int64_t n = 0; n < cl.node_count(); ++n) {
        const auto rails = static_cast<int>(cl.facts_of(n).rail_nics.size());
        for (int r = 0; r < rails; ++r) {
            const std::int64_t leaf = cl.leaf_of(n, r);
            if (leaf < 0) {
                continue;
            }
            out.leaf_rails[leaf].insert(r);
            ++out.unit_leaf_links[units.of(n)][leaf];
            out.unit_leaf_rail[units.of(n)].emplace(leaf, r);
            out.pods = std::max(out.pods, cl.pod_of_leaf(leaf) + 1);
        }
    }
    return out;
}

// One spine per pod in a row, under a core when there are several; the spines.
std::vector<NodeRef> draw_spines(Canvas& c, std::int64_t pods) {
    std::vector<NodeRef> spine(static_cast<std::size_t>(pods));
    Sub spine_row = c.sub(Canvas::root(), "rank_spines", {{"rank", "same"}});
    for (std::int64_t p = 0; p < pods; ++p) {
        spine[static_cast<std::size_t>(p)] =
            c.device(spine_row, "spine" + std::to_string(p), "spine", "spine" + std::to_string(p) + (pods > 1 ? " (pod " + std::to_string(p) + ")" : ""));
    }
    if (pods > 1) {
        NodeRef core = c.device(Canvas::root(), "core", "core", "core");
        for (const NodeRef s : spine) {
            c.edge(core, s, line_attrs(c.style().link("network")));
        }
    }
    return spine;
}

// Every leaf in a row (in id order) under its pod's spine; leaf → its box.
std::map<std::int64_t, NodeRef> draw_leaves(Canvas& c, const Cluster& cl, const FabricLinks& fl,
                                            const std::vector<NodeRef>& spine, const RailBytes& traffic) {
    std::map<std::int64_t, NodeRef> leaf_node;
    Sub leaf_row = c.sub(Canvas::root(), "rank_leaves", {{"rank", "same"}});
    std::optional<NodeRef> previous;
    for (const auto& [leaf, rails] : fl.leaf_rails) {
        NodeRef ln = c.device(leaf_row, cl.leaf_name(leaf), "leaf", cl.leaf_name(leaf) + "\n" + rail_text(rails, traffic));
        if (previous) {
            c.edge(*previous, ln, {{"style", "invis"}});  // keeps leaves in id order
        }
        previous = ln;
        leaf_node[leaf] = ln;
        c.edge(spine[static_cast<std::size_t>(cl.pod_of_leaf(leaf))], ln, line_attrs(c.style().link("network")));
    }
    return leaf_node;
}

// Aggregated leaves: one box per unit for its leaves, under the spines of their pods; unit → box.
std::map<std::int64_t, NodeRef> draw_leaf_tiers(Canvas& c, const Report& report, const Units& units, FabricLinks& fl,
                                                const std::vector<NodeRef>& spine, const RailBytes& traffic) {
    const Cluster& cl = report.cluster;
    const std::int64_t unit_count = units.of(cl.node_count() - 1) + 1;
    std::map<std::int64_t, NodeRef> tier_node;
    Sub leaf_row = c.sub(Canvas::root(), "rank_leaves", {{"rank", "same"}});
    for (std::int64_t u = 0; u < unit_count; ++u) {
        const auto& leaves = fl.unit_leaf_links[u];
        if (leaves.empty()) {
            continue;
        }
        std::set<int> rails;
        for (const auto& [leaf, links] : leaves) {
            rails.insert(fl.leaf_rails[leaf].begin(), fl.leaf_rails[leaf].end());
        }
        NodeRef tn = c.device(leaf_row, unit_id(report, units, u) + "/leaves", "leaf",
                              std::to_string(leaves.size()) + " leaves\n" + rail_text(rails, traffic));
        tier_node[u] = tn;
        std::set<std::int64_t> unit_pods;
        for (const auto& [leaf, links] : leaves) {
            unit_pods.insert(cl.pod_of_leaf(leaf));
        }
        for (const auto p : unit_pods) {
            Attrs a = line_attrs(c.style().link("network"));
            a.emplace_back("label", std::to_string(leaves.size()) + " uplink groups");
            c.edge(spine[static_cast<std::size_t>(p)], tn, a);
        }
    }
    return tier_node;
}

// The legend: the rail and uplink lines, and notes on the fabric, its wiring and its traffic.
void fabric_legend(Canvas& c, const Cluster& cl, const Units& units, const FabricLinks& fl, bool leaves_each,
                   bool traffic_known) {
    const DiagramStyle& st = c.style();
    std::vector<LegendLine> lines;
    if (leaves_each) {
        lines.push_back({"rail r: a node's NIC r - its leaf\n(one colour per rail; the leaf names its rails)", rail_line(st, 0, 1.0)});
    }
    lines.push_back({"leaf - spine uplinks", st.link("network")});
    std::vector<std::string> notes;
    notes.push_back(std::to_string(cl.node_count()) + " nodes, " + std::to_string(cl.total_gpus()) + " GPUs, " +
                    std::to_string(cl.rails) + " rails, " + std::to_string(fl.leaf_rails.size()) + " leaves, " +
                    std::to_string(fl.pods) + (fl.pods == 1 ? " spine tier" : " spine tiers"));
    notes.push_back(cl.wiring.empty() ? std::string("wiring: rail-aligned (NIC i of every node on leaf i of its unit)")
                                      : std::string("wiring: explicit (a node's NIC i may sit on any leaf)"));
    notes.push_back(std::string("PXN: ") + (cl.fabric.pxn ? "on" : "off") +
                    (cl.fabric.oversubscription > 1.0 ? ", leaf oversubscription " + num(cl.fabric.oversubscription) + ":1" : ""));
    notes.push_back(!traffic_known ? std::string("traffic per rail: not available (no score in the report)")
                                   : std::string("traffic per rail: from the score, bytes per step; line width grows with it"));
    if (units.aggregated) {
        notes.push_back("aggregated: one box per " + units.word +
                        (units.block > 1 ? " of " + std::to_string(units.block) + " nodes" : std::string()) +
                        (leaves_each ? std::string() : "; leaves grouped per " + units.word));
    }
    add_legend(c, lines, {}, notes, false);
}

}  // namespace

void fabric_view(Canvas& c, const Report& report, const DiagramOptions& options, const Units& units) {
    const DiagramStyle& st = c.style();
    const Cluster& cl = report.cluster;
    const RailBytes traffic = options.rail_bytes.empty() ? rail_traffic(report) : options.rail_bytes;
    double max_bytes = 0;
    for (const auto& [r, b] : traffic) {
        max_bytes = std::max(max_bytes, b);
    }
    auto scale_of = [&](int rail) {
        const auto it = traffic.find(rail);
        return (it == traffic.end() || max_bytes <= 0) ? 1.0 : 1.0 + 3.0 * it->second / max_bytes;
    };
    FabricLinks fl = fabric_links(cl, units);
    const bool leaves_each = fl.leaf_rails.size() <= 64;
    const std::vector<NodeRef> spine = draw_spines(c, fl.pods);
    const std::int64_t unit_count = units.of(cl.node_count() - 1) + 1;
    std::map<std::int64_t, NodeRef> leaf_node;
    std::map<std::int64_t, NodeRef> tier_node;  // aggregated leaves: one per unit
    if (leaves_each) {
        leaf_node = draw_leaves(c, cl, fl, spine, traffic);
    } else {
        tier_node = draw_leaf_tiers(c, report, units, fl, spine, traffic);
    }
    // Nodes whose NIC r all sit on the same leaf (rail-aligned, one unit) share one bundle: a bar
    // between the leaves and the nodes, one line from each node and one to each leaf, rather than
    // a line per node and rail crossing every other (32 at 4 nodes).
    std::map<std::int64_t, NodeRef> bundle_of;
    if (leaves_each && units.block == 1) {
        std::map<std::vector<std::int64_t>, std::vector<std::int64_t>> by_leaves;
        for (std::int64_t n = 0; n < cl.node_count(); ++n) {
            std::vector<std::int64_t> leaves;
            leaves.reserve(cl.facts_of(n).rail_nics.size());
            for (int r = 0; r < static_cast<int>(cl.facts_of(n).rail_nics.size()); ++r) {
                leaves.push_back(cl.leaf_of(n, r));
            }
            by_leaves[leaves].push_back(n);
        }
        std::optional<Sub> bundle_row;  // only when some nodes share their leaves
        int bundles = 0;
        for (const auto& bl : by_leaves) {
            if (bl.second.size() < 2 || bl.first.empty()) {
                continue;
            }
            if (!bundle_row) {
                bundle_row = c.sub(Canvas::root(), "rank_bundles", {{"rank", "same"}});
            }
            // A record: one port per rail on top, so each leaf's line comes straight down.
            std::string ports;
            for (std::size_t r = 0; r < bl.first.size(); ++r) {
                ports += (r ? "|" : "") + std::string("<r") + std::to_string(r) + "> rail " + std::to_string(r);
            }
            // No host names in it: a record gives { } | < > and \\ meanings of their own.
            const std::string label = "{{" + ports + "}|" + std::to_string(bl.second.size()) + " nodes, " +
                                      std::to_string(bl.first.size()) + " rails bundled: NIC r of every node below on rail r's leaf}";
            const NodeRef hub = c.node(*bundle_row, "bundle" + std::to_string(bundles++),
                                       {{"shape", "record"}, {"style", "rounded,filled"}, {"fillcolor", st.cluster_fill},
                                        {"label", label}});
            for (int r = 0; r < static_cast<int>(bl.first.size()); ++r) {
                Attrs a = line_attrs(rail_line(st, r, scale_of(r)));
                a.emplace_back("headport", "r" + std::to_string(r) + ":n");
                c.edge(leaf_node[bl.first[static_cast<std::size_t>(r)]], hub, a);
            }
            for (const auto n : bl.second) {
                bundle_of[n] = hub;
            }
        }
    }
    Sub node_row = c.sub(Canvas::root(), "rank_nodes", {{"rank", "same"}});
    std::optional<NodeRef> previous_unit;
    for (std::int64_t u = 0; u < unit_count; ++u) {
        std::string label = unit_label(report, units, u);
        if (units.block == 1) {
            const auto& f = cl.facts_of(u);
            label += "\n" + std::to_string(f.gpu_count) + " GPUs, " + std::to_string(f.rail_nics.size()) + " rails";
        }
        NodeRef un = c.device(node_row, unit_id(report, units, u), "node", label);
        if (previous_unit) {
            c.edge(*previous_unit, un, {{"style", "invis"}});  // keeps nodes in cluster order
        }
        previous_unit = un;
        if (!leaves_each) {
            const auto it = tier_node.find(u);
            if (it != tier_node.end()) {
                std::int64_t links = 0;
                for (const auto& [leaf, k] : fl.unit_leaf_links[u]) {
                    links += k;
                }
                Attrs a = line_attrs(st.link("network"), 2.0);
                a.emplace_back("label", std::to_string(links) + " links");
                c.edge(it->second, un, a);
            }
            continue;
        }
        const auto bundle = bundle_of.find(u);
        if (bundle != bundle_of.end()) {
            Attrs a = line_attrs(st.link("network"), 2.0);
            a.emplace_back("label", std::to_string(cl.facts_of(u).rail_nics.size()) + " NICs");
            c.edge(bundle->second, un, a);
            continue;
        }
        for (const auto& [leaf, links] : fl.unit_leaf_links[u]) {
            const int rail = fl.unit_leaf_rail[u][leaf];
            Attrs a = line_attrs(rail_line(st, rail, scale_of(rail)));
            if (units.block > 1) {
                a.emplace_back("label", std::to_string(links) + " links");
            }
            c.edge(leaf_node[leaf], un, a);
        }
    }
    fabric_legend(c, cl, units, fl, leaves_each, !traffic.empty());
}
}  // namespace planlayout::diagram
