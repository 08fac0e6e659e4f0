// Fuzz target: NCCL_DEBUG=INFO logs. The reader promises never to throw on malformed content.
#include "fuzz_common.hpp"
#include "planlayout/ingest/nccl_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = planlayout::fuzz::as_text(data, size);
    auto log = planlayout::parse_nccl_log(text, "fuzz.log");
    (void)log.networks();
    (void)log.channel_count();
    planlayout::parse_nccl_log_into(text, "fuzz2.log", log);  // merging a second log
    planlayout::resolve_nic_names(log);
    return 0;
}
