// Emit: a small SVG writer for the charts and the at-scale views that are not graphs (bar charts,
// curves over size, traffic matrices, load charts). Elements are written in the order they are
// added, attributes in the order given, numbers with at most two decimals: the same calls give
// byte-identical text. Every string is escaped. Private to emit/.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace planlayout::svg {

/// Attributes in the order they are written: {{"fill", "#E69F00"}, {"stroke", "none"}}.
using Attrs = std::vector<std::pair<std::string, std::string>>;

/// A coordinate or length: at most two decimals, no trailing zeros, "-0" written "0".
[[nodiscard]] std::string num(double v);

/// Text escaped for XML character data and attribute values (& < > " ').
[[nodiscard]] std::string escape(std::string_view s);

/// A value to paste into CSS (a colour, a font list): only letters, digits, space, '#', '_', ',',
/// '.', '%' and '-' kept, so it cannot end a declaration, a rule, a CDATA section or an attribute,
/// nor fetch anything. Document applies the same to its CSS-like attributes (fill, stroke, style, ...).
[[nodiscard]] std::string css_value(std::string_view s);

/// Text anchors for `Document::text`.
enum class Anchor { Start, Middle, End };

/// One SVG document of a fixed size in px. Groups nest; `str()` closes what is still open.
class Document {
public:
    /// `title` becomes the <title> (what a browser tab and a screen reader show).
    Document(double width, double height, std::string_view title);

    [[nodiscard]] double width() const { return width_; }
    [[nodiscard]] double height() const { return height_; }

    /// Raw markup inside <defs> (patterns, markers): the caller writes well-formed, escaped text.
    void def(std::string_view markup);

    /// CSS inside one <style> element (font families, classes).
    void style(std::string_view css);

    void rect(double x, double y, double w, double h, const Attrs& attrs = {});
    void line(double x1, double y1, double x2, double y2, const Attrs& attrs = {});
    void circle(double cx, double cy, double r, const Attrs& attrs = {});
    /// Points joined by straight lines; a polygon when `closed`.
    void polyline(const std::vector<std::pair<double, double>>& points, const Attrs& attrs = {},
                  bool closed = false);
    void path(std::string_view d, const Attrs& attrs = {});
    void text(double x, double y, std::string_view s, Anchor anchor = Anchor::Start,
              const Attrs& attrs = {});
    /// A tooltip for the element added next: a <title> child (browsers show it on hover).
    /// Written as a group around that element.
    void tooltip(std::string_view s);

    void open_group(const Attrs& attrs = {});
    void close_group();

    /// The whole document: XML declaration, <svg> with width/height/viewBox, defs, style, body.
    [[nodiscard]] std::string str() const;

    /// The <svg> element alone (no XML declaration), for inlining into HTML.
    [[nodiscard]] std::string inline_svg() const;

private:
    void element(std::string_view name, const Attrs& geometry, const Attrs& attrs,
                 std::string_view content = {});

    double width_;
    double height_;
    std::string title_;
    std::string defs_;
    std::string css_;
    std::string body_;
    std::string pending_tooltip_;
    int depth_ = 0;
};

}  // namespace planlayout::svg
