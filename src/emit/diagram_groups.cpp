// Emit: the diagram's groups view: the kind's groups, the pairs its collective uses and the
// legend; drawn in full by diagram_groups_grid.cpp, or aggregated into boxes past the thresholds.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "diagram_groups.hpp"
#include "planlayout/analysis/pair_traffic.hpp"
#include "planlayout/emit/report_emit.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout::diagram {
namespace {

// The pairs drawn, in words: what used_pairs() takes for the kind's pattern.
const char* pattern_text(Pattern p) {
    switch (p) {
        case Pattern::Ring:
            return "ring neighbours (one ring per rail across nodes)";
        case Pattern::AllToAll:
            return "every pair (all-to-all)";
        case Pattern::PipelineP2p:
            return "stage neighbours (send/recv)";
        case Pattern::Embedding:
            return "first and last stage";
    }
    return "";
}

const KindBreakdown* breakdown_of(const Report& report, const std::string& kind) {
    if (!report.score) {
        return nullptr;
    }
    for (const auto& k : report.score->by_kind) {
        if (k.kind == kind) {
            return &k;
        }
    }
    return nullptr;
}

const KindEdges* edges_of(const Report& report, const std::string& kind) {
    for (const auto& k : report.kinds) {
        if (k.kind == kind) {
            return &k;
        }
    }
    return nullptr;
}

}  // namespace

GroupColour group_colour(const DiagramStyle& st, std::int64_t g) {
    if (g < 0) {
        return {st.device("gpu").fillcolor, "filled"};
    }
    const auto p = static_cast<std::int64_t>(std::max<std::size_t>(1, st.groups.size()));
    const auto s = static_cast<std::int64_t>(std::max<std::size_t>(1, st.group_styles.size()));
    return {st.groups.empty() ? std::string("#FFFFFF") : st.groups[static_cast<std::size_t>(g % p)],
            st.group_styles.empty() ? std::string("filled") : st.group_styles[static_cast<std::size_t>((g / p) % s)]};
}

PathClass worst_of(const ClassCounts& counts) {
    PathClass worst = PathClass::Loc;
    for (int pc = 0; pc < kPathClassCount; ++pc) {
        if (counts[static_cast<std::size_t>(pc)] > 0) {
            worst = static_cast<PathClass>(pc);
        }
    }
    return worst;
}

std::int64_t count_of(const ClassCounts& counts) {
    std::int64_t n = 0;
    for (const auto c : counts) {
        n += c;
    }
    return n;
}

std::vector<std::string> kind_notes(const Report& report, const GroupKind& kind, const ClassCounts& totals) {
    const KindBreakdown* breakdown = breakdown_of(report, kind.name);
    const KindEdges* edges = edges_of(report, kind.name);
    std::vector<std::string> notes;
    std::int64_t cross = 0;
    std::int64_t total = 0;
    for (int pc = 0; pc < kPathClassCount; ++pc) {
        total += totals[static_cast<std::size_t>(pc)];
        if (is_cross_node(static_cast<PathClass>(pc))) {
            cross += totals[static_cast<std::size_t>(pc)];
        }
    }
    const std::int64_t groups = kind.group_count();
    notes.push_back(kind.name + ": " + std::to_string(groups) + (groups == 1 ? " group" : " groups") + " x " +
                    std::to_string(kind.group_size()) + " ranks, " +
                    (breakdown != nullptr ? breakdown->collective
                                         : std::string(report.score ? "no traffic in the score" : "no score (no model in the layout)")) +
                    "; pairs drawn: " + pattern_text(kind.pattern));
    notes.push_back("used pairs: " + std::to_string(total) + " (" + class_counts_text(totals) + ")");
    notes.push_back("cross-node pairs: " + std::to_string(cross) + " of " + std::to_string(total) +
                    (cross == 0 ? " - the collective stays inside NVLink/PCIe" : " - these go over the network (RDMA/TCP)"));
    if (breakdown != nullptr && edges != nullptr && !edges->footprints.empty() && cross > 0) {
        const PairLoad load = pair_load(*breakdown, kind.pattern, edges->footprints.front());
        notes.push_back("each cross-node pair: " + human_bytes(load.bytes_each_way) +
                        "/step each way; times = the kind's collectives per step (score)");
    }
    return notes;
}

// Every group of the kind and the pairs its collective uses, classified.
KindPairs kind_pairs(const GroupKind& kind, const PairClassifier& classifier, const Placement& pl, const Units& units) {
    KindPairs out;
    out.group_of.assign(static_cast<std::size_t>(pl.world()), -1);
    const std::int64_t groups = kind.group_count();
    std::vector<std::int64_t> ranks;
    for (std::int64_t gi = 0; gi < groups; ++gi) {
        ranks = kind.group(gi);
        for (const auto r : ranks) {
            out.group_of[static_cast<std::size_t>(r)] = gi;
            out.unit_groups[units.of(pl.node[static_cast<std::size_t>(r)])].insert(gi);
        }
        for (const auto& [a, b] : used_pairs(kind.pattern, ranks, classifier, pl)) {
            const PathClass pc = classifier.classify(a, b);
            ++out.totals[static_cast<std::size_t>(pc)];
            if (!units.aggregated) {
                out.gpu_pairs.emplace_back(a, b, pc);
                continue;
            }
            const std::int64_t ua = units.of(pl.node[static_cast<std::size_t>(a)]);
            const std::int64_t ub = units.of(pl.node[static_cast<std::size_t>(b)]);
            if (ua == ub) {
                ++out.inside_unit[ua][static_cast<std::size_t>(pc)];
            } else {
                ++out.unit_pairs[{std::min(ua, ub), std::max(ua, ub)}][static_cast<std::size_t>(pc)];
            }
        }
    }
    return out;
}

namespace {

// The aggregated view: one box per unit (coloured when it holds one group) in a grid, a line per
// unit pair; its note.
void draw_units(Canvas& c, const Report& report, const Units& units, const KindPairs& pairs, std::vector<std::string>& notes) {
    const DiagramStyle& st = c.style();
    const Cluster& cl = report.cluster;
    std::int64_t unit_count = units.of(cl.node_count() - 1) + 1;
    std::vector<NodeRef> unit_node(static_cast<std::size_t>(unit_count), 0);
    for (std::int64_t u = 0; u < unit_count; ++u) {
        std::string label = unit_label(report, units, u);
        const auto it = pairs.unit_groups.find(u);
        std::int64_t only = -1;
        if (it == pairs.unit_groups.end() || it->second.empty()) {
            label += "\n(idle)";
        } else if (it->second.size() == 1) {
            only = *it->second.begin();
            label += "\nG" + std::to_string(only);
        } else {
            label += "\nG" + std::to_string(*it->second.begin()) + " - G" + std::to_string(*it->second.rbegin()) + " (" +
                     std::to_string(it->second.size()) + " groups)";
        }
        const auto in = pairs.inside_unit.find(u);
        if (in != pairs.inside_unit.end()) {
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
    for (const auto& [ends, counts] : pairs.unit_pairs) {
        Attrs a = line_attrs(st.of(worst_of(counts)), 1.0 + std::log10(static_cast<double>(count_of(counts))) / 2.0);
        a.emplace_back("xlabel", class_counts_text(counts));  // units may share a rank: no flat labels
        c.edge(unit_node[static_cast<std::size_t>(ends.first)], unit_node[static_cast<std::size_t>(ends.second)], a);
    }
    notes.push_back("aggregated (" + std::to_string(cl.node_count()) + " nodes, " + std::to_string(cl.total_gpus()) +
                    " GPUs): one box per " + units.word + (units.block > 1 ? " of " + std::to_string(units.block) + " nodes" : "") +
                    "; edge labels = used pairs by class, line = worst class, width grows with the count");
}

// The legend's swatches for the groups' colours (and the notes when boxes are white or the
// colours repeat).
std::vector<LegendSwatch> group_swatches(const DiagramStyle& st, const GroupKind& kind, const KindPairs& pairs,
                                         bool aggregated, std::vector<std::string>& notes) {
    const std::int64_t groups = kind.group_count();
    std::vector<LegendSwatch> swatches;
    // Aggregated boxes are coloured only when they hold one group.
    bool any_single = !aggregated;
    for (const auto& [u, gs] : pairs.unit_groups) {
        any_single = any_single || gs.size() == 1;
    }
    const auto palette = static_cast<std::int64_t>(std::max<std::size_t>(1, st.groups.size()));
    if (!any_single) {
        notes.emplace_back("boxes hold several groups each: white, with the range of groups they hold");
    } else if (groups <= palette) {
        for (std::int64_t gi = 0; gi < groups; ++gi) {
            const GroupColour colour = group_colour(st, gi);
            swatches.push_back({"G" + std::to_string(gi) + ": " + kind.name + " group " + std::to_string(gi), colour.fill,
                                colour.style, "", 1.0});
        }
    } else {
        // Past the palette: one line for the range, the colour rule in words.
        const GroupColour colour = group_colour(st, 0);
        swatches.push_back({"G0\u2013G" + std::to_string(groups - 1) + ": " + std::to_string(groups) + " " + kind.name +
                                " groups of " + std::to_string(kind.group_size()),
                            colour.fill, colour.style, "", 1.0});
        notes.push_back("group colours repeat every " + std::to_string(palette) +
                        " groups with another border style; every box names its group");
    }
    return swatches;
}

}  // namespace

void groups_view(Canvas& c, const Report& report, const DiagramOptions& options, const Units& units) {
    const GroupKind* kind = &drawn_kind(report, options.kind);
    const DiagramStyle& st = c.style();
    const PairClassifier classifier(report.cluster, report.placement);
    KindPairs pairs = kind_pairs(*kind, classifier, report.placement, units);
    const ClassCounts& totals = pairs.totals;

    // The collective as the analysis names it (the score's breakdown), and one pair's load.
    const KindBreakdown* breakdown = breakdown_of(report, kind->name);
    const KindEdges* edges = edges_of(report, kind->name);
    std::optional<PairLoad> load;
    std::string arms[2];
    bool single_arm = false;
    if (breakdown != nullptr && edges != nullptr && !edges->footprints.empty()) {
        load = pair_load(*breakdown, kind->pattern, edges->footprints.front());
        arms[0] = std::string(to_string(report.score->baseline));
        arms[1] = std::string(to_string(report.score->candidate));
        single_arm = report.score->single_arm;
    }

    std::vector<LegendLine> lines;
    std::vector<std::string> notes = kind_notes(report, *kind, totals);
    std::int64_t cross = 0;
    for (int pc = 0; pc < kPathClassCount; ++pc) {
        if (is_cross_node(static_cast<PathClass>(pc))) {
            cross += totals[static_cast<std::size_t>(pc)];
        }
    }

    if (!units.aggregated) {
        GroupsGrid grid;
        grid.group_of = std::move(pairs.group_of);
        grid.pairs = std::move(pairs.gpu_pairs);
        grid.load = load;
        grid.arms[0] = arms[0];
        grid.arms[1] = arms[1];
        grid.single_arm = single_arm;
        grid.cross = cross;
        groups_grid(c, report, grid, notes);
    } else {
        draw_units(c, report, units, pairs, notes);
    }

    for (int pc = 1; pc < kPathClassCount; ++pc) {
        const auto cls = static_cast<PathClass>(pc);
        if (totals[static_cast<std::size_t>(pc)] > 0) {
            std::string text = std::string(to_string(cls)) + ": " + st.of(cls).meaning + " (" +
                               std::to_string(totals[static_cast<std::size_t>(pc)]) + " pairs)";
            if (cls == PathClass::Nv && !units.aggregated) {
                text += "\nNVSwitch nodes: counted on the node, not drawn";
            }
            lines.push_back({text, st.of(cls)});
        }
    }
    const std::vector<LegendSwatch> swatches = group_swatches(st, *kind, pairs, units.aggregated, notes);
    add_legend(c, lines, swatches, notes, units.aggregated);
}
}  // namespace planlayout::diagram
