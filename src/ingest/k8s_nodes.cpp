// Ingest: Kubernetes node labels → FabricTopology (docs/formats/k8s-nodes.md).
// Label keys and their order, each from the project or cloud that writes them:
//   topograph v1: fabric.topograph.run/tier-N (tier 0 nearest the node), accelerator.topograph.run/domain
//     (NVIDIA/topograph docs, https://docs.nvidia.com/topograph/v1.0.0/reference/node-labels-and-annotations)
//   topograph before v1: network.topology.nvidia.com/tier-N and /accelerator
//     (NVIDIA/topograph pkg/topology/topology.go), earlier /leaf|/block, /spine, /core|/datacenter (docs/k8s.md)
//   AWS EKS: topology.k8s.aws/network-node-layer-1 (top) .. -3, -4 on four-layer types
//     (https://docs.aws.amazon.com/eks/latest/userguide/ml-workload-topology.html)
//   GKE: cloud.google.com/gce-topology-block ⊃ gce-topology-subblock ⊃ gce-topology-host
//   OKE: oci.oraclecloud.com/rdma.hpc_island_id ⊃ rdma.network_block_id ⊃ rdma.local_block_id ⊃ rdma.host_id
//   NVIDIA GPU operator / driver: nvidia.com/gpu.clique, nvidia.com/gpu.product, nvidia.com/gpu.count
#include "planlayout/ingest/k8s_nodes.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/names.hpp"

namespace planlayout {
namespace {

constexpr int kMaxTiers = 16;
constexpr int kMaxGpusPerNode = 4096;

struct Scheme {
    std::string name;
    std::vector<std::string> tiers;  // lowest first
};

/// A JSON pointer token: '~' → "~0", '/' → "~1" (RFC 6901), so label keys stay one token.
std::string token(const std::string& key) {
    std::string out;
    for (const char c : key) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

std::string pointer_where(const std::string& where, const std::string& pointer) {
    return where + " (" + (pointer.empty() ? std::string("/") : pointer) + ")";
}

const nlohmann::json* child(const nlohmann::json& j, const char* key) {
    if (!j.is_object()) {
        return nullptr;
    }
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

/// "tier-0", "tier-1", ... present on any node, stopping at the first gap.
std::vector<std::string> numbered_tiers(const std::string& prefix,
                                        const std::vector<std::map<std::string, std::string>>& labels) {
    std::vector<std::string> out;
    for (int t = 0; t < kMaxTiers; ++t) {
        const std::string key = prefix + std::to_string(t);
        const bool any = std::any_of(labels.begin(), labels.end(),
                                     [&](const auto& l) { return l.count(key) > 0; });
        if (!any) {
            break;
        }
        out.push_back(key);
    }
    return out;
}

bool any_has(const std::vector<std::map<std::string, std::string>>& labels, const std::string& key) {
    return std::any_of(labels.begin(), labels.end(), [&](const auto& l) { return l.count(key) > 0; });
}

/// The known schemes in the order tried; a scheme's tiers keep only the keys some node has.
std::vector<Scheme> known_schemes(const std::vector<std::map<std::string, std::string>>& labels) {
    std::vector<Scheme> s;
    s.push_back({"topograph", numbered_tiers("fabric.topograph.run/tier-", labels)});
    s.push_back({"topograph", numbered_tiers("network.topology.nvidia.com/tier-", labels)});
    s.push_back({"topograph", {"network.topology.nvidia.com/leaf", "network.topology.nvidia.com/block",
                               "network.topology.nvidia.com/spine", "network.topology.nvidia.com/core",
                               "network.topology.nvidia.com/datacenter"}});
    s.push_back({"aws", {"topology.k8s.aws/network-node-layer-4", "topology.k8s.aws/network-node-layer-3",
                         "topology.k8s.aws/network-node-layer-2", "topology.k8s.aws/network-node-layer-1"}});
    s.push_back({"gcp", {"cloud.google.com/gce-topology-subblock", "cloud.google.com/gce-topology-block"}});
    s.push_back({"oci", {"oci.oraclecloud.com/rdma.local_block_id", "oci.oraclecloud.com/rdma.network_block_id",
                         "oci.oraclecloud.com/rdma.hpc_island_id"}});
    for (auto& sc : s) {
        sc.tiers.erase(std::remove_if(sc.tiers.begin(), sc.tiers.end(),
                                      [&](const std::string& k) { return !any_has(labels, k); }),
                       sc.tiers.end());
    }
    return s;
}

int count_value(const std::string& text, const std::string& where) {
    const bool digits = !text.empty() && text.size() <= 6 &&
                        std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    const int v = digits ? std::stoi(text) : -1;
    if (v < 0 || v > kMaxGpusPerNode) {
        throw input_error(where, "'" + text + "' is not a GPU count",
                          "a whole number 0.." + std::to_string(kMaxGpusPerNode) + ", as kubectl prints it");
    }
    return v;
}

}  // namespace

bool looks_like_k8s_nodes(const nlohmann::json& j) {
    const auto* kind = child(j, "kind");
    if (kind == nullptr || !kind->is_string()) {
        return false;
    }
    const auto k = kind->get<std::string>();
    if (k == "NodeList" || k == "Node") {
        return true;
    }
    const auto* items = child(j, "items");
    if (k != "List" || items == nullptr || !items->is_array() || items->empty()) {
        return false;
    }
    const auto* first = child(items->front(), "kind");
    return first != nullptr && first->is_string() && first->get<std::string>() == "Node";
}

namespace {

// The node objects of a NodeList (or the one Node) with their JSON pointers.
std::pair<std::vector<const nlohmann::json*>, std::vector<std::string>> node_objects(const nlohmann::json& j,
                                                                                     const std::string& where,
                                                                                     const std::string& fix) {
    if (!j.is_object()) {
        throw input_error(pointer_where(where, ""), "not a Kubernetes object", fix);
    }
    const auto* kind = child(j, "kind");
    const bool single = kind != nullptr && kind->is_string() && kind->get<std::string>() == "Node";
    const auto* items = child(j, "items");
    if (!single && (items == nullptr || !items->is_array())) {
        throw input_error(pointer_where(where, "/items"), "no \"items\" array: this is not a NodeList", fix);
    }
    std::vector<const nlohmann::json*> nodes;
    std::vector<std::string> pointers;
    if (single) {
        nodes.push_back(&j);
        pointers.emplace_back("");
    } else {
        if (items->empty()) {
            throw input_error(pointer_where(where, "/items"), "the NodeList has no nodes",
                              "run kubectl get nodes -o json against the cluster the job runs on");
        }
        if (items->size() > static_cast<std::size_t>(kMaxNodes)) {
            throw input_error(pointer_where(where, "/items"), "more than " + std::to_string(kMaxNodes) + " nodes",
                              "select the job's nodes: kubectl get nodes -l KEY=VALUE -o json");
        }
        for (std::size_t i = 0; i < items->size(); ++i) {
            nodes.push_back(&(*items)[i]);
            pointers.push_back("/items/" + std::to_string(i));
        }
    }
    return {nodes, pointers};
}

// One node: its name (a host name, listed once), labels (into `labels`), GPU product and counts;
// a count label that disagrees with the capacity is warned about in `warnings`.
FabricNode read_node(const nlohmann::json& n, const std::string& p, const std::string& where, const std::string& fix,
                     std::map<std::string, std::string>& labels, std::set<std::string>& seen, FabricTopology& f) {
    if (!n.is_object()) {
        throw input_error(pointer_where(where, p), "a node is not an object", fix);
    }
    const auto* k = child(n, "kind");
    if (k != nullptr && (!k->is_string() || k->get<std::string>() != "Node")) {
        throw input_error(pointer_where(where, p + "/kind"), "an item of kind " + k->dump() + ", not Node",
                          "list nodes only: kubectl get nodes -o json");
    }
    const auto* meta = child(n, "metadata");
    const auto* name = meta == nullptr ? nullptr : child(*meta, "name");
    if (name == nullptr || !name->is_string() || name->get<std::string>().empty()) {
        throw input_error(pointer_where(where, p + "/metadata/name"), "the node has no name", fix);
    }
    FabricNode fn;
    fn.name = name->get<std::string>();
    // Node names become host names of hostfiles, launch lines and scheduler files.
    require_host_name(fn.name, pointer_where(where, p + "/metadata/name"));
    if (!seen.insert(fn.name).second) {
        throw input_error(pointer_where(where, p + "/metadata/name"), "node '" + fn.name + "' is listed twice",
                          "pass one kubectl get nodes -o json output, not several concatenated");
    }
    if (const auto* lab = child(*meta, "labels")) {
        if (!lab->is_object()) {
            throw input_error(pointer_where(where, p + "/metadata/labels"), "labels is not an object", fix);
        }
        for (const auto& [key, value] : lab->items()) {
            if (!value.is_string()) {
                throw input_error(pointer_where(where, p + "/metadata/labels/" + token(key)),
                                  "a label value that is not a string", "label values are strings in Kubernetes");
            }
            labels[key] = value.get<std::string>();
        }
    }
    const auto& l = labels;
    const std::string lp = p + "/metadata/labels/";
    if (const auto it = l.find("nvidia.com/gpu.product"); it != l.end()) {
        // Printed in a warning and in the cluster's notes: Kubernetes allows only a label value
        // here (at most 63 of A-Z a-z 0-9 - _ .), so anything else is not a node object's label.
        if (!it->second.empty() && kubernetes_label_value(it->second) != it->second) {
            throw input_error(pointer_where(where, lp + token(it->first)),
                              "nvidia.com/gpu.product '" + printable(it->second) + "' is not a Kubernetes label value",
                              "label values are at most 63 letters, digits, '-', '_' and '.' (e.g. NVIDIA-H100-80GB-HBM3): "
                              "give the nodes as kubectl get nodes -o json prints them");
        }
        fn.gpu_product = it->second;
    }
    if (const auto it = l.find("nvidia.com/gpu.count"); it != l.end()) {
        fn.gpu_count = count_value(it->second, pointer_where(where, lp + token(it->first)));
    }
    const auto* status = child(n, "status");
    const auto* cap = status == nullptr ? nullptr : child(*status, "capacity");
    if (const auto* g = cap == nullptr ? nullptr : child(*cap, "nvidia.com/gpu")) {
        const std::string gp = p + "/status/capacity/nvidia.com~1gpu";
        if (!g->is_string()) {
            throw input_error(pointer_where(where, gp), "the GPU capacity is not a string", "kubectl prints quantities as strings: \"8\"");
        }
        fn.gpu_capacity = count_value(g->get<std::string>(), pointer_where(where, gp));
    }
    if (fn.gpu_count > 0 && fn.gpu_capacity > 0 && fn.gpu_count != fn.gpu_capacity) {
        f.warnings.push_back("node " + fn.name + ": label nvidia.com/gpu.count=" + std::to_string(fn.gpu_count) +
                             " but capacity nvidia.com/gpu=" + std::to_string(fn.gpu_capacity) +
                             " (the device plugin's capacity is what pods can request)");
    }
    return fn;
}

// Which labels give the tiers (--tier-label, else a known scheme) and the NVLink domain. Their
// keys are written into Kueue's Topology (nodeLabel), and their values become switch and block
// names (topology.conf, YAML, DOT): both are checked here, where they enter, so that no writer
// meets a newline or a quote.
void choose_labels(FabricTopology& f, const std::vector<std::map<std::string, std::string>>& labels,
                   const std::vector<std::string>& pointers, const std::vector<std::string>& tier_labels,
                   const std::string& where) {
    for (const auto& key : tier_labels) {
        require_label_key(key, "--tier-label " + printable(key));
    }
    if (!tier_labels.empty()) {
        f.label_scheme = "custom";
        f.tier_labels = tier_labels;
        for (const auto& key : tier_labels) {
            if (!any_has(labels, key)) {
                throw input_error(where, "no node has the label '" + key + "' named by --tier-label",
                                  "check the key: kubectl get nodes --show-labels");
            }
        }
    } else {
        for (const auto& sc : known_schemes(labels)) {
            if (!sc.tiers.empty()) {
                f.label_scheme = sc.name;
                f.tier_labels = sc.tiers;
                break;
            }
        }
    }
    for (const char* key : {"nvidia.com/gpu.clique", "accelerator.topograph.run/domain",
                            "network.topology.nvidia.com/accelerator"}) {
        if (any_has(labels, key)) {
            f.domain_label = key;
            break;
        }
    }
    if (f.tier_labels.empty() && f.domain_label.empty()) {
        throw input_error(where, "no node carries a known topology label (topograph, AWS, GCP, OCI, nvidia.com/gpu.clique)",
                          "name the label of each tier, lowest first: --tier-label KEY [--tier-label KEY ...]");
    }
    if (f.label_scheme.empty()) {
        f.label_scheme = "nvlink-only";
    }
    for (std::size_t i = 0; i < labels.size(); ++i) {
        std::vector<std::string> keys = f.tier_labels;
        if (!f.domain_label.empty()) {
            keys.push_back(f.domain_label);
        }
        for (const auto& key : keys) {
            const auto it = labels[i].find(key);
            if (it != labels[i].end() && !it->second.empty()) {
                require_device_name(it->second, pointer_where(where, pointers[i] + "/metadata/labels/" + token(key)),
                                    "the label value: switch or block");
            }
        }
    }
}

// Switches: one per (tier, value), tier 0 first, each tier in first-seen order; each node under
// its lowest labelled tier.
void add_switches(FabricTopology& f, const std::vector<std::map<std::string, std::string>>& labels) {
    const auto tiers = static_cast<int>(f.tier_labels.size());
    std::vector<std::vector<std::string>> order(static_cast<std::size_t>(tiers));
    std::map<std::pair<int, std::string>, FabricSwitch> sw;
    std::map<std::pair<int, std::string>, std::string> parent;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const auto& l = labels[i];
        const std::string& node = f.nodes[i].name;
        std::string below;  // the switch one tier down on this node's path
        int below_tier = -1;
        bool attached = false;
        for (int t = 0; t < tiers; ++t) {
            const auto it = l.find(f.tier_labels[static_cast<std::size_t>(t)]);
            if (it == l.end() || it->second.empty()) {
                continue;
            }
            const auto k = std::make_pair(t, it->second);
            auto& s = sw[k];
            if (s.name.empty()) {
                s.name = it->second;
                s.tier = t;
                order[static_cast<std::size_t>(t)].push_back(it->second);
            }
            if (!attached) {
                s.nodes.push_back(node);
                attached = true;
                if (t > 0) {
                    f.warnings.push_back("node " + node + " has no " + f.tier_labels.front() +
                                         " label: placed under tier " + std::to_string(t) + " switch " + s.name);
                }
            } else {
                const auto bk = std::make_pair(below_tier, below);
                const auto [pit, fresh] = parent.emplace(bk, it->second);
                if (fresh) {
                    s.children.push_back(below);
                } else if (pit->second != it->second) {
                    f.warnings.push_back("switch " + below + " (tier " + std::to_string(below_tier) + ") is under both " +
                                         pit->second + " and " + it->second + " (seen on node " + node + ")");
                }
            }
            below = it->second;
            below_tier = t;
        }
        if (!attached && tiers > 0) {
            f.warnings.push_back("node " + node + " has none of the tier labels: left out of the tree");
        }
    }
    for (int t = 0; t < tiers; ++t) {
        for (const auto& name : order[static_cast<std::size_t>(t)]) {
            f.switches.push_back(sw.at({t, name}));
        }
    }
}

// Blocks: the NVLink domains, in first-seen order.
void add_blocks(FabricTopology& f, const std::vector<std::map<std::string, std::string>>& labels) {
    if (!f.domain_label.empty()) {
        std::map<std::string, std::size_t> index;
        for (std::size_t i = 0; i < labels.size(); ++i) {
            const auto it = labels[i].find(f.domain_label);
            if (it == labels[i].end() || it->second.empty()) {
                continue;
            }
            f.nodes[i].nvlink_domain = it->second;
            const auto [bit, fresh] = index.emplace(it->second, f.blocks.size());
            if (fresh) {
                f.blocks.push_back({it->second, {}, {}});
            }
            f.blocks[bit->second].nodes.push_back(f.nodes[i].name);
        }
    }
}

// A warning when the nodes have more than one GPU product.
void warn_mixed_products(FabricTopology& f) {
    std::set<std::string> products;
    for (const auto& n : f.nodes) {
        if (!n.gpu_product.empty()) {
            products.insert(n.gpu_product);
        }
    }
    if (products.size() > 1) {
        std::string list;
        for (const auto& p : products) {
            list += (list.empty() ? "" : ", ") + p;
        }
        f.warnings.push_back("the nodes have " + std::to_string(products.size()) + " GPU products (" + list +
                             "): one job usually runs on one product; select its nodes with -l nvidia.com/gpu.product=...");
    }
}

}  // namespace

FabricTopology read_k8s_nodes(const nlohmann::json& j, const std::string& where,
                              const std::vector<std::string>& tier_labels) {
    const std::string fix = "pass the output of: kubectl get nodes -o json";
    const auto [nodes, pointers] = node_objects(j, where, fix);
    FabricTopology f;
    std::vector<std::map<std::string, std::string>> labels(nodes.size());
    std::set<std::string> seen;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        f.nodes.push_back(read_node(*nodes[i], pointers[i], where, fix, labels[i], seen, f));
    }
    choose_labels(f, labels, pointers, tier_labels, where);
    add_switches(f, labels);
    add_blocks(f, labels);
    f.plugin = f.switches.empty() ? "block" : "tree";
    warn_mixed_products(f);
    return f;
}

}  // namespace planlayout
