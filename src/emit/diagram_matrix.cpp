// Emit: the traffic matrix view (node × node, or blocks of nodes inside scalable units when the
// nodes are too many for 2 px cells), drawn with our SVG writer. Colour: the path class carrying
// the most bytes in a cell; shade: its bytes per step on a log scale.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "diagram_chart.hpp"
#include "planlayout/analysis/fabric_load.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout::diagram {

using svg::Anchor;

namespace {

constexpr double kMinCellPx = 2;    // a cell narrower than this is not drawn: aggregate
constexpr double kMaxCellPx = 28;   // small clusters: cells no larger than this
constexpr double kPlotMaxPx = 1300; // the matrix's side at most
constexpr double kLegendReservePx = 440;  // beside it: the legend and the detail
constexpr double kLabelPitchPx = 14;  // axis labels at least this far apart

// Nodes per cell: 1 when every node gets kMinCellPx, else the smallest divisor of the scalable
// unit (then multiple of it; powers of two without units) that does.
std::int64_t matrix_block(std::int64_t nodes, std::int64_t su, double plot_max) {
    auto fits = [&](std::int64_t b) {
        const std::int64_t cells = (nodes + b - 1) / b;  // whole cells: the last may be partly empty
        return static_cast<double>(cells) * kMinCellPx <= plot_max;
    };
    if (fits(1)) {
        return 1;
    }
    if (su > 1) {
        for (std::int64_t b = 2; b <= su; ++b) {
            if (su % b == 0 && fits(b)) {
                return b;
            }
        }
        std::int64_t b = su;
        while (!fits(b)) {
            b *= 2;
        }
        return b;
    }
    std::int64_t b = 2;
    while (!fits(b)) {
        b *= 2;
    }
    return b;
}

// Cells per axis label: the fewest that keep labels kLabelPitchPx apart. When cells nest in
// scalable units: one label per unit as soon as a unit is that tall, else a divisor of it.
std::int64_t label_step(double cell_px, std::int64_t block, std::int64_t su) {
    const std::int64_t per_su = su > 0 && su % block == 0 ? su / block : 0;
    if (block > 1 && per_su > 1 && static_cast<double>(per_su) * cell_px >= kLabelPitchPx) {
        return per_su;
    }
    std::int64_t step = 1;
    while (static_cast<double>(step) * cell_px < kLabelPitchPx) {
        if (per_su > 1 && step < per_su) {
            do {
                ++step;
            } while (per_su % step != 0);
        } else if (per_su > 1) {
            step += per_su;
        } else {
            step *= 2;
        }
    }
    return step;
}

std::string host(const Report& r, std::int64_t node) { return r.cluster.nodes[static_cast<std::size_t>(node)].host; }

// "node4", or "node4-node7"; with the scalable unit when the span is exactly one.
std::string span_label(const Report& r, std::int64_t first, std::int64_t last) {
    const std::int64_t su = r.cluster.regular_su_size();
    std::string s = first == last ? host(r, first) : host(r, first) + "-" + host(r, last);
    if (su > 1 && first % su == 0 && last - first + 1 == su) {
        s = "su" + std::to_string(first / su) + " " + s;
    }
    return s;
}

std::string class_bytes_text(const MatrixCell& c, bool bytes) {
    std::string s;
    for (int k = kPathClassCount - 1; k >= 0; --k) {
        const double v = c.bytes[static_cast<std::size_t>(k)];
        if (v > 0) {
            s += (s.empty() ? "" : ", ") + std::string(to_string(static_cast<PathClass>(k))) + " " +
                 (bytes ? human_bytes(v) : fixed_text(v, 0));
        }
    }
    return s;
}

// Where a matrix is drawn: its top-left corner, cell size, nodes per cell, and the node of its first cell.
struct Frame {
    double x = 0;
    double y = 0;
    double cell = 0;
    std::int64_t block = 1;
    std::int64_t first_node = 0;
    std::int64_t cells = 0;
};

struct Shade {
    double lo = 0;  // log of the smallest non-zero cell
    double hi = 0;  // log of the largest

    [[nodiscard]] double opacity(double v) const {
        const double t = hi > lo ? (std::log(v) - lo) / (hi - lo) : 1.0;
        return 0.2 + 0.8 * std::clamp(t, 0.0, 1.0);
    }
};

// Axis labels every `step` cells: rows at the left, columns above (rotated); `first_only`: each
// label names the first node of its cells, centred on that node's cell.
void draw_labels(svg::Document& doc, const Report& report, const Frame& f, std::int64_t step, double font, bool first_only) {
    const std::int64_t nodes = report.cluster.node_count();
    const std::string cls = font >= 11 ? "label" : "small";
    for (std::int64_t i = 0; i < f.cells; i += step) {
        const std::int64_t first = f.first_node + i * f.block;
        const std::int64_t last = std::min(nodes, f.first_node + (i + step) * f.block) - 1;
        const std::string t = first_only ? span_label(report, first, first) : span_label(report, first, last);
        const double span = first_only ? 1.0 : static_cast<double>(std::min(step, f.cells - i));
        const double mid = (static_cast<double>(i) + span / 2) * f.cell;
        doc.text(f.x - 6, f.y + mid + font * 0.35, t, Anchor::End, {{"class", cls}});
        const double x = f.x + mid + font * 0.35;
        doc.text(x, f.y - 6, t, Anchor::Start, {{"class", cls}, {"transform", "rotate(-90 " + svg::num(x) + " " + svg::num(f.y - 6) + ")"}});
    }
}

// The frame, the cells (row and col relative to the frame), and grid lines every `grid` cells.
void draw_cells(svg::Document& doc, const Report& report, const DiagramStyle& style, const Frame& f,
                const std::vector<MatrixCell>& cells, const Shade& shade, bool bytes, std::int64_t grid) {
    const std::int64_t nodes = report.cluster.node_count();
    const double side = f.cell * static_cast<double>(f.cells);
    doc.rect(f.x, f.y, side, side, {{"fill", "#FFFFFF"}, {"stroke", style.muted}, {"stroke-width", "1"}});
    doc.open_group({{"shape-rendering", "crispEdges"}});
    for (const auto& e : cells) {
        const double v = e.total();
        const std::int64_t r0 = f.first_node + e.row * f.block;
        const std::int64_t c0 = f.first_node + e.col * f.block;
        doc.tooltip(span_label(report, r0, std::min(nodes, r0 + f.block) - 1) + " - " +
                    span_label(report, c0, std::min(nodes, c0 + f.block) - 1) + ": " +
                    (bytes ? human_bytes(v) + " per step" : fixed_text(v, 0) + " pairs") + " (" + class_bytes_text(e, bytes) + ")");
        doc.rect(f.x + static_cast<double>(e.col) * f.cell, f.y + static_cast<double>(e.row) * f.cell, f.cell, f.cell,
                 {{"fill", plain_colour(style.of(e.dominant()).color)}, {"fill-opacity", svg::num(shade.opacity(v))}});
    }
    doc.close_group();
    for (std::int64_t i = grid; grid > 0 && i < f.cells; i += grid) {
        const double at = static_cast<double>(i) * f.cell;
        doc.line(f.x + at, f.y, f.x + at, f.y + side, {{"stroke", style.muted}, {"stroke-width", "0.5"}});
        doc.line(f.x, f.y + at, f.x + side, f.y + at, {{"stroke", style.muted}, {"stroke-width", "0.5"}});
    }
}

// The matrix side's limit: kPlotMaxPx, less when long host names widen the axis labels, so that
// the canvas stays within kChartMaxPx with the legend beside the matrix and the labels above it.
double plot_limit(const Cluster& cl) {
    std::size_t longest = 0;
    for (const auto& n : cl.nodes) {
        longest = std::max(longest, n.host.size());
    }
    const double label_est = 0.6 * 11 * static_cast<double>(2 * longest + 8);
    return std::max(
        64.0, std::min({kPlotMaxPx, kChartMaxPx - 20 - kLegendReservePx - 40 - (24 + label_est), kChartMaxPx - (72 + label_est) - 30}));
}

// A cell's weight in words: bytes, or used pairs when no bytes are known.
std::string amount_text(bool bytes_known, double v) {
    return bytes_known ? human_bytes(v) : fixed_text(v, 0) + (v == 1 ? " pair" : " pairs");
}

// The node x node detail of one scalable unit; none when m is empty.
struct Detail {
    std::optional<TrafficMatrix> m;
    std::int64_t first = 0;
    std::int64_t nodes = 0;
};

// Aggregated: a node x node detail of the scalable unit with the most bytes inside it (the first
// of equals); none when no unit has traffic inside.
Detail busiest_unit_detail(const Report& report, const GroupKind& kind, const KindTraffic* bytes, const TrafficMatrix& m,
                           std::int64_t block) {
    const Cluster& cl = report.cluster;
    const std::int64_t nodes = cl.node_count();
    const std::int64_t su = cl.regular_su_size();
    Detail detail;
    std::vector<double> inside((static_cast<std::size_t>(nodes) + static_cast<std::size_t>(std::max<std::int64_t>(su, 1)) - 1) /
                                   static_cast<std::size_t>(std::max<std::int64_t>(su, 1)),
                               0.0);
    if (block > 1 && su > 1 && su % block == 0) {
        for (const auto& e : m.entries) {
            if (e.row * block / su == e.col * block / su) {
                inside[static_cast<std::size_t>(e.row * block / su)] += e.total();
            }
        }
    }
    const auto busiest_unit = std::max_element(inside.begin(), inside.end());
    if (busiest_unit != inside.end() && *busiest_unit > 0) {
        detail.first = static_cast<std::int64_t>(busiest_unit - inside.begin()) * su;
        detail.nodes = std::min(su, nodes - detail.first);
        detail.m = traffic_matrix(cl, report.placement, kind, bytes, 1, detail.first, detail.nodes);
    }
    return detail;
}

// The legend's words (right of the matrix), measured before the canvas is sized.
struct MatrixLegend {
    std::vector<int> classes;  // the classes with bytes
    std::vector<std::string> class_text;
    std::string class_head;
    std::string shade_head;
    std::vector<std::string> notes;
};

// The legend of matrix m at `block` nodes per cell.
MatrixLegend matrix_legend(const TrafficMatrix& m, const DiagramStyle& style, std::int64_t block, std::int64_t su,
                           std::int64_t nodes) {
    MatrixLegend l;
    for (int c = 0; c < kPathClassCount; ++c) {
        if (m.class_bytes[static_cast<std::size_t>(c)] > 0) {
            l.classes.push_back(c);
        }
    }
    for (const int c : l.classes) {
        const auto pc = static_cast<PathClass>(c);
        l.class_text.push_back(std::string(to_string(pc)) + ": " + style.of(pc).meaning + " (" +
                               amount_text(m.bytes_known, m.class_bytes[static_cast<std::size_t>(c)]) + ")");
    }
    l.class_head = m.bytes_known ? "Colour: the class with the most bytes (all pairs, per step)"
                                 : "Colour: the class with the most pairs (all pairs)";
    l.shade_head = m.bytes_known ? "Shade: bytes per step in a cell (log scale)" : "Shade: used pairs in a cell (log scale)";
    l.notes.push_back(block == 1 ? "one cell per node pair, nodes in cluster order"
                                 : "one cell per " + std::to_string(block) + " x " + std::to_string(block) + " nodes, nodes in cluster order");
    if (su > block && su % block == 0 && su < nodes) {
        l.notes.push_back("grey lines: scalable units of " + std::to_string(su) + " nodes");
    }
    l.notes.emplace_back("diagonal: inside one " + std::string(block == 1 ? "node" : "cell's nodes"));
    if (m.bytes_known) {
        l.notes.emplace_back("bytes between two nodes, both directions, per step");
        l.notes.emplace_back("model: docs/diagrams.md, views at scale");
    } else {
        l.notes.emplace_back("no bytes for this kind in a score:");
        l.notes.emplace_back("the shade counts used GPU pairs");
    }
    return l;
}

// The legend at (legend_x, y): the classes' colours, the shade scale, the notes; the y below it.
double draw_matrix_legend(svg::Document& doc, const MatrixLegend& l, const TrafficMatrix& m, const Shade& shade, const GroupKind& kind,
                   const DiagramStyle& style, double legend_x, double y) {
    doc.text(legend_x, y + 12, l.class_head, Anchor::Start, {{"class", "head"}});
    y += 28;
    for (std::size_t i = 0; i < l.classes.size(); ++i) {
        const auto pc = static_cast<PathClass>(l.classes[i]);
        doc.rect(legend_x, y, 14, 14, {{"fill", plain_colour(style.of(pc).color)}, {"stroke", style.ink}, {"stroke-width", "0.5"}});
        doc.text(legend_x + 22, y + 11, l.class_text[i], Anchor::Start, {{"class", "label"}});
        y += 20;
    }
    y += 14;
    doc.text(legend_x, y + 12, l.shade_head, Anchor::Start, {{"class", "head"}});
    y += 28;
    constexpr int kSteps = 5;
    if (m.entries.empty()) {
        const std::string why = kind.group_size() <= 1 ? "no traffic: every " + kind.name + " group is one rank" : "no traffic";
        doc.text(legend_x, y + 11, why, Anchor::Start, {{"class", "label"}});
        y += 20;
    }
    for (int i = 0; i < kSteps && !m.entries.empty(); ++i) {
        const double f = static_cast<double>(kSteps - 1 - i) / (kSteps - 1);
        const double v = shade.hi > shade.lo ? std::exp(shade.lo + f * (shade.hi - shade.lo)) : m.max_total;
        doc.rect(legend_x, y, 28, 14, {{"fill", style.ink}, {"fill-opacity", svg::num(0.2 + 0.8 * (shade.hi > shade.lo ? f : 1.0))}});
        doc.text(legend_x + 36, y + 11, m.max_total > 0 ? amount_text(m.bytes_known, v) : std::string("no traffic"), Anchor::Start,
                 {{"class", "label"}});
        y += 20;
        if (shade.hi <= shade.lo) {
            break;
        }
    }
    y += 14;
    for (const auto& n : l.notes) {
        doc.text(legend_x, y + 11, n, Anchor::Start, {{"class", "label"}, {"fill", style.muted}});
        y += 18;
    }
    return y;
}

}  // namespace

std::string matrix_svg(const Report& report, const DiagramOptions& options, const DiagramStyle& style) {
    const GroupKind* kind = &drawn_kind(report, options.kind);
    // A kind without bytes in the score (no score, or a kind with no traffic): used-pair counts.
    const std::vector<KindTraffic> traffic = kind_traffic(report.score);
    const KindTraffic* bytes = nullptr;
    for (const auto& t : traffic) {
        if (t.kind == kind->name) {
            bytes = &t;
        }
    }
    const Cluster& cl = report.cluster;
    const std::int64_t nodes = cl.node_count();
    const std::int64_t su = cl.regular_su_size();
    const double plot_max = plot_limit(cl);
    const std::int64_t block = matrix_block(nodes, su, plot_max);
    const TrafficMatrix m = traffic_matrix(cl, report.placement, *kind, bytes, block);
    const double cell = std::min(kMaxCellPx, plot_max / static_cast<double>(m.cells));
    const double plot = cell * static_cast<double>(m.cells);
    const std::int64_t step = label_step(cell, block, su);
    const double label_font = cell * static_cast<double>(step) >= 16 ? 11 : kChartMinFontPx;
    double label_w = 0;
    for (std::int64_t i = 0; i < m.cells; i += step) {
        label_w = std::max(label_w, text_px(span_label(report, i * block, std::min(nodes, (i + step) * block) - 1), label_font));
    }
    const Detail detail = busiest_unit_detail(report, *kind, bytes, m, block);
    const MatrixLegend legend = matrix_legend(m, style, block, su, nodes);
    double legend_w = std::max(text_px(legend.shade_head, 12), text_px(legend.class_head, 12));
    for (const auto& t : legend.class_text) {
        legend_w = std::max(legend_w, 22 + text_px(t, 11));
    }
    for (const auto& t : legend.notes) {
        legend_w = std::max(legend_w, text_px(t, 11));
    }
    // The detail: node labels every 4 nodes at 10 px, cells up to 12 px.
    const std::string detail_head =
        detail.m ? "Detail: " + span_label(report, detail.first, detail.first + detail.nodes - 1) + ", node x node" : std::string();
    const double detail_label_w = detail.m ? text_px(cl.nodes[static_cast<std::size_t>(nodes - 1)].host, kChartMinFontPx) + 10 : 0.0;
    const double detail_cell =
        detail.m ? std::min(12.0, std::max(4.0, (legend_w - detail_label_w) / static_cast<double>(detail.nodes))) : 0.0;
    if (detail.m) {
        legend_w = std::max({legend_w, text_px(detail_head, 12), detail_label_w + detail_cell * static_cast<double>(detail.nodes)});
    }
    const std::string title = kind->name + " traffic matrix: " +
                              (block == 1 ? "node x node"
                                          : std::to_string(m.cells) + " x " + std::to_string(m.cells) + " cells of " + std::to_string(block) +
                                                " nodes" + (block == su ? " (scalable unit x scalable unit)" : ""));
    const std::string subtitle = spec_line(report) + " | " + (m.bytes_known ? "bytes per step from the score" : "used pairs (no bytes in a score)");
    const double left = 16 + label_w + 8;
    const double top = 64 + label_w + 8;
    const double legend_x = left + plot + 40;
    const double width = std::max({legend_x + legend_w + 20, text_px(title, 16) + 40, text_px(subtitle, 11) + 40});
    const double legend_h =
        40 + 20.0 * static_cast<double>(legend.classes.size()) + 30 + 6 * 20 + 30 + 18.0 * static_cast<double>(legend.notes.size());
    const double detail_h = detail.m ? 40 + detail_label_w + detail_cell * static_cast<double>(detail.nodes) : 0.0;
    const double height = std::max(top + plot + 30, top + legend_h + detail_h + 20);

    svg::Document doc(std::ceil(width), std::ceil(height), "plan-layout: " + kind->name + " traffic matrix");
    chart_style(doc, style);
    doc.text(16, 26, title, Anchor::Start, {{"class", "title"}});
    doc.text(16, 46, subtitle, Anchor::Start, {{"class", "label"}});

    // One shade scale for the matrix and its detail (whose node pairs carry less than a block).
    double min_total = m.min_total;
    if (detail.m) {
        for (const auto& e : detail.m->entries) {
            min_total = std::min(min_total, e.total());
        }
    }
    const Shade shade{min_total > 0 ? std::log(min_total) : 0.0, m.max_total > 0 ? std::log(m.max_total) : 0.0};
    const Frame main{left, top, cell, block, 0, m.cells};
    draw_labels(doc, report, main, step, label_font, false);
    draw_cells(doc, report, style, main, m.entries, shade, m.bytes_known, su > block && su % block == 0 && su < nodes ? su / block : 0);
    double y = draw_matrix_legend(doc, legend, m, shade, *kind, style, legend_x, top + 4);
    if (detail.m) {
        y += 22;
        doc.text(legend_x, y + 12, detail_head, Anchor::Start, {{"class", "head"}});
        y += 24 + detail_label_w;
        const Frame d{legend_x + detail_label_w, y, detail_cell, 1, detail.first, detail.nodes};
        draw_labels(doc, report, d, std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(kLabelPitchPx / detail_cell))), kChartMinFontPx, true);
        draw_cells(doc, report, style, d, detail.m->entries, shade, m.bytes_known, 0);
    }
    return doc.str();
}

}  // namespace planlayout::diagram
