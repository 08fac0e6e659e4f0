// Emit: the groups view drawn in full (up to the aggregation threshold), as the hardware reads:
// node headers in a grid by scalable unit, then first rank; each node's GPUs in index order top to
// bottom, so GPU k of every node of a row sits on one lane (its rail, when rail aligned); every
// drawn cross-node line names its rail (or leaf, or the spine) and carries the score's bytes per
// step and the kind's time per transport (analysis/pair_traffic.hpp).
// Over 500 lines: one view: the grid's rows, node headers and GPU lanes, and the cross-node lines
// drawn on them (per pair, per node pair, per leaf and the spine) all lay out one FullView.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "diagram_groups.hpp"
#include "planlayout/emit/report_emit.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout::diagram {
namespace {

// "1.64 s", "72.06 ms", "213.2 us": a step's share of time, short enough for a line label.
std::string duration_text(double s) {
    if (s >= 1.0) {
        return fixed_text(s, 2) + " s";
    }
    if (s >= 1e-3) {
        return fixed_text(s * 1e3, 2) + " ms";
    }
    return fixed_text(s * 1e6, 1) + " \u00b5s";
}

// What one line carries: bytes per step each way for `pairs` pairs, and the kind's time per arm.
struct LoadText {
    std::optional<PairLoad> load;
    std::string arms[2];
    bool single_arm = false;

    [[nodiscard]] std::string of(std::int64_t pairs_ab, std::int64_t pairs_ba) const {
        if (!load) {
            return "";
        }
        const double p = load->bytes_each_way;
        std::string s = pairs_ab == pairs_ba ? human_bytes(p * static_cast<double>(pairs_ab)) + "/step each way"
                                             : human_bytes(p * static_cast<double>(pairs_ab)) + " + " +
                                                   human_bytes(p * static_cast<double>(pairs_ba)) + "/step";
        s += "\n" + arms[0] + " " + duration_text(load->time_s[0]);
        if (!single_arm) {
            s += ", " + arms[1] + " " + duration_text(load->time_s[1]);
        }
        return s;
    }
};

// "rail 3", "PXN: rails 2, 5", "spine: rails 2, 5", "core: rails 2, 5".
std::string route_text(PathClass pc, int rail_a, int rail_b) {
    const std::string rails = "rails " + std::to_string(rail_a) + ", " + std::to_string(rail_b);
    switch (pc) {
        case PathClass::Rail:
            return "rail " + std::to_string(rail_a);
        case PathClass::Pxn:
            return "PXN: " + rails;
        case PathClass::Xrail:
            return "spine: " + rails;
        case PathClass::Xpod:
            return "core: " + rails;
        case PathClass::Mnnvl:
            return "NVLink switches";
        default:
            return "network";
    }
}

// "rail 3", "rails 0-7" (a run), "rails 0, 2, 5"; "no rail" for nodes without RDMA NICs.
std::string rails_text(const std::set<int>& rails) {
    std::vector<int> r;
    for (const int x : rails) {
        if (x >= 0) {
            r.push_back(x);
        }
    }
    if (r.empty()) {
        return "no rail";
    }
    if (r.size() == 1) {
        return "rail " + std::to_string(r.front());
    }
    if (r.back() - r.front() + 1 == static_cast<int>(r.size())) {
        return "rails " + std::to_string(r.front()) + "\u2013" + std::to_string(r.back());
    }
    std::string s = "rails ";
    for (std::size_t i = 0; i < r.size(); ++i) {
        s += (i == 0 ? "" : ", ") + std::to_string(r[i]);
    }
    return s;
}

// Cross-node traffic between two nodes through one leaf (bundled lines): pairs per direction by class.
struct RailLane {
    ClassCounts ab{};  // the lower node sends to the higher through this leaf
    ClassCounts ba{};
};

struct FullView {
    Canvas& c;
    const Report& report;
    const DiagramStyle& st;
    std::vector<NodeRef> gpu_node;                  // rank → its GPU box
    std::vector<std::int64_t> row_of;               // node → grid row
    std::vector<std::int64_t> col_of;               // node → place in its row
    std::vector<std::vector<Sub>> lane_rows;        // row → lane (GPU index) → rank=same subgraph
    int labels = 0;

    // A line between GPU boxes; a flat one (same row, same lane) between neighbouring nodes meets
    // at a label node on the lane: Graphviz 2.42 frees a labelled flat edge twice.
    void line(NodeRef a, NodeRef b, std::int64_t node_a, std::int64_t gpu_a, std::int64_t node_b, std::int64_t gpu_b,
              const LineStyle& style, const std::string& label) {
        const Attrs attrs = line_attrs(style);
        const auto na = static_cast<std::size_t>(node_a);
        const auto nb = static_cast<std::size_t>(node_b);
        const bool flat = row_of[na] == row_of[nb] && gpu_a == gpu_b;
        if (flat && std::abs(col_of[na] - col_of[nb]) > 1) {
            // Across other nodes of the row (a ring's way back): the label rides on the arc.
            Attrs labelled = attrs;
            labelled.emplace_back("xlabel", label);
            c.edge(a, b, labelled);
            return;
        }
        if (flat) {
            const Sub lane = lane_rows[static_cast<std::size_t>(row_of[static_cast<std::size_t>(node_a)])]
                                      [static_cast<std::size_t>(gpu_a)];
            const NodeRef mid = c.node(lane, "label" + std::to_string(labels++),
                                       {{"shape", "plaintext"}, {"style", "solid"}, {"margin", "0.05,0.02"},
                                        {"fontsize", num(st.fontsize - 1)}, {"label", label}});
            c.edge(a, mid, attrs);
            c.edge(mid, b, attrs);
            return;
        }
        Attrs labelled = attrs;
        labelled.emplace_back("label", label);
        c.edge(a, b, labelled);
    }
};

std::string spine_label(const ClassCounts& counts, const LoadText& load) {
    const std::int64_t n = count_of(counts);
    const PathClass worst = worst_of(counts);  // the pairs of one node pair: all MNNVL or all network
    std::string s = std::string(worst == PathClass::Xpod ? "core" : worst == PathClass::Mnnvl ? "NVLink switches" : "spine") +
                    ": " + std::to_string(n) +
                    (n == 1 ? " pair (" : " pairs (") + class_counts_text(counts) + ")";
    const std::string l = load.of(n, n);
    return l.empty() ? s : s + "\n" + l;
}

using RankPair = std::tuple<std::int64_t, std::int64_t, PathClass>;
// Node pair (lower, higher) → its cross-node rank pairs, each (lower node's rank, higher node's rank).
using NodePairs = std::map<std::pair<std::int64_t, std::int64_t>, std::vector<RankPair>>;

// Where each rank sits: node → GPU index → rank (-1: idle), and node → its first rank.
struct RankSlots {
    std::vector<std::vector<std::int64_t>> rank_at;
    std::vector<std::int64_t> first_rank;
};

// Each node's ranks by GPU index and its first rank.
RankSlots rank_slots(const Cluster& cl, const Placement& pl) {
    const auto node_count = static_cast<std::size_t>(cl.node_count());
    RankSlots out;
    out.rank_at.resize(node_count);
    out.first_rank.assign(node_count, std::numeric_limits<std::int64_t>::max());
    for (std::size_t n = 0; n < node_count; ++n) {
        out.rank_at[n].assign(static_cast<std::size_t>(cl.facts_of(static_cast<std::int64_t>(n)).gpu_count), -1);
    }
    for (std::int64_t r = 0; r < pl.world(); ++r) {
        const auto n = static_cast<std::size_t>(pl.node[static_cast<std::size_t>(r)]);
        out.rank_at[n][static_cast<std::size_t>(pl.gpu[static_cast<std::size_t>(r)])] = r;
        out.first_rank[n] = std::min(out.first_rank[n], r);
    }
    return out;
}

// The grid's rows of nodes: by scalable unit, then first rank; a unit starts a new row, rows hold
// nodes_per_row.
std::vector<std::vector<std::int64_t>> grid_rows(const Cluster& cl, const std::vector<std::int64_t>& first_rank,
                                                 int nodes_per_row) {
    std::vector<std::int64_t> order(first_rank.size());
    for (std::size_t n = 0; n < order.size(); ++n) {
        order[n] = static_cast<std::int64_t>(n);
    }
    std::sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) {
        return std::make_tuple(cl.su_of(x), first_rank[static_cast<std::size_t>(x)], x) <
               std::make_tuple(cl.su_of(y), first_rank[static_cast<std::size_t>(y)], y);
    });
    std::vector<std::vector<std::int64_t>> rows;
    for (const auto n : order) {
        if (rows.empty() || static_cast<int>(rows.back().size()) >= nodes_per_row ||
            cl.su_of(rows.back().front()) != cl.su_of(n)) {
            rows.emplace_back();
        }
        rows.back().push_back(n);
    }
    return rows;
}

// The used pairs by where they run: NVSwitch pairs counted per node, other pairs inside a node
// (with counts by class per node), and cross-node pairs by node pair.
struct PairsByPlace {
    std::vector<std::int64_t> nv_pairs;
    std::vector<RankPair> inside;  // drawn inside a node
    std::vector<ClassCounts> inside_counts;
    NodePairs between;
};

// The used pairs sorted by where they run.
PairsByPlace pairs_by_place(const std::vector<RankPair>& gpu_pairs, const Cluster& cl, const Placement& pl) {
    const auto node_count = static_cast<std::size_t>(cl.node_count());
    PairsByPlace out{std::vector<std::int64_t>(node_count, 0), {}, std::vector<ClassCounts>(node_count, ClassCounts{}), {}};
    for (const auto& [a, b, pc] : gpu_pairs) {
        const auto na = pl.node[static_cast<std::size_t>(a)];
        const auto nb = pl.node[static_cast<std::size_t>(b)];
        if (na != nb) {
            // Endpoints ordered by node: (lower node's rank, higher node's rank).
            out.between[{std::min(na, nb), std::max(na, nb)}].emplace_back(na < nb ? a : b, na < nb ? b : a, pc);
        } else if (pc == PathClass::Nv && cl.template_of(na).nvlink.nvswitch) {
            ++out.nv_pairs[static_cast<std::size_t>(na)];
        } else {
            out.inside.emplace_back(a, b, pc);
            ++out.inside_counts[static_cast<std::size_t>(na)][static_cast<std::size_t>(pc)];
        }
    }
    return out;
}

// The boxes drawn: each node's GPU boxes in index order, and each row's node headers.
struct NodeBoxes {
    std::vector<std::vector<NodeRef>> gpu_boxes;  // node → its GPU boxes
    std::vector<std::vector<NodeRef>> headers;    // row → its nodes' headers
};

// Each node's header and its GPU boxes under it (recorded in view.gpu_node per rank).
// `drawn_inside` per node: whether its inside pairs are drawn (else counted on its header).
NodeBoxes draw_nodes(FullView& view, const std::vector<std::vector<std::int64_t>>& rows, const RankSlots& slots,
                     const std::vector<std::int64_t>& group_of, const PairsByPlace& pairs,
                     const std::vector<bool>& drawn_inside) {
    Canvas& c = view.c;
    const DiagramStyle& st = view.st;
    const Cluster& cl = view.report.cluster;
    NodeBoxes out{std::vector<std::vector<NodeRef>>(slots.rank_at.size()), std::vector<std::vector<NodeRef>>(rows.size())};
    for (const auto& row : rows) {
        for (const auto n : row) {
            const auto ni = static_cast<std::size_t>(n);
            const std::string& host = cl.nodes[ni].host;
            std::string label = host + " - " + cl.templates[static_cast<std::size_t>(cl.nodes[ni].template_index)].name;
            if (pairs.nv_pairs[ni] > 0) {
                label += "\nNVSwitch: " + std::to_string(pairs.nv_pairs[ni]) + " NV pairs inside";
            }
            if (!drawn_inside[ni]) {
                label += "\ninside (not drawn): " + class_counts_text(pairs.inside_counts[ni]);
            }
            // A header above the node's GPU column, no cluster box: Graphviz 2.42 keeps flat
            // edges left to right only outside clusters, and the lane labels need that.
            const NodeRef header = c.device(Canvas::root(), host, "node", label);
            out.headers[static_cast<std::size_t>(view.row_of[ni])].push_back(header);
            auto& boxes = out.gpu_boxes[ni];
            for (std::size_t gi = 0; gi < slots.rank_at[ni].size(); ++gi) {
                const std::int64_t r = slots.rank_at[ni][gi];
                const std::int64_t grp = r >= 0 ? group_of[static_cast<std::size_t>(r)] : -1;
                const GroupColour colour = group_colour(st, grp);
                std::string text = "gpu" + std::to_string(gi);
                text += r < 0 ? std::string("\n(idle)") : "\nrank " + std::to_string(r);
                if (grp >= 0) {
                    text += "  G" + std::to_string(grp);
                }
                const NodeRef gn = c.device(Canvas::root(), host + "/gpu" + std::to_string(gi), "gpu", text);
                c.set(gn, {{"fillcolor", colour.fill}, {"style", colour.style}});
                // Index order, top to bottom, under the header.
                c.edge(boxes.empty() ? header : boxes.back(), gn, {{"style", "invis"}, {"weight", "10"}});
                boxes.push_back(gn);
                if (r >= 0) {
                    view.gpu_node[static_cast<std::size_t>(r)] = gn;
                }
            }
        }
    }
    return out;
}

// Each row's headers as one rank, and its lane k (GPU k of its nodes) as one rank, left to right
// in grid order (the lanes recorded in view.lane_rows); each row below the previous one.
void rank_rows(FullView& view, const std::vector<std::vector<std::int64_t>>& rows, const NodeBoxes& boxes) {
    Canvas& c = view.c;
    for (std::size_t row = 0; row < rows.size(); ++row) {
        const auto& headers = boxes.headers[row];
        const Sub head = c.sub(Canvas::root(), "row" + std::to_string(row) + "_head", {{"rank", "same"}});
        for (std::size_t i = 0; i < headers.size(); ++i) {
            c.member(head, headers[i]);
            if (i > 0) {
                c.edge(headers[i - 1], headers[i], {{"style", "invis"}});
            }
        }
        view.lane_rows.emplace_back();
        for (std::size_t k = 0;; ++k) {
            std::vector<NodeRef> lane;
            for (const auto n : rows[row]) {
                const auto& node_boxes = boxes.gpu_boxes[static_cast<std::size_t>(n)];
                if (k < node_boxes.size()) {
                    lane.push_back(node_boxes[k]);
                }
            }
            if (lane.empty()) {
                break;
            }
            view.lane_rows.back().push_back(
                c.sub(Canvas::root(), "row" + std::to_string(row) + "_lane" + std::to_string(k), {{"rank", "same"}}));
            for (std::size_t i = 0; i < lane.size(); ++i) {
                c.member(view.lane_rows.back().back(), lane[i]);
                if (i > 0) {
                    c.edge(lane[i - 1], lane[i], {{"style", "invis"}});
                }
            }
        }
    }
    for (std::size_t row = 0; row + 1 < rows.size(); ++row) {
        const auto& x = boxes.gpu_boxes[static_cast<std::size_t>(rows[row].front())];
        if (!x.empty()) {
            c.edge(x.back(), boxes.headers[row + 1].front(), {{"style", "invis"}, {"minlen", "2"}});
        }
    }
}

// The lines between two nodes' GPUs, drawn on the grid.
struct CrossLines {
    FullView& view;
    const PairClassifier& classifier;
    const LoadText& load;
    const std::vector<std::vector<std::int64_t>>& rows;
    const NodeBoxes& boxes;
    std::vector<NodeRef> header_of;  // node → its header
    // Rows joined by more node pairs than a row holds nodes (an all-to-all over many nodes): their
    // labels ride on the lines (xlabel) instead of each taking a place between the rows.
    std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> row_links;

    CrossLines(FullView& v, const PairClassifier& pc, const LoadText& lt, const std::vector<std::vector<std::int64_t>>& r,
               const NodeBoxes& b, const NodePairs& between)
        : view(v), classifier(pc), load(lt), rows(r), boxes(b), header_of(v.row_of.size(), 0) {
        for (std::size_t row = 0; row < rows.size(); ++row) {
            for (std::size_t i = 0; i < rows[row].size(); ++i) {
                header_of[static_cast<std::size_t>(rows[row][i])] = boxes.headers[row][i];
            }
        }
        for (const auto& [ends, pairs] : between) {
            const std::int64_t ra = view.row_of[static_cast<std::size_t>(ends.first)];
            const std::int64_t rb = view.row_of[static_cast<std::size_t>(ends.second)];
            if (ra != rb) {
                ++row_links[{std::min(ra, rb), std::max(ra, rb)}];
            }
        }
    }

    [[nodiscard]] const Cluster& cl() const { return view.report.cluster; }
    [[nodiscard]] std::int64_t gpu_of(std::int64_t r) const { return view.report.placement.gpu[static_cast<std::size_t>(r)]; }
    [[nodiscard]] std::int64_t node_of(std::int64_t r) const { return view.report.placement.node[static_cast<std::size_t>(r)]; }
    [[nodiscard]] std::int64_t leaf_of_rank(std::int64_t r) const { return cl().leaf_of(node_of(r), classifier.rail_of(r)); }

    // The GPU of a node whose NIC plugs into a leaf (GPU k for leaf k when rail aligned); -1: none.
    [[nodiscard]] std::int64_t gpu_on_leaf(std::int64_t n, std::int64_t leaf) const {
        const auto& rails = cl().facts_of(n).gpu_rail;
        for (std::size_t g = 0; g < rails.size(); ++g) {
            if (leaf >= 0 && cl().leaf_of(n, rails[g]) == leaf) {
                return static_cast<std::int64_t>(g);
            }
        }
        return std::int64_t{-1};
    }

    // "rail 3" on a rail-aligned fabric (leaf k of a unit carries rail k), else the leaf's name.
    [[nodiscard]] std::string leaf_text(std::int64_t leaf, int rail) const {
        return cl().wiring.empty() ? "rail " + std::to_string(rail) : cl().leaf_name(leaf);
    }

    // One line for all the pairs of two nodes: down from the upper node's last GPU to the lower
    // node's header between rows (the rows stay rows), along the last lane in a row.
    void node_pair_line(const std::pair<std::int64_t, std::int64_t>& ends, const std::vector<RankPair>& pairs) {
        const DiagramStyle& st = view.st;
        const auto upper = static_cast<std::size_t>(ends.first);
        const auto lower = static_cast<std::size_t>(ends.second);
        ClassCounts counts{};
        std::set<int> used_rails;
        for (const auto& [a, b, pc] : pairs) {
            ++counts[static_cast<std::size_t>(pc)];
            used_rails.insert(classifier.rail_of(a));
            used_rails.insert(classifier.rail_of(b));
        }
        const auto n = static_cast<std::int64_t>(pairs.size());
        std::string text = std::to_string(n) + (n == 1 ? " pair (" : " pairs (") + class_counts_text(counts) + "), " +
                           rails_text(used_rails);
        const std::string l = load.of(n, n);
        text += l.empty() ? "" : "\n" + l;
        const auto& gpu_boxes = boxes.gpu_boxes;
        if (view.row_of[upper] == view.row_of[lower]) {
            const auto last_a = static_cast<std::int64_t>(gpu_boxes[upper].size()) - 1;
            const auto last_b = static_cast<std::int64_t>(gpu_boxes[lower].size()) - 1;
            view.line(gpu_boxes[upper].back(), gpu_boxes[lower].back(), ends.first, last_a, ends.second, last_b,
                      st.of(worst_of(counts)), text);
            return;
        }
        const bool down = view.row_of[upper] < view.row_of[lower];
        Attrs attrs = line_attrs(st.of(worst_of(counts)));
        const std::int64_t ru = view.row_of[upper];
        const std::int64_t rl = view.row_of[lower];
        const bool crowded = row_links[{std::min(ru, rl), std::max(ru, rl)}] >
                             rows[static_cast<std::size_t>(std::min(ru, rl))].size();
        attrs.emplace_back(crowded ? "xlabel" : "label", text);
        view.c.edge(gpu_boxes[down ? upper : lower].back(), header_of[down ? lower : upper], attrs);
    }

    // One line per pair, named by its route.
    void rank_pair_lines(const std::vector<RankPair>& pairs) {
        for (const auto& [a, b, pc] : pairs) {
            std::string text = pc == PathClass::Rail
                                   ? leaf_text(leaf_of_rank(a), classifier.rail_of(a))
                                   : route_text(pc, classifier.rail_of(a), classifier.rail_of(b));
            const std::string l = load.of(1, 1);
            text += l.empty() ? "" : "\n" + l;
            view.line(view.gpu_node[static_cast<std::size_t>(a)], view.gpu_node[static_cast<std::size_t>(b)],
                      node_of(a), gpu_of(a), node_of(b), gpu_of(b), view.st.of(pc), text);
        }
    }

    // One line per leaf for the pairs whose network hop crosses it (PXN: the receiver's leaf,
    // after the NVLink hop), and one line for the spine.
    void leaf_lines(const std::pair<std::int64_t, std::int64_t>& ends, const std::vector<RankPair>& pairs) {
        const DiagramStyle& st = view.st;
        const auto& gpu_boxes = boxes.gpu_boxes;
        std::map<std::int64_t, RailLane> leaves;
        ClassCounts spine{};
        for (const auto& [a, b, pc] : pairs) {
            const std::int64_t la = leaf_of_rank(a);
            const std::int64_t lb = leaf_of_rank(b);
            if ((pc == PathClass::Rail || pc == PathClass::Pxn) && gpu_on_leaf(ends.first, lb) >= 0 &&
                gpu_on_leaf(ends.second, la) >= 0) {
                ++leaves[lb].ab[static_cast<std::size_t>(pc)];
                ++leaves[la].ba[static_cast<std::size_t>(pc)];
            } else {
                ++spine[static_cast<std::size_t>(pc)];
            }
        }
        for (const auto& [leaf, lane] : leaves) {
            const std::int64_t ga = gpu_on_leaf(ends.first, leaf);
            const std::int64_t gb = gpu_on_leaf(ends.second, leaf);
            ClassCounts both = lane.ab;
            for (std::size_t i = 0; i < both.size(); ++i) {
                both[i] += lane.ba[i];
            }
            const std::int64_t ab = count_of(lane.ab);
            const std::int64_t ba = count_of(lane.ba);
            std::string text = leaf_text(leaf, cl().facts_of(ends.first).gpu_rail[static_cast<std::size_t>(ga)]) +
                               ": " +
                               (ab == ba ? std::to_string(ab) + (ab == 1 ? " pair each way" : " pairs each way")
                                         : std::to_string(ab) + " + " + std::to_string(ba) + " pairs") +
                               "\n(" + class_counts_text(lane.ab == lane.ba ? lane.ab : both) + ")";
            const std::string l = load.of(ab, ba);
            text += l.empty() ? "" : "\n" + l;
            view.line(gpu_boxes[static_cast<std::size_t>(ends.first)][static_cast<std::size_t>(ga)],
                      gpu_boxes[static_cast<std::size_t>(ends.second)][static_cast<std::size_t>(gb)], ends.first, ga,
                      ends.second, gb, st.of(worst_of(both)), text);
        }
        if (count_of(spine) > 0) {
            // Below both nodes: a label node the two nodes' last GPUs meet at.
            const NodeRef mid = view.c.node(Canvas::root(), "label" + std::to_string(view.labels++),
                                            {{"shape", "plaintext"}, {"style", "solid"}, {"margin", "0.05,0.02"},
                                             {"fontsize", num(st.fontsize - 1)}, {"label", spine_label(spine, load)}});
            const Attrs attrs = line_attrs(st.of(worst_of(spine)));
            view.c.edge(gpu_boxes[static_cast<std::size_t>(ends.first)].back(), mid, attrs);
            view.c.edge(gpu_boxes[static_cast<std::size_t>(ends.second)].back(), mid, attrs);
        }
    }

    // The lines of one node pair: one for all its pairs across rows or when `dense`; else one per
    // pair while no GPU has two peers on the other node (rings, pipelines); else (all-to-all) one
    // per leaf and one for the spine.
    void draw(const std::pair<std::int64_t, std::int64_t>& ends, const std::vector<RankPair>& pairs, bool dense) {
        if (view.row_of[static_cast<std::size_t>(ends.first)] != view.row_of[static_cast<std::size_t>(ends.second)] ||
            dense) {
            node_pair_line(ends, pairs);
            return;
        }
        std::map<std::int64_t, int> peers;
        bool bundle = false;
        for (const auto& [a, b, pc] : pairs) {
            bundle = bundle || ++peers[a] > 1 || ++peers[b] > 1;
        }
        if (bundle) {
            leaf_lines(ends, pairs);
        } else {
            rank_pair_lines(pairs);
        }
    }
};

}  // namespace

void groups_grid(Canvas& c, const Report& report, const GroupsGrid& grid, std::vector<std::string>& notes) {
    const DiagramStyle& st = c.style();
    const Cluster& cl = report.cluster;
    const Placement& pl = report.placement;
    const PairClassifier classifier(cl, pl);
    LoadText load;
    load.load = grid.load;
    load.arms[0] = grid.arms[0];
    load.arms[1] = grid.arms[1];
    load.single_arm = grid.single_arm;
    const auto node_count = static_cast<std::size_t>(cl.node_count());
    const RankSlots slots = rank_slots(cl, pl);
    const auto rows = grid_rows(cl, slots.first_rank, st.nodes_per_row);
    const PairsByPlace pairs = pairs_by_place(grid.pairs, cl, pl);
    // More pairs inside a node than it has GPUs (an all-to-all over PCIe): counted on its
    // header by class rather than drawn as a tangle over its column.
    std::vector<bool> drawn_inside(node_count);
    for (std::size_t n = 0; n < node_count; ++n) {
        drawn_inside[n] = count_of(pairs.inside_counts[n]) <= static_cast<std::int64_t>(slots.rank_at[n].size());
    }

    c.graph_attrs({{"nodesep", "0.45"}});  // room for a visible line on each side of a lane label
    FullView view{c, report, st, std::vector<NodeRef>(static_cast<std::size_t>(pl.world()), 0),
                  std::vector<std::int64_t>(node_count, 0), std::vector<std::int64_t>(node_count, 0), {}, 0};
    for (std::size_t row = 0; row < rows.size(); ++row) {
        for (std::size_t i = 0; i < rows[row].size(); ++i) {
            view.row_of[static_cast<std::size_t>(rows[row][i])] = static_cast<std::int64_t>(row);
            view.col_of[static_cast<std::size_t>(rows[row][i])] = static_cast<std::int64_t>(i);
        }
    }
    const NodeBoxes boxes = draw_nodes(view, rows, slots, grid.group_of, pairs, drawn_inside);
    rank_rows(view, rows, boxes);
    for (const auto& [a, b, pc] : pairs.inside) {
        if (!drawn_inside[static_cast<std::size_t>(pl.node[static_cast<std::size_t>(a)])]) {
            continue;
        }
        c.edge(view.gpu_node[static_cast<std::size_t>(a)], view.gpu_node[static_cast<std::size_t>(b)], line_attrs(st.of(pc)));
    }
    CrossLines lines(view, classifier, load, rows, boxes, pairs.between);
    // More talking node pairs than twice the nodes (an all-to-all over many nodes; a ring or a
    // pipeline has at most one per node): one line per node pair everywhere.
    const bool dense = pairs.between.size() > 2 * node_count;
    for (const auto& [ends, node_pairs] : pairs.between) {
        lines.draw(ends, node_pairs, dense);
    }
    if (grid.cross > 0) {
        notes.emplace_back("lines: one per pair while each GPU has one peer on the other node; else one per rail (leaf)");
        notes.emplace_back("  for the pairs whose network hop takes it (PXN: after the NVLink hop), one for the spine;");
        notes.emplace_back("  a line shared by several pairs is drawn in the worst class among them");
    }
    if (grid.cross > 0 && rows.size() > 1) {
        notes.emplace_back("nodes of different rows: one line for all their pairs, to the lower node's header");
    }
    if (dense) {
        notes.emplace_back("more talking node pairs than twice the nodes: one line per node pair");
    }
}

}  // namespace planlayout::diagram
