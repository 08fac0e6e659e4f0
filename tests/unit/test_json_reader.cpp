// Tests: the one JSON reader — key policy, typed range-checked fields, messages.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "planlayout/error.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/model/model_spec.hpp"
#include "planlayout/model/score.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace): test file
using nlohmann::json;

TEST_CASE("keys are checked before values: a typo is named as a typo, with the nearest key") {
    // {"layerz": 4, "first_dense_layers": 8}: before, the value check ran first and said
    // "more leading dense layers than layers".
    CHECK_THROWS_WITH_AS(model_spec_from_json(json::parse(R"({"layerz": 4, "first_dense_layers": 8, "hidden": 8})"), "m.json"),
                         doctest::Contains("m.json (/model/layerz): unknown key \"layerz\"; did you mean \"layers\"?"), Error);
}

TEST_CASE("comment keys (\"_...\" and \"//\") are accepted in every object, and only those") {
    const json j = json::parse(R"({"a": 1, "_note": "x", "//": "y", "_": 0})");
    const JsonReader r(j, "f.json", "/s");
    CHECK_NOTHROW(r.check_keys({"a"}));
    const json bad = json::parse(R"({"a": 1, "note": "x"})");
    CHECK_THROWS_WITH_AS(JsonReader(bad, "f.json", "/s").check_keys({"a"}),
                         "f.json (/s/note): unknown key \"note\"; known keys here: a (keys starting with _ are comments)", Error);
}

TEST_CASE("numbers are typed and range-checked - integers print as integers, huge ones as given") {
    const json j = json::parse(R"({"n": 0, "big": 18446744073709551615, "neg": -9223372036854775808, "x": 2.5, "s": "t"})");
    const JsonReader r(j, "f.json", "");
    CHECK_THROWS_WITH_AS((void)r.get<int>("n", 1, 1 << 30), "f.json (/n): n = 0 is smaller than 1; give a value of at least 1",
                         Error);
    CHECK_THROWS_WITH_AS((void)r.get<std::int64_t>("big", 1, 8),
                         "f.json (/big): big = 18446744073709551615 is larger than 8; give a value of at most 8", Error);
    CHECK_THROWS_WITH_AS((void)r.get<std::int64_t>("neg", 1, 8),
                         "f.json (/neg): neg = -9223372036854775808 is smaller than 1; give a value of at least 1", Error);
    CHECK_THROWS_WITH_AS((void)r.get<int>("x", 1, 8), "f.json (/x): x must be a whole number, got 2.5; write e.g. \"x\": 1", Error);
    CHECK_THROWS_WITH_AS((void)r.get<double>("x", 0, 1), "f.json (/x): x = 2.5 is larger than 1; give a value of at most 1", Error);
    CHECK_THROWS_WITH_AS((void)r.get<double>("x", 0, 1e-6), doctest::Contains("give a value of at most 1e-06"), Error);
    CHECK(r.get<double>("x", 0, 10) == 2.5);
    // Units come from the key's name; a rate may be 0 (unknown) but not a denormal that makes times infinite.
    const json rates = json::parse(R"({"speed_gbit_s": 1e-308, "alpha_us": 1e9, "zero_gbit_s": 0})");
    const JsonReader q(rates, "t.json", "");
    CHECK_THROWS_WITH_AS((void)q.get_rate("speed_gbit_s", 1e-3, 1e5),
                         "t.json (/speed_gbit_s): speed_gbit_s = 1e-308 Gbit/s is smaller than 0.001 Gbit/s; give a value from "
                         "0.001 to 100000 Gbit/s, or 0 when unknown",
                         Error);
    CHECK(q.get_rate("zero_gbit_s", 1e-3, 1e5) == 0.0);
    CHECK_THROWS_WITH_AS((void)q.get<double>("alpha_us", 0, 1e6),
                         "t.json (/alpha_us): alpha_us = 1000000000.0 us is larger than 1000000 us; give a value of at most 1000000 us",
                         Error);
    CHECK_FALSE(r.get<int>("absent", 0, 1).has_value());
    CHECK_THROWS_WITH_AS((void)r.get<bool>("s"), "f.json (/s): s must be true or false, got string; write \"s\": true or false",
                         Error);
}

TEST_CASE("objects, arrays and enumerations carry their JSON pointer") {
    const json j = json::parse(R"({"o": {"k": [1]}, "list": [{"a": 1}, 3], "t": "ib", "u": "carrier-pigeon"})");
    const JsonReader r(j, "f.json", "/top");
    const auto o = r.get_object("o");
    REQUIRE(o.has_value());
    CHECK(o->where("k") == "f.json (/top/o/k)");
    CHECK(r.element("list", 0).where("a") == "f.json (/top/list/0/a)");
    CHECK_THROWS_WITH_AS((void)r.element("list", 1), "f.json (/top/list/1): expected an object, got number; write a JSON object {...} here",
                         Error);
    CHECK(r.get_enum<Transport>("t", parse_transport, "tcp, rdma or gdrdma") == Transport::Rdma);
    CHECK_THROWS_WITH_AS((void)r.get_enum<Transport>("u", parse_transport, "tcp, rdma or gdrdma"),
                         "f.json (/top/u): unknown u \"carrier-pigeon\"; use tcp, rdma or gdrdma", Error);
    CHECK_THROWS_AS((void)r.get_strings("o"), Error);
}

TEST_CASE("number_text prints integers whole and other values compactly") {
    CHECK(number_text(1073741824) == "1073741824");
    CHECK(number_text(0.5) == "0.5");
    CHECK(number_text(1e-6) == "1e-06");
    CHECK(number_text(1e300) == "1e+300");
}

TEST_CASE("a key given twice in one object is refused with both places - escapes and nesting are understood") {
    using planlayout::parse_json_text;
    CHECK_THROWS_WITH_AS(parse_json_text("{\n  \"nodes\": 2,\n  \"nodes\": 4\n}", "l.json"),
                         "l.json:3:3: key \"nodes\" is given twice in one object (first at line 2, column 3); keep one of "
                         "the two: JSON readers silently keep only one of them",
                         Error);
    CHECK_THROWS_WITH_AS(parse_json_text(R"({"a": 1, "\u0061": 2})", "e.json"), doctest::Contains("key \"a\" is given twice"),
                         Error);
    // The same key in sibling or nested objects, in strings, in arrays and in comments is fine.
    CHECK(parse_json_text(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}], "c": "\"a\": 1", /* "c": 2 */ "d": 0})", "ok.json")
              .size() == 4);
    CHECK_THROWS_WITH_AS(parse_json_text(R"({"x": [1, {"k": 1, "k": 2}]})", "n.json"), doctest::Contains("n.json:1:20: key \"k\""),
                         Error);
}

TEST_CASE("ranges are closed: a value equal to its minimum or maximum is accepted, one step beyond refused") {
    // Real-valued ranges at documented bounds (a share in [0, 1], a rate in [1e-3, 1e5]) and the
    // next representable double past each bound (issue 32, item 4: no fixture gave a value equal
    // to its maximum, so a range made exclusive there went unnoticed).
    const double above_one = std::nextafter(1.0, 2.0);
    const double below_zero = -std::numeric_limits<double>::denorm_min();
    json j;
    j["at_max"] = 1.0;
    j["at_min"] = 0.0;
    j["past_max"] = above_one;
    j["past_min"] = below_zero;
    j["max_gbit_s"] = 1e5;
    j["min_gbit_s"] = 1e-3;
    j["over_gbit_s"] = std::nextafter(1e5, 1e6);
    j["under_gbit_s"] = std::nextafter(1e-3, 0.0);
    j["int_max"] = 8;
    j["int_min"] = 1;
    j["int_over"] = 9;
    j["int_under"] = 0;
    j["int64_max"] = std::numeric_limits<std::int64_t>::max();
    const JsonReader r(j, "f.json", "");
    CHECK(r.get<double>("at_max", 0, 1) == 1.0);
    CHECK(r.get<double>("at_min", 0, 1) == 0.0);
    CHECK(r.get_double("at_max", 0, 1) == 1.0);
    CHECK(r.get<double>("at_max", 1, 1) == 1.0);  // a one-point range holds its point
    CHECK_THROWS_WITH_AS((void)r.get<double>("past_max", 0, 1), doctest::Contains("is larger than 1; give a value of at most 1"),
                         Error);
    CHECK_THROWS_WITH_AS((void)r.get<double>("past_min", 0, 1),
                         doctest::Contains("is smaller than 0; give a value of at least 0"), Error);
    // Rates: 0 (unknown), the minimum and the maximum accepted; just past either refused.
    CHECK(r.get_rate("max_gbit_s", 1e-3, 1e5) == 1e5);
    CHECK(r.get_rate("min_gbit_s", 1e-3, 1e5) == 1e-3);
    CHECK_THROWS_WITH_AS((void)r.get_rate("over_gbit_s", 1e-3, 1e5), doctest::Contains("is larger than 100000 Gbit/s"), Error);
    CHECK_THROWS_WITH_AS((void)r.get_rate("under_gbit_s", 1e-3, 1e5), doctest::Contains("is smaller than 0.001 Gbit/s"),
                         Error);
    // Integers the same way, up to the largest int64.
    CHECK(r.get<int>("int_max", 1, 8) == 8);
    CHECK(r.get<int>("int_min", 1, 8) == 1);
    CHECK_THROWS_WITH_AS((void)r.get<int>("int_over", 1, 8), "f.json (/int_over): int_over = 9 is larger than 8; give a value of at most 8",
                         Error);
    CHECK_THROWS_WITH_AS((void)r.get<int>("int_under", 1, 8),
                         "f.json (/int_under): int_under = 0 is smaller than 1; give a value of at least 1", Error);
    CHECK(r.get<std::int64_t>("int64_max", 0, std::numeric_limits<std::int64_t>::max()) ==
          std::numeric_limits<std::int64_t>::max());
    // As written in a file the largest int64 parses as an unsigned number: still in range.
    const json written = json::parse(R"({"n": 9223372036854775807, "m": 9223372036854775808})");
    const JsonReader w(written, "f.json", "");
    CHECK(w.get<std::int64_t>("n", 0, std::numeric_limits<std::int64_t>::max()) == std::numeric_limits<std::int64_t>::max());
    CHECK_THROWS_WITH_AS((void)w.get<std::int64_t>("m", 0, std::numeric_limits<std::int64_t>::max()),
                         "f.json (/m): m = 9223372036854775808 is larger than 9223372036854775807; give a value of at most "
                         "9223372036854775807",
                         Error);
}

TEST_CASE("the score factors take their documented bounds 0 and 1 and refuse one step past them") {
    // Through the reader of the layout's "score" section, as a user writes it.
    for (const char* key : {"cross_node_share", "eliminable", "non_overlapped"}) {
        CAPTURE(key);
        json at_one;
        at_one[key] = 1.0;
        const ScoreFactors one = score_factors_from_json(at_one, "l.json");
        json at_zero;
        at_zero[key] = 0.0;
        CHECK_NOTHROW((void)score_factors_from_json(at_zero, "l.json"));
        json past;
        past[key] = std::nextafter(1.0, 2.0);
        CHECK_THROWS_WITH_AS((void)score_factors_from_json(past, "l.json"),
                             doctest::Contains((std::string("l.json (/score/") + key + "): ").c_str()), Error);
        json negative;
        negative[key] = -1e-300;
        CHECK_THROWS_WITH_AS((void)score_factors_from_json(negative, "l.json"), doctest::Contains("is smaller than 0"), Error);
        CHECK((one.cross_node_share.value_or(0) + one.eliminable.value_or(0) + one.non_overlapped.value_or(0)) == 1.0);
    }
}
