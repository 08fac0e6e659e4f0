// Arms: which transports the hardware of the used GPUs can run, and why.
#include "planlayout/analysis/arms.hpp"

#include <algorithm>
#include <cstddef>
#include <tuple>

namespace planlayout {
namespace {

// The worst used GPU: its node, its local index and what its network reaches.
struct Witness {
    NetworkReach reach = NetworkReach::GpuDirect;
    std::int32_t node = -1;
    int gpu = -1;
};

NetworkReach reach_of(const Cluster& c, std::int32_t node, int gpu) {
    const TemplateFacts& f = c.facts_of(node);
    const int rail = f.gpu_rail[static_cast<std::size_t>(gpu)];
    if (rail < 0) {
        return NetworkReach::NoRdma;
    }
    return f.gpu_nic_class[static_cast<std::size_t>(gpu)] > c.template_of(node).gdr_level ? NetworkReach::HostStaged
                                                                                        : NetworkReach::GpuDirect;
}

// The worst GPU the placement uses (see the ordering below), and whether ranks sit on two or
// more nodes.
Witness worst_used_gpu(const Cluster& c, const Placement& p, bool& spans_nodes) {
    // Per template (its facts are the same on every node that uses it) and GPU: the first node
    // that places a rank there, or -1.
    std::vector<std::vector<std::int32_t>> first(c.templates.size());
    spans_nodes = false;
    for (std::size_t r = 0; r < p.node.size(); ++r) {
        const std::int32_t n = p.node[r];
        spans_nodes = spans_nodes || n != p.node.front();
        auto& f = first[static_cast<std::size_t>(c.nodes[static_cast<std::size_t>(n)].template_index)];
        if (f.empty()) {
            f.assign(static_cast<std::size_t>(c.facts_of(n).gpu_count), -1);
        }
        auto& slot = f[static_cast<std::size_t>(p.gpu[r])];
        slot = slot < 0 ? n : std::min(slot, n);
    }
    // Worst reach first, then the farthest GPU↔NIC class (the gdr_level that would cover every
    // used GPU); ties to the lowest node, then the lowest GPU.
    Witness w{NetworkReach::GpuDirect, -1, 0};
    const auto key = [&c](const Witness& x) {
        const auto cls = static_cast<int>(c.facts_of(x.node).gpu_nic_class[static_cast<std::size_t>(x.gpu)]);
        return std::make_tuple(x.reach, -cls, x.node, x.gpu);
    };
    for (const auto& f : first) {
        for (std::size_t g = 0; g < f.size(); ++g) {
            if (f[g] < 0) {
                continue;
            }
            const Witness x{reach_of(c, f[g], static_cast<int>(g)), f[g], static_cast<int>(g)};
            if (w.node < 0 || key(x) < key(w)) {
                w = x;
            }
        }
    }
    return w;
}

std::string template_label(const NodeTemplate& t) { return t.name.empty() ? t.source : t.name; }

// The best transport the reach allows for a requested one.
Transport allowed(Transport requested, NetworkReach reach) {
    switch (reach) {
        case NetworkReach::NoRdma:
            return Transport::Tcp;
        case NetworkReach::HostStaged:
            return requested == Transport::Gdrdma ? Transport::Rdma : requested;
        case NetworkReach::GpuDirect:
            return requested;
    }
    return requested;
}

// The cause in a few words, for the warning that names the template.
std::string short_why(const Cluster& c, const Witness& w) {
    const NodeTemplate& t = c.template_of(w.node);
    const TemplateFacts& f = c.facts_of(w.node);
    const std::string where = template_label(t) + " (" + c.nodes[static_cast<std::size_t>(w.node)].host + ")";
    if (w.reach == NetworkReach::NoRdma) {
        return where + " has no RDMA NIC for compute traffic";
    }
    if (t.gdr_level == PathClass::Loc) {
        return where + " has GPUDirect RDMA off (gdr_level LOC)";
    }
    const auto gpu = static_cast<std::size_t>(w.gpu);
    return where + ": " + t.gpus[gpu].name + " reaches its NIC over " + std::string(to_string(f.gpu_nic_class[gpu])) +
           ", beyond gdr_level " + std::string(to_string(t.gdr_level));
}

std::string why(const Cluster& c, const Witness& w) {
    const NodeTemplate& t = c.template_of(w.node);
    const TemplateFacts& f = c.facts_of(w.node);
    const std::string where = template_label(t) + " (" + c.nodes[static_cast<std::size_t>(w.node)].host + ")";
    if (w.reach == NetworkReach::NoRdma) {
        return "no RDMA NIC for compute traffic on " + where +
               ": cross-node traffic can only take TCP sockets (NCCL's NET/Socket)";
    }
    const auto gpu = static_cast<std::size_t>(w.gpu);
    const Nic& nic = t.nics[static_cast<std::size_t>(f.rail_nics[static_cast<std::size_t>(f.gpu_rail[gpu])])];
    const std::string cls(to_string(f.gpu_nic_class[gpu]));
    if (t.gdr_level == PathClass::Loc) {
        return "GPUDirect RDMA is off on " + where + " (gdr_level LOC): its RDMA is host-staged, through CPU memory";
    }
    const bool via_cpu = f.gpu_nic_class[gpu] >= PathClass::Phb;
    return t.gpus[gpu].name + " of " + where + " reaches its NIC " + (nic.device.empty() ? nic.name : nic.device) +
           (via_cpu ? " only through the CPU (" + cls + ")" : " over " + cls) + ", beyond GPUDirect RDMA's reach (gdr_level " +
           std::string(to_string(t.gdr_level)) + (t.gdr_level == PathClass::Pxb ? ", NCCL_NET_GDR_LEVEL's default" : "") +
           "): its RDMA is host-staged; set \"gdr_level\": \"" + cls +
           "\" in the node template if GPUDirect is known to work there";
}

}  // namespace

ArmChoice choose_arms(const Cluster& cluster, const Placement& placement, const TransportSpec& spec) {
    ArmChoice a;
    a.requested_baseline = a.baseline = spec.baseline;
    a.requested_candidate = a.candidate = spec.candidate;
    const Witness w = worst_used_gpu(cluster, placement, a.spans_nodes);
    if (is_intra_arm(spec.baseline) || is_intra_arm(spec.candidate)) {
        if (a.spans_nodes) {
            a.reach = w.reach;
            a.network = allowed(Transport::Gdrdma, w.reach);
            a.reasons.push_back(std::string(to_string(spec.baseline)) + " and " + std::string(to_string(spec.candidate)) +
                                " differ inside nodes only; between nodes both arms use " +
                                std::string(to_string(a.network)) + ", the best transport the used GPUs allow");
        }
        return a;
    }
    if (!a.spans_nodes) {
        return a;  // nothing crosses a NIC: the arms differ only inside the node (tcp.inside_node)
    }
    a.reach = w.reach;
    a.baseline = allowed(spec.baseline, w.reach);
    a.candidate = allowed(spec.candidate, w.reach);
    if (a.baseline == spec.baseline && a.candidate == spec.candidate) {
        return a;
    }
    const std::string cause = why(cluster, w);
    const std::string asked = std::string(to_string(spec.baseline)) + " with " + std::string(to_string(spec.candidate));
    const std::string now = a.single_arm() ? "the step is predicted for " + std::string(to_string(a.baseline)) +
                                                 " only, and no RDMA benefit is claimed"
                                           : "the arms compared are " + std::string(to_string(a.baseline)) + " and " +
                                                 std::string(to_string(a.candidate));
    a.reasons.push_back(cause + "; " + now);
    if (spec.compare_given) {
        a.warnings.push_back("transport.compare asks for " + asked + ", which the hardware cannot run: " +
                             short_why(cluster, w) + "; " +
                             (a.single_arm() ? "the score has the " + std::string(to_string(a.baseline)) + " arm only"
                                             : "comparing " + std::string(to_string(a.baseline)) + " with " +
                                                   std::string(to_string(a.candidate)) + " instead"));
    }
    if (a.candidate == spec.candidate) {
        return a;
    }
    // What the requested candidate would give on hardware that allows it.
    const Transport lost = spec.candidate;
    WhatIfHardware h;
    h.transport = lost;
    h.add_rail_nics = w.reach == NetworkReach::NoRdma;
    h.words = h.add_rail_nics ? "one 400 Gbit/s RDMA NIC per GPU, rail-aligned" +
                                    std::string(lost == Transport::Gdrdma ? ", GPUDirect" : "")
                              : "GPUDirect RDMA to the same NICs (each GPU and its NIC behind one PCIe switch)";
    a.what_if = h;
    return a;
}

}  // namespace planlayout
