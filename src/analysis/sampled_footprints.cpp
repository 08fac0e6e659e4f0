// Sampled edge classes: classify the groups through a few representative nodes only.
#include "planlayout/analysis/sampled_footprints.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

namespace planlayout {

std::vector<std::int32_t> sample_nodes(const Cluster& cluster, const Placement& placement) {
    std::int32_t last = 0;
    for (const auto n : placement.node) {
        last = std::max(last, n);
    }
    std::set<std::int32_t> nodes{0, last};
    const std::int64_t su = cluster.regular_su_size();
    if (!cluster.regular_units()) {
        // An irregular fabric: every unit and pod boundary cuts the groups differently.
        for (std::int32_t n = 1; n <= last; ++n) {
            if (cluster.su_of(n) != cluster.su_of(n - 1)) {
                nodes.insert(n - 1);
                nodes.insert(n);
            }
        }
    } else if (su > 0 && su - 1 < last) {
        nodes.insert(static_cast<std::int32_t>(su - 1));
        nodes.insert(static_cast<std::int32_t>(su));
        const std::int64_t pod = su * cluster.fabric.sus_per_pod;
        if (cluster.fabric.sus_per_pod > 0 && pod - 1 < last) {
            nodes.insert(static_cast<std::int32_t>(pod - 1));
        }
    }
    // Multi-node NVLink: the two nodes at every domain boundary, where a group may straddle two
    // domains (domains of 18 trays do not align with groups of 2, 4 or 8 trays, so each boundary
    // can cut differently).
    for (std::int32_t n = 1; n <= last && !cluster.nvlink.empty(); ++n) {
        if (cluster.domain_of(n) != cluster.domain_of(n - 1)) {
            nodes.insert(n - 1);
            nodes.insert(n);
        }
    }
    return {nodes.begin(), nodes.end()};
}

std::vector<KindEdges> classify_groups_sampled(const Groups& groups, const Cluster& cluster,
                                               const Placement& placement,
                                               const std::vector<std::string>& kinds) {
    const PairClassifier classifier(cluster, placement);
    const bool uniform = uniform_cluster(cluster);
    std::vector<std::int64_t> sample_ranks;
    const std::vector<std::int32_t> nodes = sample_nodes(cluster, placement);
    for (std::int64_t r = 0; r < placement.world(); ++r) {
        if (std::binary_search(nodes.begin(), nodes.end(), placement.node[static_cast<std::size_t>(r)])) {
            sample_ranks.push_back(r);
        }
    }
    std::vector<KindEdges> out;
    std::vector<std::int64_t> ranks;
    for (const auto& k : groups.kinds) {
        if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), k.name) == kinds.end()) {
            continue;
        }
        KindEdges e = kind_edges_of(k);
        std::set<std::int64_t> seen;
        for (const auto r : sample_ranks) {
            if (const auto found = k.find(r)) {
                seen.insert(found->first);
            }
        }
        FootprintTally tally;
        for (const auto g : seen) {
            ranks.resize(static_cast<std::size_t>(e.size));
            for (std::int64_t i = 0; i < e.size; ++i) {
                ranks[static_cast<std::size_t>(i)] = k.member(g, i);
            }
            tally.add(classify_one_group(k.pattern, ranks, classifier, placement, uniform));
        }
        tally.summarize_into(e);
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace planlayout
