// Tests: the nccl-tests reader on every real layout in tests/data/fixtures/nccl-tests.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "planlayout/error.hpp"
#include "planlayout/ingest/nccl_tests.hpp"
#include "planlayout/ingest/read_file.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

NcclTestsRun load(const std::string& name, NcclTestsOptions opt = {}) {
    const std::string path = std::string(PLANLAYOUT_FIXTURES_DIR) + "/nccl-tests/" + name;
    return parse_nccl_tests(read_text_file(path), name, opt);
}

/// Recomputed bandwidths agree with the printed ones to their two printed decimals.
void check_bandwidths(const NcclTestsRun& run) {
    for (const auto& r : run.rows) {
        CAPTURE(r.line);
        CHECK(std::abs(r.algbw_gbyte_s - r.printed_algbw_gbyte_s) <= 0.01 + 0.002 * r.printed_algbw_gbyte_s);
        CHECK(std::abs(r.busbw_gbyte_s - r.printed_busbw_gbyte_s) <= 0.01 + 0.002 * r.printed_busbw_gbyte_s);
    }
}

}  // namespace

TEST_CASE("A100 single node: MPI help-message lines inside the table are skipped") {
    const auto run = load("a100-sxm4-single-node-8gpu-nvlink-mpirun-all-reduce-with-interleaved-mpi-noise.txt");
    CHECK(run.op == CollectiveOp::AllReduce);
    CHECK(run.op_source == "command line");
    CHECK(run.ranks == 8);
    CHECK(run.rows.size() == 30);
    CHECK(run.rows.back().size_bytes == 4294967296.0);
    CHECK(run.rows.back().time_us == 32285);  // >= 10 ms is printed without decimals
    CHECK(run.rows.back().in_place_time_us.value() == 32268);
    check_bandwidths(run);
}

TEST_CASE("GCP A3 Mega: header lines that lost their '#' are still read, no test name") {
    const auto run = load("gcp-a3mega-2node-16x-h100-tcpxo-all-reduce-hash-prefix-mangled.txt");
    CHECK(run.ranks == 16);
    CHECK(run.ranks_source == "Rank lines");
    CHECK(run.op == CollectiveOp::AllReduce);
    CHECK(run.op_source == "size/count");
    CHECK(run.rows.size() == 31);
    CHECK(run.warnings.size() == 1);
    check_bandwidths(run);
}

TEST_CASE("nccl-tests 2.18.3 layout: version, test name, padded #wrong, byte steps") {
    const auto run = load("h100nvl-2node-4gpu-slingshot-all-reduce-nccltests2.18.3-format-nccl-issue2441.txt");
    CHECK(run.version == "2.18.3");
    CHECK(run.op_source == "header");
    CHECK(run.ranks == 4);
    CHECK(run.rows.size() == 11);
    CHECK(run.rows.front().line == 14);
    check_bandwidths(run);
}

TEST_CASE("H200 2x8: bus-only device ids, large sizes") {
    const auto run = load("h200-baremetal-2node-16gpu-all-reduce-nccltests-issue256.txt");
    CHECK(run.ranks == 16);
    CHECK(run.rows.size() == 3);
    CHECK(run.rows[1].time_us == 12485);
    check_bandwidths(run);
}

TEST_CASE("old layout without root and with an error column needs the rank count") {
    const std::string name = "v100-8node-64gpu-ib100g-all-reduce-old-error-column-nccltests-issue78.txt";
    CHECK_THROWS_WITH_AS(load(name), doctest::Contains("cannot tell the number of ranks"), Error);
    NcclTestsOptions opt;
    opt.ranks = 64;
    const auto run = load(name, opt);
    CHECK(run.rows.size() == 2);
    CHECK(run.rows[0].redop == "sum");
    CHECK(run.rows[0].root == -1);
    check_bandwidths(run);
}

TEST_CASE("old alltoall with an empty redop: ranks from size/count, the collective must be named") {
    const std::string name = "v100-8node-64gpu-ib100g-alltoall-old-error-column-empty-redop-nccltests-issue78.txt";
    CHECK_THROWS_WITH_AS(load(name),
                         "v100-8node-64gpu-ib100g-alltoall-old-error-column-empty-redop-nccltests-issue78.txt: cannot "
                         "tell the collective: size is 64 x count x type size, which fits all_gather, reduce_scatter and "
                         "all_to_all; pass --op all_gather|reduce_scatter|all_to_all",
                         Error);
    NcclTestsOptions opt;
    opt.op = CollectiveOp::AllToAll;
    const auto run = load(name, opt);
    CHECK(run.ranks == 64);
    CHECK(run.rows.size() == 2);
    CHECK(run.rows[0].redop.empty());
    check_bandwidths(run);
    opt.op = CollectiveOp::AllReduce;
    CHECK_THROWS_WITH_AS(load(name, opt), doctest::Contains(":5: size is 64 x count x type size"), Error);
}

TEST_CASE("prefixes are tolerated and a broken row is an error naming file:line") {
    const std::string text =
        "[1,0]<stdout>:# Collective test starting: alltoall_perf\n"
        "[1,0]<stdout>:#  Rank  0 Group  0 Pid 1 on a device  0 [0x07] H100\n"
        "[1,0]<stdout>:#  Rank  1 Group  0 Pid 2 on b device  0 [0x07] H100\n"
        "[1,0]<stdout>:     1048576        131072     float    none      -1    40.00   26.21   13.11      0    40.00   26.21   13.11    N/A\n"
        "NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n";
    const auto run = parse_nccl_tests(text, "log.txt");
    CHECK(run.op == CollectiveOp::AllToAll);
    CHECK(run.ranks == 2);
    REQUIRE(run.rows.size() == 1);
    CHECK(run.rows[0].busbw_gbyte_s == doctest::Approx(1048576.0 / 40.0 / 1e3 * 0.5));
    CHECK_THROWS_WITH_AS(parse_nccl_tests(text + "     2097152  262144  float  none  -1  80.0  x  26.21  0  80.0  26.21  26.21  0\n",
                                          "log.txt"),
                         "log.txt:6: the algbw column 'x' is not a number; expected: size count type [redop] [root] time "
                         "algbw busbw #wrong ...",
                         Error);
    CHECK_THROWS_WITH_AS(parse_nccl_tests(text + "     2097152  262144  float  none  -1  80.0\n", "log.txt"),
                         doctest::Contains("log.txt:6: a data row with 2 columns after the type"), Error);
    CHECK_THROWS_WITH_AS(parse_nccl_tests("hello\n# nothing\n", "empty.txt"),
                         doctest::Contains("empty.txt: no nccl-tests data rows found"), Error);
    NcclTestsOptions opt;
    opt.op = CollectiveOp::AllReduce;
    CHECK_THROWS_WITH_AS(parse_nccl_tests(text, "log.txt", opt),
                         "log.txt: the file is a all_to_all run (header), not all_reduce; drop --op or pass --op all_to_all",
                         Error);
}

TEST_CASE("a row of size 0 is skipped with a warning (its busbw would be NaN)") {
    const std::string path = std::string(PLANLAYOUT_FIXTURES_DIR) + "/nccl-tests/h200-baremetal-2node-16gpu-all-reduce-nccltests-issue256.txt";
    std::string text = read_text_file(path);
    const std::string row = "  1073741824     268435456     float     sum      -1   4389.5";
    const auto at = text.find(row);
    REQUIRE(at != std::string::npos);
    text.replace(at, row.size(), "           0             0     float     sum      -1   4389.5");
    const auto run = parse_nccl_tests(text, "zero.txt", {});
    CHECK(run.rows.size() == 2);
    CHECK(std::any_of(run.warnings.begin(), run.warnings.end(),
                      [](const std::string& w) { return w == "zero.txt:24: size 0 B, row skipped"; }));
}
