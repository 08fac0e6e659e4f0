// Fuzz target: a Kubernetes node list (kubectl get nodes -o json) → fabric, and its JSON form.
#include <nlohmann/json.hpp>

#include "fuzz_common.hpp"
#include "planlayout/ingest/k8s_nodes.hpp"
#include "planlayout/ingest/read_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    planlayout::fuzz::expect_clean([&] {
        const auto j = planlayout::parse_json_text(planlayout::fuzz::as_text(data, size), "nodes.json");
        const auto f = planlayout::read_k8s_nodes(j, "nodes.json");
        (void)planlayout::to_json(f).dump();
    });
    return 0;
}
