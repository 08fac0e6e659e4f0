// Fuzz target: step-time logs (CSV and JSON) for `ab`.
#include "fuzz_common.hpp"
#include "planlayout/ingest/step_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    planlayout::fuzz::expect_clean(
        [&] { (void)planlayout::parse_step_log(planlayout::fuzz::as_text(data, size), "fuzz.csv"); });
    return 0;
}
