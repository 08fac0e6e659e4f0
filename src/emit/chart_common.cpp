// Emit: what the charts share (chart_common.hpp).
#include "chart_common.hpp"

#include <cstdlib>

namespace planlayout::chart {

double text_width(std::string_view s, double font_px) {
    double chars = 0;
    for (const char c : s) {
        // UTF-8 continuation bytes take no width of their own.
        if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) {
            chars += 1;
        }
    }
    return chars * font_px * 0.6;
}

std::vector<std::string> wrap(const std::vector<std::string>& items, double max_px, double font_px) {
    std::vector<std::string> lines;
    std::string line;
    for (const auto& item : items) {
        const std::string sep = line.empty() ? "" : ", ";
        if (!line.empty() && text_width(line + sep + item, font_px) > max_px) {
            lines.push_back(line + ",");
            line = item;
        } else {
            line += sep + item;
        }
    }
    if (!line.empty()) {
        lines.push_back(line);
    }
    return lines;
}

void common_style(svg::Document& d, const DiagramStyle& style) {
    // Scoped and prefixed: inlined into an HTML page, the rules reach no other element and the
    // page's rules no chart text.
    // The style's strings are checked where the file is read; css_value keeps them inert anyway.
    const std::string font = svg::css_value(style.font) + ", Arial, sans-serif";
    d.style(".plc text { font-family: " + font + "; font-size: 11px; fill: " + svg::css_value(style.ink) + "; }");
    d.style(".plc .plc-title { font-size: 15px; font-weight: bold; }");
    d.style(".plc .plc-muted { fill: " + svg::css_value(style.muted) + "; }");
    d.style(".plc .plc-small { font-size: 10px; }");
    d.style(".plc .plc-arm, .plc .plc-total { font-size: 12px; font-weight: bold; }");
    d.style(".plc .plc-on-dark { fill: #FFFFFF; }");
    d.open_group({{"class", "plc"}});
}

std::string hatch_pattern(const std::string& id, const std::string& color) {
    return "<pattern id=\"" + svg::escape(id) +
           "\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" patternTransform=\"rotate(45)\">"
           "<rect width=\"6\" height=\"6\" fill=\"#FFFFFF\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"" +
           svg::escape(svg::css_value(color)) + "\" stroke-width=\"3\"/></pattern>";
}

std::string dots_pattern(const std::string& id, const std::string& fill, const std::string& dot) {
    return "<pattern id=\"" + svg::escape(id) + "\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\">"
           "<rect width=\"6\" height=\"6\" fill=\"" + svg::escape(svg::css_value(fill)) +
           "\"/><circle cx=\"3\" cy=\"3\" r=\"1.2\" fill=\"" + svg::escape(svg::css_value(dot)) + "\"/></pattern>";
}

bool dark_fill(const std::string& fill) {
    if (fill.size() != 7 || fill[0] != '#') {
        return false;
    }
    const long v = std::strtol(fill.c_str() + 1, nullptr, 16);
    const auto r = static_cast<double>((v >> 16) & 0xFF);
    const auto g = static_cast<double>((v >> 8) & 0xFF);
    const auto b = static_cast<double>(v & 0xFF);
    return 0.299 * r + 0.587 * g + 0.114 * b < 110;  // ITU-R BT.601 luma
}

std::string dash_of(const std::string& line_style) {
    if (line_style.find("dashed") != std::string::npos) {
        return "7 4";
    }
    if (line_style.find("dotted") != std::string::npos) {
        return "2 3";
    }
    return "";
}

}  // namespace planlayout::chart
