// Diagrams as a reviewer reads them (issue 17, items 1 and 6): the groups view's GPU order, lanes
// and line labels, its title, legend and collective names; the node view's NIC labels.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include "planlayout/emit/diagram.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/plan.hpp"
#include "test_files.hpp"

using planlayout::testing::slurp;
using namespace planlayout;  // NOLINT(google-build-using-namespace): test file

namespace {

std::string layouts_dir() { return std::string(PLANLAYOUT_SOURCE_DIR) + "/layouts"; }

Report plan_layout_text(const std::string& file, const std::string& text) {
    PlanRequest r;
    r.layout_name = layouts_dir() + "/" + file;
    r.layout_text = text;
    r.base_dir = layouts_dir();
    return plan(r);
}

Report plan_file(const std::string& file) { return plan_layout_text(file, read_text_file(layouts_dir() + "/" + file)); }

std::size_t count(const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (auto pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + what.size())) {
        ++n;
    }
    return n;
}

using boost::property_tree::ptree;

// A <g class="node"> of the SVG: its shape's box (polygon points) and its text lines' anchors.
struct SvgNode {
    double x0 = 1e9;
    double y0 = 1e9;
    double x1 = -1e9;
    double y1 = -1e9;
    std::vector<std::pair<double, double>> texts;
};

void collect(const ptree& t, std::map<std::string, SvgNode>& nodes, std::vector<std::string>& clusters) {
    for (const auto& [name, child] : t) {
        const std::string cls = name == "g" ? child.get<std::string>("<xmlattr>.class", "") : "";
        if (cls == "cluster") {
            clusters.push_back(child.get<std::string>("title", ""));
        } else if (cls == "node") {
            SvgNode& n = nodes[child.get<std::string>("title", "")];
            for (const auto& [k, v] : child) {
                if (k == "polygon") {
                    std::istringstream pts(v.get<std::string>("<xmlattr>.points", ""));
                    double x = 0;
                    double y = 0;
                    char comma = 0;
                    while (pts >> x >> comma >> y) {
                        n.x0 = std::min(n.x0, x);
                        n.x1 = std::max(n.x1, x);
                        n.y0 = std::min(n.y0, y);
                        n.y1 = std::max(n.y1, y);
                    }
                } else if (k == "text") {
                    n.texts.emplace_back(v.get<double>("<xmlattr>.x", 0), v.get<double>("<xmlattr>.y", 0));
                }
            }
        }
        if (name != "<xmlattr>") {
            collect(child, nodes, clusters);
        }
    }
}

struct Svg {
    std::map<std::string, SvgNode> nodes;
    std::vector<std::string> clusters;
};

Svg parse_svg(const std::string& svg) {
    std::istringstream in(svg);
    ptree tree;
    REQUIRE_NOTHROW(boost::property_tree::read_xml(in, tree, boost::property_tree::xml_parser::no_comments));
    REQUIRE(tree.count("svg") == 1);
    Svg out;
    collect(tree, out.nodes, out.clusters);
    return out;
}

}  // namespace

TEST_CASE("groups view reads like the hardware: GPUs in index order, lanes aligned, rails labelled with bytes and times") {
    const Report report = plan_file("seed-2x8-ep16.json");
    DiagramOptions o;
    o.kind = "ep";
    const Svg svg = parse_svg(diagram_svg(report, o));
    std::set<std::string> gpus;
    for (const auto& [title, n] : svg.nodes) {
        if (title.find("/gpu") != std::string::npos) {
            gpus.insert(title);
        }
    }
    CHECK(gpus.size() == 16);
    CHECK(std::count(svg.clusters.begin(), svg.clusters.end(), "cluster_legend") == 1);
    REQUIRE(svg.nodes.count("node0") == 1);  // a header per node
    REQUIRE(svg.nodes.count("node1") == 1);
    for (int k = 0; k < 8; ++k) {
        CAPTURE(k);
        const SvgNode& a = svg.nodes.at("node0/gpu" + std::to_string(k));
        const SvgNode& b = svg.nodes.at("node1/gpu" + std::to_string(k));
        CHECK(std::abs(a.y0 - b.y0) < 1.0);  // GPU k of both nodes on one lane
        CHECK(a.x1 < b.x0);                  // node1 right of node0
        const SvgNode& above = svg.nodes.at(k == 0 ? std::string("node0") : "node0/gpu" + std::to_string(k - 1));
        CHECK(above.y1 < a.y0);  // index order, top to bottom, under the header
    }
    // All-to-all over 2 nodes: one line per rail with its pairs (1 RAIL + 7 PXN each way), the
    // bytes they carry per step and the kind's time per transport.
    const std::string dot = diagram_dot(report, o);
    CHECK(dot.find("tp1 pp1 ep16 dp16 | 2 \u00d7 h100-hgx-8gpu-8nic") != std::string::npos);
    CHECK(dot.find("ep: 1 group x 16 ranks, all_to_all;") != std::string::npos);
    for (int k = 0; k < 8; ++k) {
        CHECK(dot.find("rail " + std::to_string(k) + ": 8 pairs each way\\n(RAIL 1, PXN 7)\\n1.9 GiB/step each way\\ntcp ") !=
              std::string::npos);
    }
    CHECK(count(dot, "GiB/step each way") == 8);
}

TEST_CASE("groups view: one labelled line per pipeline pair - a compact legend past 8 groups - the score's collective") {
    DiagramOptions o;
    o.kind = "pp";
    const std::string b = diagram_dot(plan_file("seed-2x8-pp2-ep8.json"), o);
    for (int k = 0; k < 8; ++k) {  // stage neighbours: GPU k of node0 and node1, on rail k
        CHECK(b.find("label=\"rail " + std::to_string(k) + "\\n8.0 MiB/step each way\\ntcp ") != std::string::npos);
    }
    CHECK(count(b, "MiB/step each way\\ntcp") == 8);
    o.kind = "dp";
    const std::string four = diagram_dot(plan_file("h100-4node-tp8-pp2-ep8.json"), o);
    CHECK(four.find("tp8 pp2 ep8 dp2 | 4 \u00d7 h100-hgx-8gpu-8nic") != std::string::npos);
    CHECK(four.find("G0\u2013G15: 16 dp groups of 2") != std::string::npos);
    CHECK(four.find("dp group 8") == std::string::npos);
    // With the distributed optimizer dp runs reduce_scatter + all_gather: named as analyze does.
    std::string text = slurp(layouts_dir() + "/seed-2x8-ep16.json");
    const std::string from = "\"distributed_optimizer\": false";
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), "\"distributed_optimizer\": true");
    const Report report = plan_layout_text("seed-2x8-ep16.json", text);
    REQUIRE(report.score);
    std::string collective;
    for (const auto& k : report.score->by_kind) {
        collective = k.kind == "dp" ? k.collective : collective;
    }
    CHECK(collective == "reduce_scatter+all_gather");
    CHECK(diagram_dot(report, o).find("dp: 1 group x 16 ranks, reduce_scatter+all_gather;") != std::string::npos);
}

TEST_CASE("node view: NIC labels fit inside their shapes") {
    DiagramOptions o;
    o.view = DiagramView::Node;
    const Svg svg = parse_svg(diagram_svg(plan_file("seed-2x8-ep16.json"), o));
    int nics = 0;
    for (const auto& entry : svg.nodes) {
        const std::string& title = entry.first;  // CAPTURE cannot take a structured binding
        const SvgNode& n = entry.second;
        if (title.find("/mlx5_") == std::string::npos) {
            continue;
        }
        CAPTURE(title);
        ++nics;
        REQUIRE(n.texts.size() == 3);  // name; speed and link layer; rail
        // Baselines inside the shape, with room above the first line for its glyphs.
        CHECK(n.texts.front().second - 9.0 > n.y0);
        CHECK(n.texts.back().second + 2.0 < n.y1);
    }
    CHECK(nics == 8);
}

TEST_CASE("groups view: 16 nodes in two rows of 8 - pipeline stages of different rows joined by one line per node pair") {
    std::string text = slurp(layouts_dir() + "/h100-4node-tp8-pp2-ep8.json");
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"nodes\": 4,", "\"nodes\": 16,"},
                                  {"\"global_batch\": 16,", "\"global_batch\": 64,"}}) {
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
    }
    DiagramOptions o;
    o.kind = "pp";
    const std::string dot = diagram_dot(plan_layout_text("h100-4node-tp8-pp2-ep8.json", text), o);
    CHECK(dot.find("subgraph row0_head {\n\t\tgraph [rank=same];\n\t\tnode0;") != std::string::npos);
    CHECK(dot.find("\t\tnode7;\n\t}\n\tsubgraph row0_lane0") != std::string::npos);
    CHECK(dot.find("subgraph row1_head {\n\t\tgraph [rank=same];\n\t\tnode8;") != std::string::npos);
    // Stage 0 on nodes 0-7, stage 1 on nodes 8-15: node n's last GPU down to node n+8's header.
    CHECK(count(dot, "label=\"8 pairs (RAIL 8), rails 0\u20137\\n") == 8);
    CHECK(dot.find("\"node0/gpu7\" -- node8 [") != std::string::npos);
}

TEST_CASE("groups view: an all-to-all over 16 nodes draws one line per node pair, not one per rail") {
    std::string text = slurp(layouts_dir() + "/h100-4node-pp2-ep16.json");
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"nodes\": 4,", "\"nodes\": 16,"},
                                  {"\"global_batch\": 16,", "\"global_batch\": 128,"},
                                  {"\"pp\": 2, \"cp\": 1, \"ep\": 16,", "\"pp\": 1, \"cp\": 1, \"ep\": 128,"}}) {
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
    }
    DiagramOptions o;
    o.kind = "ep";
    const std::string dot = diagram_dot(plan_layout_text("h100-4node-pp2-ep16.json", text), o);
    CHECK(count(dot, "64 pairs (RAIL 8, PXN 56), rails 0\u20137\\n") == 16 * 15 / 2);
    CHECK(dot.find("pairs each way\\n(RAIL 1, PXN 7)") == std::string::npos);
    CHECK(dot.find("one line per node pair") != std::string::npos);
}
