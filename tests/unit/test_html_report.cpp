// The HTML report page (plan-layout report): escaping of every user string, inline SVG that
// parses as XML with unique ids, no scripts, no absolute paths, same bytes every time.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include "planlayout/cli/run.hpp"
#include "planlayout/emit/charts.hpp"
#include "planlayout/emit/diagram.hpp"
#include "planlayout/emit/html_report.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/plan.hpp"
#include "../../src/emit/html_parts.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace): test file

namespace {

const std::string kHostile = "<script>alert(1)</script>&\"'";

Report plan_layout_file(const std::string& rel, const std::string& name) {
    PlanRequest r;
    r.layout_name = name;
    r.layout_text = read_text_file(std::string(PLANLAYOUT_SOURCE_DIR) + "/" + rel);
    r.base_dir = std::string(PLANLAYOUT_SOURCE_DIR) + "/layouts";
    return plan(r);
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// Every <svg>...</svg> of the page.
std::vector<std::string> inline_svgs(const std::string& page) {
    std::vector<std::string> out;
    for (auto at = page.find("<svg"); at != std::string::npos; at = page.find("<svg", at + 1)) {
        const auto end = page.find("</svg>", at);
        REQUIRE(end != std::string::npos);
        out.push_back(page.substr(at, end + 6 - at));
    }
    return out;
}

void collect_ids(const boost::property_tree::ptree& t, std::vector<std::string>& ids) {
    for (const auto& [key, child] : t) {
        if (key == "<xmlattr>") {
            if (const auto id = child.get_optional<std::string>("id")) {
                ids.push_back(*id);
            }
        } else {
            collect_ids(child, ids);
        }
    }
}

}  // namespace

TEST_CASE("html_escape escapes the five characters HTML gives a meaning to") {
    CHECK(html_escape(kHostile) == "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;");
    CHECK(html_escape("node0/gpu3 rail 2") == "node0/gpu3 rail 2");
}

TEST_CASE("inline_svg drops the prolog, DOCTYPE and comments and prefixes every id and its uses") {
    const std::string svg =
        "<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\"\n \"x.dtd\">\n<!-- Generated -->\n"
        "<svg width=\"10pt\"><g id=\"graph0\"><!-- node0/gpu0 --><path fill=\"url(#grad)\"/><use href=\"#graph0\"/></g>"
        "<linearGradient id=\"grad\"/></svg>\n";
    const std::string out = inline_svg(svg, "v1");
    CHECK(out.rfind("<svg width=\"10pt\">", 0) == 0);
    CHECK(out.find("<!") == std::string::npos);
    CHECK(out.find("<?xml") == std::string::npos);
    CHECK(out.find("id=\"v1-graph0\"") != std::string::npos);
    CHECK(out.find("url(#v1-grad)") != std::string::npos);
    CHECK(out.find("href=\"#v1-graph0\"") != std::string::npos);
    CHECK(out.back() == '>');
}

TEST_CASE("the report page escapes user strings: layout and host names with <script>&\"'") {
    Report report = plan_layout_file("layouts/seed-2x8-ep16.json", "folder/" + kHostile + ".json");
    for (auto& node : report.cluster.nodes) {  // names are checked where they enter; the page must not rely on it
        node.host = kHostile + node.host;
    }
    const std::string page = html_report(report);
    CHECK(lower(page).find("<script") == std::string::npos);
    // The base name: what follows the last '/', here the one of "</script>" (no real file name holds '/').
    CHECK(page.find("script&gt;&amp;&quot;&#39;.json") != std::string::npos);
    CHECK(page.find("folder/") == std::string::npos);  // the file name only, never its folders
    const auto svgs = inline_svgs(page);
    CHECK(svgs.size() == 5);  // node, ep groups, dp groups, fabric, the score chart
    std::vector<std::string> ids;
    for (const auto& svg : svgs) {
        std::istringstream in(svg);
        boost::property_tree::ptree tree;
        CHECK_NOTHROW(boost::property_tree::read_xml(in, tree));
        collect_ids(tree, ids);
    }
    CHECK(!ids.empty());
    CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == ids.size());  // unique over the page
}

TEST_CASE("the report page: no scripts, nothing fetched, no absolute paths, the same bytes every time") {
    const std::string layout = std::string(PLANLAYOUT_SOURCE_DIR) + "/layouts/seed-2x8-pp2-ep8.json";
    const Report report = plan_layout_file("layouts/seed-2x8-pp2-ep8.json", layout);
    const std::string page = html_report(report);
    CHECK(page.rfind("<!DOCTYPE html>\n", 0) == 0);
    CHECK(page.find(PLANLAYOUT_SOURCE_DIR) == std::string::npos);
    CHECK(!std::regex_search(page, std::regex("<script|src=|href=\"[^#]|url\\([^#]|@import", std::regex::icase)));
    // Another picture rendered in between must not change the page (Graphviz state).
    DiagramOptions other;
    other.view = DiagramView::Groups;
    other.kind = "pp";
    CHECK(!diagram_svg(plan_layout_file("layouts/seed-2x8-ep16.json", "a.json"), other).empty());
    CHECK(html_report(report) == page);
    for (const char* section : {"id=\"summary\"", "id=\"assumptions\"", "id=\"groups\"", "id=\"memory\"", "id=\"score\"",
                                "id=\"views\"", "id=\"view-node\"", "id=\"view-fabric\""}) {
        CAPTURE(section);
        CHECK(page.find(section) != std::string::npos);
    }
    CHECK(page.find("id=\"acceptance\"") == std::string::npos);  // only with --verify or --ab
    CHECK(!score_chart_svg(report).empty());                     // the score chart, drawn on the page
}

TEST_CASE("the page and the pictures hold against a style the reader would refuse (issue 41 item 1)") {
    // Built directly, past diagram_style_from_json's checks: the writers must not rely on them.
    DiagramStyle st = default_diagram_style();
    st.font = "]]></style><script>alert(1)</script>\" onmouseover=\"alert(2)";
    st.ink = "#000} svg { background-image: url(http://127.0.0.1:9/ink) }";
    st.muted = "red; background: url(http://127.0.0.1:9/muted)";
    st.classes[static_cast<std::size_t>(PathClass::Rail)].color = "red;background:url(http://127.0.0.1:9/chip)";
    HtmlReportOptions options;
    options.style = st;
    const Report report = plan_layout_file("layouts/seed-2x8-ep16.json", "a.json");
    std::vector<std::pair<std::string, std::string>> outputs{{"report", html_report(report, options)}};
    for (const auto view : {DiagramView::Node, DiagramView::Groups, DiagramView::Fabric, DiagramView::Score,
                            DiagramView::Matrix, DiagramView::Load}) {
        DiagramOptions o;
        o.view = view;
        outputs.emplace_back(std::string(to_string(view)), diagram_svg(report, o, st));
    }
    for (const auto& output : outputs) {
        const std::string& name = output.first;  // not a structured binding: clang 14 cannot capture one
        const std::string& text = output.second;
        CAPTURE(name);
        const std::string l = lower(text);
        CHECK(l.find("<script") == std::string::npos);
        // The font's letters may stay as inert text ("...onmouseoveralert2"); no attribute may come of them.
        CHECK(!std::regex_search(l, std::regex("[\\s\"']on[a-z]+\\s*=")));
        CHECK(l.find("url(http") == std::string::npos);
        CHECK(l.find("</style><") == std::string::npos);
        if (name != "report") {
            std::istringstream in(text);
            boost::property_tree::ptree tree;
            CHECK_NOTHROW(boost::property_tree::read_xml(in, tree));
        }
    }
}

TEST_CASE("the report page names no input by its folders: not in the warnings of an input nor in a template name (issue 41 item 9)") {
    Report report = plan_layout_file("layouts/seed-2x8-ep16.json", "/abs/runs/a.json");
    report.warnings.push_back("/abs/configs/deepseek-v3.json: num_nextn_predict_layers = 1: not counted");
    report.warnings.push_back("topology ../fabric/topology.conf: 96 hosts; node0/gpu3, /model/moe/experts and 400 Gbit/s stay.");
    report.warnings.push_back("/abs/configs/deepseek-v3.json.bak and x/abs/configs/deepseek-v3.json are other files.");
    HtmlReportOptions options;
    options.input_paths = {"/abs/configs/deepseek-v3.json", "../fabric/topology.conf", "-", "plain.json"};
    const std::string page = html_report(report, options);
    CHECK(page.find("<li>deepseek-v3.json: num_nextn_predict_layers = 1: not counted</li>") != std::string::npos);
    CHECK(page.find("<li>topology topology.conf: 96 hosts; node0/gpu3, /model/moe/experts and 400 Gbit/s stay.</li>") !=
          std::string::npos);
    CHECK(page.find("<li>/abs/configs/deepseek-v3.json.bak and x/abs/configs/deepseek-v3.json are other files.</li>") !=
          std::string::npos);  // only whole paths
    CHECK(page.find("/abs/runs") == std::string::npos);
    CHECK(html_parts::without_folders("a /x/y/z.txt, /x/y/z.txt. </td>", {"/x/y/z.txt"}) == "a z.txt, z.txt. </td>");
    // Graphviz writes '-' of an SVG text as &#45; (a node capture's path in a diagram's title).
    CHECK(html_parts::without_folders("<text>2 × /x/a&#45;b.txt</text>", {"/x/a-b.txt"}) == "<text>2 × a&#45;b.txt</text>");
}

TEST_CASE("the report draws a groups view of each kind that crosses nodes and carries traffic") {
    CHECK(report_view_kinds(plan_layout_file("layouts/seed-2x8-ep16.json", "a.json")) == std::vector<std::string>{"ep", "dp"});
    // Without a score: the kinds that carry a training step's collectives, when they cross nodes.
    PlanRequest r;
    r.layout_name = "no-model.json";
    r.layout_text = R"({"cluster": {"nodes": 2, "node": "h100-hgx-8gpu-8nic"}, "parallel": {"tp": 8, "pp": 2}})";
    CHECK(report_view_kinds(plan(r)) == std::vector<std::string>{"pp"});
}

TEST_CASE("plan-layout report: --verify with an error exits 1 and still writes the page - --ab shows the prediction") {
    const std::string src = PLANLAYOUT_SOURCE_DIR;
    std::ostringstream out;
    std::ostringstream err;
    const int code = run_cli({"plan-layout", "report", src + "/layouts/seed-2x8-ep16.json", "--verify",
                              src + "/tests/data/verify/2x8-wrong-nic.log", "--ab", src + "/tests/data/ab/tcp-round1.csv",
                              src + "/tests/data/ab/rdma-round1.csv"},
                             out, err);
    CHECK(code == 1);
    CHECK(err.str().empty());
    CHECK(out.str().find("verify: FAIL") != std::string::npos);
    CHECK(out.str().find("from seed-2x8-ep16.json") != std::string::npos);  // the predicted change beside the measured one
    CHECK(out.str().find("2x8-wrong-nic.log") != std::string::npos);
    CHECK(out.str().find(src) == std::string::npos);
}
