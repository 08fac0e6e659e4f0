// Verify: checks of NCCL's chosen connections against the plan (transport, rail NIC, P2P inside
// a node), and the text/JSON forms of the result.
#include "planlayout/verify/verify.hpp"

#include <algorithm>
#include <iomanip>
#include <set>
#include <sstream>
#include <tuple>

#include "planlayout/error.hpp"

namespace planlayout::verify {
namespace {

/// Groups repeated findings (one per rank and cause) and remembers their channels.
class FindingSink {
public:
    void add(Severity sev, const std::string& code, int rank, int channel, const std::string& key,
             const std::string& message, const std::string& fix) {
        const auto id = std::make_tuple(code, rank, key);
        auto it = index_.find(id);
        if (it == index_.end()) {
            index_.emplace(id, findings_.size());
            findings_.push_back({sev, code, message, fix, rank, channel});
            channels_.emplace_back();
            if (channel >= 0) {
                channels_.back().insert(channel);
            }
            return;
        }
        if (channel >= 0) {
            channels_[it->second].insert(channel);
        }
    }

    std::vector<Finding> take() {
        for (std::size_t i = 0; i < findings_.size(); ++i) {
            const auto& ch = channels_[i];
            if (ch.empty()) {
                continue;
            }
            findings_[i].channel = *ch.begin();
            std::string list;
            for (int c : ch) {
                list += (list.empty() ? "" : ",") + std::to_string(c);
            }
            findings_[i].message += (ch.size() == 1 ? " (channel " : " (channels ") + list + ")";
        }
        return std::move(findings_);
    }

private:
    std::map<std::tuple<std::string, int, std::string>, std::size_t> index_;
    std::vector<Finding> findings_;
    std::vector<std::set<int>> channels_;
};

std::string nic_text(int index, const std::string& name) {
    std::string s = index >= 0 ? "NIC " + std::to_string(index) : "NIC ?";
    return name.empty() ? s : s + " (" + name + ")";
}

const char* const kFixSocket =
    "NCCL found no usable RDMA device: check NCCL_IB_DISABLE/NCCL_NET, that rdma-core "
    "(libibverbs) is in the container and that the job requests the RDMA devices";
const char* const kFixNoGdr =
    "load nvidia-peermem or enable DMA-BUF (NCCL_DMABUF_ENABLE=1), check NCCL_NET_GDR_LEVEL, and "
    "keep each GPU and its NIC under one PCIe switch (PIX/PXB in nvidia-smi topo -m)";
const char* const kFixNotTcp = "set NCCL_IB_DISABLE=1 (or NCCL_NET=Socket) for the TCP arm";
const char* const kFixGdrInRdma =
    "set NCCL_NET_GDR_LEVEL=LOC for the rdma arm so the A/B isolates host-staged RDMA";
const char* const kFixShm =
    "P2P is disabled or unavailable, so GPUs of one node talk through host memory: unset "
    "NCCL_P2P_DISABLE, check NCCL_P2P_LEVEL (NCCL's default PXB refuses pairs through the CPU), ACS "
    "and IOMMU settings, `nvidia-smi topo -p2p r`, and that containers share an IPC namespace; the "
    "plan assumes P2P (analyze --compare p2p,shm predicts the cost of SHM)";
const char* const kFixP2pInShm =
    "set NCCL_P2P_DISABLE=1 for the shm arm (SHM must stay on: NCCL_SHM_DISABLE unset or 0)";
const char* const kFixNetInNode =
    "either the ranks really run on different hosts (launch them in the plan's order) or NCCL "
    "found neither P2P nor SHM between them (NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, containers "
    "without a shared /dev/shm or IPC namespace)";
const char* const kFixWrongNic =
    "keep each rank on its rail: NCCL_CROSS_NIC=0, NCCL_IB_HCA listing the NICs in GPU order, and "
    "check the GPU<->NIC affinity (PIX) in nvidia-smi topo -m; or correct --nics";
const char* const kFixMnnvl =
    "check that NCCL enabled MNNVL (its 'MNNVL 1 cliqueId' line; NCCL_MNNVL_ENABLE unset or 1; NCCL "
    "2.19+ with CUDA 12.4+), that the IMEX daemons see every tray (nvidia-imex-ctl -N) and that both "
    "trays report one ClusterUUID and CliqueId (nvidia-smi -q, Fabric); or correct the plan's nvlink_domain";
const char* const kFixPlacement =
    "launch ranks in the plan's order (node-major: rank r on node r/G) or describe the real "
    "placement with --layout";

// What the connection checks count over the log.
struct Tally {
    bool cross_node = false;      // some connection joins two nodes
    std::size_t mnnvl_p2p = 0;    // connections between nodes of one NVLink domain over P2P (NVLink)
};

void check_connection(const Connection& c,
                      const std::map<int, RankExpectation>& plan,
                      const VerifyExpectation& expectation,
                      FindingSink& sink,
                      Tally& tally) {
    const ExpectedTransport expect = expectation.expect;
    const auto src = plan.find(c.src_rank);
    const auto dst = plan.find(c.dst_rank);
    const bool both_known = src != plan.end() && dst != plan.end();
    const bool cross = both_known ? src->second.node != dst->second.node : is_net(c.kind);
    const int me = c.local_rank();
    const std::string pair = std::to_string(c.src_rank) + "->" + std::to_string(c.dst_rank);
    if (both_known && !cross) {
        if (c.kind == TransportKind::Shm && expectation.intra == ExpectedIntra::Shm) {
            // the shm arm: what it asks for
        } else if (is_p2p(c.kind) && expectation.intra == ExpectedIntra::Shm) {
            sink.add(Severity::Error, "intra-node-p2p", me, c.channel, pair,
                     "ranks " + pair + " share node " + std::to_string(src->second.node) +
                         " and NCCL used P2P (" + c.via + ") in the shm arm",
                     kFixP2pInShm);
        } else if (c.kind == TransportKind::Shm) {
            sink.add(Severity::Error, "intra-node-shm", me, c.channel, pair,
                     "ranks " + pair + " share node " + std::to_string(src->second.node) +
                         " but NCCL staged through host memory (" + c.via + ")",
                     kFixShm);
        } else if (is_net(c.kind)) {
            sink.add(Severity::Error, "intra-node-net", me, c.channel, pair,
                     "ranks " + pair + " share node " + std::to_string(src->second.node) +
                         " but NCCL used the network (" + c.via + ")",
                     kFixNetInNode);
        }
        return;
    }
    if (!cross) {
        return;
    }
    tally.cross_node = true;
    // MNNVL: two nodes of one NVLink domain (a GB200/GB300 NVL72 clique). NCCL fuses the clique into
    // one node (src/graph/topo.cc under comm->MNNVL) and connects such a pair with P2P over the
    // NVLink switches (P2P/CUMEM with FABRIC handles, src/transport/p2p.cc); NET there means MNNVL
    // was off or the clique was not what the plan says.
    if (both_known && src->second.domain >= 0 && src->second.domain == dst->second.domain) {
        if (is_p2p(c.kind)) {
            ++tally.mnnvl_p2p;
        } else if (is_net(c.kind) || c.kind == TransportKind::CollNet) {
            sink.add(Severity::Error, "mnnvl-over-network", me, c.channel, pair,
                     "ranks " + pair + " are on nodes " + std::to_string(src->second.node) + " and " +
                         std::to_string(dst->second.node) + " of one NVLink domain (MNNVL) but NCCL connected them over the network (" +
                         c.via + ")",
                     kFixMnnvl);
        }
        return;
    }
    if (both_known && !is_net(c.kind) && c.kind != TransportKind::CollNet) {
        sink.add(Severity::Error, "placement-mismatch", me, c.channel, pair,
                 "ranks " + pair + " are planned on nodes " + std::to_string(src->second.node) +
                     " and " + std::to_string(dst->second.node) + " but NCCL connected them with " +
                     to_string(c.kind) + ", so they share a host",
                 kFixPlacement);
        return;
    }
    if (c.kind == TransportKind::NetSocket) {
        if (expect != ExpectedTransport::Tcp) {
            sink.add(Severity::Error, "cross-node-socket", me, c.channel, "",
                     "cross-node traffic goes over TCP (" + c.via + ") where " +
                         to_string(expect) + " was expected",
                     kFixSocket);
        } else if (c.gdr) {
            sink.add(Severity::Info, "socket-gdr-label", me, c.channel, "",
                     "NET/Socket line carries /GDRDMA (" + c.via +
                         "); a socket cannot do GPUDirect RDMA, treated as TCP",
                     "");
        }
    } else if (c.kind == TransportKind::NetIb) {
        if (expect == ExpectedTransport::Tcp) {
            sink.add(Severity::Error, "cross-node-not-tcp", me, c.channel, "",
                     "cross-node traffic uses RDMA (" + c.via + ") in the TCP arm", kFixNotTcp);
        } else if (expect == ExpectedTransport::GdrDma && !c.gdr) {
            sink.add(Severity::Error, "cross-node-no-gdr", me, c.channel, "",
                     "cross-node traffic uses RDMA without GPUDirect (" + c.via +
                         "): data is staged through host memory",
                     kFixNoGdr);
        } else if (expect == ExpectedTransport::Rdma && c.gdr) {
            sink.add(Severity::Warning, "cross-node-gdr", me, c.channel, "",
                     "GPUDirect RDMA is on (" + c.via + ") in the rdma arm", kFixGdrInRdma);
        }
    } else if (c.kind == TransportKind::NetOther) {
        sink.add(Severity::Warning, "cross-node-unknown-net", me, c.channel, c.net_name,
                 "network plugin '" + c.net_name + "' is neither IB nor Socket; transport not checked",
                 "");
    }
    // Rails are RDMA NICs; a socket interface (eth0, ib0) is not one.
    if (!is_net(c.kind) || c.kind == TransportKind::NetSocket || c.net_dev < 0) {
        return;
    }
    // The NIC belongs to the local rank's rail, or to the relay's rail when PXN forwards it.
    int owner = me;
    if (c.pxn_relay_rank >= 0 && c.pxn_relay_rank != me) {
        owner = c.pxn_relay_rank;
        sink.add(Severity::Info, "pxn-relay", me, c.channel, std::to_string(owner),
                 "rank " + std::to_string(me) + " sends to rank " + std::to_string(c.dst_rank) +
                     " through rank " + std::to_string(owner) +
                     (c.pxn_relay_dev.empty() ? "" : " (GPU " + c.pxn_relay_dev + ")") + "'s " +
                     nic_text(c.net_dev, c.nic_device) + " (PXN)",
                 "");
    }
    const auto own = plan.find(owner);
    if (own == plan.end()) {
        return;
    }
    const RankExpectation& want = own->second;
    // NCCL's rule (src/graph/topo.cc ncclTopoGetLocalNetType): a GPU uses one of its local NICs,
    // those of highest bandwidth and then shortest PCI path; GPUs that share them take turns.
    // Any NIC of that set is right; with PXN the set is the relay GPU's.
    const bool by_name = !c.nic_device.empty() && !want.nic_device.empty();
    bool wrong = false;
    if (by_name) {
        wrong = want.nic_devices.empty()
                    ? c.nic_device != want.nic_device
                    : std::find(want.nic_devices.begin(), want.nic_devices.end(), std::string(c.nic_device)) ==
                          want.nic_devices.end();
    } else if (want.nic_index >= 0) {
        wrong = want.nic_indices.empty()
                    ? c.net_dev != want.nic_index
                    : std::find(want.nic_indices.begin(), want.nic_indices.end(), c.net_dev) == want.nic_indices.end();
    }
    if (wrong) {
        std::string rail = " rail is " + nic_text(want.nic_index, want.nic_device);
        if (want.nic_indices.size() > 1) {
            rail = " nearest NICs are ";
            for (std::size_t k = 0; k < want.nic_indices.size(); ++k) {
                rail += (k == 0 ? "" : ", ") +
                        nic_text(want.nic_indices[k], k < want.nic_devices.size() ? want.nic_devices[k] : "");
            }
        }
        sink.add(Severity::Error, "wrong-nic", me, c.channel,
                 std::to_string(c.net_dev) + c.nic_device,
                 "rank " + std::to_string(me) + " " + to_string(c.direction) + "s through " +
                     nic_text(c.net_dev, c.nic_device) + " but " +
                     (owner == me ? "its" : "relay rank " + std::to_string(owner) + "'s") + rail,
                 kFixWrongNic);
    }
}

void check_hosts(const std::map<int, std::string>& hosts,
                 const std::map<int, RankExpectation>& plan,
                 FindingSink& sink) {
    std::map<int, std::pair<int, std::string>> first_of_node;  // node → (rank, host)
    std::map<std::string, std::pair<int, int>> node_of_host;   // host → (node, rank)
    for (const auto& [rank, host] : hosts) {
        const auto it = plan.find(rank);
        if (it == plan.end() || host.empty()) {
            continue;
        }
        const int node = it->second.node;
        const auto [f, fresh] = first_of_node.emplace(node, std::make_pair(rank, host));
        if (!fresh && f->second.second != host) {
            sink.add(Severity::Error, "placement-mismatch", rank, -1, "host",
                     "rank " + std::to_string(rank) + " runs on host " + host + " but rank " +
                         std::to_string(f->second.first) + " of the same planned node " +
                         std::to_string(node) + " runs on " + f->second.second,
                     kFixPlacement);
        }
        const auto [h, new_host] = node_of_host.emplace(host, std::make_pair(node, rank));
        if (!new_host && h->second.first != node) {
            sink.add(Severity::Warning, "host-shared", rank, -1, "host",
                     "ranks " + std::to_string(h->second.second) + " and " + std::to_string(rank) +
                         " are planned on nodes " + std::to_string(h->second.first) + " and " +
                         std::to_string(node) + " but both log host '" + host + "'",
                     "unless host names were anonymised, " + std::string(kFixPlacement));
        }
    }
}

void check_global(const NcclLog& log,
                  const VerifyExpectation& e,
                  bool multi_node,
                  bool saw_cross_node,
                  FindingSink& sink) {
    const std::string expect = to_string(e.expect);
    if (log.connections.empty()) {
        sink.add(Severity::Error, "no-connections", -1, -1, "",
                 "no 'Channel ... via ...' connection lines in the log, nothing to verify",
                 "run with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS, if set, must include INIT,NET) and "
                 "pass every rank's log (NCCL_DEBUG_FILE=/path/nccl.%h.%p)");
    }
    if (log.skipped_connection_lines > 0) {
        std::string where;
        for (const auto& d : log.diagnostics) {
            where += (where.empty() ? ": " : ", ") + d;
        }
        const bool one = log.skipped_connection_lines == 1;
        sink.add(Severity::Warning, "unparsed-lines", -1, -1, "",
                 std::to_string(log.skipped_connection_lines) +
                     (one ? " connection line does" : " connection lines do") +
                     " not parse (truncated or damaged)" + where,
                 "pass the complete, unedited log");
    }
    if (multi_node) {
        for (const auto& net : log.networks()) {
            const bool socket = net.find("Socket") != std::string::npos;
            const bool ib = net.rfind("IB", 0) == 0;
            if (socket && e.expect != ExpectedTransport::Tcp) {
                sink.add(Severity::Error, "network-socket", -1, -1, net,
                         "NCCL chose 'Using network " + net + "' where " + expect + " was expected",
                         kFixSocket);
            } else if (ib && e.expect == ExpectedTransport::Tcp) {
                sink.add(Severity::Error, "network-not-tcp", -1, -1, net,
                         "NCCL chose 'Using network " + net + "' in the TCP arm", kFixNotTcp);
            }
        }
        if (!saw_cross_node && !log.connections.empty()) {
            sink.add(Severity::Warning, "no-cross-node", -1, -1, "",
                     "the plan spans nodes but the log shows no cross-node connection, so the "
                     "transport between nodes is unverified",
                     "pass the logs of ranks at node boundaries (or all ranks)");
        }
        if (e.expect == ExpectedTransport::GdrDma && log.rings_connected_gdr == 0) {
            sink.add(Severity::Warning, "rings-gdr-0", -1, -1, "",
                     "'Connected all rings, use ring PXN " +
                         std::to_string(log.rings_connected_pxn) + " GDR 0': rings run without "
                                                                   "GPUDirect RDMA",
                     kFixNoGdr);
        }
    }
    for (const auto& g : log.gdr_lines) {
        const std::string hca = nic_text(g.hca_index, g.hca);
        if (!g.enabled && e.expect == ExpectedTransport::GdrDma) {
            sink.add(Severity::Error, "gdr-disabled", -1, -1, hca + g.host,
                     "GPU Direct RDMA Disabled for " + hca +
                         (g.host.empty() ? "" : " on " + g.host),
                     kFixNoGdr);
        } else if (g.enabled && e.expect == ExpectedTransport::Rdma) {
            sink.add(Severity::Warning, "gdr-enabled", -1, -1, hca + g.host,
                     "GPU Direct RDMA Enabled for " + hca + " in the rdma arm", kFixGdrInRdma);
        }
    }
}

int severity_order(Severity s) { return static_cast<int>(s); }

}  // namespace

const char* to_string(ExpectedTransport t) {
    switch (t) {
        case ExpectedTransport::GdrDma: return "gdrdma";
        case ExpectedTransport::Rdma: return "rdma";
        case ExpectedTransport::Tcp: break;
    }
    return "tcp";
}

const char* to_string(ExpectedIntra t) { return t == ExpectedIntra::Shm ? "shm" : "p2p"; }

ExpectedTransport parse_expected_transport(const std::string& text, const std::string& where) {
    if (text == "gdrdma") {
        return ExpectedTransport::GdrDma;
    }
    if (text == "rdma") {
        return ExpectedTransport::Rdma;
    }
    if (text == "tcp") {
        return ExpectedTransport::Tcp;
    }
    throw input_error(where, "unknown transport '" + text + "'", "use gdrdma, rdma or tcp");
}

VerifyExpectation expectation_from_placement(const std::vector<RankPlacement>& placement,
                                             const std::vector<std::string>& nic_names,
                                             ExpectedTransport expect) {
    VerifyExpectation e;
    e.expect = expect;
    std::set<int> seen;
    for (const auto& p : placement) {
        const std::string where = "placement rank " + std::to_string(p.rank);
        if (p.rank < 0 || p.node < 0 || p.local_gpu < 0) {
            throw input_error(where, "rank, node and GPU must be non-negative",
                              "fix the layout's placement");
        }
        if (!seen.insert(p.rank).second) {
            throw input_error(where, "rank listed twice", "give each rank one placement");
        }
        RankExpectation r;
        r.rank = p.rank;
        r.node = p.node;
        r.local_gpu = p.local_gpu;
        r.domain = p.domain;
        r.nic_index = p.nic_index >= 0 ? p.nic_index : p.local_gpu;
        const auto name_of = [&](int index, const std::string& given) {
            const auto idx = static_cast<std::size_t>(index);
            if (!given.empty()) {
                return given;
            }
            if (idx < nic_names.size() && !nic_names[idx].empty()) {
                return nic_names[idx];
            }
            return "mlx5_" + std::to_string(index);
        };
        r.nic_device = name_of(r.nic_index, p.nic_device);
        r.nic_indices.push_back(r.nic_index);
        r.nic_devices.push_back(r.nic_device);
        for (std::size_t k = 0; k < p.other_nic_indices.size(); ++k) {
            const int other = p.other_nic_indices[k];
            if (other < 0 || std::find(r.nic_indices.begin(), r.nic_indices.end(), other) != r.nic_indices.end()) {
                continue;
            }
            r.nic_indices.push_back(other);
            r.nic_devices.push_back(name_of(other, k < p.other_nic_devices.size() ? p.other_nic_devices[k] : ""));
        }
        e.ranks.push_back(r);
    }
    std::sort(e.ranks.begin(), e.ranks.end(),
              [](const RankExpectation& a, const RankExpectation& b) { return a.rank < b.rank; });
    return e;
}

VerifyReport verify_log(const NcclLog& log, const VerifyExpectation& expectation) {
    return verify_log(NcclLog(log), expectation);
}

VerifyReport verify_log(NcclLog&& moved_log, const VerifyExpectation& expectation) {
    VerifyReport report;
    report.log = std::move(moved_log);  // the report holds the log: moved, not copied (issue #20)
    const NcclLog& log = report.log;
    report.expectation = expectation;
    std::map<int, RankExpectation> plan;
    std::set<int> nodes;
    for (const auto& r : expectation.ranks) {
        plan.emplace(r.rank, r);
        nodes.insert(r.node);
    }
    FindingSink sink;
    Tally tally;
    std::set<int> ranks;
    for (const auto& c : log.connections) {
        ranks.insert(c.src_rank);
        ranks.insert(c.dst_rank);
        check_connection(c, plan, expectation, sink, tally);
    }
    for (const auto& [rank, info] : log.ranks) {
        if (!info.host.empty()) {
            report.rank_hosts[rank] = info.host;
        }
    }
    if (!plan.empty()) {
        for (int r : ranks) {
            if (plan.count(r) == 0) {
                sink.add(Severity::Warning, "rank-not-in-plan", r, -1, "",
                         "rank " + std::to_string(r) + " appears in the log but not in the plan (" +
                             std::to_string(plan.size()) + " ranks)",
                         "check --nodes/--gpus-per-node against the job's world size");
            }
        }
        std::size_t silent = 0;
        for (const auto& [r, e] : plan) {
            silent += ranks.count(r) == 0 ? 1 : 0;
        }
        if (silent > 0 && !log.connections.empty()) {
            sink.add(Severity::Info, "ranks-not-in-log", -1, -1, "",
                     std::to_string(silent) + " of " + std::to_string(plan.size()) +
                         " planned ranks have no connection lines in the log",
                     "pass every rank's log to check them all");
        }
        check_hosts(report.rank_hosts, plan, sink);
    }
    check_global(log, expectation, nodes.size() > 1, tally.cross_node, sink);
    for (const auto& f : mnnvl_findings(log, expectation, tally.mnnvl_p2p)) {
        sink.add(f.severity, f.code, f.rank, f.channel, "", f.message, f.fix);
    }
    for (const auto& f : world_findings(log, plan.size(), nodes.size())) {
        sink.add(f.severity, f.code, f.rank, f.channel, "", f.message, f.fix);
    }
    for (const auto& f : port_findings(log)) {
        sink.add(f.severity, f.code, f.rank, f.channel, "", f.message, f.fix);
    }
    report.findings = sink.take();
    std::stable_sort(report.findings.begin(), report.findings.end(),
                     [](const Finding& a, const Finding& b) {
                         return std::make_tuple(severity_order(a.severity), a.rank, a.channel,
                                                a.code) <
                                std::make_tuple(severity_order(b.severity), b.rank, b.channel,
                                                b.code);
                     });
    for (const auto& f : report.findings) {
        report.errors += f.severity == Severity::Error ? 1 : 0;
        report.warnings += f.severity == Severity::Warning ? 1 : 0;
        report.infos += f.severity == Severity::Info ? 1 : 0;
    }
    report.ranks_seen = ranks.size();
    return report;
}

}  // namespace planlayout::verify
