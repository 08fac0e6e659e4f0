// Fabric load: the bytes per step that node pairs exchange and that each link of the rail / leaf /
// spine fabric carries, from the groups, the pairs each collective uses and the score's bytes
// (docs/diagrams.md "Views at scale" states the model). Pure functions; linear in the used pairs
// (never O(ranks^2)): 131,072 ranks take a fraction of a second.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/model/collective_op.hpp"
#include "planlayout/model/score.hpp"
#include "planlayout/parallel/groups.hpp"
#include "planlayout/parallel/placement.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// What one group kind sends per stable step, from the score (KindBreakdown).
struct KindTraffic {
    std::string kind;
    double bytes_per_rank = 0;         // sizes × calls per rank (KindBreakdown::bytes_per_step)
    std::vector<CollectiveOp> ops;     // its collectives ("reduce_scatter+all_gather" → two)

    /// Bytes one rank puts on the wire per step in a group of n: bytes_per_rank × the largest
    /// nccl-tests bus factor of its collectives (2(n−1)/n all-reduce, (n−1)/n AG/RS/A2A, 1 send/recv;
    /// every kind Megatron creates uses collectives of one factor).
    [[nodiscard]] double wire_bytes(std::int64_t n) const;
};

/// The kinds of a score with bytes, in the score's order. Empty without a score.
[[nodiscard]] std::vector<KindTraffic> kind_traffic(const std::optional<Score>& score);

/// Bytes per step a group's used pairs carry, both directions together (the weight model):
/// - ring (all-reduce, all-gather, reduce-scatter, the CP ring): each ring edge carries the
///   rank's wire bytes w; inside a node that is one pair; at a node boundary (one per node, two
///   when the ring spans two nodes) w is split evenly over the rails that cross it (one ring per
///   rail, as NCCL runs them); a two-rank ring's one pair carries 2w;
/// - all-to-all: every pair carries 2·B/n (each rank sends B/n to each peer);
/// - pipeline send/recv: each stage-neighbour pair carries B (activations one way, gradients back);
/// - embedding groups: as a ring.
/// `traffic` null: every used pair weighs 1 (pair counts, when the layout has no score).
struct PairBytes {
    std::int64_t a = 0;  // ranks, a < b
    std::int64_t b = 0;
    PathClass cls = PathClass::Loc;
    double bytes = 0;
};

/// Every used pair of one group of a kind with its weight (the model above).
[[nodiscard]] std::vector<PairBytes> group_pair_bytes(const GroupKind& kind,
                                                      std::int64_t group,
                                                      const Cluster& cluster,
                                                      const Placement& placement,
                                                      const KindTraffic* traffic);

/// One cell of a node × node (or block × block) matrix: bytes per step between the two cells'
/// nodes, both directions, per path class. Both halves are present (symmetric).
struct MatrixCell {
    std::int64_t row = 0;
    std::int64_t col = 0;
    std::array<double, kPathClassCount> bytes{};

    [[nodiscard]] double total() const;
    /// The class carrying the most bytes (ties: the worse class).
    [[nodiscard]] PathClass dominant() const;
};

struct TrafficMatrix {
    std::string kind;
    std::int64_t first_node = 0;       // the node of row and column 0
    std::int64_t nodes = 0;            // nodes covered
    std::int64_t block = 1;            // nodes per cell
    std::int64_t cells = 0;            // per side: ⌈nodes / block⌉
    bool bytes_known = false;          // false: the weights are used-pair counts
    std::vector<MatrixCell> entries;   // non-zero cells, by (row, col)
    double max_total = 0;              // the largest cell
    double min_total = 0;              // the smallest non-zero cell
    std::array<double, kPathClassCount> class_bytes{};  // per class, every pair once
};

/// The node × node matrix of one kind at `block` nodes per cell (block ≥ 1). `traffic` null:
/// used-pair counts. Only pairs with both nodes in [first_node, first_node + nodes) count (nodes
/// < 0: to the last node). Sparse: cost grows with the used pairs, not with cells².
[[nodiscard]] TrafficMatrix traffic_matrix(const Cluster& cluster,
                                           const Placement& placement,
                                           const GroupKind& kind,
                                           const KindTraffic* traffic,
                                           std::int64_t block,
                                           std::int64_t first_node = 0,
                                           std::int64_t nodes = -1);

/// The link tiers of the fabric.
enum class LinkTier { NodeLeaf, NodeTcp, LeafSpine, SpineCore };

[[nodiscard]] std::string_view to_string(LinkTier t);

/// One row of the load chart: the links of one tier (and rail), their busiest link.
/// Bytes are per step in each direction (collectives load both directions alike: half of the
/// bytes the pairs through a link exchange).
struct TierLoad {
    LinkTier tier = LinkTier::NodeLeaf;
    int rail = -1;                   // NodeLeaf, and LeafSpine on rail-aligned fabrics; else -1
    std::int64_t links = 0;          // links in the row
    std::int64_t loaded_links = 0;   // of which carry traffic
    double total_bytes = 0;          // summed over its links
    double max_bytes = 0;            // the busiest link
    std::string busiest;             // "node17 rail 3 -> leaf3", "leaf3 -> spine0", "pod1 -> core"
    std::vector<double> busiest_by_kind;  // the busiest link's bytes per kind (FabricLoad::kinds)
    double capacity_gbyte_s = 0;     // the busiest link's one-direction capacity (0: unknown)
    double seconds = 0;              // max_bytes / capacity (0 when unknown)

    [[nodiscard]] double mean_bytes() const;
};

struct FabricLoad {
    std::vector<std::string> kinds;  // the kinds with bytes, as kind_traffic() orders them
    std::vector<TierLoad> rows;      // NodeLeaf by rail, NodeTcp, LeafSpine (by rail), SpineCore
    std::optional<std::size_t> bottleneck;  // the row whose busiest link needs the most time
                                            // (the most bytes when no capacity is known)
    std::int64_t leaves = 0;
    std::int64_t pods = 0;
    int rails = 0;
    // Every link's bytes per step (each direction, all kinds) and capacity (GB/s, one direction).
    std::vector<double> nic_bytes;         // node * rails + rail
    std::vector<double> leaf_up_bytes;     // leaf
    std::vector<double> leaf_up_gbyte_s;
    std::vector<double> pod_up_bytes;      // pod
    std::vector<double> pod_up_gbyte_s;
};

/// Per-link loads: every cross-node used pair routed by its class — RAIL: both NICs; PXN: the
/// NICs of the peer's rail (the relay's); XRAIL: both NICs and both leaves' uplinks; XPOD: and
/// both pods' core uplinks; a rank without an RDMA NIC: both nodes' TCP interfaces. Capacities:
/// a NIC its line rate, a leaf's uplinks its downlinks' line rates / oversubscription, a pod's
/// core uplinks the sum of its leaves' (no core oversubscription is modelled).
[[nodiscard]] FabricLoad fabric_load(const Cluster& cluster,
                                     const Placement& placement,
                                     const Groups& groups,
                                     const std::vector<KindTraffic>& traffic);

}  // namespace planlayout
