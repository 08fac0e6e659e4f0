// Charts (emit/charts.hpp): the step-time bars of a score, round ticks, the size axis, the busbw
// plot; every chart parsed as XML by Boost's parser.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include "planlayout/emit/charts.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/plan.hpp"
#include "plan_files.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace): test file

namespace {

using testing::plan_source_file;

bool well_formed(const std::string& svg) {
    std::istringstream in(svg);
    boost::property_tree::ptree tree;
    try {
        boost::property_tree::read_xml(in, tree);
    } catch (const std::exception&) {
        return false;
    }
    return tree.count("svg") == 1;
}

double sum(const std::vector<StepSegment>& segments) {
    double s = 0;
    for (const auto& x : segments) {
        s += x.seconds;
    }
    return s;
}

// The data-seconds values of the rects inside the groups of one class.
std::vector<double> seconds_in(const std::string& svg, const std::string& group_class) {
    std::vector<double> out;
    std::size_t at = 0;
    const std::string open = "<g class=\"" + group_class + "\"";
    while ((at = svg.find(open, at)) != std::string::npos) {
        const std::size_t end = std::min(svg.size(), svg.find("\n</g>\n", at));  // the group's own close
        const std::string body = svg.substr(at, end - at);
        const std::regex re("data-seconds=\"([0-9.]+)\"");
        for (auto it = std::sregex_iterator(body.begin(), body.end(), re); it != std::sregex_iterator(); ++it) {
            out.push_back(std::stod((*it)[1].str()));
        }
        at = end;
    }
    return out;
}

}  // namespace

TEST_CASE("charts: the step bars of seed A sum to each arm's step, the hidden part is time - exposed") {
    const Report a = plan_source_file("layouts/seed-2x8-ep16.json");
    REQUIRE(a.score);
    const Score& s = *a.score;
    const auto bars = step_bars(s);
    REQUIRE(bars.size() == 2);
    for (std::size_t k = 0; k < 2; ++k) {
        CAPTURE(k);
        CHECK(bars[k].arm == std::string(to_string(k == 0 ? s.baseline : s.candidate)));
        CHECK(sum(bars[k].exposed) == doctest::Approx(s.step_time_s[k]).epsilon(1e-9));
        CHECK(bars[k].exposed.front().key == "compute");
        double hidden = 0;
        for (const auto& kb : s.by_kind) {
            hidden += kb.time_s[k] - kb.exposed_s[k];
        }
        CHECK(sum(bars[k].hidden) == doctest::Approx(hidden).epsilon(1e-9));
    }
    // tcp: ep's exposed all_to_all is the second segment, dp's reduce partly hidden
    CHECK(bars[0].exposed[1].key == "ep");
    CHECK(bars[0].hidden.size() == 1);
    CHECK(bars[0].hidden[0].key == "dp");
    CHECK(bars[0].hidden[0].seconds == doctest::Approx(s.by_kind[1].hidden_s));

    // The drawing carries the same numbers (6 decimals): bars sum to the step, hatched = hidden.
    const std::string svg = score_chart_svg(a);
    CHECK(well_formed(svg));
    CHECK(svg.find("<pattern id=\"plc-hatch0\"") != std::string::npos);
    CHECK(svg.find("<pattern id=\"plc-bubble\"") != std::string::npos);
    const auto drawn = seconds_in(svg, "plc-bar");
    double drawn_sum = 0;
    for (const double x : drawn) {
        drawn_sum += x;
    }
    CHECK(drawn_sum == doctest::Approx(s.step_time_s[0] + s.step_time_s[1]).epsilon(1e-5));
    const auto hatched = seconds_in(svg, "plc-hidden");
    REQUIRE(hatched.size() == 2);
    CHECK(hatched[0] == doctest::Approx(bars[0].hidden[0].seconds).epsilon(1e-5));
    CHECK(svg.find("4.490 s") != std::string::npos);
    CHECK(svg.find("2.924 s (-34.88%)") != std::string::npos);
    // inline form: no XML declaration, the same <svg>
    const std::string inl = score_chart_svg(a, default_diagram_style(), SvgForm::Inline);
    CHECK(inl.rfind("<svg", 0) == 0);
    CHECK(svg.find(inl) != std::string::npos);
    CHECK(score_chart_svg(a) == svg);  // same input, same bytes
    // Inlined into HTML, the CSS must reach only the chart: every rule under .plc.
    const std::string css = svg.substr(svg.find("<![CDATA["), svg.find("]]>") - svg.find("<![CDATA["));
    std::istringstream rules(css.substr(css.find('\n') + 1));
    for (std::string rule; std::getline(rules, rule);) {
        CAPTURE(rule);
        CHECK(rule.rfind(".plc ", 0) == 0);
    }
}

TEST_CASE("charts: seed B has a pipeline bubble segment - one arm, no model and no score still draw") {
    const Report b = plan_source_file("layouts/seed-2x8-pp2-ep8.json");
    REQUIRE(b.score);
    const auto bars = step_bars(*b.score);
    REQUIRE(bars.size() == 2);
    CHECK(bars[0].exposed[1].key == "bubble");
    CHECK(bars[0].exposed[1].seconds == doctest::Approx(b.score->bubble_s));
    CHECK(sum(bars[1].exposed) == doctest::Approx(b.score->step_time_s[1]).epsilon(1e-9));

    Score one = *b.score;
    one.single_arm = true;
    CHECK(step_bars(one).size() == 1);
    CHECK(well_formed(score_chart_svg(one, "one arm")));

    Score given;  // factors only: no model, nothing to stack
    given.rdma_benefit = 0.3;
    CHECK(step_bars(given).empty());
    const std::string g = score_chart_svg(given, "given <factors> & more");
    CHECK(well_formed(g));
    CHECK(g.find("no step-time breakdown") != std::string::npos);
    CHECK(g.find("given &lt;factors&gt; &amp; more") != std::string::npos);

    Report none = b;
    none.score.reset();
    const std::string n = score_chart_svg(none);
    CHECK(well_formed(n));
    CHECK(n.find("no score") != std::string::npos);

    Score zero = *b.score;  // a zero step draws an empty axis, not a NaN
    zero.compute_s = zero.bubble_s = zero.step_time_s[0] = zero.step_time_s[1] = 0;
    zero.by_kind.clear();
    CHECK(well_formed(score_chart_svg(zero, "zero")));
}

TEST_CASE("charts: round ticks cover the maximum") {
    CHECK(nice_ticks(4.49) == std::vector<double>{0, 1, 2, 3, 4, 5});
    CHECK(nice_ticks(5.505) == std::vector<double>{0, 2, 4, 6});
    CHECK(nice_ticks(300) == std::vector<double>{0, 100, 200, 300});
    CHECK(nice_ticks(0) == std::vector<double>{0, 1});
    CHECK(nice_ticks(-1) == std::vector<double>{0, 1});
    const auto small = nice_ticks(0.0123);
    CHECK(small.back() >= 0.0123);
    CHECK(small.size() <= 7);
    CHECK(small[1] == doctest::Approx(0.0025));
}

TEST_CASE("charts: the size axis ticks at round powers of two") {
    CHECK(size_tick_exponents(1 << 20, 1 << 28) == std::vector<int>{20, 21, 22, 23, 24, 25, 26, 27, 28});
    CHECK(size_tick_exponents(1024, 1073741824.0) == std::vector<int>{10, 15, 20, 25, 30});
    CHECK(size_tick_exponents(3000, 5000) == std::vector<int>{11, 12, 13});
    CHECK(size_tick_exponents(4096, 4096) == std::vector<int>{12, 13});
    CHECK(size_tick_text(10) == "1 KiB");
    CHECK(size_tick_text(28) == "256 MiB");
    CHECK(size_tick_text(9) == "512 B");
    CHECK(size_tick_text(33) == "8 GiB");
    const auto sizes = curve_sizes(1 << 20, 1 << 28, 8);
    CHECK(sizes.size() == 65);
    CHECK(sizes.front() == 1 << 20);
    CHECK(sizes.back() == 1 << 28);
    CHECK(sizes[8] == doctest::Approx(1 << 21));
    CHECK(curve_sizes(5, 5).size() == 1);
    CHECK(curve_sizes(0, 5).empty());
}

TEST_CASE("charts: busbw plot has a line per curve, a marker per measured point, and parses") {
    BusbwChart c;
    c.title = "all_reduce <2 ranks>";
    c.subtitle = "test";
    BusbwCurve tcp;
    tcp.transport = "tcp";
    tcp.collective = "all_reduce";
    tcp.label = "tcp";
    BusbwCurve gdr = tcp;
    gdr.transport = "gdrdma";
    gdr.collective = "all_to_all";
    for (const double s : curve_sizes(1 << 20, 1 << 28)) {
        tcp.predicted.emplace_back(s, 3.0);
        gdr.predicted.emplace_back(s, 300.0 * s / (s + 1e7));
    }
    tcp.measured = {{1 << 20, 2.7}, {1 << 24, 2.5}};
    tcp.measured_label = "measured: a.txt";
    c.curves = {tcp, gdr};
    const std::string svg = busbw_chart_svg(c);
    CHECK(well_formed(svg));
    CHECK(svg.find("all_reduce &lt;2 ranks&gt;") != std::string::npos);
    std::size_t lines = 0;
    for (std::size_t at = 0; (at = svg.find("<polyline", at)) != std::string::npos; ++at) {
        ++lines;
    }
    CHECK(lines == 2);
    // two measured circles plus the legend's marker
    std::size_t circles = 0;
    for (std::size_t at = 0; (at = svg.find("<circle", at)) != std::string::npos; ++at) {
        ++circles;
    }
    CHECK(circles == 3);
    CHECK(svg.find("stroke-dasharray=\"7 4\"") != std::string::npos);  // tcp dashed
    CHECK(svg.find(">1 MiB<") != std::string::npos);
    CHECK(svg.find(">256 MiB<") != std::string::npos);

    BusbwChart empty;
    empty.title = "nothing";
    CHECK(well_formed(busbw_chart_svg(empty)));
}

TEST_CASE("charts: the style's charts section is read and checked") {
    const DiagramStyle& s = default_diagram_style();
    CHECK(s.charts.kinds.at("ep") == "#E69F00");
    CHECK(s.charts.transports.at("tcp").style == "dashed");
    CHECK(s.charts.kind_color("ep", 5) == "#E69F00");
    CHECK(s.charts.kind_color("unknown", 0) == s.charts.other.front());
    CHECK_THROWS_AS((void)diagram_style_from_json(R"({"charts": {"colour": "#000000"}})", "s.json"), Error);
}
