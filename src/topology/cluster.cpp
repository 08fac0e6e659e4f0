// Cluster: per-template facts (NIC choice, class matrices) and the fabric's arithmetic.
#include "planlayout/topology/cluster.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "planlayout/model/numbers/hardware.hpp"

namespace planlayout {

double pcie_link_gbyte_s(const PcieLink& l) {
    if (l.gbyte_s > 0) {
        return l.gbyte_s;
    }
    // GB/s per lane, one direction, by generation (index 0 unused).
    static const double kPerLane[] = {0,
                                      numbers::kPcieGen1LaneGbyteS,
                                      numbers::kPcieGen2LaneGbyteS,
                                      numbers::kPcieGen3LaneGbyteS,
                                      numbers::kPcieGen4LaneGbyteS,
                                      numbers::kPcieGen5LaneGbyteS,
                                      numbers::kPcieGen6LaneGbyteS};
    const int newest = static_cast<int>(std::size(kPerLane)) - 1;
    const int gen = std::clamp(static_cast<int>(l.gen > 0 ? l.gen : numbers::kPcieDefaultGen.count()), 1, newest);
    const int width = l.width > 0 ? l.width : numbers::kPcieDefaultWidth.count();
    return kPerLane[gen] * width;
}

TemplateFacts template_facts(const NodeTemplate& t) {
    TemplateFacts f;
    f.gpu_count = static_cast<int>(t.gpus.size());
    const auto g = static_cast<std::size_t>(f.gpu_count);
    for (std::size_t i = 0; i < t.nics.size(); ++i) {
        if (t.nics[i].rdma && t.nics[i].role == "compute") {
            f.rail_nics.push_back(static_cast<int>(i));
            f.rail_gbit_s.push_back(t.nics[i].speed_gbit_s);
        }
    }
    // Class lookups by canonical name: "GPU3" → 3, "NIC2" → its index in t.nics.
    std::map<std::string, int> nic_index;
    for (std::size_t i = 0; i < t.nics.size(); ++i) {
        nic_index[t.nics[i].name] = static_cast<int>(i);
    }
    f.gpu_gpu.assign(g * g, PathClass::Sys);
    f.gpu_gpu_nvlinks.assign(g * g, 0);
    std::vector<std::vector<PathClass>> gpu_nic(g, std::vector<PathClass>(t.nics.size(), PathClass::Sys));
    std::map<std::string, int> gpu_index;
    for (std::size_t i = 0; i < g; ++i) {
        gpu_index[t.gpus[i].name] = static_cast<int>(i);
        f.gpu_gpu[i * g + i] = PathClass::Loc;
    }
    for (const auto& p : t.paths) {
        const auto ga = gpu_index.find(p.a);
        const auto gb = gpu_index.find(p.b);
        if (ga != gpu_index.end() && gb != gpu_index.end()) {
            const auto a = static_cast<std::size_t>(ga->second);
            const auto b = static_cast<std::size_t>(gb->second);
            f.gpu_gpu[a * g + b] = f.gpu_gpu[b * g + a] = p.path_class;
            f.gpu_gpu_nvlinks[a * g + b] = f.gpu_gpu_nvlinks[b * g + a] = p.nvlinks;
            continue;
        }
        const auto na = nic_index.find(p.b);
        if (ga != gpu_index.end() && na != nic_index.end()) {
            gpu_nic[static_cast<std::size_t>(ga->second)][static_cast<std::size_t>(na->second)] = p.path_class;
        }
    }
    // NIC choice: nearest compute NIC; GPUs with the same set of nearest NICs are spread over
    // that set in GPU index order (NCCL's local-net selection).
    f.gpu_rail.assign(g, -1);
    f.gpu_local_rails.assign(g, {});
    f.gpu_nic_class.assign(g, PathClass::Sys);
    std::map<std::vector<int>, int> users;  // candidate set → GPUs assigned so far
    for (std::size_t i = 0; i < g; ++i) {
        PathClass best = PathClass::Xpod;
        std::vector<int> candidates;
        for (std::size_t r = 0; r < f.rail_nics.size(); ++r) {
            const PathClass c = gpu_nic[i][static_cast<std::size_t>(f.rail_nics[r])];
            if (c < best) {
                best = c;
                candidates.clear();
            }
            if (c == best) {
                candidates.push_back(static_cast<int>(r));
            }
        }
        if (candidates.empty()) {
            continue;
        }
        const int k = users[candidates]++;
        f.gpu_rail[i] = candidates[static_cast<std::size_t>(k) % candidates.size()];
        f.gpu_local_rails[i] = candidates;
        f.gpu_nic_class[i] = best;
    }
    f.rail_gpu.assign(f.rail_nics.size(), -1);
    for (std::size_t i = 0; i < g; ++i) {
        const int r = f.gpu_rail[i];
        if (r >= 0 && f.rail_gpu[static_cast<std::size_t>(r)] < 0) {
            f.rail_gpu[static_cast<std::size_t>(r)] = static_cast<int>(i);
        }
    }
    int links = t.nvlink.links_per_gpu;
    for (const auto& gpu : t.gpus) {
        if (gpu.nvswitch_links > 0) {
            links = std::max(links, gpu.nvswitch_links);
        }
    }
    f.nvlink_gbyte_s = links * t.nvlink.gbyte_s_per_link;
    if (f.nvlink_gbyte_s <= 0 && !t.gpus.empty()) {
        // Point-to-point NVLink only (no NVSwitch): the best pair's links.
        int best = 0;
        for (int n : f.gpu_gpu_nvlinks) {
            best = std::max(best, n);
        }
        f.nvlink_gbyte_s = best * (t.nvlink.gbyte_s_per_link > 0 ? t.nvlink.gbyte_s_per_link : numbers::kNvlinkLinkGbyteS);
    }
    f.pcie_gbyte_s = t.gpus.empty() ? 0 : pcie_link_gbyte_s(t.gpus.front().pcie);
    for (const auto& tcp : t.tcp) {
        f.tcp_gbit_s += tcp.speed_gbit_s;
        ++f.tcp_interfaces;
    }
    // The NUMA nodes the GPUs hang off (SHM's sockets): counted when every GPU names one.
    std::set<int> numa;
    for (const auto& gpu : t.gpus) {
        numa.insert(gpu.numa);
    }
    f.gpu_numa_nodes = numa.empty() || numa.count(-1) > 0 ? 0 : static_cast<int>(numa.size());
    return f;
}

std::int64_t Cluster::leaf_of(std::int64_t node, int rail) const {
    if (rail < 0) {
        return -1;
    }
    if (!wiring.empty()) {
        const auto& w = wiring[static_cast<std::size_t>(node)];
        return static_cast<std::size_t>(rail) < w.size() ? w[static_cast<std::size_t>(rail)] : -1;
    }
    if (rail >= static_cast<int>(facts_of(node).rail_nics.size())) {
        return -1;
    }
    return su_of(node) * rails + rail;
}

std::int64_t Cluster::pod_of_leaf(std::int64_t leaf) const {
    if (!wiring.empty() || rails <= 0 || (fabric.sus_per_pod <= 0 && su_pod.empty())) {
        return 0;
    }
    return pod_of_su(leaf / rails);
}

std::vector<std::int64_t> Cluster::su_sizes() const {
    std::vector<std::int64_t> sizes;
    if (fabric.nodes_per_su <= 0) {
        return sizes;
    }
    for (std::int64_t n = 0; n < node_count(); ++n) {
        const auto su = static_cast<std::size_t>(su_of(n));
        sizes.resize(std::max(sizes.size(), su + 1), 0);
        ++sizes[su];
    }
    return sizes;
}

std::string Cluster::su_size_text() const {
    if (fabric.nodes_per_su <= 0) {
        return {};
    }
    if (regular_units()) {
        return std::to_string(fabric.nodes_per_su) + " nodes per scalable unit";
    }
    const std::vector<std::int64_t> sizes = su_sizes();
    const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
    return "scalable units of " + std::to_string(*lo) + " to " + std::to_string(*hi) + " nodes";
}

namespace {

// True when every size but the last equals the first and the last is no larger: the arithmetic
// (index / size) gives the same units as the table.
bool regular_sizes(const std::vector<std::int64_t>& sizes) {
    for (std::size_t i = 1; i < sizes.size(); ++i) {
        if (sizes[i] > sizes.front() || (sizes[i] != sizes.front() && i + 1 < sizes.size())) {
            return false;
        }
    }
    return true;
}

}  // namespace

void set_unit_sizes(Cluster& cluster, const std::vector<std::int64_t>& su_sizes,
                    const std::vector<std::int64_t>& pod_sizes) {
    cluster.node_su.clear();
    cluster.su_pod.clear();
    cluster.fabric.nodes_per_su = su_sizes.empty() ? 0 : *std::max_element(su_sizes.begin(), su_sizes.end());
    cluster.fabric.sus_per_pod = pod_sizes.empty() ? 0 : *std::max_element(pod_sizes.begin(), pod_sizes.end());
    if (regular_sizes(su_sizes) && regular_sizes(pod_sizes)) {
        return;
    }
    for (std::size_t su = 0; su < su_sizes.size(); ++su) {
        cluster.node_su.insert(cluster.node_su.end(), static_cast<std::size_t>(su_sizes[su]), static_cast<std::int32_t>(su));
    }
    for (std::size_t pod = 0; pod < pod_sizes.size(); ++pod) {
        cluster.su_pod.insert(cluster.su_pod.end(), static_cast<std::size_t>(pod_sizes[pod]), static_cast<std::int32_t>(pod));
    }
    // The readers make the sizes cover the nodes and units exactly; a short table would be read
    // out of bounds, so it is padded with its last unit (pod) rather than trusted.
    cluster.node_su.resize(cluster.nodes.size(), cluster.node_su.empty() ? 0 : cluster.node_su.back());
    if (!cluster.su_pod.empty()) {
        cluster.su_pod.resize(static_cast<std::size_t>(cluster.node_su.empty() ? 1 : cluster.node_su.back() + 1),
                              cluster.su_pod.back());
    }
}

std::string Cluster::leaf_name(std::int64_t leaf) const {
    if (!leaf_names.empty() && leaf >= 0 && static_cast<std::size_t>(leaf) < leaf_names.size()) {
        return leaf_names[static_cast<std::size_t>(leaf)];
    }
    return "leaf" + std::to_string(leaf);
}

std::string Cluster::su_name(std::int64_t su) const {
    if (su >= 0 && static_cast<std::size_t>(su) < su_names.size()) {
        return su_names[static_cast<std::size_t>(su)];
    }
    return "su" + std::to_string(su);
}

std::string Cluster::pod_name(std::int64_t pod) const {
    if (pod >= 0 && static_cast<std::size_t>(pod) < pod_names.size()) {
        return pod_names[static_cast<std::size_t>(pod)];
    }
    return "pod" + std::to_string(pod);
}

std::int64_t Cluster::total_gpus() const {
    std::int64_t n = 0;
    for (const auto& node : nodes) {
        n += facts[static_cast<std::size_t>(node.template_index)].gpu_count;
    }
    return n;
}

bool Cluster::homogeneous() const {
    return std::all_of(nodes.begin(), nodes.end(), [&](const NodeInstance& n) {
        return n.template_index == nodes.front().template_index;
    });
}

}  // namespace planlayout
