// Emit: the diagram's groups view.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "diagram_canvas.hpp"
#include "planlayout/error.hpp"
#include "planlayout/emit/report_emit.hpp"

namespace planlayout::diagram {
namespace {

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

}  // namespace

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
        std::vector<NodeRef> gpu_node(static_cast<std::size_t>(world), 0);
        for (std::size_t n = 0; n < cl.nodes.size(); ++n) {
            const std::string& host = cl.nodes[n].host;
            Sub box = c.box(Canvas::root(), host, host + " - " + cl.templates[static_cast<std::size_t>(cl.nodes[n].template_index)].name);
            // GPUs of a node share a rank, kept in index order by invisible flat edges.
            Sub column = c.sub(box, "gpus_" + host, {{"rank", "same"}});
            std::optional<NodeRef> previous;
            std::optional<NodeRef> hub;
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
                NodeRef gn = c.device(column, host + "/gpu" + std::to_string(gi), "gpu", label);
                c.set(gn, {{"fillcolor", colour.fill}, {"style", colour.style}});
                if (previous) {
                    c.edge(*previous, gn, {{"style", "invis"}});
                }
                previous = gn;
                if (r >= 0) {
                    gpu_node[static_cast<std::size_t>(r)] = gn;
                }
                if (hub && nv_gpus[n].count(static_cast<std::int64_t>(gi)) > 0) {
                    // Hubs sit on the outer side of their GPUs: left for the first half of nodes.
                    const bool left = 2 * n < cl.nodes.size();
                    c.edge(left ? *hub : gn, left ? gn : *hub, line_attrs(st.of(PathClass::Nv)));
                }
            }
        }
        // Node n+1's GPUs to the right of node n's, whether or not the kind's pairs cross.
        for (std::size_t n = 0; n + 1 < cl.nodes.size(); ++n) {
            const auto a = c.find(cl.nodes[n].host + "/gpu0");
            const auto b = c.find(cl.nodes[n + 1].host + "/gpu0");
            if (a && b) {
                c.edge(*a, *b, {{"style", "invis"}});
            }
        }
        for (const auto& [a, b, pc] : direct) {
            c.edge(gpu_node[static_cast<std::size_t>(a)], gpu_node[static_cast<std::size_t>(b)], line_attrs(st.of(pc)));
        }
    } else {
        std::int64_t unit_count = units.of(cl.node_count() - 1) + 1;
        std::vector<NodeRef> unit_node(static_cast<std::size_t>(unit_count), 0);
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
                c.device(Canvas::root(), unit_id(report, units, u), "node", label);
            c.set(unit_node[static_cast<std::size_t>(u)], {{"fillcolor", colour.fill}, {"style", colour.style}});
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
}  // namespace planlayout::diagram
