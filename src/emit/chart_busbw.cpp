// Emit: busbw over message size (charts.hpp): a log2 size axis, a linear GB/s axis, one line per
// predicted curve (the transport's colour and dash), hollow markers for measured points (one
// shape per collective), and a legend row per curve.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "chart_common.hpp"
#include "planlayout/emit/charts.hpp"
#include "planlayout/text_format.hpp"
#include "svg_writer.hpp"

namespace planlayout {

std::vector<double> curve_sizes(double lo, double hi, int per_doubling) {
    std::vector<double> out;
    if (!(lo > 0) || !(hi >= lo) || per_doubling < 1) {
        return out;
    }
    const double steps = std::ceil(std::log2(hi / lo) * per_doubling - 1e-9);
    const int n = static_cast<int>(std::min(steps, 4096.0));
    for (int i = 0; i <= n; ++i) {
        out.push_back(i == n ? hi : lo * std::exp2(static_cast<double>(i) / per_doubling));
    }
    if (out.size() == 2 && out[0] == out[1]) {
        out.pop_back();
    }
    return out;
}

std::vector<int> size_tick_exponents(double lo, double hi) {
    if (!(lo > 0) || !(hi > 0)) {
        return {10, 20};
    }
    const int lo_e = static_cast<int>(std::floor(std::log2(std::min(lo, hi)) + 1e-9));
    const int hi_e = std::max(lo_e + 1, static_cast<int>(std::ceil(std::log2(std::max(lo, hi)) - 1e-9)));
    int step = 10;
    for (const int s : {1, 2, 5, 10}) {
        if ((hi_e - lo_e) / s <= 9) {
            step = s;
            break;
        }
    }
    // Floor and ceiling to multiples of the step (exponents may be negative only in theory).
    const auto floor_to = [step](int e) { return e >= 0 ? e / step * step : -((-e + step - 1) / step * step); };
    const int first = floor_to(lo_e);
    const int last = -floor_to(-hi_e);
    std::vector<int> out;
    for (int e = first; e <= last; e += step) {
        out.push_back(e);
    }
    return out;
}

std::string size_tick_text(int e) {
    static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (e < 0) {
        return "2^" + std::to_string(e) + " B";
    }
    const int unit = std::min(e / 10, 5);
    const int rest = e - unit * 10;
    return std::to_string(1LL << rest) + " " + kUnits[unit];
}

namespace {

constexpr double kBusbwWidth = 820;
constexpr double kPlotH = 380;
constexpr double kBusbwLeft = 70;
constexpr double kBusbwRight = 84;  // the curves' end values
constexpr double kTop = 70;

// Marker shapes by collective, so measured points of different collectives differ without colour.
void marker(svg::Document& d, const std::string& collective, double x, double y, const std::string& color) {
    const svg::Attrs a{{"fill", "#FFFFFF"}, {"stroke", color}, {"stroke-width", "1.6"}};
    if (collective == "all_to_all") {
        d.rect(x - 4, y - 4, 8, 8, a);
    } else if (collective == "all_gather") {
        d.polyline({{x, y - 5}, {x + 5, y + 4}, {x - 5, y + 4}}, a, true);
    } else if (collective == "reduce_scatter") {
        d.polyline({{x, y + 5}, {x + 5, y - 4}, {x - 5, y - 4}}, a, true);
    } else if (collective == "broadcast" || collective == "sendrecv") {
        d.polyline({{x, y - 5}, {x + 5, y}, {x, y + 5}, {x - 5, y}}, a, true);
    } else {
        d.circle(x, y, 4.2, a);
    }
}

}  // namespace

std::string busbw_chart_svg(const BusbwChart& chart, const DiagramStyle& style, SvgForm form) {
    const ChartStyle& cs = style.charts;
    double lo = 0;
    double hi = 0;
    double ymax = 0;
    for (const auto& c : chart.curves) {
        for (const auto* pts : {&c.predicted, &c.measured}) {
            for (const auto& [size, bw] : *pts) {
                lo = lo == 0 ? size : std::min(lo, size);
                hi = std::max(hi, size);
                ymax = std::max(ymax, bw);
            }
        }
    }
    const std::vector<int> xt = size_tick_exponents(lo, hi);
    const std::vector<double> yt = nice_ticks(ymax);
    const double ystep = yt.size() > 1 ? yt[1] - yt[0] : 1;
    const double plot_w = kBusbwWidth - kBusbwLeft - kBusbwRight;
    const double e0 = xt.front();
    const double e1 = xt.back();
    const auto px = [&](double size) { return kBusbwLeft + (std::log2(size) - e0) / (e1 - e0) * plot_w; };
    const auto py = [&](double bw) { return kTop + kPlotH - bw / yt.back() * kPlotH; };

    // Colour by transport when every curve has its own; else by curve, from the series palette.
    std::set<std::string> transports;
    for (const auto& c : chart.curves) {
        transports.insert(c.transport);
    }
    const bool by_transport = transports.size() == chart.curves.size();
    const auto color_of = [&](std::size_t i) {
        const auto it = cs.transports.find(chart.curves[i].transport);
        if (by_transport && it != cs.transports.end()) {
            return it->second.color;
        }
        return cs.series.empty() ? style.ink : cs.series[i % cs.series.size()];
    };
    const auto dash_of = [&](std::size_t i) {
        const auto it = cs.transports.find(chart.curves[i].transport);
        return it == cs.transports.end() ? std::string() : chart::dash_of(it->second.style);
    };

    const double axis_y = kTop + kPlotH;
    const double legend_y = axis_y + 52;
    double height = legend_y + 8;
    for (const auto& c : chart.curves) {
        height += c.measured.empty() ? 20 : 36;
    }
    if (chart.curves.empty()) {
        height += 20;
    }
    svg::Document d(kBusbwWidth, height, chart.title);
    chart::common_style(d, style);
    d.rect(0, 0, kBusbwWidth, height, {{"fill", style.background}});
    d.text(16, 24, chart.title, svg::Anchor::Start, {{"class", "plc-title"}});
    d.text(16, 44, chart.subtitle, svg::Anchor::Start, {{"class", "plc-muted"}});

    // Grid and axes.
    d.open_group({{"class", "plc-grid"}});
    for (const int e : xt) {
        d.line(px(std::exp2(e)), kTop, px(std::exp2(e)), axis_y, {{"stroke", "#E5E5E5"}});
    }
    for (const double t : yt) {
        d.line(kBusbwLeft, py(t), kBusbwLeft + plot_w, py(t), {{"stroke", "#E5E5E5"}});
    }
    d.close_group();
    d.line(kBusbwLeft, axis_y, kBusbwLeft + plot_w, axis_y, {{"stroke", style.ink}});
    d.line(kBusbwLeft, kTop, kBusbwLeft, axis_y, {{"stroke", style.ink}});
    for (const int e : xt) {
        d.line(px(std::exp2(e)), axis_y, px(std::exp2(e)), axis_y + 5, {{"stroke", style.ink}});
        d.text(px(std::exp2(e)), axis_y + 18, size_tick_text(e), svg::Anchor::Middle);
    }
    for (const double t : yt) {
        d.line(kBusbwLeft - 5, py(t), kBusbwLeft, py(t), {{"stroke", style.ink}});
        int decimals = 0;
        while (decimals < 4 && std::abs(ystep * std::pow(10.0, decimals) - std::round(ystep * std::pow(10.0, decimals))) > 1e-9) {
            ++decimals;
        }
        d.text(kBusbwLeft - 8, py(t) + 4, fixed_text(t, decimals), svg::Anchor::End);
    }
    d.text(kBusbwLeft + plot_w / 2, axis_y + 36, "message size (nccl-tests size, log scale)", svg::Anchor::Middle,
           {{"class", "plc-muted"}});
    d.text(18, kTop + kPlotH / 2, "busbw (GB/s)", svg::Anchor::Middle,
           {{"class", "plc-muted"}, {"transform", "rotate(-90 18 " + svg::num(kTop + kPlotH / 2) + ")"}});

    // Curves, then markers over them.
    for (std::size_t i = 0; i < chart.curves.size(); ++i) {
        const BusbwCurve& c = chart.curves[i];
        std::vector<std::pair<double, double>> pts;
        for (const auto& [size, bw] : c.predicted) {
            pts.emplace_back(px(size), py(bw));
        }
        svg::Attrs a{{"fill", "none"}, {"stroke", color_of(i)}, {"stroke-width", "2.2"}};
        if (const std::string dash = dash_of(i); !dash.empty()) {
            a.emplace_back("stroke-dasharray", dash);
        }
        d.tooltip(c.label);
        d.polyline(pts, a);
    }
    // Each curve's last value beside its end: a flat curve at the bottom of the axis still reads.
    std::vector<double> end_y;
    for (std::size_t i = 0; i < chart.curves.size(); ++i) {
        const BusbwCurve& c = chart.curves[i];
        if (c.predicted.empty()) {
            continue;
        }
        const auto& [size, bw] = c.predicted.back();
        double y = py(bw) + 4;
        for (const double other : end_y) {  // keep labels of close ends apart
            if (std::abs(other - y) < 13) {
                y = other - 13;
            }
        }
        end_y.push_back(y);
        d.text(px(size) + 8, y, fixed_text(bw, bw < 10 ? 2 : 1) + " GB/s", svg::Anchor::Start,
               {{"class", "plc-small"}, {"style", "fill: " + color_of(i)}});
    }
    for (std::size_t i = 0; i < chart.curves.size(); ++i) {
        const BusbwCurve& c = chart.curves[i];
        d.open_group({{"class", "plc-measured"}, {"data-transport", c.transport}});
        for (const auto& [size, bw] : c.measured) {
            d.tooltip(c.measured_label + ": " + human_bytes(size) + ", busbw " + fixed_text(bw, 2) + " GB/s");
            marker(d, c.collective, px(size), py(bw), color_of(i));
        }
        d.close_group();
    }

    // Legend: a row per curve, a second for its measured points.
    double ly = legend_y;
    if (chart.curves.empty()) {
        d.text(16, ly, "nothing to draw: no curve", svg::Anchor::Start, {{"class", "plc-muted"}});
    }
    for (std::size_t i = 0; i < chart.curves.size(); ++i) {
        const BusbwCurve& c = chart.curves[i];
        svg::Attrs a{{"stroke", color_of(i)}, {"stroke-width", "2.2"}};
        if (const std::string dash = dash_of(i); !dash.empty()) {
            a.emplace_back("stroke-dasharray", dash);
        }
        d.line(16, ly - 4, 44, ly - 4, a);
        d.text(52, ly, "predicted " + c.label);
        ly += 16;
        if (!c.measured.empty()) {
            marker(d, c.collective, 30, ly - 4, color_of(i));
            d.text(52, ly, c.measured_label);
            ly += 20;
        } else {
            ly += 4;
        }
    }
    return form == SvgForm::Document ? d.str() : d.inline_svg();
}

}  // namespace planlayout
