// Emit: diagram styles (viz/style.json's format) and view names.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/emit/diagram.hpp"
#include "planlayout/error.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout_embedded_style.hpp"

namespace planlayout {
namespace {

// Issue 41 item 1: every style string reaches CSS, a CDATA section or a Graphviz attribute (some
// of which Graphviz writes unescaped), so each is checked here, where the file is read, against
// what its kind allows; the writers stay defensive besides (svg::css_value, CDATA splitting).
enum class StyleValue { Colour, ColourList, LineStyles, Shape, Margin, Font };

bool style_is_hex_digit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// "#RRGGBB", "#RRGGBBAA", or a colour name: a letter, then letters and digits (Graphviz's and
// CSS's names: white, lightgrey, grey50, invis).
bool style_is_colour(std::string_view s) {
    if (!s.empty() && s[0] == '#') {
        return (s.size() == 7 || s.size() == 9) && std::all_of(s.begin() + 1, s.end(), style_is_hex_digit);
    }
    return !s.empty() && s.size() <= 32 && std::isalpha(static_cast<unsigned char>(s[0])) != 0 &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

// Items joined by `sep`, each accepted by `item`, at most `most` of them.
template <class Item>
bool style_is_list(std::string_view s, char sep, std::size_t most, Item item) {
    std::size_t count = 0;
    while (true) {
        const auto at = s.find(sep);
        if (++count > most || !item(s.substr(0, at))) {
            return false;
        }
        if (at == std::string_view::npos) {
            return true;
        }
        s.remove_prefix(at + 1);
    }
}

// Graphviz's styles for nodes, edges and clusters (no setlinewidth(...)).
constexpr std::array<std::string_view, 12> kStyleLineStyles{
    "solid", "dashed", "dotted", "bold", "invis", "filled", "rounded", "diagonals", "striped", "wedged", "radial", "tapered"};

// Graphviz's polygon-based node shapes (no record, Mrecord, custom or epsf: those read label
// syntax or files).
constexpr std::array<std::string_view, 59> kStyleShapes{
    "box", "polygon", "ellipse", "oval", "circle", "point", "egg", "triangle", "plaintext", "plain",
    "diamond", "trapezium", "parallelogram", "house", "pentagon", "hexagon", "septagon", "octagon",
    "doublecircle", "doubleoctagon", "tripleoctagon", "invtriangle", "invtrapezium", "invhouse",
    "Mdiamond", "Msquare", "Mcircle", "rect", "rectangle", "square", "star", "none", "underline",
    "cylinder", "note", "tab", "folder", "box3d", "component", "promoter", "cds", "terminator", "utr",
    "primersite", "restrictionsite", "fivepoverhang", "threepoverhang", "noverhang", "assembly",
    "signature", "insulator", "ribosite", "rnastab", "proteasesite", "proteinstab", "rpromoter",
    "rarrow", "larrow", "lpromoter"};

template <std::size_t N>
bool style_in(std::string_view s, const std::array<std::string_view, N>& names) {
    return std::find(names.begin(), names.end(), s) != names.end();
}

// A number of inches: digits with at most one '.'.
bool style_is_inches(std::string_view s) {
    const auto dots = std::count(s.begin(), s.end(), '.');
    return !s.empty() && s.size() <= 8 && dots <= 1 && s != "." &&
           std::all_of(s.begin(), s.end(), [](char c) { return c == '.' || std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// Letters, digits, space, '-', '_', ',' and '.': font family lists ("DejaVu Sans, Arial").
bool style_is_font(std::string_view s) {
    return !s.empty() && s.size() <= 128 && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == ' ' || c == '-' || c == '_' || c == ',' || c == '.';
    });
}

bool style_value_ok(std::string_view s, StyleValue kind) {
    switch (kind) {
        case StyleValue::Colour:
            return style_is_colour(s);
        case StyleValue::ColourList:
            return style_is_list(s, ':', 8, style_is_colour);
        case StyleValue::LineStyles:
            return style_is_list(s, ',', 6, [](std::string_view w) { return style_in(w, kStyleLineStyles); });
        case StyleValue::Shape:
            return style_in(s, kStyleShapes);
        case StyleValue::Margin:
            return style_is_list(s, ',', 2, style_is_inches);
        case StyleValue::Font:
            return style_is_font(s);
    }
    return false;
}

const char* style_value_rule(StyleValue kind) {
    switch (kind) {
        case StyleValue::Colour:
            return "not a colour; use #RRGGBB, #RRGGBBAA or a Graphviz colour name (a letter, then letters and digits: white, lightgrey)";
        case StyleValue::ColourList:
            return "not a colour list; use colours (#RRGGBB, #RRGGBBAA or a Graphviz colour name) joined by ':', at most 8";
        case StyleValue::LineStyles:
            return "not a line style; use solid, dashed, dotted, bold, invis, filled, rounded, diagonals, striped, wedged, radial or "
                   "tapered, or a comma list of them (\"filled,dashed\")";
        case StyleValue::Shape:
            return "not a node shape; use a Graphviz polygon shape: box, rect, ellipse, circle, box3d, cds, trapezium, hexagon, "
                   "cylinder, note, tab, folder, component, ... (docs/diagrams.md lists them; no record or custom)";
        case StyleValue::Margin:
            return "not a margin; use inches as one number or two joined by ',' (\"0.3,0.1\")";
        case StyleValue::Font:
            return "not a font; use letters, digits, space, '-', '_', ',' and '.' only (\"DejaVu Sans, Arial\"), at most 128 characters";
    }
    return "";
}

void check_style_value(const std::string& where, const std::string& value, StyleValue kind) {
    if (!style_value_ok(value, kind)) {
        const std::string rule = style_value_rule(kind);
        const auto semi = rule.find("; ");
        throw input_error(where, rule.substr(0, semi), rule.substr(semi + 2));
    }
}

// A string of kind `kind` (checked), or `fallback` when absent.
std::string style_string(const JsonReader& r, const std::string& key, StyleValue kind, const std::string& fallback) {
    const auto v = r.get<std::string>(key);
    if (!v) {
        return fallback;
    }
    check_style_value(r.where(key), *v, kind);
    return *v;
}

// An array of strings of kind `kind` (each checked, at least one), or `fallback` when absent.
std::vector<std::string> style_strings(const JsonReader& r, const std::string& key, StyleValue kind,
                                       const std::vector<std::string>& fallback) {
    const auto v = r.get_strings(key, true);
    if (!v) {
        return fallback;
    }
    for (std::size_t i = 0; i < v->size(); ++i) {
        check_style_value(r.where(key + "/" + std::to_string(i)), (*v)[i], kind);
    }
    return *v;
}

LineStyle line_from(const JsonReader& r, const LineStyle& fallback, bool fill = false) {
    std::vector<std::string> keys{"color", "style", "penwidth", "meaning"};
    if (fill) {
        keys.emplace_back("fillcolor");
    }
    r.check_keys(keys);
    LineStyle l = fallback;
    l.color = style_string(r, "color", StyleValue::ColourList, l.color);
    l.style = style_string(r, "style", StyleValue::LineStyles, l.style);
    l.penwidth = r.get<double>("penwidth", 0.01, 20).value_or(l.penwidth);
    l.meaning = r.get<std::string>("meaning").value_or(l.meaning);  // text: escaped where it is written
    return l;
}

void read_chart_style(const JsonReader& c, ChartStyle& charts) {
    c.check_keys({"compute", "bubble", "kinds", "other", "series", "transports"});
    charts.compute = style_string(c, "compute", StyleValue::Colour, charts.compute);
    charts.bubble = style_string(c, "bubble", StyleValue::Colour, charts.bubble);
    if (const auto kinds = c.get_object("kinds")) {
        for (const auto& [k, v] : kinds->json().items()) {
            if (!is_comment_key(k) && kinds->has(k)) {
                charts.kinds[k] = style_string(*kinds, k, StyleValue::Colour, "");
            }
        }
    }
    charts.other = style_strings(c, "other", StyleValue::Colour, charts.other);
    charts.series = style_strings(c, "series", StyleValue::Colour, charts.series);
    if (const auto transports = c.get_object("transports")) {
        for (const auto& [k, v] : transports->json().items()) {
            if (!is_comment_key(k)) {
                charts.transports[k] = line_from(*transports->get_object(k), {});
            }
        }
    }
}

}  // namespace

std::optional<DiagramView> parse_diagram_view(std::string_view s) {
    if (s == "node") {
        return DiagramView::Node;
    }
    if (s == "groups") {
        return DiagramView::Groups;
    }
    if (s == "fabric") {
        return DiagramView::Fabric;
    }
    if (s == "score") {
        return DiagramView::Score;
    }
    if (s == "matrix") {
        return DiagramView::Matrix;
    }
    if (s == "load") {
        return DiagramView::Load;
    }
    return std::nullopt;
}

std::string_view to_string(DiagramView v) {
    switch (v) {
        case DiagramView::Node:
            return "node";
        case DiagramView::Groups:
            return "groups";
        case DiagramView::Fabric:
            return "fabric";
        case DiagramView::Score:
            return "score";
        case DiagramView::Matrix:
            return "matrix";
        case DiagramView::Load:
            return "load";
    }
    return "";
}

const LineStyle& DiagramStyle::link(const std::string& name) const {
    static const LineStyle kFallback;
    const auto it = links.find(name);
    return it == links.end() ? kFallback : it->second;
}

DeviceStyle DiagramStyle::device(const std::string& name) const {
    const auto it = devices.find(name);
    return it == devices.end() ? DeviceStyle{} : it->second;
}

DiagramStyle diagram_style_from_json(const std::string& text, const std::string& where) {
    require_text_size(text, where, kMaxStyleBytes, "kMaxStyleBytes",
                      "a style file holds a few dozen keys: check that this is the right file");
    const nlohmann::json j = parse_json_text(text, where);
    const JsonReader r(j, where, "");
    r.check_keys({"font", "fontsize", "background", "ink", "muted", "highlight", "classes", "links", "devices", "groups",
                  "group_styles", "rails", "rail_styles", "cluster", "thresholds", "charts"});
    DiagramStyle s;
    s.font = style_string(r, "font", StyleValue::Font, s.font);
    s.background = style_string(r, "background", StyleValue::Colour, s.background);
    s.ink = style_string(r, "ink", StyleValue::Colour, s.ink);
    s.muted = style_string(r, "muted", StyleValue::Colour, s.muted);
    s.fontsize = r.get<double>("fontsize", 4, 72).value_or(s.fontsize);
    if (const auto h = r.get_object("highlight")) {
        s.highlight = line_from(*h, s.highlight);
    }
    if (const auto classes = r.get_object("classes")) {
        for (const auto& [k, v] : classes->json().items()) {
            if (is_comment_key(k)) {
                continue;
            }
            const auto pc = parse_path_class(k);
            if (!pc) {
                throw input_error(classes->where(k), "unknown path class \"" + k + "\"",
                                  "use NV, PIX, PXB, PHB, NODE, SYS, RAIL, PXN, XRAIL or XPOD");
            }
            s.classes[static_cast<std::size_t>(*pc)] = line_from(*classes->get_object(k), {});
        }
    }
    if (const auto links = r.get_object("links")) {
        for (const auto& [k, v] : links->json().items()) {
            if (!is_comment_key(k)) {
                s.links[k] = line_from(*links->get_object(k), {});
            }
        }
    }
    if (const auto devices = r.get_object("devices")) {
        for (const auto& [k, v] : devices->json().items()) {
            if (is_comment_key(k)) {
                continue;
            }
            const JsonReader d = *devices->get_object(k);
            d.check_keys({"shape", "fillcolor", "margin"});
            DeviceStyle style;
            style.shape = style_string(d, "shape", StyleValue::Shape, style.shape);
            style.fillcolor = style_string(d, "fillcolor", StyleValue::Colour, style.fillcolor);
            style.margin = style_string(d, "margin", StyleValue::Margin, style.margin);
            s.devices[k] = style;
        }
    }
    s.groups = style_strings(r, "groups", StyleValue::Colour, s.groups);
    s.group_styles = style_strings(r, "group_styles", StyleValue::LineStyles, s.group_styles);
    s.rails = style_strings(r, "rails", StyleValue::Colour, s.rails);
    s.rail_styles = style_strings(r, "rail_styles", StyleValue::LineStyles, s.rail_styles);
    if (const auto c = r.get_object("cluster")) {
        s.cluster = line_from(*c, s.cluster, true);
        s.cluster_fill = style_string(*c, "fillcolor", StyleValue::Colour, s.cluster_fill);
    }
    if (const auto t = r.get_object("thresholds")) {
        t->check_keys({"full_max_nodes", "full_max_gpus", "node_boxes_max", "block_nodes", "nodes_per_row"});
        s.full_max_nodes = t->get<int>("full_max_nodes", 1, 4096).value_or(s.full_max_nodes);
        s.full_max_gpus = t->get<std::int64_t>("full_max_gpus", 1, 1 << 20).value_or(s.full_max_gpus);
        s.node_boxes_max = t->get<int>("node_boxes_max", 1, 100000).value_or(s.node_boxes_max);
        s.block_nodes = t->get<int>("block_nodes", 1, 1 << 20).value_or(s.block_nodes);
        s.nodes_per_row = t->get<int>("nodes_per_row", 1, 4096).value_or(s.nodes_per_row);
    }
    if (const auto c = r.get_object("charts")) {
        read_chart_style(*c, s.charts);
    }
    return s;
}

std::string ChartStyle::kind_color(const std::string& kind, std::size_t index) const {
    const auto it = kinds.find(kind);
    if (it != kinds.end()) {
        return it->second;
    }
    return other.empty() ? std::string("#999999") : other[index % other.size()];
}

const DiagramStyle& default_diagram_style() {
    static const DiagramStyle kStyle = diagram_style_from_json(kEmbeddedStyle, kEmbeddedStyleName);
    return kStyle;
}

}  // namespace planlayout
