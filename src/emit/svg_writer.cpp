// Emit: the small SVG writer (svg_writer.hpp).
#include "svg_writer.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "planlayout/text_format.hpp"

namespace planlayout::svg {

std::string num(double v) {
    require_finite(v);
    const double r = std::round(v * 100.0) / 100.0;
    std::string s = fixed_text(r == 0.0 ? 0.0 : r, 2);
    while (!s.empty() && s.back() == '0') {
        s.pop_back();
    }
    if (!s.empty() && s.back() == '.') {
        s.pop_back();
    }
    return s == "-0" ? "0" : s;
}

std::string escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default:
                // XML 1.0 forbids most control characters even as references: show them as '?'.
                if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
                    out += '?';
                } else {
                    out += c;
                }
        }
    }
    return out;
}

std::string css_value(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == ' ' || c == '#' || c == '_' || c == ',' || c == '.' ||
            c == '%' || c == '-') {
            out += c;
        }
    }
    return out;
}

namespace {

// Attributes whose value is CSS-like (a paint, a font, a declaration list): a user string there
// could fetch (url(http://...)) or, in a style attribute, add declarations.
bool svg_css_attribute(std::string_view key) {
    for (const char* k : {"fill", "stroke", "stop-color", "flood-color", "color", "font-family", "style"}) {
        if (key == k) {
            return true;
        }
    }
    return false;
}

// A reference into this document: url(#id), the id of letters, digits, '_', '-' and '.'.
bool svg_local_url(std::string_view v) {
    if (v.size() < 7 || v.substr(0, 5) != "url(#" || v.back() != ')') {
        return false;
    }
    const std::string_view id = v.substr(5, v.size() - 6);
    return std::all_of(id.begin(), id.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
    });
}

// Issue 41 item 1, defence in depth (the style file is checked where it is read): a CSS-like
// attribute keeps a local url(#id) or the characters css_value keeps (and ':' ';' in style="").
std::string svg_attribute_value(std::string_view key, const std::string& v) {
    if (!svg_css_attribute(key) || svg_local_url(v)) {
        return v;
    }
    if (key != "style") {
        return css_value(v);
    }
    std::string out;
    for (const char c : v) {
        if (c == ':' || c == ';' || !css_value(std::string_view(&c, 1)).empty()) {
            out += c;
        }
    }
    return out;
}

}  // namespace

Document::Document(double width, double height, std::string_view title)
    : width_(width), height_(height), title_(title) {}

void Document::def(std::string_view markup) {
    defs_ += markup;
    defs_ += '\n';
}

void Document::style(std::string_view css) {
    css_ += css;
    css_ += '\n';
}

void Document::element(std::string_view name, const Attrs& geometry, const Attrs& attrs,
                       std::string_view content) {
    std::string e;
    const bool tip = !pending_tooltip_.empty();
    if (tip) {
        e += "<g><title>" + escape(pending_tooltip_) + "</title>";
        pending_tooltip_.clear();
    }
    e += '<';
    e += name;
    for (const auto* list : {&geometry, &attrs}) {
        for (const auto& [k, v] : *list) {
            e += ' ' + k + "=\"" + escape(svg_attribute_value(k, v)) + '"';
        }
    }
    if (content.empty()) {
        e += "/>";
    } else {
        e += '>';
        e += escape(content);
        e += "</";
        e += name;
        e += '>';
    }
    if (tip) {
        e += "</g>";
    }
    body_ += e;
    body_ += '\n';
}

void Document::rect(double x, double y, double w, double h, const Attrs& attrs) {
    element("rect", {{"x", num(x)}, {"y", num(y)}, {"width", num(std::max(w, 0.0))},
                     {"height", num(std::max(h, 0.0))}},
            attrs);
}

void Document::line(double x1, double y1, double x2, double y2, const Attrs& attrs) {
    element("line", {{"x1", num(x1)}, {"y1", num(y1)}, {"x2", num(x2)}, {"y2", num(y2)}}, attrs);
}

void Document::circle(double cx, double cy, double r, const Attrs& attrs) {
    element("circle", {{"cx", num(cx)}, {"cy", num(cy)}, {"r", num(r)}}, attrs);
}

void Document::polyline(const std::vector<std::pair<double, double>>& points, const Attrs& attrs,
                        bool closed) {
    std::string pts;
    for (const auto& [x, y] : points) {
        if (!pts.empty()) {
            pts += ' ';
        }
        pts += num(x) + ',' + num(y);
    }
    element(closed ? "polygon" : "polyline", {{"points", pts}}, attrs);
}

void Document::path(std::string_view d, const Attrs& attrs) {
    element("path", {{"d", std::string(d)}}, attrs);
}

void Document::text(double x, double y, std::string_view s, Anchor anchor, const Attrs& attrs) {
    Attrs geometry{{"x", num(x)}, {"y", num(y)}};
    if (anchor == Anchor::Middle) {
        geometry.emplace_back("text-anchor", "middle");
    } else if (anchor == Anchor::End) {
        geometry.emplace_back("text-anchor", "end");
    }
    // An empty text still becomes an element (content "" would write a self-closing tag).
    element("text", geometry, attrs, s.empty() ? std::string_view(" ") : s);
}

void Document::tooltip(std::string_view s) { pending_tooltip_ = std::string(s); }

void Document::open_group(const Attrs& attrs) {
    std::string e = "<g";
    for (const auto& [k, v] : attrs) {
        e += ' ' + k + "=\"" + escape(svg_attribute_value(k, v)) + '"';
    }
    body_ += e + ">\n";
    ++depth_;
}

void Document::close_group() {
    if (depth_ > 0) {
        body_ += "</g>\n";
        --depth_;
    }
}

std::string Document::str() const {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + inline_svg();
}

std::string Document::inline_svg() const {
    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width_) + "\" height=\"" +
           num(height_) + "\" viewBox=\"0 0 " + num(width_) + ' ' + num(height_) + "\">\n";
    out += "<title>" + escape(title_) + "</title>\n";
    if (!defs_.empty()) {
        out += "<defs>\n" + defs_ + "</defs>\n";
    }
    if (!css_.empty()) {
        // CDATA: CSS may hold '>' (child selectors). A "]]>" inside (none of ours; a style value
        // cannot hold one either) is split across two sections, so it can never end this one.
        std::string css;
        for (std::size_t i = 0; i < css_.size(); ++i) {
            if (css_.compare(i, 3, "]]>") == 0) {
                css += "]]]]><![CDATA[>";
                i += 2;
            } else {
                css += css_[i];
            }
        }
        out += "<style><![CDATA[\n" + css + "]]></style>\n";
    }
    out += body_;
    for (int i = 0; i < depth_; ++i) {
        out += "</g>\n";
    }
    out += "</svg>\n";
    return out;
}

}  // namespace planlayout::svg
