// Tests: Slurm hostlist expansion (--nodelist), checked against Slurm's own rules in
// src/common/hostlist.c: width from LO as written, the last group ends the host, the order of
// several groups, separators outside brackets.
#include <doctest/doctest.h>

#include "planlayout/error.hpp"
#include "planlayout/ingest/hostlist.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
using Hosts = std::vector<std::string>;

namespace {
// Not [[nodiscard]]: the refusals below discard it inside CHECK_THROWS (clang warns otherwise).
Hosts expand(const std::string& expr) { return expand_slurm_hostlist(expr, "--nodelist"); }
}  // namespace

TEST_CASE("a zero-padded range expands with the width of its first number") {
    CHECK(expand_slurm_hostlist("h100-[012-019]", "--nodelist") ==
          Hosts{"h100-012", "h100-013", "h100-014", "h100-015", "h100-016", "h100-017", "h100-018", "h100-019"});
    CHECK(expand_slurm_hostlist("n[8-11]", "x") == Hosts{"n8", "n9", "n10", "n11"});
    CHECK(expand_slurm_hostlist("n[08-11]", "x") == Hosts{"n08", "n09", "n10", "n11"});
    CHECK(expand_slurm_hostlist("n[098-101]", "x") == Hosts{"n098", "n099", "n100", "n101"});
    CHECK(expand_slurm_hostlist("n[9-10]", "x") == Hosts{"n9", "n10"});
}

TEST_CASE("comma lists inside and outside brackets keep their order") {
    CHECK(expand_slurm_hostlist("gpu[01-02,07],login1,a[3]", "x") == Hosts{"gpu01", "gpu02", "gpu07", "login1", "a3"});
    CHECK(expand_slurm_hostlist("a1 a2\ta3", "x") == Hosts{"a1", "a2", "a3"});
    CHECK(expand_slurm_hostlist("b[2,1]", "x") == Hosts{"b2", "b1"});  // as written, not sorted
}

TEST_CASE("several bracket groups expand in Slurm's order") {
    CHECK(expand_slurm_hostlist("gpu[1-2]-r[01-02]", "x") == Hosts{"gpu1-r01", "gpu1-r02", "gpu2-r01", "gpu2-r02"});
    // Three groups: _push_range_list takes the group nearest the last as the outer loop.
    CHECK(expand_slurm_hostlist("a[1-2]b[3-4]c[5]", "x") ==
          Hosts{"a1b3c5", "a2b3c5", "a1b4c5", "a2b4c5"});
}

TEST_CASE("malformed hostlists are refused naming the flag and the piece") {
    CHECK_THROWS_WITH_AS(expand("h100-[019-012]"),
                         doctest::Contains("--nodelist: hostlist 'h100-[019-012]': range '019-012' runs backwards"), Error);
    CHECK_THROWS_WITH_AS(expand("h100-[012-019"), doctest::Contains("has a '[' without its ']'"),
                         Error);
    CHECK_THROWS_WITH_AS(expand("h100-012]"), doctest::Contains("a ']' without its '['"), Error);
    CHECK_THROWS_WITH_AS(expand("gpu[1-2]-ib"),
                         doctest::Contains("has text after its last ']' ('-ib'), which Slurm refuses"), Error);
    CHECK_THROWS_WITH_AS(expand("n[a-b]"), doctest::Contains("'a-b' is not a number or a range"),
                         Error);
    CHECK_THROWS_WITH_AS(expand("n[1-]"), doctest::Contains("'1-' is not a number"), Error);
    CHECK_THROWS_WITH_AS(expand("n[]"), doctest::Contains("has an empty '[]'"), Error);
    CHECK_THROWS_WITH_AS(expand("n[0-70000]"), doctest::Contains("more than 65536 hosts"), Error);
    CHECK_THROWS_WITH_AS(expand(" , "), doctest::Contains("names no host"), Error);
    try {
        (void)expand("n[2-1]");
    } catch (const Error& e) {
        CHECK(e.code() == ExitCode::BadInput);
        CHECK(e.hint().find("h100-[012-019]") != std::string::npos);
    }
}

TEST_CASE("a range of exactly Slurm's 65536 hosts expands, and one more is refused") {
    CHECK(expand("n[1-65536]").size() == 65536);
    CHECK_THROWS_WITH_AS(expand("n[0-65536]"), doctest::Contains("more than 65536 hosts"), Error);
}
