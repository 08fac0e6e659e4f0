// Emit: the step-time chart of a score (charts.hpp): one horizontal stacked bar per arm —
// compute, pipeline bubble, each kind's exposed communication — and under it a hatched strip
// with the communication hidden under compute. Seconds axis with round ticks; each bar's step
// and the change between the arms printed beside it.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "chart_common.hpp"
#include "planlayout/emit/charts.hpp"
#include "diagram_canvas.hpp"
#include "planlayout/text_format.hpp"
#include "svg_writer.hpp"

namespace planlayout {

std::vector<StepBar> step_bars(const Score& score) {
    std::vector<StepBar> bars;
    if (!score.has_model) {
        return bars;
    }
    const Transport arms[2] = {score.baseline, score.candidate};
    for (int k = 0; k < (score.single_arm ? 1 : 2); ++k) {
        StepBar b;
        b.arm = std::string(to_string(arms[k]));
        b.step_s = score.step_time_s[k];
        b.exposed.push_back({"compute", "compute", score.compute_s});
        if (score.bubble_s > 0) {
            b.exposed.push_back({"bubble", "pipeline bubble", score.bubble_s});
        }
        for (const auto& kb : score.by_kind) {
            const std::string label = kb.kind + " " + kb.collective;
            if (kb.exposed_s[k] > 0) {
                b.exposed.push_back({kb.kind, label, kb.exposed_s[k]});
            }
            if (kb.time_s[k] - kb.exposed_s[k] > 0) {
                b.hidden.push_back({kb.kind, label, kb.time_s[k] - kb.exposed_s[k]});
            }
        }
        bars.push_back(std::move(b));
    }
    return bars;
}

std::vector<double> nice_ticks(double max, int target) {
    if (!(max > 0) || target < 1) {
        return {0, 1};
    }
    const double raw = max / target;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * mag;
    for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        if (m * mag >= raw * (1 - 1e-9)) {
            step = m * mag;
            break;
        }
    }
    std::vector<double> ticks;
    for (int i = 0;; ++i) {
        const double t = step * i;
        ticks.push_back(t);
        if (t >= max * (1 - 1e-9)) {
            break;
        }
    }
    return ticks;
}

namespace {

using chart::text_width;

constexpr double kScoreWidth = 820;
constexpr double kScoreLeft = 80;    // arm names
constexpr double kScoreRight = 170;  // step totals and changes
constexpr double kBar = 34;
constexpr double kStrip = 14;
constexpr double kRowGap = 18;

// Colours of the kinds drawn, in first-seen order: listed kinds keep theirs, others take the
// style's "other" list in turn.
std::map<std::string, std::string> kind_colors(const std::vector<StepBar>& bars, const ChartStyle& cs) {
    std::map<std::string, std::string> out;
    std::size_t unlisted = 0;
    for (const auto& b : bars) {
        for (const auto* list : {&b.exposed, &b.hidden}) {
            for (const auto& s : *list) {
                if (s.key == "compute" || s.key == "bubble" || out.count(s.key) != 0) {
                    continue;
                }
                out[s.key] = cs.kind_color(s.key, unlisted);
                unlisted += cs.kinds.count(s.key) == 0 ? 1 : 0;
            }
        }
    }
    return out;
}

std::string seconds_label(double s) { return seconds_text(s) + " s"; }

std::string tick_label(double v, double step) {
    int decimals = 0;
    while (decimals < 6 && std::abs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-9) {
        ++decimals;
    }
    return fixed_text(v, decimals);
}

void message_chart(svg::Document& d, const DiagramStyle& style, const std::string& title, const std::vector<std::string>& lines) {
    chart::common_style(d, style);
    d.rect(0, 0, d.width(), d.height(), {{"fill", style.background}});
    d.text(16, 26, title, svg::Anchor::Start, {{"class", "plc-title"}});
    double y = 52;
    for (const auto& l : lines) {
        d.text(16, y, l, svg::Anchor::Start, {{"class", "plc-muted"}});
        y += 18;
    }
}

struct Layout {
    double plot_w = kScoreWidth - kScoreLeft - kScoreRight;
    double scale = 1;  // px per second
    [[nodiscard]] double x(double s) const { return kScoreLeft + s * scale; }
};

// One legend entry: a swatch and its words.
struct LegendEntry {
    std::string label;
    std::string fill;
    std::string stroke;
};

// The legend's entries (compute, the bubble, each kind exposed and hidden) and the hatch pattern
// id of each kind drawn hidden.
struct Legend {
    std::vector<LegendEntry> entries;
    std::map<std::string, std::string> hatch;
};

// The legend of the bars: compute, the bubble when there is one, each kind exposed and hidden in
// the score's order.
Legend legend_of(const Score& score, const std::vector<StepBar>& bars, const std::map<std::string, std::string>& colors,
                 const DiagramStyle& style) {
    Legend out;
    out.entries.push_back({"compute", style.charts.compute, style.muted});
    if (score.bubble_s > 0) {
        out.entries.push_back({"pipeline bubble", "url(#plc-bubble)", style.muted});
    }
    for (const auto& kb : score.by_kind) {
        if (colors.count(kb.kind) == 0) {
            continue;
        }
        const std::string& c = colors.at(kb.kind);
        bool exposed = false;
        bool hidden = false;
        for (const auto& b : bars) {
            for (const auto& s : b.exposed) {
                exposed = exposed || s.key == kb.kind;
            }
            for (const auto& s : b.hidden) {
                hidden = hidden || s.key == kb.kind;
            }
        }
        if (exposed) {
            out.entries.push_back({kb.kind + " " + kb.collective + ", exposed", c, c});
        }
        if (hidden) {
            const std::string id = "plc-hatch" + std::to_string(out.hatch.size());
            out.hatch[kb.kind] = id;
            out.entries.push_back({kb.kind + " " + kb.collective + ", hidden under compute", "url(#" + id + ")", c});
        }
    }
    return out;
}

// The legend's entries in rows that fit the chart's width.
std::vector<std::vector<const LegendEntry*>> legend_rows(const std::vector<LegendEntry>& legend) {
    std::vector<std::vector<const LegendEntry*>> rows(1);
    double row_x = 0;
    for (const auto& e : legend) {
        const double w = 22 + text_width(e.label) + 18;
        if (row_x + w > kScoreWidth - 32 && !rows.back().empty()) {
            rows.emplace_back();
            row_x = 0;
        }
        rows.back().push_back(&e);
        row_x += w;
    }
    return rows;
}

// The lines under one bar: its communication in words (segments a few px wide still read there).
std::vector<std::string> bar_details(const StepBar& b) {
    std::vector<std::string> items;
    bool first_comm = true;
    for (const auto& s : b.exposed) {
        if (s.key == "compute" || s.key == "bubble") {
            items.push_back(s.label + " " + seconds_label(s.seconds));
        } else {
            items.push_back((first_comm ? "exposed communication: " : "") + s.key + " " + seconds_label(s.seconds));
            first_comm = false;
        }
    }
    if (first_comm) {
        items.emplace_back("no exposed communication");
    }
    std::vector<std::string> hidden;
    for (std::size_t i = 0; i < b.hidden.size(); ++i) {
        hidden.push_back((i == 0 ? "hidden under compute: " : "") + b.hidden[i].key + " " + seconds_label(b.hidden[i].seconds));
    }
    std::vector<std::string> details = chart::wrap(items, kScoreWidth - kScoreLeft - 24, 10);
    for (auto& line : chart::wrap(hidden, kScoreWidth - kScoreLeft - 24, 10)) {
        details.push_back(std::move(line));
    }
    return details;
}

// The line under the title: each arm's step and the change between them, the GPU.
std::string subtitle(const Score& score, const std::vector<StepBar>& bars) {
    std::string sub;
    if (bars.size() == 2) {
        const double change = bars[1].step_s - bars[0].step_s;
        sub = bars[0].arm + " -> " + bars[1].arm + ": step " + seconds_label(bars[0].step_s) + " -> " +
              seconds_label(bars[1].step_s) + ", " + (change <= 0 ? "-" : "+") + seconds_label(std::abs(change)) + " (" +
              signed_percent_text(bars[0].step_s > 0 ? change / bars[0].step_s : 0.0) + ")";
    } else {
        sub = bars[0].arm + " only (both arms the same): step " + seconds_label(bars[0].step_s);
    }
    sub += "; GPU " + score.gpu_name + (score.anchored ? ", compute anchored to the measured step" : "");
    return sub;
}

// What the bars are drawn with: the layout, the kinds' colours and hatch ids, the style.
struct BarPaint {
    const Layout& lay;
    const std::map<std::string, std::string>& colors;
    const std::map<std::string, std::string>& hatch;
    const ChartStyle& cs;
};

// Bar k at y: the arm's name, the exposed segments, the step total (and the change from the first
// arm), the hatched strip of hidden communication, and its detail lines; the next bar's y.
double draw_bar(svg::Document& d, const std::vector<StepBar>& bars, std::size_t k, const std::vector<std::string>& details,
                double y, const BarPaint& paint) {
    const Layout& lay = paint.lay;
    const StepBar& b = bars[k];
    d.text(kScoreLeft - 10, y + kBar / 2 + 4, b.arm, svg::Anchor::End, {{"class", "plc-arm"}});
    d.open_group({{"class", "plc-bar"}, {"data-arm", b.arm}});
    double x = 0;
    for (const auto& s : b.exposed) {
        const std::string fill = s.key == "compute"  ? paint.cs.compute
                                 : s.key == "bubble" ? "url(#plc-bubble)"
                                                     : paint.colors.at(s.key);
        const double w = s.seconds * lay.scale;
        d.tooltip(b.arm + ": " + s.label + (s.key == "compute" || s.key == "bubble" ? " " : " exposed ") +
                  seconds_label(s.seconds) + " (" + percent_text(b.step_s > 0 ? s.seconds / b.step_s : 0.0) +
                  " of the step)");
        d.rect(lay.x(x), y, w, kBar,
               {{"fill", fill}, {"stroke", "#FFFFFF"}, {"stroke-width", "1"}, {"data-seconds", fixed_text(s.seconds, 6)}});
        const std::string label = s.key + " " + seconds_label(s.seconds);
        if (text_width(label) + 8 <= w) {
            if (s.key == "bubble") {  // a white plate: the dots would cross the letters
                d.rect(lay.x(x) + w / 2 - text_width(label) / 2 - 3, y + kBar / 2 - 7, text_width(label) + 6, 15,
                       {{"fill", "#FFFFFF"}});
            }
            d.text(lay.x(x) + w / 2, y + kBar / 2 + 4, label, svg::Anchor::Middle,
                   {{"class", chart::dark_fill(fill) ? "plc-on-dark" : "plc-on-light"}});
        }
        x += s.seconds;
    }
    d.close_group();
    std::string total = seconds_label(b.step_s);
    if (k == 1) {
        total += " (" + signed_percent_text(bars[0].step_s > 0 ? (b.step_s - bars[0].step_s) / bars[0].step_s : 0.0) + ")";
    }
    d.text(lay.x(x) + 8, y + kBar / 2 + 4, total, svg::Anchor::Start, {{"class", "plc-total"}});
    if (!b.hidden.empty()) {
        d.open_group({{"class", "plc-hidden"}, {"data-arm", b.arm}});
        double hx = 0;
        for (const auto& s : b.hidden) {
            d.tooltip(b.arm + ": " + s.label + " hidden under compute " + seconds_label(s.seconds));
            d.rect(lay.x(hx), y + kBar + 2, s.seconds * lay.scale, kStrip - 4,
                   {{"fill", "url(#" + paint.hatch.at(s.key) + ")"}, {"stroke", paint.colors.at(s.key)},
                    {"stroke-width", "0.8"}, {"data-seconds", fixed_text(s.seconds, 6)}});
            hx += s.seconds;
        }
        d.close_group();
    }
    double dy = y + kBar + kStrip + 9;
    for (const auto& line : details) {
        d.text(kScoreLeft, dy, line, svg::Anchor::Start, {{"class", "plc-muted plc-small"}});
        dy += 13;
    }
    return dy - 13 + kRowGap;
}

// The seconds axis at axis_y with its ticks and their labels.
void draw_axis(svg::Document& d, const Layout& lay, const std::vector<double>& ticks, double axis_y, const DiagramStyle& style) {
    const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
    d.line(kScoreLeft, axis_y, kScoreLeft + lay.plot_w, axis_y, {{"stroke", style.ink}});
    for (const double t : ticks) {
        d.line(lay.x(t), axis_y, lay.x(t), axis_y + 5, {{"stroke", style.ink}});
        d.text(lay.x(t), axis_y + 18, tick_label(t, step), svg::Anchor::Middle);
    }
    d.text(kScoreLeft + lay.plot_w / 2, axis_y + 34, "seconds per training step", svg::Anchor::Middle, {{"class", "plc-muted"}});
}

// The legend's rows from legend_y down.
void draw_score_legend(svg::Document& d, const std::vector<std::vector<const LegendEntry*>>& rows, double legend_y) {
    double ly = legend_y;
    for (const auto& row : rows) {
        double lx = 16;
        for (const LegendEntry* e : row) {
            d.rect(lx, ly - 10, 16, 12, {{"fill", e->fill}, {"stroke", e->stroke}, {"stroke-width", "0.8"}});
            d.text(lx + 22, ly, e->label);
            lx += 22 + text_width(e->label) + 18;
        }
        ly += 20;
    }
}

}  // namespace

std::string score_chart_svg(const Score& score, const std::string& title, const DiagramStyle& style, SvgForm form) {
    const std::vector<StepBar> bars = step_bars(score);
    if (bars.empty()) {
        svg::Document d(kScoreWidth, 100, title);
        message_chart(d, style, title,
                      {"no step-time breakdown: the layout gives the score's factors, not a model to time the step with",
                       "(predicted step-time reduction " + percent_text(score.rdma_benefit) + ", from the given factors)"});
        return form == SvgForm::Document ? d.str() : d.inline_svg();
    }
    const ChartStyle& cs = style.charts;
    const std::map<std::string, std::string> colors = kind_colors(bars, cs);
    double max_step = 0;
    for (const auto& b : bars) {
        max_step = std::max(max_step, b.step_s);
    }
    const std::vector<double> ticks = nice_ticks(max_step);
    Layout lay;
    lay.scale = lay.plot_w / std::max(ticks.back(), 1e-12);

    // Legend entries first: their rows decide the height.
    const Legend legend = legend_of(score, bars, colors, style);
    const auto rows = legend_rows(legend.entries);
    std::vector<std::vector<std::string>> details;
    double bars_h = 0;
    for (const auto& b : bars) {
        details.push_back(bar_details(b));
        bars_h += kBar + kStrip + 13 * static_cast<double>(details.back().size()) + kRowGap;
    }
    const double top = 74;
    const double axis_y = top + bars_h - kRowGap + 8;
    const double legend_y = axis_y + 54;
    const double height = legend_y + 20 * static_cast<double>(rows.size()) + 8;
    svg::Document d(kScoreWidth, height, title);
    chart::common_style(d, style);
    d.def(chart::dots_pattern("plc-bubble", cs.bubble, style.muted));
    for (const auto& [kind, id] : legend.hatch) {
        d.def(chart::hatch_pattern(id, colors.at(kind)));
    }
    d.rect(0, 0, kScoreWidth, height, {{"fill", style.background}});
    d.text(16, 24, title, svg::Anchor::Start, {{"class", "plc-title"}});
    d.text(16, 44, subtitle(score, bars), svg::Anchor::Start, {{"class", "plc-muted"}});
    d.text(16, 60, "per training step, each GPU; hatched: communication hidden under compute (not in the step)",
           svg::Anchor::Start, {{"class", "plc-muted plc-small"}});

    // Grid lines, then the bars over them.
    d.open_group({{"class", "plc-grid"}});
    for (const double t : ticks) {
        d.line(lay.x(t), top - 6, lay.x(t), axis_y, {{"stroke", "#E5E5E5"}});
    }
    d.close_group();
    const BarPaint paint{lay, colors, legend.hatch, cs};
    double y = top;
    for (std::size_t k = 0; k < bars.size(); ++k) {
        y = draw_bar(d, bars, k, details[k], y, paint);
    }
    draw_axis(d, lay, ticks, axis_y, style);
    draw_score_legend(d, rows, legend_y);
    return form == SvgForm::Document ? d.str() : d.inline_svg();
}

std::string score_chart_svg(const Report& report, const DiagramStyle& style, SvgForm form) {
    const std::string title = diagram::title_of(report, "step time per arm");
    if (!report.score) {
        svg::Document d(kScoreWidth, 80, title);
        message_chart(d, style, title, {"no score: the layout has no model and training sections (docs/formats/layout.md)"});
        return form == SvgForm::Document ? d.str() : d.inline_svg();
    }
    return score_chart_svg(*report.score, title, style, form);
}

}  // namespace planlayout
