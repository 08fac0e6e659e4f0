// Sampled edge classes: classify the groups through a few representative nodes only.
#include "planlayout/analysis/sampled_shapes.hpp"

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
    const std::int64_t su = cluster.fabric.nodes_per_su;
    if (su > 0 && su - 1 < last) {
        nodes.insert(static_cast<std::int32_t>(su - 1));
        nodes.insert(static_cast<std::int32_t>(su));
        const std::int64_t pod = su * cluster.fabric.sus_per_pod;
        if (cluster.fabric.sus_per_pod > 0 && pod - 1 < last) {
            nodes.insert(static_cast<std::int32_t>(pod - 1));
        }
    }
    return {nodes.begin(), nodes.end()};
}

bool uniform_cluster(const Cluster& cluster) {
    bool uniform = cluster.homogeneous();
    for (const auto& f : cluster.facts) {
        for (double v : f.rail_gbit_s) {
            uniform = uniform && v == f.rail_gbit_s.front();
        }
    }
    return uniform;
}

GroupShape classify_one_group(Pattern pattern, const std::vector<std::int64_t>& ranks,
                              const PairClassifier& classifier, const Placement& placement, bool uniform) {
    GroupShape s;
    s.n = static_cast<std::int64_t>(ranks.size());
    s.groups = 1;
    // (node, rail) of every member, sorted: nodes spanned, ranks and distinct rails per node.
    std::vector<std::pair<std::int32_t, int>> where;
    where.reserve(ranks.size());
    for (const auto r : ranks) {
        where.emplace_back(placement.node[static_cast<std::size_t>(r)], classifier.rail_of(r));
        s.worst_gpu_nic = worse(s.worst_gpu_nic, classifier.nic_class_of(r));
    }
    std::sort(where.begin(), where.end());
    s.min_rails_per_node = std::numeric_limits<int>::max();
    for (std::size_t i = 0; i < where.size();) {
        std::size_t j = i;
        int rails = 0;
        for (; j < where.size() && where[j].first == where[i].first; ++j) {
            if (j == i || where[j].second != where[j - 1].second) {
                ++rails;
            }
        }
        ++s.nodes;
        s.max_per_node = std::max(s.max_per_node, static_cast<int>(j - i));
        s.min_rails_per_node = std::min(s.min_rails_per_node, rails);
        i = j;
    }
    if (ranks.size() <= 1) {
        s.min_rails_per_node = 1;  // as classify_groups keys a singleton
        s.worst_intra = PathClass::Loc;
        return s;
    }
    s.bottleneck_gbyte_s = std::numeric_limits<double>::infinity();
    auto visit = [&](std::int64_t a, std::int64_t b) {
        const PathClass c = classifier.classify(a, b);
        auto& count = s.pairs[static_cast<std::size_t>(c)];
        // On a uniform cluster a class has one bandwidth: look it up once per group.
        if (count++ == 0 || !uniform) {
            s.bottleneck_gbyte_s = std::min(s.bottleneck_gbyte_s, classifier.bandwidth_gbyte_s(a, b, c));
        }
        if (is_cross_node(c)) {
            s.worst_cross = worse(s.worst_cross, c);
        } else {
            s.worst_intra = worse(s.worst_intra, c);
        }
    };
    if (pattern == Pattern::AllToAll) {
        // Every pair: visited in place (an ep group of 256 has 32,640), never materialized.
        for (std::size_t i = 0; i < ranks.size(); ++i) {
            for (std::size_t j = i + 1; j < ranks.size(); ++j) {
                if (ranks[i] != ranks[j]) {
                    visit(std::min(ranks[i], ranks[j]), std::max(ranks[i], ranks[j]));
                }
            }
        }
    } else {
        for (const auto& [a, b] : used_pairs(pattern, ranks, classifier, placement)) {
            visit(a, b);
        }
    }
    if (s.bottleneck_gbyte_s == std::numeric_limits<double>::infinity()) {
        s.bottleneck_gbyte_s = 0;
    }
    return s;
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
        KindEdges e;
        e.kind = k.name;
        e.pattern = k.pattern;
        e.groups = k.group_count();
        e.size = k.group_size();
        std::set<std::int64_t> seen;
        for (const auto r : sample_ranks) {
            if (const auto found = k.find(r)) {
                seen.insert(found->first);
            }
        }
        using Key = std::tuple<int, int, int, int, int, int, double, ClassCounts>;
        std::vector<std::pair<Key, GroupShape>> shapes;
        for (const auto g : seen) {
            ranks.resize(static_cast<std::size_t>(e.size));
            for (std::int64_t i = 0; i < e.size; ++i) {
                ranks[static_cast<std::size_t>(i)] = k.member(g, i);
            }
            const GroupShape s = classify_one_group(k.pattern, ranks, classifier, placement, uniform);
            const Key key{s.nodes, s.max_per_node, s.min_rails_per_node, static_cast<int>(s.worst_intra),
                          static_cast<int>(s.worst_cross), static_cast<int>(s.worst_gpu_nic), s.bottleneck_gbyte_s, s.pairs};
            auto it = std::find_if(shapes.begin(), shapes.end(), [&](const auto& x) { return x.first == key; });
            if (it == shapes.end()) {
                shapes.emplace_back(key, s);
            } else {
                ++it->second.groups;
            }
        }
        // classify_groups keeps its shapes in a map by key: the same order before the stable sort.
        std::sort(shapes.begin(), shapes.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        e.bottleneck_gbyte_s = std::numeric_limits<double>::infinity();
        const auto sampled = static_cast<std::int64_t>(seen.size());
        for (auto& [key, s] : shapes) {
            e.max_nodes = std::max(e.max_nodes, s.nodes);
            for (std::size_t c = 0; c < s.pairs.size(); ++c) {
                e.pairs[c] += sampled > 0 ? s.pairs[c] * s.groups * e.groups / sampled : 0;
            }
            e.worst = worse(e.worst, worse(s.worst_intra, s.worst_cross));
            if (s.bottleneck_gbyte_s > 0) {
                e.bottleneck_gbyte_s = std::min(e.bottleneck_gbyte_s, s.bottleneck_gbyte_s);
            }
            e.shapes.push_back(s);
        }
        if (e.bottleneck_gbyte_s == std::numeric_limits<double>::infinity()) {
            e.bottleneck_gbyte_s = 0;
        }
        std::stable_sort(e.shapes.begin(), e.shapes.end(), [](const GroupShape& a, const GroupShape& b) {
            return std::make_tuple(-a.nodes, -static_cast<int>(a.worst_cross), a.bottleneck_gbyte_s) <
                   std::make_tuple(-b.nodes, -static_cast<int>(b.worst_cross), b.bottleneck_gbyte_s);
        });
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace planlayout
