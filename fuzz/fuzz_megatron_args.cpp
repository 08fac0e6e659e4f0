// Fuzz target: a Megatron-LM launch line or script (`--megatron-args FILE`): shell-word splitting,
// the option parser (CLI11, unknown flags allowed), the parallel spec built from it, and its validation.
#include "args.hpp"
#include "fuzz_common.hpp"
#include "parallel_flags.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace planlayout::cli;  // NOLINT(google-build-using-namespace): a tiny harness
    planlayout::fuzz::expect_clean([&] {
        const auto words = split_shell_words(planlayout::fuzz::as_text(data, size));
        const ParsedArgs parsed = parse_megatron_words(words);
        const planlayout::ParallelSpec spec = parallel_spec_from_args(parsed, /*require_world=*/false);
        if (spec.world > 0) {
            (void)planlayout::resolve_spec(spec);
        }
    });
    return 0;
}
