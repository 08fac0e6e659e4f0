// Views at scale: node-pair bytes per kind and per-link loads (analysis/fabric_load), the traffic
// matrix and load chart SVGs (within 2,000 x 2,000 px at 1,024 nodes, no text under 10 px,
// well-formed XML), and DOT refusing them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include "planlayout/analysis/fabric_load.hpp"
#include "planlayout/emit/diagram.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/plan.hpp"
#include "plan_files.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace): test file

namespace {

using testing::plan_source_file;

Report plan_text(const std::string& text) {
    PlanRequest r;
    r.layout_name = "test.json";
    r.layout_text = text;
    return plan(r);
}

const KindTraffic& traffic_of(const std::vector<KindTraffic>& t, const std::string& kind) {
    const auto it = std::find_if(t.begin(), t.end(), [&](const KindTraffic& k) { return k.kind == kind; });
    REQUIRE(it != t.end());
    return *it;
}

double cross_total(const TrafficMatrix& m) {
    double s = 0;
    for (int c = static_cast<int>(PathClass::Rail); c < kPathClassCount; ++c) {
        s += m.class_bytes[static_cast<std::size_t>(c)];
    }
    return s;
}

// Width, height and the smallest font size (CSS px) of an SVG; checks it parses as XML.
struct SvgFacts {
    double width = 0;
    double height = 0;
    double min_font = 1e9;
};

SvgFacts svg_facts(const std::string& s) {
    std::istringstream in(s);
    boost::property_tree::ptree tree;
    REQUIRE_NOTHROW(boost::property_tree::read_xml(in, tree));
    SvgFacts f;
    f.width = tree.get<double>("svg.<xmlattr>.width");
    f.height = tree.get<double>("svg.<xmlattr>.height");
    const std::regex size(R"(font-size:\s*([0-9.]+)px)");
    for (auto it = std::sregex_iterator(s.begin(), s.end(), size); it != std::sregex_iterator(); ++it) {
        f.min_font = std::min(f.min_font, std::stod((*it)[1]));
    }
    CHECK(s.find("font-size=") == std::string::npos);  // sizes only through the CSS classes
    return f;
}

}  // namespace

TEST_CASE("fabric load: kind traffic reads the score's bytes and collectives") {
    const Report a = plan_source_file("layouts/seed-2x8-ep16.json");
    const auto t = kind_traffic(a.score);
    const KindTraffic& ep = traffic_of(t, "ep");
    CHECK(ep.ops == std::vector<CollectiveOp>{CollectiveOp::AllToAll});
    CHECK(ep.wire_bytes(16) == doctest::Approx(ep.bytes_per_rank * 15.0 / 16.0));
    CHECK(kind_traffic(std::nullopt).empty());
}

TEST_CASE("fabric load: layout A's EP all-to-all matrix and NIC loads, by hand") {
    const Report a = plan_source_file("layouts/seed-2x8-ep16.json");
    const auto t = kind_traffic(a.score);
    const KindTraffic& ep = traffic_of(t, "ep");
    const double b = ep.bytes_per_rank;
    const TrafficMatrix m = traffic_matrix(a.cluster, a.placement, *a.groups.find("ep"), &ep, 1);
    REQUIRE(m.cells == 2);
    REQUIRE(m.entries.size() == 4);
    // 120 pairs of 16 ranks, each 2B/16: 28 inside each node, 64 across.
    CHECK(m.entries[0].total() == doctest::Approx(28 * b / 8));
    CHECK(m.entries[1].total() == doctest::Approx(64 * b / 8));
    CHECK(m.entries[2].total() == doctest::Approx(m.entries[1].total()));  // symmetric
    CHECK(m.entries[1].bytes[static_cast<std::size_t>(PathClass::Rail)] == doctest::Approx(8 * b / 8));
    CHECK(m.entries[1].bytes[static_cast<std::size_t>(PathClass::Pxn)] == doctest::Approx(56 * b / 8));
    CHECK(m.entries[1].dominant() == PathClass::Pxn);
    CHECK(m.entries[0].dominant() == PathClass::Nv);
    CHECK(cross_total(m) == doctest::Approx(8 * b));

    // NIC r of each node: the 8 pairs whose peer sits on rail r (PXN relays onto it), each B/16
    // per direction; the dp ring (16 ranks, 2 nodes) crosses both boundaries on all 8 rails: its
    // 2w per node pair split over 8 pairs, half per direction: w/8 on every NIC.
    const KindTraffic& dp = traffic_of(t, "dp");
    const double w = dp.wire_bytes(16);
    const FabricLoad load = fabric_load(a.cluster, a.placement, a.groups, t);
    REQUIRE(load.rows.size() >= 8);
    for (int r = 0; r < 8; ++r) {
        const TierLoad& row = load.rows[static_cast<std::size_t>(r)];
        CHECK(row.tier == LinkTier::NodeLeaf);
        CHECK(row.rail == r);
        CHECK(row.links == 2);
        CHECK(row.loaded_links == 2);
        CHECK(row.max_bytes == doctest::Approx(b / 2 + w / 8));
        CHECK(row.capacity_gbyte_s == doctest::Approx(50.0));  // 400 Gbit/s
    }
    for (const auto& row : load.rows) {
        if (row.tier == LinkTier::LeafSpine) {
            CHECK(row.max_bytes == 0);  // one scalable unit, PXN on: nothing through the spine
        }
    }
    REQUIRE(load.bottleneck.has_value());
    CHECK(load.rows[*load.bottleneck].tier == LinkTier::NodeLeaf);
    CHECK(load.rows[*load.bottleneck].busiest.find("rail 0 -> leaf0") != std::string::npos);
}

TEST_CASE("fabric load: a ring's node boundaries carry one wire load each") {
    // 32 nodes, TP8 PP4 EP8: a dp group is 8 ranks on 8 nodes (one each): 8 boundaries.
    const Report r = plan_source_file("layouts/h100-32node-tp8-pp4-ep8.json");
    const GroupKind& dp = *r.groups.find("dp");
    const KindTraffic t{"dp", 1000, {CollectiveOp::AllReduce}};
    const auto pairs = group_pair_bytes(dp, 0, r.cluster, r.placement, &t);
    double cross = 0;
    for (const auto& p : pairs) {
        cross += is_cross_node(p.cls) ? p.bytes : 0.0;
    }
    CHECK(cross == doctest::Approx(8 * t.wire_bytes(8)));
    CHECK(t.wire_bytes(8) == doctest::Approx(1750));
    // Pipeline neighbours carry the rank's bytes each.
    const KindTraffic pp{"pp", 500, {CollectiveOp::SendRecv}};
    for (const auto& p : group_pair_bytes(*r.groups.find("pp"), 0, r.cluster, r.placement, &pp)) {
        CHECK(p.bytes == 500);
    }
    // Without bytes: used-pair counts, as the classification counts them.
    const TrafficMatrix m = traffic_matrix(r.cluster, r.placement, dp, nullptr, 1);
    const auto it = std::find_if(r.kinds.begin(), r.kinds.end(), [](const KindEdges& k) { return k.kind == "dp"; });
    REQUIRE(it != r.kinds.end());
    CHECK(!m.bytes_known);
    CHECK(cross_total(m) == doctest::Approx(static_cast<double>(it->cross_pairs())));
    // Blocks of 4 nodes: the same bytes in 8 x 8 cells.
    const TrafficMatrix b4 = traffic_matrix(r.cluster, r.placement, dp, nullptr, 4);
    CHECK(b4.cells == 8);
    CHECK(cross_total(b4) == doctest::Approx(cross_total(m)));
    // A window of nodes 8-15: the full matrix's cells there, shifted.
    const TrafficMatrix w = traffic_matrix(r.cluster, r.placement, dp, nullptr, 1, 8, 8);
    CHECK(w.cells == 8);
    std::vector<MatrixCell> inside;
    for (const auto& e : m.entries) {
        if (e.row >= 8 && e.row < 16 && e.col >= 8 && e.col < 16) {
            inside.push_back(e);
        }
    }
    REQUIRE(w.entries.size() == inside.size());
    for (std::size_t i = 0; i < inside.size(); ++i) {
        CHECK(w.entries[i].row == inside[i].row - 8);
        CHECK(w.entries[i].col == inside[i].col - 8);
        CHECK(w.entries[i].total() == inside[i].total());
    }
}

TEST_CASE("fabric load: 131,072 ranks, every cross-node byte on two NICs") {
    const Report r = plan_text(R"({"cluster": {"nodes": 16384, "node": "h100-hgx-8gpu-8nic",
        "fabric": {"rails": "aligned", "nodes_per_su": 32, "sus_per_pod": 64, "pxn": true}},
        "parallel": {"tp": 8, "pp": 16, "ep": 64}})");
    const std::vector<KindTraffic> t = {{"ep", 1e9, {CollectiveOp::AllToAll}},
                                        {"dp", 1e9, {CollectiveOp::ReduceScatter, CollectiveOp::AllGather}},
                                        {"pp", 1e8, {CollectiveOp::SendRecv}}};
    const FabricLoad load = fabric_load(r.cluster, r.placement, r.groups, t);
    CHECK(load.kinds == std::vector<std::string>{"ep", "dp", "pp"});
    CHECK(load.pods == 8);
    double nic = 0;
    double spine = 0;
    double core = 0;
    for (const auto& row : load.rows) {
        (row.tier == LinkTier::NodeLeaf ? nic : row.tier == LinkTier::LeafSpine ? spine : core) += row.total_bytes;
    }
    double cross = 0;
    for (const auto& k : t) {
        cross += cross_total(traffic_matrix(r.cluster, r.placement, *r.groups.find(k.kind), &k, 32));
    }
    CHECK(nic == doctest::Approx(cross));  // half per direction, on both ends
    CHECK(spine > 0);                      // dp and pp rings leave the scalable units
    CHECK(core > 0);                       // ... and the pods
    REQUIRE(load.bottleneck.has_value());
}

TEST_CASE("views at scale: 1,024 nodes fit 2,000 x 2,000 px with no text under 10 px") {
    const Report r = plan_source_file("layouts/h100-1024node-tp8-pp8-ep64.json");
    REQUIRE(r.score.has_value());
    for (const char* kind : {"ep", "dp", "pp"}) {
        DiagramOptions o;
        o.view = DiagramView::Matrix;
        o.kind = kind;
        const std::string s = diagram_svg(r, o);
        const SvgFacts f = svg_facts(s);
        CHECK(f.width <= 2000);
        CHECK(f.height <= 2000);
        CHECK(f.min_font >= 10);
        CHECK(s.find("512 x 512 cells of 2 nodes") != std::string::npos);
        CHECK(s == diagram_svg(r, o));  // deterministic
        if (std::string(kind) == "ep") {    // the example regenerates byte-identically (docs/diagrams.md)
            CHECK(s == read_text_file(std::string(PLANLAYOUT_SOURCE_DIR) + "/viz/examples/1024node-matrix-ep.svg"));
        }
    }
    DiagramOptions o;
    o.view = DiagramView::Load;
    const std::string s = diagram_svg(r, o);
    const SvgFacts f = svg_facts(s);
    CHECK(f.width <= 2000);
    CHECK(f.height <= 2000);
    CHECK(f.min_font >= 10);
    CHECK(s.find("Bottleneck: ") != std::string::npos);
    CHECK(s.find("BOTTLENECK ") != std::string::npos);
    CHECK(s == read_text_file(std::string(PLANLAYOUT_SOURCE_DIR) + "/viz/examples/1024node-load.svg"));
    // The fabric: one box per scalable unit under its pod's spine, not Graphviz's 10,000 px row.
    o.view = DiagramView::Fabric;
    const std::string fabric = diagram_svg(r, o);
    const SvgFacts ff = svg_facts(fabric);
    CHECK(ff.width <= 2000);
    CHECK(ff.height <= 2000);
    CHECK(ff.min_font >= 10);
    CHECK(fabric.find("Fabric: 1024 nodes in 32 scalable units, 256 leaves, 2 pods under a core") != std::string::npos);
    CHECK(fabric == read_text_file(std::string(PLANLAYOUT_SOURCE_DIR) + "/viz/examples/1024node-fabric.svg"));
}

TEST_CASE("views at scale: small clusters draw node x node - DOT refuses the charts - unknown kinds are named") {
    const Report a = plan_source_file("layouts/seed-2x8-ep16.json");
    DiagramOptions o;
    o.view = DiagramView::Matrix;
    const std::string s = diagram_svg(a, o);
    CHECK(s.find("ep traffic matrix: node x node") != std::string::npos);
    CHECK(svg_facts(s).min_font >= 10);
    CHECK_THROWS_AS((void)diagram_dot(a, o), Error);
    o.view = DiagramView::Load;
    CHECK_THROWS_AS((void)diagram_dot(a, o), Error);
    o.view = DiagramView::Matrix;
    o.kind = "bogus";
    CHECK_THROWS_WITH_AS((void)diagram_svg(a, o), doctest::Contains("this spec creates"), Error);
    CHECK(parse_diagram_view("matrix") == DiagramView::Matrix);
    CHECK(parse_diagram_view("load") == DiagramView::Load);
    CHECK(to_string(DiagramView::Load) == "load");
}
