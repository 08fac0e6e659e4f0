// Fuzz target: `nvidia-smi topo -m` text into a NodeTemplate.
#include "fuzz_common.hpp"
#include "planlayout/ingest/nvidia_smi_topo.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    planlayout::fuzz::expect_clean(
        [&] { (void)planlayout::read_nvidia_smi_topo(planlayout::fuzz::as_text(data, size), "fuzz.txt"); });
    return 0;
}
