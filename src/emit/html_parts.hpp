// Emit: the pieces of the HTML report page its two files share (html_report.cpp, html_acceptance.cpp).
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "planlayout/emit/html_report.hpp"

namespace planlayout::html_parts {

/// The page's whole style sheet (html_style.cpp): colours of the path classes come from the
/// DiagramStyle, per element; dark and print styles as @media blocks.
[[nodiscard]] std::string_view page_css();

/// The finished page with every whole occurrence of each of `paths` that has a folder
/// ("/data/run1/a.json: ...", "(8 per node, ../caps/node.txt)") cut to its base name
/// (html_paths.cpp).
[[nodiscard]] std::string without_folders(std::string page, std::vector<std::string> paths);

/// html_escape.
[[nodiscard]] std::string esc(std::string_view s);

/// A table cell of text, and one of a number (right-aligned).
[[nodiscard]] std::string cell(const std::string& text);
[[nodiscard]] std::string num_cell(const std::string& text);

/// Opens <section id="ID"> with its <h2>; the caller closes it.
void section(std::ostringstream& out, const char* id, const std::string& title);

/// The go / no-go line at the top of the page: whether RDMA pays for this layout (the score's
/// step-time change and band against a 5 % reduction), and beside it each acceptance result
/// (verify's summary, each A/B comparison inside or outside the band) and a memory misfit.
void verdict_bar(std::ostringstream& out, const Report& report, const HtmlReportOptions& options);

/// The acceptance section: --verify's findings and --ab's arms, comparisons and runs (nothing
/// when neither is given).
void acceptance_section(std::ostringstream& out, const HtmlReportOptions& options);

}  // namespace planlayout::html_parts
