// Emit: the plan as one self-contained HTML page for design reviews (`plan-layout report`):
// inline CSS and inline SVG, no scripts, nothing fetched. Deterministic: same Report and
// options, same bytes (no dates, no absolute paths); every user string is escaped.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "planlayout/emit/diagram.hpp"
#include "planlayout/report.hpp"
#include "planlayout/verify/ab.hpp"
#include "planlayout/verify/verify.hpp"

namespace planlayout {

/// What the page shows besides the plan: the acceptance results, when given.
struct HtmlReportOptions {
    DiagramStyle style = default_diagram_style();
    std::optional<verify::VerifyReport> verify;  // `--verify LOG...` checked against the plan
    std::vector<std::string> verify_logs;        // their file names (no folders), as shown
    std::optional<verify::AbReport> ab;          // `--ab RUN...` with the plan's prediction attached
    /// The files the command line read (plan-layout report: Context::inputs): wherever the page
    /// quotes one (an input reader's warning, a node capture's name), it shows the base name.
    std::vector<std::string> input_paths;
};

/// The whole page: summary and verdict, assumptions, groups table (crossing kinds highlighted),
/// memory per GPU, the score (step per arm, per-kind breakdown, the stacked bar chart of emit/charts.hpp), the node view,
/// one groups view per crossing kind that carries traffic, the fabric view, and the acceptance
/// results. The views go through diagram_svg (aggregated at scale as the diagrams are).
[[nodiscard]] std::string html_report(const Report& report, const HtmlReportOptions& options = {});

/// The group kinds the page draws a groups view of: with a score, the cross-node kinds of its
/// breakdown (largest contribution first); without one, every kind whose groups cross nodes.
[[nodiscard]] std::vector<std::string> report_view_kinds(const Report& report);

/// Text as HTML: & < > " ' escaped (safe in element text and in quoted attributes).
[[nodiscard]] std::string html_escape(std::string_view text);

/// An SVG document as an element to inline in HTML: the XML prolog, DOCTYPE and comments
/// dropped, and every id (with its url(#...) and href="#..." uses) prefixed with id_prefix so
/// that several pictures on one page do not share ids.
[[nodiscard]] std::string inline_svg(std::string_view svg, const std::string& id_prefix);

}  // namespace planlayout
