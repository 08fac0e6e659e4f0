// Verify: multi-node NVLink (MNNVL) — did NCCL enable it where the plan has ranks on several nodes of
// one NVLink domain, and NVLS where it could use it. The log lines, from NVIDIA/nccl (commit
// 5067397c2676d5aed50042fc39e5c8ee96eb0027):
//   src/mnnvl.cc ncclMnnvlCheck: INFO(NCCL_INIT, "MNNVL %d cliqueId %x cliqueSize %d cliqueRank %d
//     nvlDomainSize %d", ...) when MNNVL is on (2.19-2.22: src/init.cc checkMNNVL, the same without
//     nvlDomainSize, printed for MNNVL 0 too);
//   src/init.cc: INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d", ...);
//   src/transport/nvls.cc ncclNvlsInit: INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d", ...).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "planlayout/verify/verify.hpp"

namespace planlayout::verify {
namespace {

const char* const kFixMnnvlOff =
    "MNNVL needs NCCL 2.19+ on CUDA 12.4+ with the IMEX service running on every tray "
    "(nvidia-imex-ctl -N) and NCCL_MNNVL_ENABLE unset (2: on when a clique spans ranks) or 1; "
    "nvidia-smi -q (Fabric) must show State Completed and one ClusterUUID and CliqueId per domain";

std::string log_place(const std::string& source, int line, const std::string& host, int pid) {
    return source + ":" + std::to_string(line) + (host.empty() ? "" : " (" + host + ":" + std::to_string(pid) + ")");
}

}  // namespace

std::vector<Finding> mnnvl_findings(const NcclLog& log, const VerifyExpectation& expectation, std::size_t mnnvl_p2p) {
    std::vector<Finding> out;
    // The plan's domains with ranks on two or more nodes: there NCCL must use MNNVL.
    std::map<int, std::set<int>> domain_nodes;
    std::map<int, int> rank_domain;
    for (const auto& r : expectation.ranks) {
        if (r.domain >= 0) {
            domain_nodes[r.domain].insert(r.node);
            rank_domain[r.rank] = r.domain;
        }
    }
    const bool planned = std::any_of(domain_nodes.begin(), domain_nodes.end(),
                                     [](const std::pair<const int, std::set<int>>& d) { return d.second.size() > 1; });
    std::size_t on = 0;
    const MnnvlLine* first_off = nullptr;
    std::size_t off = 0;
    std::set<std::string> cliques;
    int largest_clique = 0;
    for (const auto& m : log.mnnvl_lines) {
        if (m.enabled) {
            ++on;
            cliques.insert(m.clique_id);
            largest_clique = std::max(largest_clique, m.clique_size);
        } else {
            first_off = first_off == nullptr ? &m : first_off;
            ++off;
        }
    }
    std::vector<int> comm_off;  // planned ranks in a domain whose comm line says MNNVL 0
    bool comm_logged = false;
    for (const auto& [rank, info] : log.ranks) {
        comm_logged = comm_logged || info.mnnvl >= 0;
        if (info.mnnvl == 0 && rank_domain.count(rank) > 0 && domain_nodes[rank_domain[rank]].size() > 1) {
            comm_off.push_back(rank);
        }
    }
    if (!planned) {
        if (on > 0) {
            out.push_back({Severity::Warning, "mnnvl-unplanned",
                           "NCCL enabled MNNVL (" + std::to_string(on) + " 'MNNVL 1' line(s), clique(s) of up to " +
                               std::to_string(largest_clique) + " ranks) but the plan has no NVLink domain spanning nodes: "
                               "it costs those pairs over the network",
                           "give the cluster its nvlink_domain (docs/nvlink-domains.md), or --nvlink-domain N", -1, -1});
        }
        return out;
    }
    if (off > 0 || !comm_off.empty()) {
        std::string where = first_off != nullptr ? "; first: " + log_place(first_off->source, first_off->line, first_off->host, first_off->pid)
                                                 : "; first: rank " + std::to_string(comm_off.front());
        out.push_back({Severity::Error, "mnnvl-off",
                       "the plan has ranks on several nodes of one NVLink domain but NCCL logged MNNVL 0 (" +
                           std::to_string(off) + " MNNVL line(s), " + std::to_string(comm_off.size()) + " comm line(s)" + where +
                           "): it connects those ranks over the network",
                       kFixMnnvlOff, comm_off.empty() ? -1 : comm_off.front(), -1});
    } else if (on == 0 && !comm_logged) {
        out.push_back({Severity::Warning, "mnnvl-not-logged",
                       "the plan has ranks on several nodes of one NVLink domain but the log has no MNNVL line "
                       "('MNNVL 1 cliqueId ...' or a comm line's 'MNNVL 1'), so whether NCCL used MNNVL is unknown",
                       "log with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS including INIT) on NCCL 2.19+; an older NCCL has no "
                       "MNNVL and uses the network between trays",
                       -1, -1});
    }
    if (on > 0) {
        std::string ids;
        for (const auto& c : cliques) {
            ids += (ids.empty() ? "" : ", ") + c;
        }
        out.push_back({Severity::Info, "mnnvl-on",
                       "NCCL enabled MNNVL in " + std::to_string(on) + " line(s) (clique id(s) " + ids + ", up to " +
                           std::to_string(largest_clique) + " ranks of a communicator in one clique); " +
                           std::to_string(mnnvl_p2p) + " connection(s) between nodes of one NVLink domain over NVLink (P2P)",
                       "", -1, -1});
    }
    std::size_t nvls_on = 0;
    std::size_t nvls_off = 0;
    for (const auto& n : log.nvls_lines) {
        (n.available ? nvls_on : nvls_off) += 1;
    }
    if (nvls_on + nvls_off > 0) {
        out.push_back({nvls_off > 0 ? Severity::Warning : Severity::Info, nvls_off > 0 ? "nvls-unavailable" : "nvls-available",
                       "NVLS multicast support is available on " + std::to_string(nvls_on) + " and not available on " +
                           std::to_string(nvls_off) + " GPU(s) logged" +
                           (nvls_off > 0 ? ": NCCL cannot use NVLS/NVLSTree there and falls back to rings and trees "
                                           "(the cost model's NVLink ring)"
                                         : ": NCCL may pick NVLS/NVLSTree for all-reduce, reduce-scatter and all-gather "
                                           "inside the domain (docs/cost-model.md, MNNVL)"),
                       nvls_off > 0 ? "NVLS needs the NVLink switches' multicast (Fabric Manager / IMEX) and NCCL_NVLS_ENABLE "
                                      "unset or 1"
                                    : "",
                       -1, -1});
    }
    return out;
}

}  // namespace planlayout::verify
