// Fuzz target: NCCL topology XML (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE) into a NodeTemplate.
#include "fuzz_common.hpp"
#include "planlayout/ingest/nccl_topo_xml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    planlayout::fuzz::expect_clean(
        [&] { (void)planlayout::read_nccl_topo_xml(planlayout::fuzz::as_text(data, size), "fuzz.xml"); });
    return 0;
}
