// Diagrams as a reviewer reads them (issue 17, items 1 and 6): the groups view's GPU order, lanes
// and line labels, its title, legend and collective names; the node view's NIC labels.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
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

// A device box of our own SVG (node view): its rect and the text lines written right after it.
struct Box {
    double x = 0;
    double y = 0;
    double w = 0;
    double h = 0;
    std::vector<std::pair<double, std::string>> lines;  // baseline, text
};

std::map<std::string, Box> device_boxes(const std::string& svg) {
    std::map<std::string, Box> out;
    std::istringstream in(svg);
    std::string line;
    std::optional<Box> open;
    auto attr = [](const std::string& l, const std::string& name) {
        const auto at = l.find(" " + name + "=\"");
        return at == std::string::npos ? -1.0 : std::stod(l.substr(at + name.size() + 3));
    };
    while (std::getline(in, line)) {
        if (line.rfind("<rect ", 0) == 0) {
            open = Box{attr(line, "x"), attr(line, "y"), attr(line, "width"), attr(line, "height"), {}};
        } else if (line.rfind("<text ", 0) == 0 && open) {
            const auto gt = line.find('>');
            const std::string text = line.substr(gt + 1, line.find("</text>") - gt - 1);
            open->lines.emplace_back(attr(line, "y"), text);
            if (open->lines.size() == 1) {
                out[text] = *open;
            } else {
                out[open->lines.front().second].lines.emplace_back(attr(line, "y"), text);
            }
        } else {
            open.reset();
        }
    }
    return out;
}

TEST_CASE("node view: GPUs in index order on one row - NIC labels inside their boxes - the NVSwitch under the GPUs") {
    DiagramOptions o;
    o.view = DiagramView::Node;
    const std::string svg = diagram_svg(plan_file("seed-2x8-ep16.json"), o);
    const std::map<std::string, Box> boxes = device_boxes(svg);
    for (int k = 0; k < 8; ++k) {
        CAPTURE(k);
        const std::string gpu = "gpu" + std::to_string(k);
        const std::string nic = "mlx5_" + std::to_string(k);
        REQUIRE(boxes.count(gpu) == 1);
        REQUIRE(boxes.count(nic) == 1);
        const Box& g = boxes.at(gpu);
        const Box& n = boxes.at(nic);
        CHECK(std::abs(g.y - boxes.at("gpu0").y) < 0.5);  // one row
        CHECK(g.x + g.w <= n.x);                            // its NIC right of it ...
        if (k > 0) {
            const Box& before = boxes.at("mlx5_" + std::to_string(k - 1));
            CHECK(before.x + before.w <= g.x);  // ... and GPU k right of GPU k-1's NIC: index order
        }
        REQUIRE(n.lines.size() == 3);  // name; speed and link layer; rail
        CHECK(n.lines[1].second == "400 Gb/s IB");
        CHECK(n.lines[2].second == "rail " + std::to_string(k));
        for (const auto& l : n.lines) {
            CHECK(l.first - 9.0 > n.y);  // baselines inside the box, room for the glyphs above
            CHECK(l.first + 2.0 < n.y + n.h);
        }
        CHECK(g.lines.size() == 2);
        CHECK(g.lines[1].second == "NIC PIX");
    }
    // The NVSwitch: one bar under the GPU row, its NVLinks said once.
    const auto bar = svg.find(">NVSwitch: every GPU NV18<");
    REQUIRE(bar != std::string::npos);
    CHECK(count(svg, "NVSwitch") == 1);
    CHECK(svg.find("hover") == std::string::npos);
    CHECK(svg == diagram_svg(plan_file("seed-2x8-ep16.json"), o));  // deterministic
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
    // The legend's notes wrap (a continuation starts with four no-break spaces): read them unwrapped.
    std::string notes = dot;
    for (auto at = notes.find("\\l\u00a0\u00a0\u00a0\u00a0"); at != std::string::npos;
         at = notes.find("\\l\u00a0\u00a0\u00a0\u00a0", at)) {
        notes.replace(at, std::string("\\l\u00a0\u00a0\u00a0\u00a0").size(), " ");
    }
    CHECK(notes.find("one line per node pair") != std::string::npos);
}
