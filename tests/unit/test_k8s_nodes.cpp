// Tests: Kubernetes node lists → FabricTopology. The inputs in tests/data/k8s-nodes/ are node
// lists in kubectl's shape built from each scheme's documented labels (sources in its README.md).
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/ingest/detect_format.hpp"
#include "planlayout/ingest/k8s_nodes.hpp"
#include "planlayout/ingest/read_file.hpp"

using planlayout::FabricTopology;
using planlayout::read_k8s_nodes;

namespace {

std::string data(const std::string& name) {
    return planlayout::read_text_file(std::string(PLANLAYOUT_TEST_DATA_DIR) + "/k8s-nodes/" + name);
}

FabricTopology load(const std::string& name, const std::vector<std::string>& tiers = {}) {
    const auto j = nlohmann::json::parse(data(name));
    return read_k8s_nodes(j, name, tiers);
}

bool warned(const FabricTopology& f, const std::string& part) {
    return std::any_of(f.warnings.begin(), f.warnings.end(),
                       [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

FabricTopology from_text(const std::string& text, const std::vector<std::string>& tiers = {}) {
    return read_k8s_nodes(nlohmann::json::parse(text), "n.json", tiers);
}

}  // namespace

TEST_CASE("topograph v1 labels: two fabric tiers and NVLink cliques as blocks") {
    const auto f = load("topograph-v1-gb200.json");
    CHECK(f.label_scheme == "topograph");
    CHECK(f.tier_labels == std::vector<std::string>{"fabric.topograph.run/tier-0", "fabric.topograph.run/tier-1"});
    CHECK(f.domain_label == "nvidia.com/gpu.clique");
    CHECK(f.plugin == "tree");
    REQUIRE(f.switches.size() == 3);
    CHECK(f.switches[0].name == "S-leaf-1");
    CHECK(f.switches[0].tier == 0);
    CHECK(f.switches[0].nodes == std::vector<std::string>{"gb200-tray1", "gb200-tray2"});
    CHECK(f.switches[2].name == "S-spine-1");
    CHECK(f.switches[2].tier == 1);
    CHECK(f.switches[2].children == std::vector<std::string>{"S-leaf-1", "S-leaf-2"});
    CHECK(f.switches[2].nodes.empty());
    REQUIRE(f.blocks.size() == 2);
    CHECK(f.blocks[1].nodes == std::vector<std::string>{"gb200-tray3", "gb200-tray4"});
    REQUIRE(f.nodes.size() == 4);
    CHECK(f.nodes[0].gpu_product == "NVIDIA-GB200");
    CHECK(f.nodes[0].gpu_count == 4);
    CHECK(f.nodes[0].gpu_capacity == 4);
    CHECK(f.nodes[3].nvlink_domain == "7f3c2a10-5b4e-4d6a-9c1e-2b8f0e6d4a91.2");
    CHECK(f.warnings.empty());
}

TEST_CASE("AWS layers: layer-3 is the leaf, layer-1 the top - a NodeList without item kinds") {
    const auto f = load("aws-eks-p5.json");
    CHECK(f.label_scheme == "aws");
    CHECK(f.tier_labels == std::vector<std::string>{"topology.k8s.aws/network-node-layer-3",
                                                    "topology.k8s.aws/network-node-layer-2",
                                                    "topology.k8s.aws/network-node-layer-1"});
    REQUIRE(f.switches.size() == 4);
    CHECK(f.switches[1].nodes.size() == 2);
    CHECK(f.switches[3].name == "nn-e50490a237cb0f01a");
    CHECK(f.switches[3].tier == 2);
    CHECK(f.blocks.empty());
    CHECK(f.domain_label.empty());
    CHECK(f.nodes[0].gpu_capacity == 8);
}

TEST_CASE("GKE: subblock under block - the host label is not a switch tier") {
    const auto f = load("gcp-gke-a3ultra.json");
    CHECK(f.label_scheme == "gcp");
    REQUIRE(f.tier_labels.size() == 2);
    CHECK(f.tier_labels[0] == "cloud.google.com/gce-topology-subblock");
    REQUIRE(f.switches.size() == 3);
    CHECK(f.switches[2].children.size() == 2);
}

TEST_CASE("OKE: a node without local_block_id hangs under its network block, with a warning") {
    const auto f = load("oci-oke-h100.json");
    CHECK(f.label_scheme == "oci");
    CHECK(f.tier_labels.size() == 3);
    CHECK(warned(f, "node 10.0.10.23 has no oci.oraclecloud.com/rdma.local_block_id label: placed under tier 1 switch k4pqwzxjt3va"));
    const auto net = std::find_if(f.switches.begin(), f.switches.end(),
                                  [](const auto& s) { return s.name == "k4pqwzxjt3va"; });
    REQUIRE(net != f.switches.end());
    CHECK(net->nodes == std::vector<std::string>{"10.0.10.23"});
    CHECK(net->children == std::vector<std::string>{"ltbl17a2yq"});
}

TEST_CASE("a site's own labels through --tier-label - unlabelled nodes and count/capacity mismatches warned") {
    CHECK_THROWS_WITH_AS(load("custom-rack-labels.json"),
                         "custom-rack-labels.json: no node carries a known topology label (topograph, AWS, GCP, OCI, "
                         "nvidia.com/gpu.clique); name the label of each tier, lowest first: --tier-label KEY "
                         "[--tier-label KEY ...]",
                         planlayout::Error);
    const auto f = load("custom-rack-labels.json", {"example.com/rack", "example.com/row"});
    CHECK(f.label_scheme == "custom");
    REQUIRE(f.switches.size() == 3);
    CHECK(f.switches[2].name == "row-a");
    CHECK(warned(f, "node cpu-control-0 has none of the tier labels: left out of the tree"));
    CHECK(warned(f, "node gpu-r2n2: label nvidia.com/gpu.count=8 but capacity nvidia.com/gpu=7"));
    CHECK(f.nodes[0].gpu_capacity == 0);
    CHECK_THROWS_WITH_AS(load("custom-rack-labels.json", {"example.com/pod"}),
                         doctest::Contains("no node has the label 'example.com/pod' named by --tier-label"),
                         planlayout::Error);
}

TEST_CASE("a switch seen under two parents is warned, one parent kept") {
    const auto f = from_text(R"({"kind":"NodeList","items":[
        {"metadata":{"name":"a","labels":{"fabric.topograph.run/tier-0":"L1","fabric.topograph.run/tier-1":"S1"}}},
        {"metadata":{"name":"b","labels":{"fabric.topograph.run/tier-0":"L1","fabric.topograph.run/tier-1":"S2"}}}]})");
    CHECK(warned(f, "switch L1 (tier 0) is under both S1 and S2 (seen on node b)"));
    CHECK(f.switches[1].children == std::vector<std::string>{"L1"});
    CHECK(f.switches[2].children.empty());
}

TEST_CASE("one Node (kubectl get node X -o json) and NVLink-only labels give blocks") {
    const auto f = from_text(R"({"kind":"Node","metadata":{"name":"n1","labels":{"nvidia.com/gpu.clique":"c.1"}}})");
    CHECK(f.plugin == "block");
    CHECK(f.label_scheme == "nvlink-only");
    REQUIRE(f.blocks.size() == 1);
    CHECK(f.blocks[0].nodes == std::vector<std::string>{"n1"});
}

TEST_CASE("bad node lists: one line naming the JSON pointer, what and the fix") {
    using planlayout::Error;
    CHECK_THROWS_WITH_AS(from_text(R"([1])"), "n.json (/): not a Kubernetes object; pass the output of: kubectl get nodes -o json", Error);
    CHECK_THROWS_WITH_AS(from_text(R"({"kind":"NodeList"})"),
                         "n.json (/items): no \"items\" array: this is not a NodeList; pass the output of: kubectl get nodes -o json", Error);
    CHECK_THROWS_WITH_AS(from_text(R"({"kind":"NodeList","items":[]})"), doctest::Contains("n.json (/items): the NodeList has no nodes"), Error);
    CHECK_THROWS_WITH_AS(from_text(R"({"kind":"List","items":[{"kind":"Pod","metadata":{"name":"p"}}]})"),
                         "n.json (/items/0/kind): an item of kind \"Pod\", not Node; list nodes only: kubectl get nodes -o json", Error);
    CHECK_THROWS_WITH_AS(from_text(R"({"kind":"NodeList","items":[{"metadata":{}}]})"),
                         doctest::Contains("n.json (/items/0/metadata/name): the node has no name"), Error);
    CHECK_THROWS_WITH_AS(from_text(R"({"kind":"NodeList","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a"}}]})"),
                         doctest::Contains("n.json (/items/1/metadata/name): node 'a' is listed twice"), Error);
    CHECK_THROWS_WITH_AS(from_text(R"({"kind":"NodeList","items":[{"metadata":{"name":"a","labels":{"nvidia.com/gpu.count":"eight"}}}]})"),
                         "n.json (/items/0/metadata/labels/nvidia.com~1gpu.count): 'eight' is not a GPU count; a whole number "
                         "0..4096, as kubectl prints it", Error);
    CHECK_THROWS_WITH_AS(from_text(R"({"kind":"NodeList","items":[{"metadata":{"name":"a","labels":{"example.com/rack":3}}}]})"),
                         doctest::Contains("n.json (/items/0/metadata/labels/example.com~1rack): a label value that is not a string"), Error);
    CHECK_THROWS_WITH_AS(from_text(R"({"kind":"NodeList","items":[{"metadata":{"name":"a"},"status":{"capacity":{"nvidia.com/gpu":8}}}]})"),
                         doctest::Contains("n.json (/items/0/status/capacity/nvidia.com~1gpu): the GPU capacity is not a string"), Error);
}

TEST_CASE("auto-detection: kubectl output and NodeLists are k8s-nodes, other JSON is not") {
    using planlayout::CaptureFormat;
    using planlayout::detect_format;
    CHECK(detect_format(data("topograph-v1-gb200.json")) == CaptureFormat::K8sNodes);
    CHECK(detect_format(data("aws-eks-p5.json")) == CaptureFormat::K8sNodes);
    CHECK(detect_format(R"({"name": "h100", "gpus": []})") == CaptureFormat::Unknown);
    CHECK(planlayout::looks_like_k8s_nodes(nlohmann::json::parse(data("gcp-gke-a3ultra.json"))));
    CHECK(!planlayout::looks_like_k8s_nodes(nlohmann::json::parse(R"({"kind":"List","items":[{"kind":"Pod"}]})")));
}

TEST_CASE("hostile label values, node names and label keys are refused where they enter (issue 27 item 4)") {
    using planlayout::Error;
    const auto node = [](const std::string& name, const std::string& leaf) {
        return nlohmann::json{{"kind", "Node"},
                              {"metadata", {{"name", name}, {"labels", {{"fabric.topograph.run/tier-0", leaf},
                                                                       {"fabric.topograph.run/tier-1", "spine0"}}}}}};
    };
    const auto list = [](const std::vector<nlohmann::json>& items) {
        nlohmann::json out = {{"kind", "NodeList"}, {"items", nlohmann::json::array()}};
        for (const auto& i : items) {
            out["items"].push_back(i);
        }
        return out;
    };
    // A leaf label that would add a line to topology.conf and keys to Kueue's YAML.
    CHECK_THROWS_WITH_AS(read_k8s_nodes(list({node("gpu0", "leaf0"), node("gpu1", "evil\nSwitchName=evil Nodes=attacker[1-9]")}), "n.json"),
                         doctest::Contains("n.json (/items/1/metadata/labels/fabric.topograph.run~1tier-0): the label value: "
                                           "switch or block name 'evil\\x0ASwitchName=evil Nodes=attacker[1-9]' has byte \\x0A at byte 5"),
                         Error);
    CHECK_THROWS_WITH_AS(read_k8s_nodes(list({node("gpu0\"", "leaf0")}), "n.json"),
                         doctest::Contains("n.json (/items/0/metadata/name): host name 'gpu0\"' has '\"' at byte 5"), Error);
    CHECK_THROWS_WITH_AS(read_k8s_nodes(list({node("gpu0", "leaf0")}), "n.json", {"rack\n#x"}),
                         doctest::Contains("--tier-label rack\\x0A#x: label key 'rack\\x0A#x' has byte \\x0A at byte 5"), Error);
    // Real label values, with the characters Kubernetes allows, are read.
    const FabricTopology f = read_k8s_nodes(list({node("gpu0", "leaf-0.a_b"), node("gpu1", "leaf-0.a_b")}), "n.json");
    CHECK(f.switches.at(0).name == "leaf-0.a_b");
}

TEST_CASE("a GPU count of 0 (a CPU node) is read, not refused") {
    const auto f = from_text(
        R"({"kind":"Node","metadata":{"name":"c1","labels":{"nvidia.com/gpu.clique":"c.1","nvidia.com/gpu.count":"0"}},"status":{"capacity":{"nvidia.com/gpu":"0"}}})");
    REQUIRE(f.nodes.size() == 1);
    CHECK(f.nodes[0].gpu_count == 0);
    CHECK(f.nodes[0].gpu_capacity == 0);
}
