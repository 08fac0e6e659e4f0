// Emit: the rail / leaf / spine load chart, drawn with our SVG writer: one bar per link tier (and
// rail), the busiest link's bytes per step stacked by group kind, the mean over the tier's links,
// and the bottleneck link (the most time at its line rate) marked and named.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "diagram_chart.hpp"
#include "planlayout/analysis/fabric_load.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout::diagram {

using svg::Anchor;

namespace {

constexpr double kRowPx = 26;
constexpr double kBarPx = 14;
constexpr double kBarMaxPx = 640;

std::string row_label(const TierLoad& r) {
    switch (r.tier) {
        case LinkTier::NodeLeaf:
            return r.rail >= 0 ? "rail " + std::to_string(r.rail) + ": node NIC -> leaf" : "node NICs -> leaves";
        case LinkTier::NodeTcp:
            return "node TCP interface";
        case LinkTier::LeafSpine:
            return r.rail >= 0 ? "rail " + std::to_string(r.rail) + " leaves -> spine" : "leaves -> spine";
        case LinkTier::SpineCore:
            return "spine -> core";
    }
    return "";
}

std::string tier_heading(LinkTier t) {
    switch (t) {
        case LinkTier::NodeLeaf:
            return "Node -> leaf: each node's NIC on one rail";
        case LinkTier::NodeTcp:
            return "Node TCP interface (ranks without an RDMA NIC)";
        case LinkTier::LeafSpine:
            return "Leaf -> spine: a leaf's uplinks together";
        case LinkTier::SpineCore:
            return "Spine -> core: a pod's uplinks together";
    }
    return "";
}

std::string grouped_count_text(std::int64_t v) {
    std::string s = std::to_string(v);
    for (auto i = static_cast<std::ptrdiff_t>(s.size()) - 3; i > 0; i -= 3) {
        s.insert(static_cast<std::size_t>(i), ",");
    }
    return s;
}

std::string rate_text(double gbyte_s) {
    const double gbit = gbyte_s * 8.0;
    if (gbit >= 1000.0) {
        return fixed_text(gbit / 1000.0, gbit >= 100000.0 ? 0 : 1) + " Tbit/s";
    }
    return fixed_text(gbit, gbit >= 100 ? 0 : 1) + " Gbit/s";
}

// "4.2 GiB on node3 rail 0 -> leaf0: 0.09052 s at 400 Gbit/s"
std::string busiest_text(const TierLoad& r) {
    if (r.max_bytes <= 0) {
        return "no traffic";
    }
    std::string s = human_bytes(r.max_bytes) + " on " + r.busiest;
    if (r.capacity_gbyte_s > 0) {
        s += ": " + seconds_text(r.seconds) + " s at " + rate_text(r.capacity_gbyte_s);
    }
    return s;
}

// A tier whose links all carry nothing becomes one row (its links counted together).
void collapse_idle_tiers(FabricLoad& load) {
    std::optional<std::pair<LinkTier, int>> worst;
    if (load.bottleneck) {
        worst = std::make_pair(load.rows[*load.bottleneck].tier, load.rows[*load.bottleneck].rail);
    }
    std::vector<TierLoad> rows;
    for (std::size_t i = 0; i < load.rows.size();) {
        std::size_t j = i;
        bool idle = true;
        while (j < load.rows.size() && load.rows[j].tier == load.rows[i].tier) {
            idle = idle && load.rows[j].total_bytes <= 0;
            ++j;
        }
        if (idle && j - i > 1) {
            TierLoad one = load.rows[i];
            one.rail = -1;
            one.links = 0;
            for (std::size_t k = i; k < j; ++k) {
                one.links += load.rows[k].links;
            }
            rows.push_back(one);
        } else {
            rows.insert(rows.end(), load.rows.begin() + static_cast<std::ptrdiff_t>(i), load.rows.begin() + static_cast<std::ptrdiff_t>(j));
        }
        i = j;
    }
    load.rows = std::move(rows);
    load.bottleneck.reset();
    for (std::size_t i = 0; worst && i < load.rows.size(); ++i) {
        if (load.rows[i].tier == worst->first && load.rows[i].rail == worst->second) {
            load.bottleneck = i;
        }
    }
}

}  // namespace

std::string load_svg(const Report& report, const DiagramOptions& /*options*/, const DiagramStyle& style) {
    const std::vector<KindTraffic> traffic = kind_traffic(report.score);
    FabricLoad load = fabric_load(report.cluster, report.placement, report.groups, traffic);
    collapse_idle_tiers(load);
    const bool known = !load.kinds.empty();

    double max_bytes = 0;
    double label_w = 0;
    double end_w = 0;
    for (const auto& r : load.rows) {
        max_bytes = std::max(max_bytes, r.max_bytes);
        label_w = std::max({label_w, text_px(row_label(r), 11), text_px(tier_heading(r.tier), 12) - 20});
        end_w = std::max(end_w, text_px("BOTTLENECK " + busiest_text(r), 11));
    }
    const std::string title = "Rail / leaf / spine load: bytes per step on the busiest link of each tier";
    const std::string subtitle = spec_line(report) + " | " +
                                 (known ? "bytes per step in each direction, from the score" : "no score: no bytes to chart");
    std::string bottleneck_line;
    if (load.bottleneck) {
        const TierLoad& b = load.rows[*load.bottleneck];
        // Rows whose busiest link needs as long (within 0.1%): rails loaded alike.
        const auto ties = std::count_if(load.rows.begin(), load.rows.end(),
                                        [&](const TierLoad& r) { return b.seconds > 0 && r.seconds >= b.seconds * 0.999; });
        bottleneck_line = "Bottleneck: " + b.busiest + " carries " + human_bytes(b.max_bytes) + " per step" +
                          (b.capacity_gbyte_s > 0 ? ": " + seconds_text(b.seconds) + " s at " + rate_text(b.capacity_gbyte_s) +
                                                        ", the most time of any link"
                                                  : " (its capacity is unknown: the most bytes of any link)") +
                          (ties > 1 ? " (" + std::to_string(ties - 1) + " more rows within 0.1%)" : std::string());
    } else {
        bottleneck_line = known ? "No link crosses nodes: no bottleneck in the fabric"
                                : "Add model and training sections to the layout for bytes per step";
    }
    std::vector<std::string> notes = {
        "Bar: the busiest link of the row, stacked by group kind; black tick: the mean over the row's links.",
        "Links are full duplex; collectives load both directions alike, so a link carries half the bytes its pairs exchange.",
        "Routing by path class: RAIL and PXN stay under one leaf (PXN leaves by the peer rail's NIC), XRAIL crosses",
        "the spine, XPOD the core. Capacity: a NIC its line rate; a leaf's uplinks its downlinks / oversubscription " +
            svg::num(report.cluster.fabric.oversubscription) + ";",
        "a pod's core uplinks the sum of its leaves' uplinks (no core oversubscription is modelled). Bar length: bytes; the",
        "bottleneck is the link that needs the most time at its capacity.",
        std::to_string(report.cluster.node_count()) + " nodes, " + std::to_string(load.leaves) + " leaves, " +
            std::to_string(load.pods) + (load.pods == 1 ? " spine tier" : " spine tiers") +
            (report.cluster.wiring.empty() ? ", rail-aligned" : ", explicit wiring") + ".",
    };
    double notes_w = 0;
    for (const auto& n : notes) {
        notes_w = std::max(notes_w, text_px(n, 11));
    }
    std::int64_t headings = 0;
    for (std::size_t i = 0; i < load.rows.size(); ++i) {
        headings += (i == 0 || load.rows[i].tier != load.rows[i - 1].tier) ? 1 : 0;
    }
    const double left = 16 + label_w + 12;
    const double bar_x = left;
    const double top = 100;
    const double rows_h = static_cast<double>(load.rows.size()) * kRowPx + static_cast<double>(headings) * 24;
    const double axis_y = top + rows_h + 6;
    const double legend_y = axis_y + 40;
    const double width = std::ceil(std::max({bar_x + kBarMaxPx + 12 + end_w + 16, text_px(title, 16) + 32,
                                             text_px(subtitle, 11) + 32, text_px(bottleneck_line, 12) + 32, notes_w + 32}));
    const double height = std::ceil(legend_y + 30 + static_cast<double>(notes.size()) * 17 + 16);
    svg::Document doc(width, height, "plan-layout: rail / leaf / spine load");
    chart_style(doc, style);
    doc.text(16, 26, title, Anchor::Start, {{"class", "title"}});
    doc.text(16, 46, subtitle, Anchor::Start, {{"class", "label"}});
    const std::string alarm = plain_colour(style.highlight.color);
    doc.text(16, 70, bottleneck_line, Anchor::Start, {{"class", "head"}, {"fill", load.bottleneck ? alarm : style.ink}});

    const double scale = max_bytes > 0 ? kBarMaxPx / max_bytes : 0.0;
    auto kind_colour = [&](std::size_t k) {
        return style.groups.empty() ? style.ink : style.groups[k % style.groups.size()];
    };
    // Grid lines at quarters of the largest bar.
    for (int q = 0; q <= 4 && max_bytes > 0; ++q) {
        const double x = bar_x + kBarMaxPx * q / 4.0;
        doc.line(x, top - 4, x, axis_y, {{"stroke", "#DDDDDD"}, {"stroke-width", "1"}});
        doc.text(x, axis_y + 14, q == 0 ? std::string("0") : human_bytes(max_bytes * q / 4.0), Anchor::Middle, {{"class", "small"}});
    }
    double y = top;
    for (std::size_t i = 0; i < load.rows.size(); ++i) {
        const TierLoad& r = load.rows[i];
        if (i == 0 || r.tier != load.rows[i - 1].tier) {
            doc.text(16, y + 16, tier_heading(r.tier), Anchor::Start, {{"class", "head"}});
            y += 24;
        }
        const double mid = y + kRowPx / 2;
        doc.text(left - 12, mid - 1, row_label(r), Anchor::End, {{"class", "label"}});
        doc.text(left - 12, mid + 10, grouped_count_text(r.loaded_links) + " of " + grouped_count_text(r.links) + " links loaded", Anchor::End,
                 {{"class", "small"}, {"fill", style.muted}});
        double x = bar_x;
        for (std::size_t k = 0; k < r.busiest_by_kind.size(); ++k) {
            const double w = r.busiest_by_kind[k] * scale;
            if (w <= 0) {
                continue;
            }
            doc.tooltip(load.kinds[k] + " on " + r.busiest + ": " + human_bytes(r.busiest_by_kind[k]) + " per step");
            doc.rect(x, mid - kBarPx / 2, w, kBarPx, {{"fill", kind_colour(k)}});
            x += w;
        }
        const bool worst = load.bottleneck && *load.bottleneck == i;
        if (r.max_bytes > 0) {
            doc.rect(bar_x, mid - kBarPx / 2, r.max_bytes * scale, kBarPx,
                     {{"fill", "none"}, {"stroke", worst ? alarm : style.ink}, {"stroke-width", worst ? "2.5" : "0.5"}});
            const double mx = bar_x + r.mean_bytes() * scale;
            doc.tooltip("mean over " + grouped_count_text(r.links) + " links: " + human_bytes(r.mean_bytes()) + " per step");
            doc.line(mx, mid - kBarPx / 2 - 3, mx, mid + kBarPx / 2 + 3, {{"stroke", style.ink}, {"stroke-width", "2"}});
        }
        const double tx = bar_x + std::max(r.max_bytes * scale, 0.0) + 10;
        doc.text(tx, mid + 4, (worst ? "BOTTLENECK " : "") + busiest_text(r), Anchor::Start,
                 {{"class", worst ? "head" : "label"}, {"fill", worst ? alarm : style.ink}});
        y += kRowPx;
    }
    doc.line(bar_x, top - 4, bar_x, axis_y, {{"stroke", style.ink}, {"stroke-width", "1"}});

    // Legend: the kinds that load a drawn link, then notes.
    double lx = 16;
    doc.text(lx, legend_y, "Group kinds:", Anchor::Start, {{"class", "head"}});
    lx += text_px("Group kinds:", 12) + 12;
    for (std::size_t k = 0; k < load.kinds.size(); ++k) {
        if (std::none_of(load.rows.begin(), load.rows.end(), [&](const TierLoad& r) { return r.busiest_by_kind[k] > 0; })) {
            continue;
        }
        doc.rect(lx, legend_y - 11, 14, 14, {{"fill", kind_colour(k)}});
        doc.text(lx + 20, legend_y, load.kinds[k], Anchor::Start, {{"class", "label"}});
        lx += 20 + text_px(load.kinds[k], 11) + 18;
    }
    if (load.kinds.empty()) {
        doc.text(lx, legend_y, "none (no score)", Anchor::Start, {{"class", "label"}});
    }
    double ny = legend_y + 26;
    for (const auto& n : notes) {
        doc.text(16, ny, n, Anchor::Start, {{"class", "label"}, {"fill", style.muted}});
        ny += 17;
    }
    return doc.str();
}

}  // namespace planlayout::diagram
