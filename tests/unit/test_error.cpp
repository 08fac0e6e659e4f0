// Tests: Error rendering and exit codes.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "planlayout/error.hpp"
#include "planlayout/text_format.hpp"

using planlayout::Error;
using planlayout::ExitCode;

TEST_CASE("an error renders where, what and the fix, and keeps its exit code") {
    const Error e(ExitCode::BadInput, "x.json (/parallel/tp)", "tp must be positive", "set tp to 1 or more");
    CHECK(std::string(e.what()) == "x.json (/parallel/tp): tp must be positive; set tp to 1 or more");
    CHECK(e.code() == ExitCode::BadInput);
    CHECK(static_cast<int>(planlayout::io_error("f", "g").code()) == 3);
}

TEST_CASE("an error without a place or hint leaves those parts out") {
    const Error e(ExitCode::Internal, "", "boom");
    CHECK(std::string(e.what()) == "boom");
}

TEST_CASE("a message stays one line of bounded length whatever it quotes") {
    const Error e = planlayout::input_error("f.txt:3", "value 'a\nb\rc' is wrong", "fix it");
    CHECK(std::string(e.what()) == "f.txt:3: value 'a\\nb\\rc' is wrong; fix it");
    // A 10 MB quoted value is cut, and the cut is said.
    const Error big = planlayout::input_error("f.txt", "bad value " + std::string(10'000'000, 'x'), "shorten it");
    const std::string m = big.what();
    CHECK(m.size() < 2200);
    CHECK(m.find("more bytes)") != std::string::npos);
    CHECK(m.substr(m.size() - 12) == "; shorten it");
    // A cut never splits a UTF-8 character: 2000 bytes of 3-byte characters end on a boundary.
    std::string wide;
    for (int i = 0; i < 1000; ++i) {
        wide += "\xE2\x82\xAC";  // U+20AC
    }
    const std::string w = planlayout::input_error("", wide).what();
    const std::string kept = w.substr(0, w.find("..."));
    CHECK(kept.size() % 3 == 0);
    CHECK(w.find("... (" + std::to_string(3000 - kept.size()) + " more bytes)") != std::string::npos);
    // where, what and hint keep their own parts (the exit code does not change).
    CHECK(big.code() == ExitCode::BadInput);
    CHECK(big.problem().size() > 10'000'000);
}

TEST_CASE("nearest_match suggests a likely typo or the longer name a prefix starts") {
    const std::vector<std::string> keys{"layers", "hidden", "heads", "speed_gbit_s"};
    CHECK(planlayout::nearest_match("hiden", keys) == "hidden");
    CHECK(planlayout::nearest_match("layerz", keys) == "layers");
    CHECK(planlayout::nearest_match("speed", keys) == "speed_gbit_s");
    CHECK(planlayout::nearest_match("vocabulary", keys).empty());
    CHECK(planlayout::nearest_match("x", {}).empty());
}

TEST_CASE("no NaN or infinity is ever printed: the formatters refuse them as an internal error") {
    CHECK(planlayout::fixed_text(1.25, 1) == "1.2");
    CHECK_THROWS_AS((void)planlayout::fixed_text(std::numeric_limits<double>::infinity(), 2), planlayout::Error);
    CHECK_THROWS_AS((void)planlayout::percent_text(std::nan("")), planlayout::Error);
    CHECK_THROWS_AS((void)planlayout::seconds_text(-std::numeric_limits<double>::infinity()), planlayout::Error);
    CHECK_THROWS_AS((void)planlayout::signed_percent_text(std::nan("")), planlayout::Error);
    try {
        (void)planlayout::human_bytes(std::nan(""));
        FAIL("no exception");
    } catch (const planlayout::Error& e) {
        CHECK(e.code() == planlayout::ExitCode::Internal);
    }
}
