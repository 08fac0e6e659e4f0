// Fuzz target: a Megatron-LM launch script or line (`--megatron-args FILE`): the launch-script
// reader (quotes, variables, arrays, expansions, here-documents), the mapping of its flags to
// layout values, the parallel spec built from them, and its validation.
#include "fuzz_common.hpp"
#include "parallel_flags.hpp"
#include "planlayout/ingest/launch_script.hpp"
#include "planlayout/ingest/megatron_args.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace planlayout::cli;  // NOLINT(google-build-using-namespace): a tiny harness
    planlayout::fuzz::expect_clean([&] {
        const auto words = planlayout::read_launch_script(planlayout::fuzz::as_text(data, size), "fuzz.sh", {{"NUM_NODES", "2"}});
        const ParsedArgs parsed = parallel_args_from(planlayout::megatron_args_from_words(words, "fuzz.sh"));
        const planlayout::ParallelSpec spec = parallel_spec_from_args(parsed, /*require_world=*/false);
        if (spec.world > 0) {
            (void)planlayout::resolve_spec(spec);
        }
    });
    return 0;
}
