// Edge classes: which GPU pairs each group's collective uses, and each pair's path class.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "planlayout/parallel/groups.hpp"
#include "planlayout/parallel/placement.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

using ClassCounts = std::array<std::int64_t, kPathClassCount>;

/// Classifies rank pairs by arithmetic over templates and rails (no path search).
class PairClassifier {
public:
    PairClassifier(const Cluster& cluster, const Placement& placement);

    /// Same node: the template's GPU↔GPU class. Different nodes of one NVLink domain: MNNVL.
    /// Other nodes: RAIL when both ranks' NICs hang
    /// off one leaf; PXN when PXN is on and one side has an NVLink-connected GPU whose NIC is on
    /// the other side's leaf; XRAIL through the spine of one pod; XPOD beyond it.
    [[nodiscard]] PathClass classify(std::int64_t a, std::int64_t b) const;

    /// One-direction GB/s of the narrowest link a pair of this class crosses.
    [[nodiscard]] double bandwidth_gbyte_s(std::int64_t a, std::int64_t b, PathClass c) const;

    [[nodiscard]] int rail_of(std::int64_t rank) const;

    [[nodiscard]] PathClass nic_class_of(std::int64_t rank) const;

    /// The rank's NVLink island: its node, or its node's NVLink domain (numbered after the nodes).
    [[nodiscard]] std::int64_t island_of(std::int64_t rank) const;

    /// True when the cluster has multi-node NVLink domains.
    [[nodiscard]] bool has_domains() const { return !cluster_.nvlink.empty(); }

    /// GPUs of the node a rank is placed on (its own template).
    [[nodiscard]] int gpus_on_node_of(std::int64_t rank) const;

private:
    const Cluster& cluster_;
    const Placement& placement_;
};

/// One distinct group footprint of a kind (groups of a kind usually share one).
struct GroupFootprint {
    std::int64_t n = 0;            // ranks
    int nodes = 0;                 // nodes spanned
    int max_per_node = 0;          // g = max ranks on one node
    int gpus_per_node = 0;         // most GPUs of any node it touches (that node's template)
    int min_rails_per_node = 0;    // r = fewest distinct rail NICs its ranks use on a node
    PathClass worst_intra = PathClass::Loc;
    PathClass worst_cross = PathClass::Loc;  // Loc when nothing crosses nodes
    PathClass worst_gpu_nic = PathClass::Loc;  // worst GPU↔NIC class among its ranks
    double bottleneck_gbyte_s = 0;  // narrowest used link, one direction (0: no pair)
    ClassCounts pairs{};           // used pairs per class, for one group
    std::int64_t groups = 0;       // groups of the kind with exactly this footprint
    // NVLink islands: a node, or all the nodes of one multi-node NVLink domain, which NCCL fuses
    // into one (the cost model's "node"); without domains these equal the node figures above.
    int islands = 0;               // islands spanned
    int max_per_island = 0;        // most ranks in one island
    int min_nics_per_island = 0;   // fewest distinct NICs (node, rail) its ranks use in an island
    int max_nodes_per_island = 0;  // most nodes of one island it touches (their TCP interfaces add up)
};

struct KindEdges {
    std::string kind;
    std::string role;  // GroupKind::role: the traffic the kind carries (the score keys by it)
    Pattern pattern = Pattern::Ring;
    std::int64_t groups = 0;
    std::int64_t size = 0;
    int max_nodes = 0;
    ClassCounts pairs{};           // summed over all groups
    PathClass worst = PathClass::Loc;
    double bottleneck_gbyte_s = 0;
    std::vector<GroupFootprint> footprints;  // distinct footprints, worst first

    [[nodiscard]] std::int64_t cross_pairs() const;
    [[nodiscard]] std::int64_t total_pairs() const;
};

/// A kind's summary before any group is classified: name, pattern, group count and size.
[[nodiscard]] KindEdges kind_edges_of(const GroupKind& kind);

/// The pairs a collective of this pattern uses in one group (ranks in group order): rings
/// visit each node's ranks consecutively and cross each node boundary once per rail (one ring
/// per rail); all-to-all uses every pair; pipelines use stage neighbours; embedding groups
/// pair their members. Each unordered pair once.
[[nodiscard]] std::vector<std::pair<std::int64_t, std::int64_t>> used_pairs(Pattern pattern,
                                                                          const std::vector<std::int64_t>& ranks,
                                                                          const PairClassifier& classifier,
                                                                          const Placement& placement);

/// True when one template with one NIC speed: a path class then has one bandwidth.
[[nodiscard]] bool uniform_cluster(const Cluster& cluster);

/// The footprint of one group (ranks in group order), with groups = 1. uniform: look each class's
/// bandwidth up once (uniform_cluster()).
[[nodiscard]] GroupFootprint classify_one_group(Pattern pattern,
                                            const std::vector<std::int64_t>& ranks,
                                            const PairClassifier& classifier,
                                            const Placement& placement,
                                            bool uniform);

/// Collects the group footprints of one kind and turns them into its summary (distinct footprints,
/// worst first; pair totals scaled to the kind's group count when only some groups were added).
class FootprintTally {
public:
    void add(const GroupFootprint& shape);

    /// Fills e.max_nodes, pairs, worst, bottleneck and shapes; e.groups must be set.
    void summarize_into(KindEdges& e) const;

private:
    using Key = std::tuple<int, int, int, int, int, int, int, double, ClassCounts, std::tuple<int, int, int, int>>;
    std::map<Key, GroupFootprint> shapes_;
    std::int64_t classified_ = 0;
};

/// Classifies every group of every kind (in `kinds` if non-empty). `progress(done, total)` is
/// called now and then for long runs (may be empty).
[[nodiscard]] std::vector<KindEdges> classify_groups(const Groups& groups,
                                                     const Cluster& cluster,
                                                     const Placement& placement,
                                                     const std::vector<std::string>& kinds,
                                                     const std::function<void(std::int64_t, std::int64_t)>& progress = {});

}  // namespace planlayout
