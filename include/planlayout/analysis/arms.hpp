// Arms: the transports the score compares follow the hardware of the GPUs a job uses
// (docs/cost-model.md §4, "Which arms").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planlayout/model/model_spec.hpp"
#include "planlayout/model/numbers/gpu.hpp"
#include "planlayout/parallel/placement.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// What the network of the used GPUs can do, worst first.
enum class NetworkReach {
    NoRdma,      // some used GPU has no compute RDMA NIC: TCP sockets only
    HostStaged,  // RDMA NICs, but some used GPU reaches its NIC beyond the template's gdr_level
    GpuDirect,   // every used GPU reaches its NIC within gdr_level (or the job stays on one node)
};

/// A what-if the score computes when the hardware took an arm away: the requested transport on
/// hardware the nodes lack.
struct WhatIfHardware {
    Transport transport = Transport::Gdrdma;
    bool add_rail_nics = false;  // one RDMA NIC per GPU, rail-aligned (the nodes have none)
    double nic_gbit_s = numbers::kWhatIfNicGbitS;  // their line rate (gpu.what_if.rail_nic_gbit_s)
    std::string words;           // "one 400 Gbit/s RDMA NIC per GPU, rail-aligned, GPUDirect"
};

struct ArmChoice {
    Transport requested_baseline = Transport::Tcp;  // transport.compare, as the layout asks
    Transport requested_candidate = Transport::Gdrdma;
    Transport baseline = Transport::Tcp;            // the arms the hardware allows
    Transport candidate = Transport::Gdrdma;
    Transport network = Transport::Gdrdma;          // p2p/shm arms: the network both use
    NetworkReach reach = NetworkReach::GpuDirect;
    bool spans_nodes = false;                    // the job places ranks on two or more nodes
    std::vector<std::string> reasons;            // why the arms differ from the requested ones
    std::vector<std::string> warnings;           // the layout named an arm the hardware cannot run
    std::optional<WhatIfHardware> what_if;       // set when an arm was taken away

    /// Both arms are the same transport: the score predicts one step and no benefit.
    [[nodiscard]] bool single_arm() const { return baseline == candidate; }
};

/// Decides the arms from the GPUs the placement uses: a job's RDMA arm is only as good as the
/// worst GPU it places a rank on. No compute RDMA NIC → TCP only (gdrdma and rdma become tcp);
/// a GPU↔NIC path beyond the template's gdr_level (NCCL's default PXB: PHB, NODE and SYS go
/// through the CPU) → host-staged (gdrdma becomes rdma). A job on one node crosses no NIC and
/// keeps the requested arms. An arm the layout named explicitly (spec.compare_given) and the
/// hardware cannot run gives a warning naming the node template; the allowed arm is used.
/// p2p/shm arms (inside a node) run on every node; their network is the best the reach allows
/// (gdrdma, else rdma, else tcp), the same in both arms, and named in reasons when the job spans nodes.
[[nodiscard]] ArmChoice choose_arms(const Cluster& cluster, const Placement& placement, const TransportSpec& spec);

}  // namespace planlayout
