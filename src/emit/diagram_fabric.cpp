// Emit: the diagram's fabric view.
#include <algorithm>
#include <cmath>
#include <map>
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

}  // namespace

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

    std::vector<NodeRef> spine(static_cast<std::size_t>(pods));
    Sub spine_row = c.sub(Canvas::root(), "rank_spines", {{"rank", "same"}});
    for (std::int64_t p = 0; p < pods; ++p) {
        spine[static_cast<std::size_t>(p)] =
            c.device(spine_row, "spine" + std::to_string(p), "spine", "spine" + std::to_string(p) + (pods > 1 ? " (pod " + std::to_string(p) + ")" : ""));
    }
    if (pods > 1) {
        NodeRef core = c.device(Canvas::root(), "core", "core", "core");
        for (const NodeRef s : spine) {
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

    std::map<std::int64_t, NodeRef> leaf_node;
    const std::int64_t unit_count = units.of(cl.node_count() - 1) + 1;
    std::map<std::int64_t, NodeRef> tier_node;  // aggregated leaves: one per unit
    if (leaves_each) {
        Sub leaf_row = c.sub(Canvas::root(), "rank_leaves", {{"rank", "same"}});
        std::optional<NodeRef> previous;
        for (const auto& [leaf, rails] : leaf_rails) {
            NodeRef ln = c.device(leaf_row, cl.leaf_name(leaf), "leaf", cl.leaf_name(leaf) + "\n" + rail_text(rails));
            if (previous) {
                c.edge(*previous, ln, {{"style", "invis"}});  // keeps leaves in id order
            }
            previous = ln;
            leaf_node[leaf] = ln;
            c.edge(spine[static_cast<std::size_t>(cl.pod_of_leaf(leaf))], ln, line_attrs(st.link("network")));
        }
    } else {
        Sub leaf_row = c.sub(Canvas::root(), "rank_leaves", {{"rank", "same"}});
        for (std::int64_t u = 0; u < unit_count; ++u) {
            const auto& leaves = unit_leaf_links[u];
            if (leaves.empty()) {
                continue;
            }
            std::set<int> rails;
            for (const auto& [leaf, links] : leaves) {
                rails.insert(leaf_rails[leaf].begin(), leaf_rails[leaf].end());
            }
            NodeRef tn = c.device(leaf_row, unit_id(report, units, u) + "/leaves", "leaf",
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
}  // namespace planlayout::diagram
