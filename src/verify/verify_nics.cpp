// Verify: NICs — the `--nics` list (a NIC per GPU, one shared NIC, one per GPU group) and the
// job's RDMA ports as NCCL listed them (mixed link layers, mixed speeds).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "planlayout/error.hpp"
#include "planlayout/text_format.hpp"
#include "planlayout/verify/verify.hpp"

namespace planlayout::verify {
namespace {

/// "node-a mlx5_0, node-a mlx5_1, node-b mlx5_0 and 13 more"
std::string port_list(const std::vector<std::string>& ports) {
    std::string out;
    for (std::size_t i = 0; i < ports.size() && i < 3; ++i) {
        out += (i == 0 ? "" : ", ") + ports[i];
    }
    if (ports.size() > 3) {
        out += " and " + std::to_string(ports.size() - 3) + " more";
    }
    return out;
}

}  // namespace

NicList nic_list(const std::vector<std::string>& names, int gpus_per_node, const std::string& where) {
    NicList out;
    const auto g = static_cast<std::size_t>(gpus_per_node);
    const std::size_t n = names.size();
    if (n == 0 || gpus_per_node <= 0) {
        throw input_error(where, "names no NIC", "list the NICs in GPU order, e.g. --nics mlx5_0,mlx5_1");
    }
    if (n < g && g % n != 0) {
        throw input_error(where,
                          "names " + std::to_string(n) + " NICs for " + std::to_string(g) +
                              " GPUs per node, which do not split evenly",
                          "list one NIC per GPU in GPU order (repeat a shared NIC: mlx5_0,mlx5_0,mlx5_1,...), or a "
                          "number of NICs that divides the GPUs (one shared NIC, one per GPU pair)");
    }
    const std::size_t per_nic = n < g ? g / n : 1;
    for (std::size_t i = 0; i < g; ++i) {
        const std::string& name = names[n < g ? i / per_nic : i];
        if (name.empty()) {
            throw input_error(where, "NIC " + std::to_string(n < g ? i / per_nic : i) + " has no name",
                              "give every NIC its device name, e.g. mlx5_0");
        }
        const auto it = std::find(out.names.begin(), out.names.end(), name);
        if (it == out.names.end()) {
            out.names.push_back(name);
            out.gpu_nic.push_back(static_cast<int>(out.names.size()) - 1);
        } else {
            out.gpu_nic.push_back(static_cast<int>(it - out.names.begin()));
        }
    }
    return out;
}

std::vector<RankPlacement> rail_aligned_placement(int nodes, int gpus_per_node) {
    if (nodes <= 0 || gpus_per_node <= 0) {
        throw input_error("--nodes/--gpus-per-node", "both must be positive",
                          "e.g. --nodes 2 --gpus-per-node 8");
    }
    std::vector<RankPlacement> out;
    out.reserve(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(gpus_per_node));
    for (int r = 0; r < nodes * gpus_per_node; ++r) {
        RankPlacement p;
        p.rank = r;
        p.node = r / gpus_per_node;
        p.local_gpu = r % gpus_per_node;
        p.nic_index = r % gpus_per_node;
        out.push_back(p);
    }
    return out;
}

std::vector<RankPlacement> node_major_placement(int nodes, int gpus_per_node, const NicList& nics) {
    std::vector<RankPlacement> out = rail_aligned_placement(nodes, gpus_per_node);
    for (auto& p : out) {
        const int nic = nics.gpu_nic[static_cast<std::size_t>(p.local_gpu)];
        p.nic_index = nic;
        p.nic_device = nics.names[static_cast<std::size_t>(nic)];
    }
    return out;
}

/// The RDMA ports NCCL listed in the job: an IB and a RoCE port cannot reach each other, and a
/// slower port paces every ring through it. NCCL prints both facts per process: `NET/IB : Using
/// [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE` and `NET/IB: [0] mlx5_0:uverbs0:1/IB … speed=400000`
/// (NVIDIA/nccl src/transport/net_ib/init.cc).
std::vector<Finding> port_findings(const NcclLog& log) {
    std::vector<Finding> out;
    std::map<std::string, std::set<std::string>> by_layer;  // link layer → "host device"
    std::map<long long, std::set<std::string>> by_speed;    // Mb/s → "host device"
    for (const auto& [key, proc] : log.processes) {
        const auto& devices = proc.ib_devices.empty() ? proc.ib_device_lines : proc.ib_devices;
        for (const auto& d : devices) {
            const std::string port = (proc.host.empty() ? "" : proc.host + " ") + d.name +
                                     (d.port.empty() ? "" : ":" + d.port);
            if (!d.link_layer.empty()) {
                by_layer[d.link_layer].insert(port);
            }
            if (d.speed_mbit_s > 0) {
                by_speed[d.speed_mbit_s].insert(port);
            }
        }
    }
    if (by_layer.size() > 1) {
        std::string text;
        for (const auto& [layer, ports] : by_layer) {
            text += (text.empty() ? "" : "; ") + layer + ": " +
                    port_list(std::vector<std::string>(ports.begin(), ports.end()));
        }
        out.push_back({Severity::Warning, "mixed-link-layer",
                 "the job's RDMA ports use different link layers (" + text +
                     "): an InfiniBand port cannot reach a RoCE (Ethernet) port, so rings across them fail or "
                     "take another NIC",
                 "list only the compute fabric's ports in NCCL_IB_HCA (e.g. =mlx5_0,mlx5_1), or give every node "
                 "ports of one link layer", -1, -1});
    }
    if (by_speed.size() > 1) {
        std::string text;
        for (const auto& [speed, ports] : by_speed) {
            text += (text.empty() ? "" : "; ") + (speed % 1000 == 0 ? std::to_string(speed / 1000) : fixed_text(static_cast<double>(speed) / 1000.0, 1)) +
                    " Gb/s: " +
                    port_list(std::vector<std::string>(ports.begin(), ports.end()));
        }
        out.push_back({Severity::Warning, "mixed-nic-speed",
                 "the job's RDMA ports run at different speeds (" + text +
                     "): a ring or tree through the slower ports runs at their speed",
                 "check the slow ports' link (ibstat: Rate, cabling, a port trained down) or keep them out of "
                 "NCCL_IB_HCA; the plan's cost assumes the node template's speed", -1, -1});
    }
    return out;
}
}  // namespace planlayout::verify
