// Emit: the HTML report page's verdict bar (go / no-go, with the acceptance result beside it) and
// its acceptance section (--verify NCCL logs, --ab step logs).
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "html_parts.hpp"
#include "planlayout/emit/ab_emit.hpp"
#include "planlayout/emit/verify_emit.hpp"
#include "planlayout/model/model_spec.hpp"  // is_intra_arm
#include "planlayout/text_format.hpp"

namespace planlayout::html_parts {
namespace {

constexpr std::size_t kMaxFindingRows = 200;  // a page, not a log: the rest is counted

void findings_table(std::ostringstream& out, const std::vector<Finding>& findings) {
    if (findings.empty()) {
        out << "<p>No findings.</p>\n";
        return;
    }
    out << "<table>\n<tr><th>severity</th><th>code</th><th class=\"num\">rank</th><th class=\"num\">channel</th>"
           "<th>message</th><th>fix</th></tr>\n";
    for (std::size_t i = 0; i < findings.size() && i < kMaxFindingRows; ++i) {
        const Finding& f = findings[i];
        out << "<tr" << (f.severity == Severity::Error ? " class=\"error\"" : "") << ">" << cell(std::string(to_string(f.severity)))
            << cell(f.code) << num_cell(f.rank >= 0 ? std::to_string(f.rank) : "-")
            << num_cell(f.channel >= 0 ? std::to_string(f.channel) : "-") << cell(f.message) << cell(f.fix) << "</tr>\n";
    }
    out << "</table>\n";
    if (findings.size() > kMaxFindingRows) {
        out << "<p class=\"muted\">" << findings.size() - kMaxFindingRows
            << " more findings; the command's own output lists them all.</p>\n";
    }
}

// The step-time reduction RDMA must surely bring (the low end of its band) for the page to say it
// pays: below it the difference is inside what the model cannot tell from noise and setup.
constexpr double kPaysAt = 0.05;

struct Verdict {
    const char* css = "maybe";  // go | nogo | maybe | neutral
    std::string text;           // the one line
    std::string why;            // the dominant reason, under it
};

Verdict rdma_verdict(const Report& r) {
    if (!r.score) {
        return {"neutral", "No verdict: the layout has no model, training and transport sections (or score factors).", ""};
    }
    const Score& s = *r.score;
    const std::string arms = std::string(to_string(s.baseline)) + " -> " + std::string(to_string(s.candidate));
    if (s.single_arm) {
        return {"nogo", "RDMA does not pay for this layout: only the " + std::string(to_string(s.baseline)) +
                            " arm can run on these nodes" + (s.arm_notes.empty() ? "." : " (" + s.arm_notes.front() + ")."),
                ""};
    }
    const std::string change = "step " + signed_percent_text(-s.rdma_benefit) + " (band " + signed_percent_text(-s.band_high) +
                               " to " + signed_percent_text(-s.band_low) + "), throughput " + signed_percent_text(s.throughput_gain);
    if (is_intra_arm(s.baseline)) {
        return {"neutral", "Inside nodes (" + arms + "): " + change + ".", ""};
    }
    if (s.band_low >= kPaysAt) {
        return {"go", "RDMA pays: " + change + ", " + arms + ".", ""};
    }
    if (s.band_high < kPaysAt) {
        return {"nogo", "RDMA does not pay for this layout: " + change + ".", s.reasons.empty() ? "" : "why: " + s.reasons.front()};
    }
    return {"maybe", "RDMA may pay: " + change + "; the band straddles the " + percent_text(kPaysAt, 0) +
                         " step-time reduction the verdict asks for.",
            ""};
}

// The acceptance results in one line each: verify's summary, each A/B comparison against the band.
std::vector<std::pair<bool, std::string>> acceptance_lines(const HtmlReportOptions& o) {
    std::vector<std::pair<bool, std::string>> lines;
    if (o.verify) {
        lines.emplace_back(o.verify->passed(), "NCCL logs " + verify::summary_line(*o.verify));
    }
    if (o.ab) {
        for (const auto& c : o.ab->comparisons) {
            const auto within = c.within_band();
            std::string text = "measured " + c.arm + " vs " + c.baseline + ": step " + signed_percent_text(c.step_time_change);
            if (within) {
                text += *within ? ", inside the predicted band" : ", OUTSIDE the predicted band";
            }
            lines.emplace_back(within.value_or(true), text);
        }
    }
    return lines;
}

}  // namespace

void verdict_bar(std::ostringstream& out, const Report& report, const HtmlReportOptions& o) {
    const Verdict v = rdma_verdict(report);
    out << "<div id=\"verdict\" class=\"go-line " << v.css << "\">\n<p class=\"headline\">" << esc(v.text) << "</p>\n";
    if (!v.why.empty()) {
        out << "<p class=\"why\">" << esc(v.why) << "</p>\n";
    }
    for (const auto& [ok, text] : acceptance_lines(o)) {
        out << "<p class=\"accept" << (ok ? "" : " failed") << "\">" << (ok ? "&#10003; " : "&#10007; ") << esc(text) << "</p>\n";
    }
    if (report.memory && !report.memory->fits().value_or(true)) {
        out << "<p class=\"accept failed\">&#10007; memory per GPU does not fit the budget (see below)</p>\n";
    }
    out << "</div>\n";
}

void acceptance_section(std::ostringstream& out, const HtmlReportOptions& o) {
    if (!o.verify && !o.ab) {
        return;
    }
    section(out, "acceptance", "Acceptance");
    if (o.verify) {
        const verify::VerifyReport& v = *o.verify;
        std::string logs;
        for (const auto& l : o.verify_logs) {
            logs += (logs.empty() ? "" : ", ") + l;
        }
        out << "<h3>NCCL logs against the plan</h3>\n<p>logs: " << esc(logs) << "; expected transport "
            << esc(verify::to_string(v.expectation.expect)) << ", inside nodes " << esc(verify::to_string(v.expectation.intra))
            << "</p>\n<div class=\"verdict" << (v.passed() ? "" : " bad") << "\"><p class=\"headline\">"
            << esc(verify::summary_line(v)) << "</p></div>\n";
        findings_table(out, v.findings);
    }
    if (o.ab) {
        const verify::AbReport& ab = *o.ab;
        out << "<h3>A/B step times</h3>\n<p>stable window: steps " << ab.options.window.first << " to "
            << ab.options.window.last << "</p>\n<table>\n<tr><th>arm</th><th class=\"num\">rounds</th>"
            << "<th class=\"num\">median s</th><th class=\"num\">min s</th><th class=\"num\">max s</th>"
               "<th class=\"num\">samples/s</th></tr>\n";
        for (const auto& a : ab.arms) {
            out << "<tr>" << cell(a.arm) << num_cell(std::to_string(a.rounds)) << num_cell(seconds_text(a.median_s))
                << num_cell(seconds_text(a.min_s)) << num_cell(seconds_text(a.max_s))
                << num_cell(a.samples_per_s ? fixed_text(*a.samples_per_s, 2) : "-") << "</tr>\n";
        }
        out << "</table>\n<table>\n<tr><th>comparison</th><th class=\"num\">step-time change</th>"
               "<th class=\"num\">throughput</th><th>predicted</th><th>within the band</th></tr>\n";
        for (const auto& c : ab.comparisons) {
            const auto within = c.within_band();
            out << "<tr" << (within && !*within ? " class=\"error\"" : "") << ">" << cell(c.arm + " vs " + c.baseline)
                << num_cell(signed_percent_text(c.step_time_change)) << num_cell(signed_percent_text(c.throughput_gain))
                << cell(c.prediction ? verify::prediction_text(c) : "-") << cell(within ? (*within ? "yes" : "no") : "-")
                << "</tr>\n";
        }
        out << "</table>\n<table>\n<tr><th>run</th><th>arm</th><th>round</th><th class=\"num\">mean s</th>"
               "<th class=\"num\">from the arm's median</th></tr>\n";
        for (const auto& r : ab.runs) {
            out << "<tr" << (r.outlier ? " class=\"error\"" : "") << ">" << cell(r.source) << cell(r.arm) << cell(r.round)
                << num_cell(seconds_text(r.mean_s)) << num_cell(signed_percent_text(r.deviation)) << "</tr>\n";
        }
        out << "</table>\n";
        findings_table(out, ab.findings);
    }
    out << "</section>\n";
}

}  // namespace planlayout::html_parts
