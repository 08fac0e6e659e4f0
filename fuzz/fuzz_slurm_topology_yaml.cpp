// Fuzz target: Slurm topology.yaml through libyaml, each topology entry, and its JSON form.
#include <nlohmann/json.hpp>

#include "fuzz_common.hpp"
#include "planlayout/ingest/slurm_topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    planlayout::fuzz::expect_clean([&] {
        const auto f = planlayout::read_slurm_topology_yaml(planlayout::fuzz::as_text(data, size), "fuzz.yaml");
        (void)planlayout::to_json(f).dump();
    });
    return 0;
}
