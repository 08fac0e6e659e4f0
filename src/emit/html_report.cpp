// Emit: the plan as one self-contained HTML page (`plan-layout report`). Inline CSS, inline SVG
// from the diagram views, no scripts; every user string through html_escape.
#include "planlayout/emit/html_report.hpp"

#include "planlayout/emit/charts.hpp"

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <utility>

#include "html_parts.hpp"
#include "svg_writer.hpp"
#include "planlayout/emit/report_emit.hpp"  // assumed_values
#include "planlayout/emit/score_emit.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout {
namespace html_parts {

std::string esc(std::string_view s) { return html_escape(s); }

std::string num_cell(const std::string& text) { return "<td class=\"num\">" + esc(text) + "</td>"; }

std::string cell(const std::string& text) { return "<td>" + esc(text) + "</td>"; }

void section(std::ostringstream& out, const char* id, const std::string& title) {
    out << "<section id=\"" << id << "\">\n<h2>" << esc(title) << "</h2>\n";
}

}  // namespace html_parts

namespace {

using html_parts::cell;
using html_parts::esc;
using html_parts::num_cell;
using html_parts::section;



// "runs/a.json" → "a.json": the page names files without their folders (no absolute paths).
std::string base_name_of(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A Graphviz colour as CSS: the first colour of a list ("#CC79A7:invis:#CC79A7" → "#CC79A7").
std::string css_color(const std::string& graphviz_color) {
    const auto colon = graphviz_color.find(':');
    return esc(svg::css_value(colon == std::string::npos ? graphviz_color : graphviz_color.substr(0, colon)));
}

// A path class as a chip with its diagram colour.
std::string class_chip(PathClass c, const DiagramStyle& style, const std::string& text) {
    return "<span class=\"chip\" style=\"border-left-color:" + css_color(style.of(c).color) + "\" title=\"" +
           esc(style.of(c).meaning) + "\">" + esc(text) + "</span>";
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }




void summary_section(std::ostringstream& out, const Report& report, const DiagramStyle& style) {
    const Cluster& c = report.cluster;
    const ResolvedSpec& s = report.groups.spec;
    section(out, "summary", "Summary and verdict");
    std::string cluster = std::to_string(c.node_count()) + " nodes, " + std::to_string(c.total_gpus()) + " GPUs";
    cluster += c.homogeneous() ? " (" + std::to_string(c.facts.front().gpu_count) + " per node, " + c.templates.front().name + ")"
                               : " (" + std::to_string(c.templates.size()) + " node templates)";
    cluster += ", " + std::to_string(c.rails) + " rails " + (c.fabric.aligned ? "rail-aligned" : "explicitly wired");
    if (c.fabric.nodes_per_su > 0) {
        cluster += ", " + c.su_size_text();
    }
    cluster += std::string(", PXN ") + (c.fabric.pxn ? "on" : "off");
    const std::string spec = "tp=" + std::to_string(s.tp) + " pp=" + std::to_string(s.pp) + " cp=" + std::to_string(s.cp) +
                             " dp=" + std::to_string(s.dp) + " | ep=" + std::to_string(s.ep) + " etp=" + std::to_string(s.etp) +
                             " expert_dp=" + std::to_string(s.expert_dp) + " | order " + s.order + " | world " +
                             std::to_string(s.world);
    out << "<dl class=\"facts\">\n<dt>cluster</dt><dd>" << esc(cluster) << "</dd>\n";
    if (report.groups.framework != "megatron") {
        out << "<dt>framework</dt><dd>" << esc(report.groups.framework) << " <code>" << esc(report.groups.framework_degrees)
            << "</code> (its own groups; the spec below is the equivalent Megatron sizes)</dd>\n";
    }
    out << "<dt>spec</dt><dd><code>" << esc(spec) << "</code></dd>\n<dt>placement</dt><dd>" << esc(report.placement.description) << "</dd>\n</dl>\n";
    const bool fits = !report.memory || report.memory->fits().value_or(true);
    if (report.score) {
        const Score& sc = *report.score;
        const std::string text = render_text(sc);
        const auto second = text.find('\n');
        out << "<div class=\"verdict" << (fits ? "" : " bad") << "\">\n<p class=\"headline\">" << esc(first_line(text))
            << "</p>\n";
        if (second != std::string::npos) {
            out << "<p>" << esc(first_line(text.substr(second + 1))) << "</p>\n";
        }
        if (!sc.reasons.empty()) {
            out << "<ul>\n";
            for (const auto& r : sc.reasons) {
                out << "<li>" << esc(r) << "</li>\n";
            }
            out << "</ul>\n";
        }
    } else {
        out << "<div class=\"verdict neutral\">\n<p class=\"headline\">No score: the layout has no model, training and "
               "transport sections (or score factors).</p>\n";
    }
    if (report.memory) {
        const auto f = report.memory->fits();
        const double total = report.memory->estimate.total_bytes();
        out << "<p>memory per GPU " << esc(human_bytes(total)) << ": "
            << (!f    ? std::string("not checked, the budget is unknown")
                : *f ? "fits in the budget (" + esc(percent_text(total / report.memory->budget.budget_bytes(), 0)) + " of it)"
                     : "<strong>does NOT fit</strong>, " +
                           esc(human_bytes(total - report.memory->budget.budget_bytes())) + " over the budget")
            << "</p>\n";
    }
    std::string crossing;
    for (const auto& k : report.kinds) {
        if (k.cross_pairs() > 0) {
            crossing += (crossing.empty() ? "" : " ") + class_chip(k.worst, style, k.kind + " " + std::string(to_string(k.worst)));
        }
    }
    out << "<p>kinds whose groups cross nodes (worst class): " << (crossing.empty() ? "none" : crossing) << "</p>\n</div>\n";
    if (!report.warnings.empty()) {
        out << "<h3 class=\"warn\">Warnings</h3>\n<ul class=\"warn\">\n";
        for (const auto& w : report.warnings) {
            out << "<li>" << esc(w) << "</li>\n";
        }
        out << "</ul>\n";
    }
    if (report.score) {
        out << "<details><summary>the score as <code>plan-layout analyze</code> prints it</summary>\n<pre>"
            << esc(render_text(*report.score)) << "</pre>\n</details>\n";
        // The verdict's picture: the step per arm, stacked (the tables are under "Score").
        if (const std::string chart = score_chart_svg(report, style, SvgForm::Inline); !chart.empty()) {
            out << "<figure class=\"chart\"><div class=\"view\">" << chart
                << "</div><figcaption>step time per arm</figcaption></figure>\n";
        }
    }
    out << "</section>\n";
}

void assumptions_section(std::ostringstream& out, const Report& report) {
    section(out, "assumptions", "Assumptions");
    const AssumedValues assumed = assumed_values(report.assumptions);
    if (assumed.labels.empty() && assumed.given.empty()) {
        out << "<p class=\"muted\">Nothing assumed: the layout has no model, training or transport sections.</p>\n";
    } else {
        out << "<p>What the plan used that no input gave: derived values, defaults, the node templates' hardware and the "
               "compute model's GPU. <code>plan-layout analyze --format json</code> lists every value with its "
               "source.</p>\n<table class=\"assumed\">\n<tr><th>assumed</th><th>values</th></tr>\n";
        for (const auto& [label, items] : assumed.labels) {
            out << "<tr>" << cell(label) << "<td>";
            for (std::size_t i = 0; i < items.size(); ++i) {
                out << (i ? ", " : "") << "<span class=\"item\">" << esc(items[i]) << "</span>";
            }
            out << "</td></tr>\n";
        }
        if (!assumed.given.empty()) {
            out << "<tr>" << cell("given") << "<td>";
            for (std::size_t i = 0; i < assumed.given.size(); ++i) {
                // An input file by its name alone, as the header names the layout (no folders).
                const std::string& source = assumed.given[i].first;
                out << (i ? ", " : "") << "<span class=\"item\">" << esc(source.rfind('-', 0) == 0 ? source : base_name_of(source)) << " ("
                    << assumed.given[i].second << " values)</span>";
            }
            out << "</td></tr>\n";
        }
        out << "</table>\n";
    }
    out << "</section>\n";
}

void groups_section(std::ostringstream& out, const Report& report, const DiagramStyle& style) {
    section(out, "groups", "Groups");
    out << "<p>Every communication group kind Megatron-Core creates, with the GPU pairs its collective uses by path "
           "class. Highlighted rows cross nodes.</p>\n"
        << "<table>\n<tr><th>kind</th><th class=\"num\">groups &times; size</th><th class=\"num\">nodes</th>"
           "<th>worst</th><th class=\"num\">GB/s</th><th>pairs by class</th></tr>\n";
    std::string singletons;
    for (const auto& k : report.kinds) {
        if (k.size == 1) {
            singletons += (singletons.empty() ? "" : ", ") + k.kind;
            continue;
        }
        out << "<tr" << (k.cross_pairs() > 0 ? " class=\"cross\"" : "") << ">" << cell(k.kind)
            << num_cell(std::to_string(k.groups) + " x " + std::to_string(k.size)) << num_cell(std::to_string(k.max_nodes))
            << "<td>" << class_chip(k.worst, style, std::string(to_string(k.worst))) << "</td>"
            << num_cell(k.bottleneck_gbyte_s > 0 ? fixed_text(k.bottleneck_gbyte_s, 1) : "-") << "<td>";
        for (int c = 0; c < kPathClassCount; ++c) {
            if (const auto n = k.pairs[static_cast<std::size_t>(c)]; n > 0) {
                const auto pc = static_cast<PathClass>(c);
                out << class_chip(pc, style, std::string(to_string(pc)) + " " + std::to_string(n));
            }
        }
        out << "</td></tr>\n";
    }
    out << "</table>\n";
    if (!singletons.empty()) {
        out << "<p class=\"muted\">Kinds of one rank per group (nothing to communicate): " << esc(singletons) << ".</p>\n";
    }
    out << "</section>\n";
}

void memory_section(std::ostringstream& out, const Report& report) {
    if (!report.memory) {
        return;
    }
    const MemoryReport& m = *report.memory;
    const MemoryEstimate& e = m.estimate;
    section(out, "memory", "Memory per GPU");
    out << "<p>The busiest rank: the first pipeline stage. " << esc(e.accounting) << ".</p>\n<table>\n";
    const auto row = [&out](const char* name, double bytes, const char* cls) {
        out << "<tr" << cls << ">" << cell(name) << num_cell(human_bytes(bytes)) << "</tr>\n";
    };
    row("params", e.params_bytes, "");
    row("grads", e.grads_bytes, "");
    row("optimizer", e.optimizer_bytes, "");
    if (e.optimizer_step_bytes > 0) {
        row("opt. step", e.optimizer_step_bytes, "");
    }
    row("activations", e.activations_bytes, "");
    if (e.gathered_bytes > 0) {
        row("gathered", e.gathered_bytes, "");
    }
    row("total", e.total_bytes(), " class=\"total\"");
    out << "</table>\n";
    if (e.optimizer_step_bytes > 0 || e.grads_after_activations) {
        out << "<p>" << esc("The total is the peak: the states and the larger of the backward's (activations" +
                            std::string(e.grads_after_activations ? "" : ", grads") + ") and the optimizer step's (grads, opt. step).")
            << "</p>\n";
    }
    out << "<p>budget: " << esc(memory_budget_text(m.budget)) << "</p>\n";
    if (m.budget.known() && m.budget.budget_bytes() > 0) {
        const double used = e.total_bytes() / m.budget.budget_bytes();
        out << "<div class=\"bar" << (used > 1 ? " over" : "") << "\" title=\"total / budget\"><span style=\"width:"
            << fixed_text(std::min(used, 1.0) * 100, 1) << "%\"></span></div>\n<p>" << esc(percent_text(used, 0))
            << " of the budget</p>\n";
    }
    out << "</section>\n";
}

void score_section(std::ostringstream& out, const Report& report, const DiagramStyle& style) {
    if (!report.score) {
        return;
    }
    const Score& s = *report.score;
    const std::string base(to_string(s.baseline));
    const std::string cand(to_string(s.candidate));
    const bool two = !s.single_arm;
    section(out, "score", "Score");
    out << "<h3>Step time per arm</h3>\n<table>\n<tr><th>part of the step</th><th class=\"num\">" << esc(base) << " s</th>"
        << (two ? "<th class=\"num\">" + esc(cand) + " s</th>" : "") << "</tr>\n";
    const auto row = [&](const std::string& name, double a, double b, const char* cls) {
        out << "<tr" << cls << ">" << cell(name) << num_cell(fixed_text(a, 4)) << (two ? num_cell(fixed_text(b, 4)) : "") << "</tr>\n";
    };
    row("compute", s.compute_s, s.compute_s, "");
    row("pipeline bubble", s.bubble_s, s.bubble_s, "");
    for (const auto& k : s.by_kind) {
        row(k.kind + " " + k.collective + " (exposed)", k.exposed_s[0], k.exposed_s[1], "");
    }
    row("step", s.step_time_s[0], s.step_time_s[1], " class=\"total\"");
    out << "</table>\n<h3>By kind</h3>\n<table>\n<tr><th>kind</th><th>collective</th><th>class</th>"
           "<th class=\"num\">bytes/step</th><th class=\"num\">"
        << esc(base) << " s</th>" << (two ? "<th class=\"num\">" + esc(cand) + " s</th>" : "")
        << "<th class=\"num\">hidden s</th><th class=\"num\">share</th><th class=\"num\">phi</th><th class=\"num\">u</th></tr>\n";
    for (const auto& k : s.by_kind) {
        out << "<tr" << (k.cross_node ? " class=\"cross\"" : "") << ">" << cell(k.kind) << cell(k.collective) << "<td>"
            << class_chip(k.path_class, style, std::string(to_string(k.path_class))) << "</td>"
            << num_cell(human_bytes(k.bytes_per_step)) << num_cell(fixed_text(k.time_s[0], 4))
            << (two ? num_cell(fixed_text(k.time_s[1], 4)) : "") << num_cell(fixed_text(k.hidden_s, 4))
            << num_cell(percent_text(k.share)) << num_cell(fixed_text(k.phi, 2)) << num_cell(fixed_text(k.u, 2)) << "</tr>\n";
    }
    out << "</table>\n</section>\n";
}

// The page's text column in CSS pixels (main's max-width less its padding), and the smallest
// scale a picture is shown at: a wider one keeps at least half its size and scrolls sideways in
// its frame (shrunk to the column, the labels of a 1,024-node snake would be under 3 px).
constexpr double kColumnPx = 1110;
constexpr double kMinPictureScale = 0.5;

// The width Graphviz gives an SVG (width="785pt"), in CSS pixels; 0 when it gives none.
double svg_width_px(std::string_view svg) {
    const auto tag = svg.find("<svg");
    const auto at = svg.find(" width=\"", tag == std::string_view::npos ? 0 : tag);
    if (at == std::string_view::npos) {
        return 0;
    }
    double v = 0;
    std::size_t i = at + 8;
    for (; i < svg.size() && svg[i] >= '0' && svg[i] <= '9'; ++i) {
        v = v * 10 + (svg[i] - '0');
    }
    return svg.compare(i, 2, "pt") == 0 ? v * 4.0 / 3.0 : v;
}

void figure(std::ostringstream& out, const std::string& svg, const std::string& id, const std::string& heading,
            const std::string& caption) {
    std::string body = inline_svg(svg, id);
    if (const double width = svg_width_px(svg); width * kMinPictureScale > kColumnPx) {
        body.insert(4, " style=\"max-width:none;width:" + fixed_text(width * kMinPictureScale, 0) + "px\"");
    }
    out << "<h3>" << esc(heading) << "</h3>\n<figure id=\"" << id << "\"><div class=\"view\">" << body
        << "</div><figcaption>" << esc(caption) << "</figcaption></figure>\n";
}

// "all_to_all over PXN, 3.8 GiB per rank per step" for a kind the score costs; "" otherwise.
std::string traffic_of(const Report& report, const std::string& kind) {
    if (report.score) {
        for (const auto& k : report.score->by_kind) {
            if (k.kind == kind) {
                return k.collective + " over " + std::string(to_string(k.path_class)) + ", " + human_bytes(k.bytes_per_step) +
                       " per rank per step";
            }
        }
    }
    for (const auto& k : report.kinds) {
        if (k.kind == kind) {
            return std::to_string(k.groups) + " groups of " + std::to_string(k.size) + ", worst class " +
                   std::string(to_string(k.worst));
        }
    }
    return "";
}

void views_section(std::ostringstream& out, const Report& report, const DiagramStyle& style) {
    section(out, "views", "Pictures");
    const bool aggregated = diagram_aggregated(report, style);
    if (aggregated) {
        out << "<p class=\"muted\">Past " << style.full_max_nodes << " nodes or " << style.full_max_gpus
            << " GPUs the views draw one box per node or scalable unit.</p>\n";
    }
    DiagramOptions options;
    options.view = DiagramView::Node;
    const std::string& host = report.cluster.nodes.front().host;
    figure(out, diagram_svg(report, options, style), "view-node", "Node view: " + host,
           "one node's GPUs, NVSwitch, PCIe switches, NICs and NUMA nodes (" + host + ", the first node)");
    options.view = DiagramView::Groups;
    for (const auto& kind : report_view_kinds(report)) {
        options.kind = kind;
        figure(out, diagram_svg(report, options, style), "view-groups-" + kind, "Groups view: " + kind + " (" + traffic_of(report, kind) + ")",
               kind + " groups and the GPU pairs their collective uses, styled by path class");
    }
    options.view = DiagramView::Fabric;
    figure(out, diagram_svg(report, options, style), "view-fabric", "Fabric view",
           "nodes, rails, leaves and spines, with the traffic per rail the score estimates");
    out << "</section>\n";
}

}  // namespace

// XML's escaping serves HTML too (control characters, invalid in both, become '?').
std::string html_escape(std::string_view text) { return svg::escape(text); }

std::string inline_svg(std::string_view svg, const std::string& id_prefix) {
    const auto start = svg.find("<svg");
    std::string body(start == std::string_view::npos ? svg : svg.substr(start));
    std::string out;
    out.reserve(body.size() + 1024);
    for (std::size_t i = 0; i < body.size();) {
        if (body.compare(i, 4, "<!--") == 0) {  // comments: Graphviz's name the nodes (user strings)
            const auto end = body.find("-->", i + 4);
            i = end == std::string::npos ? body.size() : end + 3;
            if (i < body.size() && body[i] == '\n') {
                ++i;
            }
            continue;
        }
        bool replaced = false;
        for (const char* ref : {" id=\"", "url(#", "href=\"#"}) {
            const std::string_view r(ref);
            if (body.compare(i, r.size(), r) == 0) {
                out += r;
                out += id_prefix + "-";
                i += r.size();
                replaced = true;
                break;
            }
        }
        if (!replaced) {
            out += body[i++];
        }
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) {
        out.pop_back();
    }
    return out;
}

std::vector<std::string> report_view_kinds(const Report& report) {
    std::vector<std::string> out;
    // The crossing kind that carries `role` (the score's by_kind names roles; another framework
    // names its kinds itself), or nullptr.
    const auto crossing = [&report](const std::string& role) -> const KindEdges* {
        for (const auto& k : report.kinds) {
            if ((k.role == role || k.kind == role) && k.cross_pairs() > 0) {
                return &k;
            }
        }
        return nullptr;
    };
    const auto add = [&out](const KindEdges* k) {
        if (k != nullptr && std::find(out.begin(), out.end(), k->kind) == out.end()) {
            out.push_back(k->kind);
        }
    };
    if (report.score) {
        for (const auto& k : report.score->by_kind) {
            if (k.cross_node) {
                add(crossing(k.kind));
            }
        }
        return out;
    }
    // No score: the kinds that carry a training step's collectives (model/traffic.cpp).
    const char* dp = report.groups.spec.cp > 1 ? "dp_cp" : "dp";
    for (const char* role : {"tp", "cp", "ep", "expt_tp", "pp", dp, "expt_dp", "fsdp", "efsdp", "dp_replicate"}) {
        add(crossing(role));
    }
    return out;
}

std::string html_report(const Report& report, const HtmlReportOptions& options) {
    std::ostringstream out;
    const std::string name = base_name_of(report.layout_name);
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        << "<title>plan-layout report: " << esc(name) << "</title>\n<style>" << html_parts::page_css() << "</style>\n</head>\n<body>\n<main>\n"
        << "<header>\n<h1>plan-layout report</h1>\n<p class=\"sub\">layout <code>" << esc(name) << "</code></p>\n<nav>"
        << "<a href=\"#summary\">summary</a><a href=\"#assumptions\">assumptions</a><a href=\"#groups\">groups</a>"
        << (report.memory ? "<a href=\"#memory\">memory</a>" : "") << (report.score ? "<a href=\"#score\">score</a>" : "")
        << "<a href=\"#views\">pictures</a>" << (options.verify || options.ab ? "<a href=\"#acceptance\">acceptance</a>" : "")
        << "</nav>\n</header>\n";
    html_parts::verdict_bar(out, report, options);
    summary_section(out, report, options.style);
    assumptions_section(out, report);
    groups_section(out, report, options.style);
    memory_section(out, report);
    score_section(out, report, options.style);
    views_section(out, report, options.style);
    html_parts::acceptance_section(out, options);
    out << "<footer>Written by <code>plan-layout report</code>: one file, no scripts, nothing fetched.</footer>\n"
        << "</main>\n</body>\n</html>\n";
    // Issue 41 item 9: an input's path inside quoted text (a reader's warning, a capture's name).
    std::vector<std::string> paths = options.input_paths;
    paths.insert(paths.end(), report.files.begin(), report.files.end());
    paths.push_back(report.layout_name);
    return html_parts::without_folders(out.str(), std::move(paths));
}

}  // namespace planlayout
