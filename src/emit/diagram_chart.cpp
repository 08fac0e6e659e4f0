// Emit: what the chart views share (diagram_chart.hpp).
#include "diagram_chart.hpp"

#include <algorithm>
#include <utility>

namespace planlayout::diagram {

double text_px(const std::string& s, double font_px) {
    // UTF-8 continuation bytes take no width of their own.
    const auto chars = std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
    return static_cast<double>(chars) * 0.6 * font_px;
}

std::string plain_colour(const std::string& colour) { return colour.substr(0, colour.find(':')); }

void chart_style(svg::Document& doc, const DiagramStyle& style) {
    // Text that names its own fill (muted labels) keeps it: a plain `text` rule would override the attribute.
    doc.style("text { font-family: " + svg::css_value(style.font) + ", Arial, sans-serif; }");
    doc.style("text:not([fill]) { fill: " + svg::css_value(style.ink) + "; }");
    doc.style(".title { font-size: 16px; font-weight: bold; }");
    doc.style(".label { font-size: 11px; }");
    doc.style(".small { font-size: 10px; }");
    doc.style(".head { font-size: 12px; font-weight: bold; }");
    doc.rect(0, 0, doc.width(), doc.height(), {{"fill", style.background}});
}

}  // namespace planlayout::diagram
