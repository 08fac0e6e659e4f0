// Fuzz target: hwloc XML (lstopo --of xml) through libhwloc into a NodeTemplate.
#include "fuzz_common.hpp"
#include "planlayout/ingest/hwloc_topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    planlayout::fuzz::expect_clean(
        [&] { (void)planlayout::read_hwloc_xml(planlayout::fuzz::as_text(data, size), "fuzz.xml"); });
    return 0;
}
