// Fuzz target: nccl-tests output (all_reduce_perf and friends).
#include "fuzz_common.hpp"
#include "planlayout/ingest/nccl_tests.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = planlayout::fuzz::as_text(data, size);
    planlayout::fuzz::expect_clean([&] { (void)planlayout::parse_nccl_tests(text, "fuzz.txt"); });
    planlayout::fuzz::expect_clean([&] {
        planlayout::NcclTestsOptions o;
        o.ranks = 16;
        (void)planlayout::parse_nccl_tests(text, "fuzz.txt", o);
    });
    return 0;
}
