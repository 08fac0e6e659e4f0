// Diagrams: DOT from our writer, SVG from gvc, the style file, aggregation, and the SVG → PNG check
// through rsvg-convert (when it is installed).
#include <dlfcn.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include "planlayout/emit/diagram.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/plan.hpp"
#include "plan_files.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using planlayout::testing::slurp;
using namespace planlayout;  // NOLINT(google-build-using-namespace): test file

namespace {

using testing::plan_source_file;

Report plan_text(const std::string& text) {
    PlanRequest r;
    r.layout_name = "test.json";
    r.layout_text = text;
    return plan(r);
}

std::size_t count(const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (auto pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + what.size())) {
        ++n;
    }
    return n;
}

using boost::property_tree::ptree;

std::uint32_t be32(const std::string& s, std::size_t at) {
    return (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at])) << 24U) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16U) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8U) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 3]));
}

struct Png {
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    int bit_depth = 0;
    int colour_type = 0;
    std::string idat;  // concatenated compressed data
};

Png read_png(const std::string& data) {
    Png p;
    REQUIRE(data.size() > 33);
    REQUIRE(data.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
    for (std::size_t at = 8; at + 12 <= data.size();) {
        const std::uint32_t len = be32(data, at);
        const std::string type = data.substr(at + 4, 4);
        if (type == "IHDR") {
            p.width = be32(data, at + 8);
            p.height = be32(data, at + 12);
            p.bit_depth = static_cast<unsigned char>(data[at + 16]);
            p.colour_type = static_cast<unsigned char>(data[at + 17]);
        } else if (type == "IDAT") {
            p.idat += data.substr(at + 8, len);
        }
        at += 12 + len;
    }
    return p;
}

// zlib is loaded at run time (it is always there with rsvg-convert), so the test target needs no
// extra link dependency. Returns false when libz cannot be loaded.
using UncompressFn = int (*)(unsigned char*, unsigned long*, const unsigned char*, unsigned long);

bool inflate_png(const Png& p, std::string& raw, std::size_t expected) {
    void* lib = dlopen("libz.so.1", RTLD_NOW);
    if (lib == nullptr) {
        return false;
    }
    UncompressFn fn = nullptr;
    void* sym = dlsym(lib, "uncompress");
    std::memcpy(&fn, &sym, sizeof fn);
    raw.assign(expected, '\0');
    auto out_len = static_cast<unsigned long>(expected);
    const int rc = fn != nullptr ? fn(reinterpret_cast<unsigned char*>(raw.data()), &out_len,
                                      reinterpret_cast<const unsigned char*>(p.idat.data()),
                                      static_cast<unsigned long>(p.idat.size()))
                                 : -1;
    dlclose(lib);
    return rc == 0 && out_len == expected;
}

// PNG scanline filters undone in place; returns the pixel bytes without filter bytes.
std::vector<unsigned char> unfilter(const std::string& raw, std::size_t width, std::size_t height, std::size_t bpp) {
    const std::size_t stride = width * bpp;
    std::vector<unsigned char> out(stride * height);
    for (std::size_t y = 0; y < height; ++y) {
        const auto filter = static_cast<unsigned char>(raw[y * (stride + 1)]);
        const auto* in = reinterpret_cast<const unsigned char*>(raw.data()) + y * (stride + 1) + 1;
        unsigned char* row = out.data() + y * stride;
        const unsigned char* up = y > 0 ? row - stride : nullptr;
        for (std::size_t x = 0; x < stride; ++x) {
            const int a = x >= bpp ? row[x - bpp] : 0;
            const int b = up != nullptr ? up[x] : 0;
            const int c = (up != nullptr && x >= bpp) ? up[x - bpp] : 0;
            int pred = 0;
            switch (filter) {
                case 1:
                    pred = a;
                    break;
                case 2:
                    pred = b;
                    break;
                case 3:
                    pred = (a + b) / 2;
                    break;
                case 4: {
                    const int p = a + b - c;
                    const int pa = std::abs(p - a);
                    const int pb = std::abs(p - b);
                    const int pc = std::abs(p - c);
                    pred = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
                    break;
                }
                default:
                    break;
            }
            row[x] = static_cast<unsigned char>((in[x] + pred) & 0xFF);
        }
    }
    return out;
}

}  // namespace

TEST_CASE("DOT is written before any layout: no positions, stable across calls") {
    const Report report = plan_source_file("layouts/seed-2x8-ep16.json", {"ep"});
    for (const auto view : {DiagramView::Node, DiagramView::Groups, DiagramView::Fabric}) {
        CAPTURE(to_string(view));
        DiagramOptions o;
        o.view = view;
        const std::string a = diagram_dot(report, o);
        CHECK(a == diagram_dot(report, o));
        CHECK(a.rfind("graph plan_layout {", 0) == 0);
        CHECK(a.find("pos=") == std::string::npos);
        CHECK(a.find("bb=") == std::string::npos);
        CHECK(a.find("cluster_legend") != std::string::npos);
    }
}

TEST_CASE("layout B's EP stays inside NVLink - layout A's crosses nodes on RAIL and PXN") {
    DiagramOptions o;
    const std::string a = diagram_dot(plan_source_file("layouts/seed-2x8-ep16.json", {"ep"}), o);
    const std::string b = diagram_dot(plan_source_file("layouts/seed-2x8-pp2-ep8.json", {"ep"}), o);
    CHECK(a.find("cross-node pairs: 64 of 120") != std::string::npos);
    CHECK(b.find("cross-node pairs: 0 of 56") != std::string::npos);
    const auto& st = default_diagram_style();
    // A: one line per rail (its worst class, PXN), carrying 1 RAIL and 7 PXN pairs each way.
    CHECK(count(a, "(RAIL 1, PXN 7)") == 8);
    CHECK(count(a, "color=\"" + st.of(PathClass::Pxn).color + "\"") >= 16);  // 8 lines, 2 halves each
    CHECK(count(b, "color=\"" + st.of(PathClass::Rail).color + "\"") == 0);
    CHECK(count(b, "color=\"" + st.of(PathClass::Pxn).color + "\"") == 0);
}

TEST_CASE("node view highlights a GPU whose NIC is SYS away") {
    const Report report = plan_text(R"({
        "cluster": {"nodes": 1, "node": {"name": "two-socket",
            "cpus": [{"name": "CPU0", "numa": 0}, {"name": "CPU1", "numa": 1}],
            "gpus": [{"name": "GPU0", "parent": "CPU0", "numa": 0}, {"name": "GPU1", "parent": "CPU1", "numa": 1}],
            "nics": [{"name": "NIC0", "device": "mlx5_0", "parent": "CPU0", "numa": 0, "speed_gbit_s": 400}]}},
        "parallel": {"tp": 2}})");
    DiagramOptions o;
    o.view = DiagramView::Node;
    const std::string dot = diagram_dot(report, o);
    CHECK(dot.find("GPUs whose NIC is SYS away: gpu1") != std::string::npos);
    CHECK(dot.find("NIC SYS away") != std::string::npos);
    CHECK(count(dot, "color=\"" + default_diagram_style().highlight.color + "\"") >= 2);  // the GPU and its swatch
    // The inter-socket link: once, through its label node (no flat CPU-CPU edge, drawn twice).
    CHECK(dot.find("\"node0/cpu0\" -- \"node0/cpu1\"") == std::string::npos);
    CHECK(count(dot, "\"node0/smp0\" -- ") == 2);
    o.host = "node9";
    CHECK_THROWS_AS(static_cast<void>(diagram_dot(report, o)), Error);
}

TEST_CASE("past the threshold, diagrams aggregate and say so in the legend") {
    const Report report = plan_source_file("layouts/h100-32node-tp8-pp4-ep8.json", {"dp"});
    CHECK(diagram_aggregated(report, default_diagram_style()));
    DiagramOptions o;
    o.kind = "dp";
    const std::string dot = diagram_dot(report, o);
    CHECK(dot.find("aggregated (32 nodes, 256 GPUs): one box per node") != std::string::npos);
    CHECK(dot.find("/gpu") == std::string::npos);
    o.view = DiagramView::Fabric;
    CHECK(diagram_dot(report, o).find("aggregated") != std::string::npos);
    // The SVG: our own grid of node boxes, 8 to a row, each row's DP ring closed by an arc under it.
    o.view = DiagramView::Groups;
    const std::string svg = diagram_svg(report, o);
    CHECK(svg.find("/gpu") == std::string::npos);
    CHECK(svg.find("width=\"1413.2\"") != std::string::npos);
    // 7 neighbours and the way back (an arc under the row) in each of 4 rows, all RAIL 8: the label
    // they share is said once.
    CHECK(count(svg, ">RAIL 8<") == 0);
    CHECK(svg.find("a line without a label: RAIL 8 used pairs") != std::string::npos);
    CHECK(count(svg, " C") == 4);
    CHECK(svg.find(">G0\u2013G7<") != std::string::npos);  // the band of the first row's groups
    CHECK(svg.find("hover") == std::string::npos);
    CHECK_FALSE(diagram_aggregated(plan_source_file("layouts/seed-2x8-ep16.json", {"tp"}), default_diagram_style()));
}

TEST_CASE("fabric view: the rail traffic hook reads a score's rail_bytes") {
    Report report = plan_source_file("layouts/seed-2x8-ep16.json", {"tp"});
    CHECK(rail_traffic(report).empty());
    DiagramOptions o;
    o.view = DiagramView::Fabric;
    CHECK(diagram_dot(report, o).find("not available (no score in the report)") != std::string::npos);
    report.sections["score"]["rail_bytes"] = {1.5e9, 3e9};
    const auto traffic = rail_traffic(report);
    REQUIRE(traffic.size() == 2);
    CHECK(traffic.at(1) == doctest::Approx(3e9));
    const std::string dot = diagram_dot(report, o);
    CHECK(dot.find("2.8 GiB/step") != std::string::npos);  // 3e9 B: binary units, as the text reports
    CHECK(dot.find("1.4 GiB/step") != std::string::npos);
}

TEST_CASE("style: every class readable without colour - bad style files are input errors") {
    const DiagramStyle& st = default_diagram_style();
    // Cross-node classes differ in dash style, pen width or number of lines, not only in colour.
    std::set<std::string> looks;
    for (const auto c : {PathClass::Nv, PathClass::Mnnvl, PathClass::Rail, PathClass::Pxn, PathClass::Xrail, PathClass::Xpod}) {
        const LineStyle& l = st.of(c);
        CHECK_FALSE(l.meaning.empty());
        looks.insert(l.style + "/" + std::to_string(l.penwidth) + "/" + std::to_string(count(l.color, ":") + 1));
    }
    CHECK(looks.size() == 6);
    CHECK(st.groups.size() >= 7);
    const std::string from_file = slurp(fs::path(PLANLAYOUT_SOURCE_DIR) / "viz" / "style.json");
    CHECK(diagram_style_from_json(from_file, "viz/style.json").of(PathClass::Rail).color == st.of(PathClass::Rail).color);
    auto code = [](const std::string& text) {
        try {
            static_cast<void>(diagram_style_from_json(text, "s.json"));
        } catch (const Error& e) {
            return e.code();
        }
        return ExitCode::Ok;
    };
    CHECK(code(R"({"colour": "red"})") == ExitCode::BadInput);
    CHECK(code(R"({"classes": {"FAST": {"color": "red"}}})") == ExitCode::BadInput);
    CHECK(code(R"({"classes": {"RAIL": {"penwidth": -1}}})") == ExitCode::BadInput);
    CHECK(code(R"({"groups": []})") == ExitCode::BadInput);
    CHECK(code(R"({"thresholds": {"full_max_nodes": 0}})") == ExitCode::BadInput);
    CHECK(code(R"({"classes": {"RAIL": {"color": "#000000", "style": "bold"}}})") == ExitCode::Ok);
}

TEST_CASE("style: every string is checked where the style file is read (issue 41 item 1)") {
    auto message = [](const std::string& text) -> std::string {
        try {
            static_cast<void>(diagram_style_from_json(text, "s.json"));
        } catch (const Error& e) {
            CHECK(e.code() == ExitCode::BadInput);
            return e.what();
        }
        return "accepted";
    };
    // What the file may say: colours, colour lists, line styles, shapes, margins and fonts.
    for (const char* ok : {R"j({"font": "DejaVu Sans, Arial_Narrow-2.0", "ink": "#1B1B1B", "muted": "grey50", "background": "#FFFFFF80"})j",
                           R"j({"classes": {"XPOD": {"color": "#CC79A7:invis:#CC79A7", "style": "filled,dashed,bold"}}})j",
                           R"j({"devices": {"nic": {"shape": "cds", "margin": "0.3,0.1"}, "gpu": {"shape": "Msquare", "margin": ".2"}}})j",
                           R"j({"group_styles": ["filled", "filled,dotted"], "rails": ["lightgrey", "#332288"]})j",
                           R"j({"charts": {"kinds": {"ep": "#E69F00"}, "other": ["white"], "transports": {"tcp": {"style": "dashed"}}}})j"}) {
        CAPTURE(ok);
        CHECK(message(ok) == "accepted");
    }
    // The issue's reproducers and their kin: each refused with the file, the JSON pointer and the rule.
    const std::vector<std::pair<std::string, std::string>> refused{
        {R"j({"font": "]]></style><script>alert(1)</script>"})j", "s.json (/font): not a font"},
        {R"j({"font": "Helvetica\" onmouseover=\"alert(1)"})j", "s.json (/font): not a font"},
        {R"j({"font": ""})j", "s.json (/font): not a font"},
        {R"j({"ink": "#000} svg { background-image: url(http://127.0.0.1:9/x) }"})j", "s.json (/ink): not a colour"},
        {R"j({"muted": "#7f7f7"})j", "s.json (/muted): not a colour"},
        {R"j({"background": "/blues9/3"})j", "s.json (/background): not a colour"},
        {R"j({"classes": {"RAIL": {"color": "#0072B2:url(x)"}}})j", "s.json (/classes/RAIL/color): not a colour list"},
        {R"j({"links": {"pcie": {"style": "setlinewidth(4)"}}})j", "s.json (/links/pcie/style): not a line style"},
        {R"j({"highlight": {"style": "filled,,bold"}})j", "s.json (/highlight/style): not a line style"},
        {R"j({"devices": {"gpu": {"shape": "custom"}}})j", "s.json (/devices/gpu/shape): not a node shape"},
        {R"j({"devices": {"gpu": {"shape": "record"}}})j", "s.json (/devices/gpu/shape): not a node shape"},
        {R"j({"devices": {"gpu": {"fillcolor": "red;x"}}})j", "s.json (/devices/gpu/fillcolor): not a colour"},
        {R"j({"devices": {"nic": {"margin": "0.3,0.1,0"}}})j", "s.json (/devices/nic/margin): not a margin"},
        {R"j({"devices": {"nic": {"margin": "1e3"}}})j", "s.json (/devices/nic/margin): not a margin"},
        {R"j({"groups": ["#E69F00", "#FFF\"/>"]})j", "s.json (/groups/1): not a colour"},
        {R"j({"rail_styles": ["solid", "wavy"]})j", "s.json (/rail_styles/1): not a line style"},
        {R"j({"cluster": {"fillcolor": "url(#x)"}})j", "s.json (/cluster/fillcolor): not a colour"},
        {R"j({"charts": {"bubble": "none;"}})j", "s.json (/charts/bubble): not a colour"},
        {R"j({"charts": {"kinds": {"ep": "red)"}}})j", "s.json (/charts/kinds/ep): not a colour"},
        {R"j({"charts": {"series": ["#0072B2", "expression(x)"]}})j", "s.json (/charts/series/1): not a colour"},
        {R"j({"charts": {"transports": {"tcp": {"color": "a b"}}}})j", "s.json (/charts/transports/tcp/color): not a colour list"},
    };
    for (const auto& entry : refused) {
        const auto& text = entry.first;  // not a structured binding: clang 14 cannot capture one
        const auto& expected = entry.second;
        CAPTURE(text);
        const std::string m = message(text);
        CHECK(m.find(expected) != std::string::npos);
        CHECK(m.find("; use ") != std::string::npos);  // what is allowed
        CHECK(m.find('\n') == std::string::npos);
    }
}

TEST_CASE("SVG renders to a non-blank PNG of the expected size (rsvg-convert)") {
    if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0) {
        WARN_MESSAGE(false, "rsvg-convert not installed (librsvg2-bin): PNG rendering not checked");
        return;
    }
    const Report report = plan_source_file("layouts/seed-2x8-ep16.json", {"ep"});
    const fs::path dir = fs::temp_directory_path() / ("planlayout-test-dot-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string svg = diagram_svg(report, DiagramOptions{});
    std::ofstream(dir / "a.svg") << svg;
    // 72 dpi: one pixel per SVG point.
    const std::string cmd = "rsvg-convert --dpi-x 72 --dpi-y 72 -o '" + (dir / "a.png").string() + "' '" +
                            (dir / "a.svg").string() + "'";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const std::string data = slurp(dir / "a.png");
    fs::remove_all(dir);
    const Png png = read_png(data);
    const auto w_at = svg.find("<svg width=\"");
    REQUIRE(w_at != std::string::npos);
    const double w_pt = std::stod(svg.substr(w_at + 12));
    const double h_pt = std::stod(svg.substr(svg.find("height=\"", w_at) + 8));
    CHECK(std::abs(static_cast<double>(png.width) - w_pt) <= 1.0);
    CHECK(std::abs(static_cast<double>(png.height) - h_pt) <= 1.0);
    REQUIRE(png.bit_depth == 8);
    const std::size_t channels = png.colour_type == 6 ? 4 : png.colour_type == 2 ? 3 : png.colour_type == 4 ? 2 : 1;
    std::string raw;
    if (!inflate_png(png, raw, (png.width * channels + 1) * static_cast<std::size_t>(png.height))) {
        MESSAGE("libz.so.1 not loadable: PNG checked by IHDR and size only");
        CHECK(data.size() > 10000);
        return;
    }
    const auto pixels = unfilter(raw, png.width, png.height, channels);
    std::set<std::string> colours;
    std::size_t non_background = 0;
    const std::string background(pixels.begin(), pixels.begin() + static_cast<std::ptrdiff_t>(channels));
    for (std::size_t i = 0; i + channels <= pixels.size(); i += channels) {
        std::string px(pixels.begin() + static_cast<std::ptrdiff_t>(i), pixels.begin() + static_cast<std::ptrdiff_t>(i + channels));
        if (px != background) {
            ++non_background;
        }
        if (colours.size() < 64) {
            colours.insert(std::move(px));
        }
    }
    CHECK(colours.size() > 8);  // ink, group fill, RAIL blue, PXN green, greys...
    CHECK(non_background > pixels.size() / channels / 20);  // at least 5% drawn
}

TEST_CASE("DOT does not depend on what was rendered before: SVG first, then DOT equals the golden DOT") {
    // Graphviz's layout leaves process-wide defaults behind (gvLayout once set node [label="\N"]
    // on every later cgraph graph); our own DOT writer never reads that state.
    const Report report = plan_source_file("layouts/seed-2x8-ep16.json");
    struct Case {
        DiagramView view;
        const char* kind;
        const char* golden;
    };
    for (const Case& c : {Case{DiagramView::Node, "ep", "dot-seed-a-node"}, Case{DiagramView::Groups, "ep", "dot-seed-a-groups-ep"},
                          Case{DiagramView::Fabric, "ep", "dot-seed-a-fabric"}}) {
        CAPTURE(c.golden);
        DiagramOptions o;
        o.view = c.view;
        o.kind = c.kind;
        CHECK(diagram_svg(report, o).find("<svg") != std::string::npos);
        const std::string golden = slurp(fs::path(PLANLAYOUT_SOURCE_DIR) / "tests/golden" / c.golden / "expected.out");
        CHECK(diagram_dot(report, o) == golden);
    }
}

TEST_CASE("host names with a backslash, a quote or a newline stay inside their DOT strings (issue 20)") {
    // The readers refuse such names; a library caller could still put them in a report.
    Report report = plan_source_file("layouts/seed-2x8-ep16.json", {"ep"});
    report.cluster.nodes[0].host = "a\\";
    report.cluster.nodes[1].host = "b\"c\nd";
    for (const auto view : {DiagramView::Groups, DiagramView::Fabric}) {
        CAPTURE(to_string(view));
        DiagramOptions o;
        o.view = view;
        const std::string dot = diagram_dot(report, o);
        CHECK(dot.find("a\\\\") != std::string::npos);    // the backslash escaped
        CHECK(dot.find("b\\\"c") != std::string::npos);   // the quote escaped
        CHECK(dot.find("c\nd") == std::string::npos);     // no raw newline inside a string
        // Graphviz parses what we wrote (a broken string would fail or swallow the rest).
        const std::string svg = diagram_svg(report, o);
        std::istringstream in(svg);
        ptree doc;
        CHECK_NOTHROW(boost::property_tree::read_xml(in, doc));
        CHECK(svg.find("a\\") != std::string::npos);
    }
}
