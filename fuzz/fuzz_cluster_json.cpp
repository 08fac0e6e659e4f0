// Fuzz target: a layout JSON (cluster + parallel + model + ...) through plan(), as `analyze` reads it.
#include "fuzz_common.hpp"
#include "planlayout/plan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    planlayout::fuzz::expect_clean([&] {
        planlayout::PlanRequest r;
        r.layout_text = planlayout::fuzz::as_text(data, size);
        r.layout_name = "fuzz.json";
        r.base_dir = "/nonexistent-fuzz-dir";  // relative imports must fail cleanly, not read the disk
        (void)planlayout::plan(r);
    }, /*input_names_files=*/true);
    return 0;
}
