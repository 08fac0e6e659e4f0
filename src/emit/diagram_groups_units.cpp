// Emit: the aggregated groups view (past the thresholds: one box per node, scalable unit or block)
// drawn with our SVG writer rather than Graphviz, which laid 32 boxes out as one tangled row and
// 1,024 nodes 2,900 px wide. Boxes sit in a grid in cluster order; the lines between boxes that
// talk are drawn under them; each group's span is a band on a ruler of the boxes under the grid
// (groups with the same boxes share one band); the legend is a few lines. Within 2,000 x 2,000 px.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "diagram_chart.hpp"
#include "diagram_groups.hpp"
#include "planlayout/emit/report_emit.hpp"

namespace planlayout::diagram {

using svg::Anchor;

namespace {

constexpr double kMargin = 16;
constexpr double kGapY = 34;
constexpr double kLine = 14;          // px between text lines of 11 px
constexpr std::size_t kMaxLanes = 10;  // band lanes before "and N more"

// "G3", "G0–G3" or "4 groups" (ids not consecutive).
std::string group_range(const std::set<std::int64_t>& gs) {
    if (gs.size() == 1) {
        return "G" + std::to_string(*gs.begin());
    }
    const bool consecutive = *gs.rbegin() - *gs.begin() + 1 == static_cast<std::int64_t>(gs.size());
    return consecutive ? "G" + std::to_string(*gs.begin()) + "\u2013G" + std::to_string(*gs.rbegin())
                       : std::to_string(gs.size()) + " groups";
}

// An SVG stroke-dasharray for a Graphviz line style ("dashed", "dotted"; "" for solid or bold).
std::string dash_of(const std::string& style) {
    if (style.find("dashed") != std::string::npos) {
        return "8 4";
    }
    if (style.find("dotted") != std::string::npos) {
        return "2 3";
    }
    return "";
}

svg::Attrs stroke_of(const LineStyle& l, double width) {
    svg::Attrs a{{"stroke", plain_colour(l.color)}, {"stroke-width", svg::num(width)}, {"fill", "none"}};
    const std::string d = dash_of(l.style);
    if (!d.empty()) {
        a.emplace_back("stroke-dasharray", d);
    }
    return a;
}

// A group's box: its fill, the border of its palette round (dashed, bold, dotted: groups past the
// palette repeat its colours) and a text colour that reads on the fill.
struct BoxPaint {
    svg::Attrs rect;
    std::string ink;
};

BoxPaint box_paint(const DiagramStyle& st, std::int64_t group) {
    if (group < 0) {
        return {{{"fill", "#FFFFFF"}, {"stroke", st.ink}}, st.ink};
    }
    const GroupColour colour = group_colour(st, group);
    const std::string fill = plain_colour(colour.fill);
    BoxPaint p{{{"fill", fill}, {"stroke", st.ink}}, st.ink};
    if (colour.style.find("dashed") != std::string::npos) {
        p.rect.emplace_back("stroke-dasharray", "6 3");
        p.rect.emplace_back("stroke-width", "1.5");
    } else if (colour.style.find("dotted") != std::string::npos) {
        p.rect.emplace_back("stroke-dasharray", "2 2");
        p.rect.emplace_back("stroke-width", "1.5");
    } else if (colour.style.find("bold") != std::string::npos) {
        p.rect.emplace_back("stroke-width", "3");
    }
    // Relative luminance of #RRGGBB (sRGB weights, no gamma: enough to pick black or white).
    if (fill.size() == 7 && fill[0] == '#') {
        const auto channel = [&](std::size_t at) { return static_cast<double>(std::stoi(fill.substr(at, 2), nullptr, 16)) / 255.0; };
        const double lum = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
        if (lum < 0.45) {
            p.ink = "#FFFFFF";
        }
    }
    return p;
}

// A box's short name: "node3", "su5" or "block2"; its node range for units of several nodes.
std::string box_name(const Report& report, const Units& u, std::int64_t unit) {
    if (u.block == 1) {
        return report.cluster.nodes[static_cast<std::size_t>(unit)].host;
    }
    return (u.word == "scalable unit" ? "su" : "block") + std::to_string(unit);
}

std::string box_range(const Report& report, const Units& u, std::int64_t unit) {
    const std::int64_t first = unit * u.block;
    const std::int64_t last = std::min(report.cluster.node_count(), first + u.block) - 1;
    return report.cluster.nodes[static_cast<std::size_t>(first)].host + "\u2013" +
           report.cluster.nodes[static_cast<std::size_t>(last)].host;
}

// A band: the boxes its groups touch (first..last, how many) and the groups.
struct Band {
    std::int64_t first = 0;
    std::int64_t last = 0;
    std::int64_t boxes = 0;
    std::set<std::int64_t> groups;
    std::size_t lane = 0;
};

// Groups with the same boxes share a band; bands in order of their first box, packed into lanes
// (a lane holds bands that do not overlap).
std::vector<Band> group_bands(const KindPairs& pairs) {
    std::map<std::int64_t, std::set<std::int64_t>> boxes_of;  // group → boxes
    for (const auto& ug : pairs.unit_groups) {
        for (const auto g : ug.second) {
            boxes_of[g].insert(ug.first);
        }
    }
    std::map<std::set<std::int64_t>, std::set<std::int64_t>> by_boxes;
    for (const auto& gb : boxes_of) {
        by_boxes[gb.second].insert(gb.first);
    }
    std::vector<Band> bands;
    bands.reserve(by_boxes.size());
    for (const auto& bg : by_boxes) {
        bands.push_back({*bg.first.begin(), *bg.first.rbegin(), static_cast<std::int64_t>(bg.first.size()), bg.second, 0});
    }
    std::sort(bands.begin(), bands.end(), [](const Band& a, const Band& b) {
        return a.first != b.first ? a.first < b.first : *a.groups.begin() < *b.groups.begin();
    });
    std::vector<std::int64_t> lane_end;  // last box used in each lane
    for (auto& b : bands) {
        std::size_t lane = 0;
        while (lane < lane_end.size() && lane_end[lane] >= b.first) {
            ++lane;
        }
        if (lane == lane_end.size()) {
            lane_end.push_back(b.last);
        } else {
            lane_end[lane] = b.last;
        }
        b.lane = lane;
    }
    return bands;
}

struct Grid {
    std::int64_t count = 0;
    std::int64_t cols = 1;
    double box_w = 150;
    double box_h = 3 * kLine + 10;
    double gap_x = 28;  // wide enough for the labels of lines between boxes of one row
    double top = 0;
    [[nodiscard]] double x(std::int64_t u) const { return kMargin + static_cast<double>(u % cols) * (box_w + gap_x); }
    [[nodiscard]] double y(std::int64_t u) const {
        const std::int64_t row = u / cols;
        return top + static_cast<double>(row) * (box_h + kGapY);
    }
    [[nodiscard]] std::int64_t rows() const { return (count + cols - 1) / cols; }
};

// The lines between boxes, under the boxes; their labels come after the boxes (drawn_labels).
struct LineLabel {
    double x;
    double y;
    std::string text;
};

// `usual`: the label most lines share, said once in the legend instead.
std::vector<LineLabel> draw_unit_lines(svg::Document& doc, const DiagramStyle& st, const Grid& grid, const KindPairs& pairs,
                                       const std::string& usual) {
    std::vector<LineLabel> labels;
    labels.reserve(pairs.unit_pairs.size());
    for (const auto& up : pairs.unit_pairs) {
        const std::int64_t a = up.first.first;
        const std::int64_t b = up.first.second;
        const double ax = grid.x(a) + grid.box_w / 2;
        const double ay = grid.y(a) + grid.box_h / 2;
        const double bx = grid.x(b) + grid.box_w / 2;
        const double by = grid.y(b) + grid.box_h / 2;
        const double width = 1.5 + std::log10(static_cast<double>(count_of(up.second)));
        const svg::Attrs stroke = stroke_of(st.of(worst_of(up.second)), width);
        const std::string text = class_counts_text(up.second);
        const bool same_row = a / grid.cols == b / grid.cols;
        if (same_row && b == a + 1) {
            // Neighbours: a short line across the gap, labelled above it.
            doc.line(grid.x(a) + grid.box_w, ay, grid.x(b), by, stroke);
            if (text != usual) {
                labels.push_back({grid.x(a) + grid.box_w + grid.gap_x / 2, ay - 5, text});
            }
        } else if (same_row) {
            // Farther along the row (a ring's way back): an arc under the boxes, never behind them.
            const double bottom = grid.y(a) + grid.box_h;
            const double dip = kGapY * 0.9;
            doc.path("M" + svg::num(ax) + "," + svg::num(bottom) + " C" + svg::num(ax) + "," + svg::num(bottom + dip) + " " +
                         svg::num(bx) + "," + svg::num(bottom + dip) + " " + svg::num(bx) + "," + svg::num(bottom),
                     stroke);
            // Labelled a quarter along (not mid-way), so arcs of one row that overlap keep their
            // labels apart: the cubic at t = 1/4 is 5/32 of the way across, 9/16 of the way down.
            if (text != usual) {
                labels.push_back({ax + (bx - ax) * 5.0 / 32.0, bottom + dip * 9.0 / 16.0 + 4, text});
            }
        } else {
            // Another row: from under a to over b, its label in the gap under a's row.
            const double y1 = grid.y(a) + grid.box_h;
            const double y2 = grid.y(b);
            doc.line(ax, y1, bx, y2, stroke);
            const double gy = y1 + kGapY / 2;
            const double t = (gy - y1) / (y2 - y1);
            if (text != usual) {
                labels.push_back({ax + t * (bx - ax), gy + 4, text});
            }
        }
    }
    return labels;
}

void draw_boxes(svg::Document& doc, const Report& report, const DiagramStyle& st, const Units& units, const Grid& grid,
                const KindPairs& pairs, bool inside_alike) {
    for (std::int64_t u = 0; u < grid.count; ++u) {
        const auto it = pairs.unit_groups.find(u);
        const bool idle = it == pairs.unit_groups.end() || it->second.empty();
        const std::int64_t only = !idle && it->second.size() == 1 ? *it->second.begin() : -1;
        BoxPaint paint = box_paint(st, only);
        paint.rect.emplace_back("rx", "3");
        // An inline style: the sheet's `text { fill }` outranks a fill attribute.
        const svg::Attrs ink{{"style", "fill: " + paint.ink}};
        const double x = grid.x(u);
        const double y = grid.y(u);
        doc.rect(x, y, grid.box_w, grid.box_h, paint.rect);
        std::string head = box_name(report, units, u);
        if (units.block > 1) {
            head += " (" + std::to_string(std::min(units.block, report.cluster.node_count() - u * units.block)) + " nodes)";
        }
        doc.text(x + grid.box_w / 2, y + kLine, head, Anchor::Middle, {{"class", "head"}, ink.front()});
        double line_y = y + 2 * kLine;
        if (units.block > 1) {
            doc.text(x + grid.box_w / 2, line_y, box_range(report, units, u), Anchor::Middle, {{"class", "label"}, ink.front()});
            line_y += kLine;
        }
        std::string groups = idle ? std::string("idle") : group_range(it->second);
        if (!idle && it->second.size() > 1) {
            groups += " (" + std::to_string(it->second.size()) + ")";
        }
        const auto in = pairs.inside_unit.find(u);
        if (!inside_alike && in != pairs.inside_unit.end()) {
            groups += "; in: " + class_counts_text(in->second);
        }
        doc.text(x + grid.box_w / 2, line_y, groups, Anchor::Middle, {{"class", "label"}, ink.front()});
    }
}

// The bands under the grid: a ruler of the boxes, then one bar per band in its lane.
double draw_bands(svg::Document& doc, const Report& report, const DiagramStyle& st, const Units& units, const Grid& grid,
                  const std::vector<Band>& bands, const std::string& kind, double top) {
    const double left = kMargin;
    const double width = doc.width() - 2 * kMargin;
    const double slot = width / static_cast<double>(grid.count);
    doc.text(left, top, "Where each " + kind + " group lies: one band per set of " + units.word +
                            "s (groups with the same ones share it)",
             Anchor::Start, {{"class", "head"}});
    const double ruler = top + 12;
    doc.line(left, ruler, left + width, ruler, {{"stroke", st.muted}});
    // Ticks: every box when they are wide enough to name, else every cols-th (a grid row).
    const std::int64_t every = slot >= text_px(box_name(report, units, grid.count - 1), 10) + 4 ? 1 : grid.cols;
    for (std::int64_t u = 0; u < grid.count; u += every) {
        const double x = left + static_cast<double>(u) * slot;
        doc.line(x, ruler - 3, x, ruler + 3, {{"stroke", st.muted}});
        doc.text(x + 1, ruler + 13, box_name(report, units, u), Anchor::Start, {{"class", "small"}, {"fill", st.muted}});
    }
    const double lanes_top = ruler + 20;
    std::size_t hidden = 0;
    for (const auto& b : bands) {
        if (b.lane >= kMaxLanes) {
            ++hidden;
            continue;
        }
        const double x = left + static_cast<double>(b.first) * slot + 1;
        const double w = static_cast<double>(b.last - b.first + 1) * slot - 2;
        const double y = lanes_top + static_cast<double>(b.lane) * 18;
        BoxPaint paint = b.groups.size() == 1 ? box_paint(st, *b.groups.begin())
                                              : BoxPaint{{{"fill", "#DDDDDD"}, {"stroke", st.ink}}, st.ink};
        const bool gaps = b.boxes < b.last - b.first + 1;
        svg::Attrs a = paint.rect;
        if (gaps) {  // dashed: the group skips boxes between its first and last (one attribute only)
            a.erase(std::remove_if(a.begin(), a.end(), [](const auto& kv) { return kv.first == "stroke-dasharray"; }), a.end());
            a.emplace_back("stroke-dasharray", "3 2");
        }
        doc.rect(x, y, w, 14, a);
        std::string text = group_range(b.groups);
        if (gaps) {
            text += " (" + std::to_string(b.boxes) + " of " + std::to_string(b.last - b.first + 1) + ")";
        }
        if (text_px(text, 10) + 4 <= w) {
            doc.text(x + w / 2, y + 11, text, Anchor::Middle, {{"class", "small"}, {"style", "fill: " + paint.ink}});
        } else if (text_px(group_range(b.groups), 10) + 4 <= w) {
            doc.text(x + w / 2, y + 11, group_range(b.groups), Anchor::Middle, {{"class", "small"}, {"style", "fill: " + paint.ink}});
        }
    }
    std::size_t lanes = 0;
    for (const auto& b : bands) {
        lanes = std::max(lanes, std::min(b.lane + 1, kMaxLanes));
    }
    double bottom = lanes_top + static_cast<double>(lanes) * 18 + 4;
    if (hidden > 0) {
        doc.text(left, bottom + 10, "and " + std::to_string(hidden) + " more bands (overlapping spans)", Anchor::Start,
                 {{"class", "label"}});
        bottom += 16;
    }
    return bottom;
}

}  // namespace

// long: one picture's geometry and its parts in drawing order; each part is a helper above
std::string groups_units_svg(const Report& report, const DiagramOptions& options, const DiagramStyle& style,
                             const Units& units) {
    const GroupKind& kind = drawn_kind(report, options.kind);
    const PairClassifier classifier(report.cluster, report.placement);
    const KindPairs pairs = kind_pairs(kind, classifier, report.placement, units);
    const Cluster& cl = report.cluster;

    Grid grid;
    grid.count = units.of(cl.node_count() - 1) + 1;
    grid.cols = std::min<std::int64_t>(grid.count, 8);
    if (grid.count > 64) {
        grid.cols = 16;
    }
    if (units.block == 1) {
        grid.box_h = 2 * kLine + 8;
    }
    // Boxes as wide as their longest line, the whole grid within 2,000 px.
    double longest = 0;
    std::vector<std::string> notes = kind_notes(report, kind, pairs.totals);
    bool inside_alike = !pairs.inside_unit.empty() &&
                        pairs.inside_unit.size() == static_cast<std::size_t>(grid.count);
    for (const auto& in : pairs.inside_unit) {
        inside_alike = inside_alike && in.second == pairs.inside_unit.begin()->second;
    }
    for (std::int64_t u = 0; u < grid.count; ++u) {
        longest = std::max(longest, text_px(box_name(report, units, u) + " (32 nodes)", 12));
        if (units.block > 1) {
            longest = std::max(longest, text_px(box_range(report, units, u), 11));
        }
        const auto it = pairs.unit_groups.find(u);
        std::string g = it == pairs.unit_groups.end() || it->second.empty() ? std::string("idle") : group_range(it->second) + " (000)";
        const auto in = pairs.inside_unit.find(u);
        if (!inside_alike && in != pairs.inside_unit.end()) {
            g += "; in: " + class_counts_text(in->second);
        }
        longest = std::max(longest, text_px(g, 11));
    }
    const bool draw_lines = pairs.unit_pairs.size() <= static_cast<std::size_t>(3 * grid.count);
    for (const auto& up : pairs.unit_pairs) {
        if (draw_lines && up.first.first / grid.cols == up.first.second / grid.cols) {
            grid.gap_x = std::max(grid.gap_x, text_px(class_counts_text(up.second), 10) + 10);
        }
    }
    grid.box_w = std::max(110.0, longest + 10);
    // Within 2,000 px: the gaps give way first (labels then overlap the boxes' edges), then the boxes.
    const double spare = kChartMaxPx - 2 * kMargin - static_cast<double>(grid.cols) * grid.box_w;
    grid.gap_x = std::max(12.0, std::min(grid.gap_x, spare / static_cast<double>(std::max<std::int64_t>(1, grid.cols - 1))));
    grid.box_w = std::min(grid.box_w, (kChartMaxPx - 2 * kMargin - static_cast<double>(grid.cols - 1) * grid.gap_x) /
                                          static_cast<double>(grid.cols));
    const double width = std::max(900.0, 2 * kMargin + static_cast<double>(grid.cols) * grid.box_w +
                                             static_cast<double>(grid.cols - 1) * grid.gap_x);
    grid.top = 62;
    const std::vector<Band> bands = group_bands(pairs);
    // Groups that each stay inside one box: the boxes name them, a strip of one-box bands adds nothing.
    const bool inside_boxes = std::all_of(bands.begin(), bands.end(), [](const Band& b) { return b.boxes == 1; });
    std::size_t lanes = 0;
    for (const auto& b : bands) {
        lanes = std::max(lanes, std::min(b.lane + 1, kMaxLanes));
    }
    // The label most lines share (when several do): said once in the legend, not on each line.
    std::string usual;
    if (draw_lines) {
        std::map<std::string, int> label_count;
        int most = 1;
        for (const auto& up : pairs.unit_pairs) {
            const int k = ++label_count[class_counts_text(up.second)];
            if (k > most) {
                most = k;
                usual = class_counts_text(up.second);
            }
        }
    }
    std::vector<std::pair<std::string, const LineStyle*>> classes;
    for (int pc = 1; pc < kPathClassCount; ++pc) {
        const auto cls = static_cast<PathClass>(pc);
        if (pairs.totals[static_cast<std::size_t>(pc)] > 0) {
            classes.emplace_back(std::string(to_string(cls)) + ": " + style.of(cls).meaning + " (" +
                                     std::to_string(pairs.totals[static_cast<std::size_t>(pc)]) + " pairs)",
                                 &style.of(cls));
        }
    }
    if (inside_alike) {
        notes.push_back("inside every " + units.word + ": " + class_counts_text(pairs.inside_unit.begin()->second) + " used pairs");
    }
    std::int64_t between = 0;
    for (const auto& up : pairs.unit_pairs) {
        between += count_of(up.second);
    }
    notes.push_back(std::to_string(cl.node_count()) + " nodes, " + std::to_string(cl.total_gpus()) + " GPUs: one box per " +
                    units.word + (units.block > 1 ? " of " + std::to_string(units.block) + " nodes" : std::string()) + "; " +
                    (pairs.unit_pairs.empty() ? std::string("no pairs between boxes")
                     : draw_lines ? std::string("a line joins boxes whose GPUs talk (label: used pairs by class, width grows with the count)")
                                  : std::to_string(pairs.unit_pairs.size()) + " box pairs talk (" + std::to_string(between) +
                                        " used pairs), too many to draw: --view matrix shows them"));
    if (!usual.empty()) {
        notes.push_back("a line without a label: " + usual + " used pairs");
    }
    notes.emplace_back("a box is filled with its group's colour when it holds one group, else white with the range of its groups");
    if (kind.group_count() > static_cast<std::int64_t>(style.groups.size()) && !style.groups.empty()) {
        notes.push_back("group colours repeat every " + std::to_string(style.groups.size()) +
                        " groups with another border (dashed, bold, dotted); every box names its groups");
    }
    const double grid_bottom = grid.y(grid.count - 1) + grid.box_h;
    const double bands_top = grid_bottom + kGapY + 16;  // under the last row's arcs
    const double band_h = inside_boxes ? -16 : 20 + 20 + static_cast<double>(lanes) * 18 + 4 + 16;
    if (inside_boxes) {
        notes.push_back("every " + kind.name + " group lies inside one " + units.word + " (its box names it)");
    }
    const double legend_top = bands_top + band_h + 14;
    const double height = legend_top + static_cast<double>(classes.size() + notes.size()) * kLine + 12;

    svg::Document doc(width, height, title_of(report, kind.name + " groups"));
    chart_style(doc, style);
    doc.text(kMargin, 22, title_of(report, kind.name + " groups and the pairs their collective uses"), Anchor::Start,
             {{"class", "title"}});
    doc.text(kMargin, 42, spec_line(report), Anchor::Start, {{"class", "label"}});
    std::vector<LineLabel> labels;
    if (draw_lines) {
        labels = draw_unit_lines(doc, style, grid, pairs, usual);
    }
    draw_boxes(doc, report, style, units, grid, pairs, inside_alike);
    for (const auto& l : labels) {
        const double w = text_px(l.text, 10) + 4;
        doc.rect(l.x - w / 2, l.y - 10, w, 13, {{"fill", style.background}, {"fill-opacity", "0.85"}});
        doc.text(l.x, l.y, l.text, Anchor::Middle, {{"class", "small"}});
    }
    if (!inside_boxes) {
        draw_bands(doc, report, style, units, grid, bands, kind.name, bands_top);
    }
    double y = legend_top;
    for (const auto& c : classes) {
        doc.path("M" + svg::num(kMargin) + "," + svg::num(y - 4) + " h28", stroke_of(*c.second, std::max(1.5, c.second->penwidth)));
        doc.text(kMargin + 36, y, c.first, Anchor::Start, {{"class", "label"}});
        y += kLine;
    }
    for (const auto& n : notes) {
        doc.text(kMargin, y, n, Anchor::Start, {{"class", "label"}});
        y += kLine;
    }
    return doc.str();
}

}  // namespace planlayout::diagram
