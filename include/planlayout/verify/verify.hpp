// Verify: what NCCL chose (parsed INFO logs) against what the plan expects, as findings.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/finding.hpp"
#include "planlayout/ingest/nccl_log.hpp"

namespace planlayout::verify {

/// The cross-node transport an A/B arm is meant to use.
enum class ExpectedTransport {
    GdrDma,  // NET/IB…/GDRDMA: GPUDirect RDMA
    Rdma,    // NET/IB without GDRDMA: RDMA staged through host memory
    Tcp,     // NET/Socket
};

[[nodiscard]] const char* to_string(ExpectedTransport t);

/// The path between GPUs of one node an arm is meant to use.
enum class ExpectedIntra {
    P2p,  // P2P/IPC, P2P/CUMEM, P2P/direct: NVLink or PCIe peer access (NCCL's choice when it can)
    Shm,  // SHM/…: staged through host memory (the shm arm: NCCL_P2P_DISABLE=1)
};

[[nodiscard]] const char* to_string(ExpectedIntra t);

/// "gdrdma" | "rdma" | "tcp"; throws a usage Error naming `where` otherwise.
[[nodiscard]] ExpectedTransport parse_expected_transport(const std::string& text,
                                                         const std::string& where);

/// Where the plan puts one rank and which NIC (rail) it must send through.
struct RankExpectation {
    int rank = -1;
    int node = -1;
    int local_gpu = -1;
    std::string nic_device;  // "mlx5_3"; compared with the log's device name when both are known
    int nic_index = -1;      // NCCL's `[k]` index; compared when a name is missing
    /// Every NIC NCCL may pick for this rank: the GPU's nearest NICs (NCCL's ncclTopoGetLocal:
    /// highest bandwidth, then shortest PCI path), shared by the GPUs that have the same set.
    /// Holds nic_device/nic_index first; one entry on a rail-per-GPU node.
    std::vector<std::string> nic_devices;
    std::vector<int> nic_indices;
    int domain = -1;  // the node's multi-node NVLink domain (-1: none): ranks on two nodes of one domain
                      // are MNNVL, connected over NVLink (P2P), never the network
};

struct VerifyExpectation {
    std::vector<RankExpectation> ranks;
    ExpectedTransport expect = ExpectedTransport::GdrDma;
    ExpectedIntra intra = ExpectedIntra::P2p;
};

/// One rank's placement as a layout computes it (the lead's `--layout` fills this list).
struct RankPlacement {
    int rank = -1;
    int node = -1;
    int local_gpu = -1;
    int nic_index = -1;  // the rail NIC; -1 → same as local_gpu
    std::string nic_device;  // its device name on this rank's node, when known (wins over nic_names)
    /// The other NICs as near to this GPU as nic_index (NCCL may pick any of them); empty: none.
    std::vector<int> other_nic_indices;
    std::vector<std::string> other_nic_devices;  // their names, when known (same order)
    int domain = -1;     // the node's multi-node NVLink domain; -1: none
};

/// Builds the expectation from a placement. nic_names[i] names NIC index i (e.g. from
/// `--nics mlx5_0,mlx5_1`); a missing name becomes "mlx5_<i>". Throws a usage Error on a
/// negative field or a rank listed twice.
[[nodiscard]] VerifyExpectation expectation_from_placement(
    const std::vector<RankPlacement>& placement,
    const std::vector<std::string>& nic_names,
    ExpectedTransport expect);

/// Node-major, rail-aligned placement: rank r → node r/G, GPU r%G, NIC r%G.
[[nodiscard]] std::vector<RankPlacement> rail_aligned_placement(int nodes, int gpus_per_node);

/// The NICs a `--nics` list describes for G GPUs per node, as (NIC index per GPU, NIC names by
/// index). One name per GPU: GPU i uses the i-th name; a name repeated (mlx5_0,mlx5_0,…) is one
/// NIC shared by those GPUs. Fewer names than GPUs, N dividing G: NIC k serves GPUs
/// k*G/N … (k+1)*G/N-1 (one NIC for all: `--nics mlx5_0`; a NIC per GPU pair: 4 names for 8 GPUs).
/// NIC indices follow the names' first appearance. Throws a usage Error naming `where` when N
/// does not divide G or a name is empty.
struct NicList {
    std::vector<int> gpu_nic;         // GPU → NIC index
    std::vector<std::string> names;   // NIC index → name
};
[[nodiscard]] NicList nic_list(const std::vector<std::string>& names, int gpus_per_node, const std::string& where);

/// rail_aligned_placement with each GPU's NIC from a NicList.
[[nodiscard]] std::vector<RankPlacement> node_major_placement(int nodes, int gpus_per_node, const NicList& nics);

using planlayout::Finding;
using planlayout::Severity;

struct VerifyReport {
    NcclLog log;
    VerifyExpectation expectation;
    std::vector<Finding> findings;       // sorted: severity, rank, channel, code
    std::map<int, std::string> rank_hosts;  // ranks whose host the log reveals
    std::size_t ranks_seen = 0;          // distinct ranks at either end of a connection
    std::size_t errors = 0;
    std::size_t warnings = 0;
    std::size_t infos = 0;

    [[nodiscard]] bool passed() const { return errors == 0; }
};

/// Findings on the RDMA ports NCCL listed over the whole job (verify_nics.cpp):
/// `mixed-link-layer` (IB and RoCE ports) and `mixed-nic-speed` (ports of different speeds).
[[nodiscard]] std::vector<Finding> port_findings(const NcclLog& log);

/// Findings on multi-node NVLink (verify_mnnvl.cpp), from the log's `MNNVL …` and comm lines and
/// `NVLS multicast support …` lines: `mnnvl-off` (the plan has ranks on several nodes of one NVLink
/// domain, NCCL logged MNNVL 0), `mnnvl-not-logged`, `mnnvl-on` (with mnnvl_p2p, the connections
/// between nodes of one domain over P2P), `mnnvl-unplanned` (MNNVL on, no domain in the plan),
/// `nvls-available` / `nvls-unavailable` (only where the plan has MNNVL pairs).
[[nodiscard]] std::vector<Finding> mnnvl_findings(const NcclLog& log, const VerifyExpectation& expectation,
                                                  std::size_t mnnvl_p2p);

/// Findings on the job's size (verify_world.cpp), from the comm lines' `rank R nRanks N nNodes M`:
/// `rank-out-of-range` (a rank not below its line's nRanks, or past the plan's ranks),
/// `world-size-mismatch` (a communicator of more ranks than the plan), `node-count-mismatch`
/// (of more nodes). Sub-communicators are smaller than the job, so they never trip these.
[[nodiscard]] std::vector<Finding> world_findings(const NcclLog& log, std::size_t planned_ranks, std::size_t planned_nodes);

/// Runs every check. Never throws on log content.
[[nodiscard]] VerifyReport verify_log(const NcclLog& log, const VerifyExpectation& expectation);

/// The same, taking the log over instead of copying it (a big log's connections are most of
/// verify's memory).
[[nodiscard]] VerifyReport verify_log(NcclLog&& log, const VerifyExpectation& expectation);

}  // namespace planlayout::verify
