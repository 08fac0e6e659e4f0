// Analysis: node-level lint over a NodeTemplate (GPU↔NIC affinity, NUMA, NIC speeds, PCIe).
#include "planlayout/analysis/lint.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

namespace planlayout {
namespace {

std::string join_list(const std::vector<std::string>& v, const char* sep = ", ") {
    std::string s;
    for (const auto& x : v) {
        s += (s.empty() ? "" : sep) + x;
    }
    return s;
}

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

bool is_compute_rdma(const Nic& n) { return n.rdma && n.role == "compute"; }

std::string label(const Nic& n) { return n.device.empty() ? n.name : n.name + " (" + n.device + ")"; }

}  // namespace

std::string nearest_nic(const NodeTemplate& t, const std::string& gpu) {
    const auto g = std::find_if(t.gpus.begin(), t.gpus.end(), [&](const Gpu& x) { return x.name == gpu; });
    if (g == t.gpus.end()) {
        return {};
    }
    const auto classes = gpu_nic_classes(t);
    const auto row = static_cast<std::size_t>(g - t.gpus.begin()) * t.nics.size();
    std::string best;
    PathClass best_class = PathClass::Xpod;
    for (std::size_t k = 0; k < t.nics.size(); ++k) {
        if (is_compute_rdma(t.nics[k]) && classes[row + k] < best_class) {
            best_class = classes[row + k];
            best = t.nics[k].name;
        }
    }
    return best;
}

namespace {

// Each GPU's best class to a compute RDMA NIC, and the NICs at that class.
using BestNics = std::map<std::string, std::pair<PathClass, std::set<std::string>>>;

// GPU↔NIC affinity: a GPU whose nearest RDMA NIC is across sockets or not PIX/PXB; `best` gets
// each GPU's nearest NICs, `nearest_of_some_gpu` all of them.
void lint_gpu_nics(const NodeTemplate& t, BestNics& best, std::set<std::string>& nearest_of_some_gpu,
                   std::vector<Finding>& out) {
    // One GPU↔NIC table for the whole node: lint stays O(GPUs × NICs) (issue #20).
    const auto classes = gpu_nic_classes(t);
    for (std::size_t gi = 0; gi < t.gpus.size(); ++gi) {
        const Gpu& g = t.gpus[gi];
        PathClass bc = PathClass::Xpod;
        std::set<std::string> nics;
        const Nic* nic = nullptr;  // the nearest: best class, then lowest index
        for (std::size_t k = 0; k < t.nics.size(); ++k) {
            const Nic& n = t.nics[k];
            if (!is_compute_rdma(n)) {
                continue;
            }
            const PathClass c = classes[gi * t.nics.size() + k];
            if (c < bc) {
                bc = c;
                nics.clear();
                nic = &n;
            }
            if (c == bc) {
                nics.insert(n.name);
            }
        }
        best[g.name] = {bc, nics};
        nearest_of_some_gpu.insert(nics.begin(), nics.end());
        const std::string cls(to_string(bc));
        if (bc == PathClass::Sys || (nic && g.numa >= 0 && nic->numa >= 0 && g.numa != nic->numa)) {
            out.push_back(
                {Severity::Error, "gpu-nic-cross-numa",
                 g.name + "'s nearest RDMA NIC " + label(*nic) + " is " + cls +
                     (g.numa >= 0 && nic->numa >= 0 && g.numa != nic->numa
                          ? " (GPU on NUMA " + std::to_string(g.numa) + ", NIC on NUMA " +
                                std::to_string(nic->numa) + ")"
                          : std::string()) +
                     ": its network traffic crosses the inter-socket link",
                 "put a NIC on " + g.name + "'s PCIe switch or socket, or keep " + g.name +
                     "'s ranks off inter-node groups"});
        } else if (bc > std::max(PathClass::Pxb, t.gdr_level)) {  // the template's GPUDirect reach (GB200: PHB, NCCL's P2C)
            out.push_back({Severity::Warning, "gpu-no-near-nic",
                           g.name + "'s nearest RDMA NIC " + label(*nic) + " is " + cls +
                               ", not PIX/PXB: NCCL will not use GPUDirect RDMA by default",
                           "use a NIC behind the GPU's PCIe switch, or raise "
                           "NCCL_NET_GDR_LEVEL to " + cls + " if the platform supports it"});
        }
    }
}

// GPUs with the same best-NIC set, more GPUs than NICs: they share bandwidth.
void lint_shared_nics(const NodeTemplate& t, BestNics& best, std::vector<Finding>& out) {
    std::map<std::set<std::string>, std::vector<std::string>> groups;
    for (const auto& g : t.gpus) {
        if (best[g.name].first < PathClass::Sys) {  // SYS GPUs are reported above
            groups[best[g.name].second].push_back(g.name);
        }
    }
    for (const auto& [nics, gpus] : groups) {
        if (gpus.size() > nics.size() && !nics.empty()) {
            out.push_back({Severity::Warning, "nic-shared",
                           join_list(gpus) + " share " + join_list({nics.begin(), nics.end()}) +
                               " as their nearest NIC: " + std::to_string(gpus.size()) +
                               " GPUs on " + std::to_string(nics.size()) +
                               " NIC(s) split its bandwidth",
                           "expect per-GPU network bandwidth of 1/" +
                               std::to_string(gpus.size() / nics.size()) +
                               " of the NIC, or add NICs (one per GPU is the rail-optimised "
                               "layout)"});
        }
    }
}

// RDMA NICs of different speeds in one node.
void lint_nic_speeds(const NodeTemplate& t, std::vector<Finding>& out) {
    std::map<double, std::vector<std::string>> by_speed;
    for (const auto& n : t.nics) {
        if (is_compute_rdma(n) && n.speed_gbit_s > 0) {
            by_speed[n.speed_gbit_s].push_back(n.name);
        }
    }
    if (by_speed.size() > 1) {
        std::vector<std::string> parts;
        parts.reserve(by_speed.size());
        for (const auto& [speed, nics] : by_speed) {
            parts.push_back(fmt(speed) + " Gb/s: " + join_list(nics));
        }
        out.push_back({Severity::Warning, "nic-speed-mixed",
                       "RDMA NICs of different speeds in one node (" + join_list(parts, "; ") +
                           "): rings run at the slowest",
                       "use NICs of one speed, or restrict NCCL_IB_HCA to the fast ones"});
    }
}

// PCIe below capability, or a GPU slower than its peers.
void lint_pcie(const NodeTemplate& t, std::vector<Finding>& out) {
    auto degraded = [&](const std::string& name, const PcieLink& l) {
        const bool gen = l.gen > 0 && l.max_gen > 0 && l.gen < l.max_gen;
        const bool width = l.width > 0 && l.max_width > 0 && l.width < l.max_width;
        if (gen || width) {
            out.push_back({Severity::Warning, "pcie-degraded",
                           name + " PCIe link runs at Gen" + fmt(l.gen) + " x" +
                               std::to_string(l.width) + ", below its capability Gen" +
                               fmt(l.max_gen) + " x" + std::to_string(l.max_width),
                           "reseat the card or check the slot/riser and BIOS link settings"});
        }
    };
    double max_gpu_gbs = 0;
    for (const auto& g : t.gpus) {
        degraded(g.name, g.pcie);
        max_gpu_gbs = std::max(max_gpu_gbs, g.pcie.gbyte_s);
    }
    for (const auto& n : t.nics) {
        degraded(n.name, n.pcie);
    }
    for (const auto& s : t.pcie_switches) {
        degraded(s.name, s.link);
    }
    for (const auto& g : t.gpus) {
        if (g.pcie.gbyte_s > 0 && g.pcie.gbyte_s < 0.9 * max_gpu_gbs) {
            out.push_back({Severity::Warning, "pcie-slower-than-peers",
                           g.name + " PCIe link is " + fmt(g.pcie.gbyte_s) + " GB/s while other " +
                               "GPUs have " + fmt(max_gpu_gbs) + " GB/s",
                           "check the slot and link training of " + g.name});
        }
    }
}

// NICs NCCL might pick although no GPU should use them: non-compute RDMA NICs, and compute NICs
// that are no GPU's nearest.
void lint_stray_nics(const NodeTemplate& t, const std::set<std::string>& nearest_of_some_gpu, std::vector<Finding>& out) {
    std::vector<std::string> compute_devices;
    for (const auto& n : t.nics) {
        if (nearest_of_some_gpu.count(n.name) > 0 && !n.device.empty()) {
            compute_devices.push_back(n.device);
        }
    }
    const std::string hca = compute_devices.empty() ? std::string("the compute HCAs")
                                                    : "NCCL_IB_HCA=" + join_list(compute_devices, ",");
    for (const auto& n : t.nics) {
        if (n.rdma && n.role != "compute") {
            out.push_back({Severity::Info, "nic-non-compute",
                           label(n) + " is a " + n.role + " NIC, but NCCL picks any RDMA device",
                           "keep NCCL off it: set " + hca});
        }
    }
    std::vector<std::string> orphans;
    for (const auto& n : t.nics) {
        if (is_compute_rdma(n) && !t.gpus.empty() && nearest_of_some_gpu.count(n.name) == 0) {
            orphans.push_back(label(n));
        }
    }
    if (!orphans.empty()) {
        out.push_back({Severity::Warning, "nic-not-nearest",
                       join_list(orphans) + (orphans.size() > 1 ? " are" : " is") +
                           " no GPU's nearest NIC (storage or management HCA?); NCCL may still "
                           "use them",
                       "if they are not for training traffic, set " + hca +
                           " (or mark them role storage/management in the node template)"});
    }
}

}  // namespace

std::vector<Finding> lint_node(const NodeTemplate& t) {
    std::vector<Finding> out;
    const bool any_rdma = std::any_of(t.nics.begin(), t.nics.end(), is_compute_rdma);
    if (t.gpus.empty()) {
        out.push_back({Severity::Info, "no-gpus", "the template has no GPUs",
                       "nothing to check; capture the topology on a GPU node"});
    } else if (!any_rdma) {
        out.push_back({Severity::Warning, "no-rdma-nic",
                       "no RDMA compute NIC: NCCL falls back to TCP sockets between nodes",
                       "if the node has InfiniBand/RoCE HCAs, capture with their drivers loaded; "
                       "else plan for TCP bandwidth"});
    }
    // Per GPU: the set of NICs at the best class.
    BestNics best;
    std::set<std::string> nearest_of_some_gpu;
    if (any_rdma) {
        lint_gpu_nics(t, best, nearest_of_some_gpu, out);
        lint_shared_nics(t, best, out);
    }
    lint_nic_speeds(t, out);
    lint_pcie(t, out);
    lint_stray_nics(t, nearest_of_some_gpu, out);
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
        if (a.severity != b.severity) {
            return a.severity < b.severity;
        }
        return a.code < b.code;
    });
    return out;
}

}  // namespace planlayout
