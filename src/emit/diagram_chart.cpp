// Emit: what the chart views share (diagram_chart.hpp).
#include "diagram_chart.hpp"

#include <algorithm>
#include <utility>

namespace planlayout::diagram {

std::string spec_line(const Report& report) {
    const ResolvedSpec& s = report.groups.spec;
    std::string out = "tp" + std::to_string(s.tp);
    const std::pair<const char*, std::int64_t> sizes[] = {{"pp", s.pp}, {"cp", s.cp}, {"ep", s.ep}, {"etp", s.etp}, {"dp", s.dp}};
    for (const auto& [name, v] : sizes) {
        if (v > 1) {
            out += std::string(" ") + name + std::to_string(v);
        }
    }
    out += " |";
    const Cluster& cl = report.cluster;
    std::size_t i = 0;
    while (i < cl.nodes.size()) {
        std::size_t j = i;
        while (j < cl.nodes.size() && cl.nodes[j].template_index == cl.nodes[i].template_index) {
            ++j;
        }
        out += (i == 0 ? " " : " + ") + std::to_string(j - i) + " x " +
               cl.templates[static_cast<std::size_t>(cl.nodes[i].template_index)].name;
        i = j;
    }
    return out;
}

double text_px(const std::string& s, double font_px) {
    // UTF-8 continuation bytes take no width of their own.
    const auto chars = std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
    return static_cast<double>(chars) * 0.6 * font_px;
}

std::string plain_colour(const std::string& colour) { return colour.substr(0, colour.find(':')); }

void chart_style(svg::Document& doc, const DiagramStyle& style) {
    doc.style("text { font-family: " + style.font + ", Arial, sans-serif; fill: " + style.ink + "; }");
    doc.style(".title { font-size: 16px; font-weight: bold; }");
    doc.style(".label { font-size: 11px; }");
    doc.style(".small { font-size: 10px; }");
    doc.style(".head { font-size: 12px; font-weight: bold; }");
    doc.rect(0, 0, doc.width(), doc.height(), {{"fill", style.background}});
}

}  // namespace planlayout::diagram
