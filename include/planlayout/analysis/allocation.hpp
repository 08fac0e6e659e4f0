// Analysis: an allocation (the nodes Slurm handed out: --nodelist, or a hostfile naming part of
// an imported fabric) against a compact allocation of the same size. Which groups straddle leaf
// groups, spine pods or NVLink domains, and the same layout placed on consecutive nodes of one
// leaf group (else one pod, else one domain) as far as possible. Pure arithmetic over the
// cluster's leaf/pod/domain of each node; no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/parallel/groups.hpp"
#include "planlayout/parallel/placement.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// What a set of nodes spans: leaf groups, pods, NVLink domains (nodes in none count as none).
struct Span {
    std::int64_t nodes = 0;
    std::int64_t leaves = 0;
    std::int64_t pods = 0;
    std::int64_t domains = 0;
};

/// One kind's groups that straddle a level, with the first such group as an example.
struct KindStraddle {
    std::string kind;
    std::int64_t groups = 0;
    std::int64_t size = 0;          // ranks per group
    std::int64_t over_leaves = 0;   // groups whose nodes are in more than one leaf group
    std::int64_t over_pods = 0;     // ... more than one spine pod
    std::int64_t over_domains = 0;  // ... more than one NVLink domain, or partly outside one
    std::string example;            // "group 3 (ranks 24-31): su0 h100-012..h100-018, su1 h100-019"; empty: none straddles
};

/// The same layout on a compact allocation: per arm (0 baseline, 1 candidate) the step and each
/// kind's time on the allocation and on the compact nodes.
struct CompactKindTime {
    std::string kind;
    double time_s[2] = {0, 0};
    double compact_time_s[2] = {0, 0};
};

struct AllocationReport {
    Span span;                        // the allocation's nodes
    Span compact_span;                // the compact allocation's
    std::vector<std::int32_t> nodes;          // the allocation's nodes (allocation_nodes order)
    std::vector<std::int32_t> compact_nodes;  // the compact allocation's, in the same order
    std::string compact_where;        // "one leaf group (su0)", "one pod (spine0)", ... in words
    std::vector<KindStraddle> kinds;  // in creation order
    bool scored = false;              // step times below are set (the layout has a model)
    double step_time_s[2] = {0, 0};
    double compact_step_time_s[2] = {0, 0};
    std::vector<CompactKindTime> by_kind;  // kinds with time on either allocation, in the score's order
};

/// The distinct nodes of a placement, in the order ranks first reach them.
[[nodiscard]] std::vector<std::int32_t> allocation_nodes(const Placement& placement);

/// What `nodes` span.
[[nodiscard]] Span span_of(const Cluster& cluster, const FabricDomains& d, const std::vector<std::int32_t>& nodes);

/// Per kind, its groups that straddle leaf groups, pods or NVLink domains.
[[nodiscard]] std::vector<KindStraddle> straddles(const Cluster& cluster, const Placement& placement,
                                                  const Groups& groups, const std::vector<std::string>& kinds);

/// The compact allocation of the same size: the allocation's i-th node (allocation_nodes order)
/// becomes the i-th of a window of consecutive nodes (fabric order) that spans the fewest NVLink
/// domains, then pods, then leaf groups, starting at a leaf group's first node (the first such
/// window wins); each rank keeps its local GPU. nullopt when no window fits the ranks (a node
/// with fewer GPUs than the rank's) or the cluster is no larger than the allocation and already
/// in order. `where` gets the window in words.
[[nodiscard]] std::optional<Placement> compact_placement(const Cluster& cluster, const Placement& placement,
                                                         std::string& where);

}  // namespace planlayout
