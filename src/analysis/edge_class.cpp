// Edge classes: used pairs per collective pattern, classified by template and rail arithmetic.
#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/model/numbers/network.hpp"
#include "planlayout/model/units.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace planlayout {

PairClassifier::PairClassifier(const Cluster& cluster, const Placement& placement)
    : cluster_(cluster), placement_(placement) {}

int PairClassifier::rail_of(std::int64_t rank) const {
    const auto r = static_cast<std::size_t>(rank);
    return cluster_.facts_of(placement_.node[r]).gpu_rail[static_cast<std::size_t>(placement_.gpu[r])];
}

PathClass PairClassifier::nic_class_of(std::int64_t rank) const {
    const auto r = static_cast<std::size_t>(rank);
    return cluster_.facts_of(placement_.node[r]).gpu_nic_class[static_cast<std::size_t>(placement_.gpu[r])];
}

std::int64_t PairClassifier::island_of(std::int64_t rank) const {
    const std::int32_t node = placement_.node[static_cast<std::size_t>(rank)];
    const std::int32_t d = cluster_.domain_of(node);
    return d >= 0 ? cluster_.node_count() + d : node;
}

int PairClassifier::gpus_on_node_of(std::int64_t rank) const {
    return cluster_.facts_of(placement_.node[static_cast<std::size_t>(rank)]).gpu_count;
}

PathClass PairClassifier::classify(std::int64_t a, std::int64_t b) const {
    const auto ia = static_cast<std::size_t>(a);
    const auto ib = static_cast<std::size_t>(b);
    const std::int32_t na = placement_.node[ia];
    const std::int32_t nb = placement_.node[ib];
    const TemplateFacts& fa = cluster_.facts_of(na);
    const auto ga = static_cast<std::size_t>(placement_.gpu[ia]);
    const auto gb = static_cast<std::size_t>(placement_.gpu[ib]);
    if (na == nb) {
        return fa.gpu_gpu[ga * static_cast<std::size_t>(fa.gpu_count) + gb];
    }
    if (cluster_.same_nvlink_domain(na, nb)) {
        return PathClass::Mnnvl;  // one clique: NVLink through the rack's switches, whatever the rails
    }
    const TemplateFacts& fb = cluster_.facts_of(nb);
    const int ra = fa.gpu_rail[ga];
    const int rb = fb.gpu_rail[gb];
    if (ra < 0 || rb < 0) {
        return PathClass::Xrail;  // no RDMA NIC: traffic leaves through the host and the spine
    }
    const std::int64_t la = cluster_.leaf_of(na, ra);
    const std::int64_t lb = cluster_.leaf_of(nb, rb);
    if (la == lb) {
        return PathClass::Rail;
    }
    if (cluster_.fabric.pxn && cluster_.wiring.empty()) {
        // Rail-aligned: the peer's leaf is rail rb of our scalable unit, when we share one.
        if (cluster_.su_of(na) != cluster_.su_of(nb)) {
            return cluster_.pod_of_leaf(la) == cluster_.pod_of_leaf(lb) ? PathClass::Xrail : PathClass::Xpod;
        }
        auto nv_relay = [](const TemplateFacts& f, std::size_t gpu, int rail) {
            if (rail >= static_cast<int>(f.rail_gpu.size())) {
                return false;
            }
            const int via = f.rail_gpu[static_cast<std::size_t>(rail)];
            return via >= 0 && f.gpu_gpu[gpu * static_cast<std::size_t>(f.gpu_count) + static_cast<std::size_t>(via)] == PathClass::Nv;
        };
        if (nv_relay(fa, ga, rb) || nv_relay(fb, gb, ra)) {
            return PathClass::Pxn;
        }
    } else if (cluster_.fabric.pxn) {
        // PXN: relay over NVLink to the local GPU whose NIC sits on the peer's leaf.
        auto relay = [&](std::int32_t node, const TemplateFacts& f, std::size_t gpu, std::int64_t target_leaf) {
            for (std::size_t r = 0; r < f.rail_nics.size(); ++r) {
                if (cluster_.leaf_of(node, static_cast<int>(r)) == target_leaf) {
                    const int via = f.rail_gpu[r];
                    return via >= 0 && f.gpu_gpu[gpu * static_cast<std::size_t>(f.gpu_count) + static_cast<std::size_t>(via)] == PathClass::Nv;
                }
            }
            return false;
        };
        if (relay(na, fa, ga, lb) || relay(nb, fb, gb, la)) {
            return PathClass::Pxn;
        }
    }
    return cluster_.pod_of_leaf(la) == cluster_.pod_of_leaf(lb) ? PathClass::Xrail : PathClass::Xpod;
}

double PairClassifier::bandwidth_gbyte_s(std::int64_t a, std::int64_t b, PathClass c) const {
    const TemplateFacts& fa = cluster_.facts_of(placement_.node[static_cast<std::size_t>(a)]);
    const TemplateFacts& fb = cluster_.facts_of(placement_.node[static_cast<std::size_t>(b)]);
    switch (c) {
        case PathClass::Loc:
            return std::numeric_limits<double>::infinity();
        case PathClass::Nv:
        case PathClass::Mnnvl:  // the domain's NVLink: each GPU's own links to the NVLink switches
            return std::min(fa.nvlink_gbyte_s, fb.nvlink_gbyte_s);
        case PathClass::Pix:
        case PathClass::Pxb:
        case PathClass::Phb:
        case PathClass::Node:
        case PathClass::Sys:
            return std::min(fa.pcie_gbyte_s, fb.pcie_gbyte_s);
        default: {
            const int ra = rail_of(a);
            const int rb = rail_of(b);
            const double nic_a = ra >= 0 ? fa.rail_gbit_s[static_cast<std::size_t>(ra)] : fa.tcp_gbit_s;
            const double nic_b = rb >= 0 ? fb.rail_gbit_s[static_cast<std::size_t>(rb)] : fb.tcp_gbit_s;
            double bw = std::min(nic_a, nic_b) / units::kBitsPerByte;
            if (c == PathClass::Xrail || c == PathClass::Xpod) {
                bw /= cluster_.fabric.oversubscription;
            }
            return bw;
        }
    }
}

std::int64_t KindEdges::cross_pairs() const {
    std::int64_t n = 0;
    for (int c = static_cast<int>(PathClass::Rail); c < kPathClassCount; ++c) {
        n += pairs[static_cast<std::size_t>(c)];
    }
    return n;
}

std::int64_t KindEdges::total_pairs() const {
    std::int64_t n = 0;
    for (auto v : pairs) {
        n += v;
    }
    return n;
}

namespace {

// Reused buffers: classification visits millions of groups at scale. Every buffer is sized by
// the group, never by the cluster: a buffer the size of the cluster cleared per group made
// 262,144 ranks quadratic (issue #20). Members are packed 8 bytes each (node, rank and position
// are below 2^31, a local GPU below 2^9): a group of 2,097,152 ranks is classified within 64 MB.
struct Scratch {
    std::vector<std::uint64_t> keys;     // node << 32 | (position in the group, or rail), sorted
    std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;  // (first position, index in keys) per node
    std::vector<std::uint64_t> ordered;  // the ring order: per node slot, local GPU << 32 | rank, sorted
    std::vector<std::size_t> starts;     // slot → first index in `ordered`
    std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
    std::vector<int> rails;
    std::vector<std::tuple<std::int64_t, std::int32_t, int>> islands;  // (NVLink island, node, rail)
};

std::uint64_t packed(std::int64_t high, std::int64_t low) {
    return (static_cast<std::uint64_t>(high) << std::numeric_limits<std::uint32_t>::digits) | static_cast<std::uint32_t>(low);
}

std::int64_t high_of(std::uint64_t key) { return static_cast<std::int64_t>(key >> std::numeric_limits<std::uint32_t>::digits); }
std::int64_t low_of(std::uint64_t key) { return static_cast<std::int64_t>(key & 0xFFFFFFFFU); }

// The ring order of a group: nodes in order of first appearance, each node's ranks by local GPU
// (then rank) into sc.ordered, sc.starts[s] the first index of node slot s. Sorting (node,
// position) gives each node's first position in the group; sorting the nodes by it gives the
// slots. O(n log n) in the group size. Returns false when a rank appears twice in the group.
bool ring_order(const std::vector<std::int64_t>& ranks, const Placement& placement, Scratch& sc) {
    const std::size_t n = ranks.size();
    auto& keys = sc.keys;
    keys.clear();
    keys.reserve(n);  // no doubling: at 2,097,152 members a reallocation held both copies
    for (std::size_t i = 0; i < n; ++i) {
        keys.push_back(packed(placement.node[static_cast<std::size_t>(ranks[i])], static_cast<std::int64_t>(i)));
    }
    std::sort(keys.begin(), keys.end());
    sc.runs.clear();
    for (std::size_t i = 0; i < n;) {
        sc.runs.emplace_back(static_cast<std::uint32_t>(low_of(keys[i])), static_cast<std::uint32_t>(i));
        std::size_t j = i;
        while (j < n && high_of(keys[j]) == high_of(keys[i])) {
            ++j;
        }
        i = j;
    }
    std::sort(sc.runs.begin(), sc.runs.end());
    sc.ordered.clear();
    sc.ordered.reserve(n);
    sc.starts.clear();
    bool distinct = true;
    for (const auto& run : sc.runs) {
        const std::size_t begin = sc.ordered.size();
        sc.starts.push_back(begin);
        for (std::size_t x = run.second; x < n && high_of(keys[x]) == high_of(keys[run.second]); ++x) {
            const std::int64_t r = ranks[static_cast<std::size_t>(low_of(keys[x]))];
            sc.ordered.push_back(packed(placement.gpu[static_cast<std::size_t>(r)], r));
        }
        std::sort(sc.ordered.begin() + static_cast<std::ptrdiff_t>(begin), sc.ordered.end());
        distinct = distinct && std::adjacent_find(sc.ordered.begin() + static_cast<std::ptrdiff_t>(begin), sc.ordered.end()) ==
                                   sc.ordered.end();
    }
    sc.starts.push_back(sc.ordered.size());
    return distinct;
}

// Calls fn(a, b) for every pair the pattern uses, each unordered pair once (a < b).
template <class Fn>
void visit_pairs(Pattern pattern, const std::vector<std::int64_t>& ranks, const PairClassifier& classifier,
                 const Placement& placement, Scratch& sc, Fn&& fn) {
    const std::size_t n = ranks.size();
    if (pattern == Pattern::AllToAll) {
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = i + 1; j < n; ++j) {
                if (ranks[i] != ranks[j]) {
                    fn(std::min(ranks[i], ranks[j]), std::max(ranks[i], ranks[j]));
                }
            }
        }
        return;
    }
    auto& pairs = sc.pairs;
    pairs.clear();
    // Each unordered pair once: collected, sorted and deduplicated; or, for a ring over three
    // nodes or more of distinct ranks, whose pairs are distinct by construction, passed on as
    // made (a 2,097,152-rank ring would hold 4 million pairs).
    bool stream = false;
    auto add = [&](std::int64_t a, std::int64_t b) {
        if (a != b) {
            if (stream) {
                fn(std::min(a, b), std::max(a, b));
            } else {
                pairs.emplace_back(std::min(a, b), std::max(a, b));
            }
        }
    };
    if (pattern == Pattern::PipelineP2p || pattern == Pattern::Embedding) {
        for (std::size_t i = 0; i + 1 < n; ++i) {
            add(ranks[i], ranks[i + 1]);
        }
    } else {
        const bool distinct = ring_order(ranks, placement, sc);
        const std::size_t k = sc.starts.size() - 1;  // node slots
        stream = distinct && k > static_cast<std::size_t>(numbers::kRingPair.count());  // a ring of 2: one edge
        auto rank_at = [&](std::size_t i) { return low_of(sc.ordered[i]); };
        for (std::size_t s = 0; s < k; ++s) {
            for (std::size_t i = sc.starts[s]; i + 1 < sc.starts[s + 1]; ++i) {
                add(rank_at(i), rank_at(i + 1));
            }
        }
        if (k == 1) {
            if (n > static_cast<std::size_t>(numbers::kRingPair.count())) {
                add(rank_at(n - 1), rank_at(0));
            }
        } else {
            // One ring per rail: at each node boundary, every rail the ranks use crosses once.
            for (std::size_t s = 0; s < k; ++s) {
                const std::size_t from_begin = sc.starts[s];
                const std::size_t from_end = sc.starts[s + 1];
                const std::size_t t = (s + 1) % k;
                const std::size_t to_begin = sc.starts[t];
                const std::size_t to_end = sc.starts[t + 1];
                sc.rails.clear();
                for (std::size_t x = from_begin; x < from_end; ++x) {
                    const int rail = classifier.rail_of(rank_at(x));
                    if (std::find(sc.rails.begin(), sc.rails.end(), rail) != sc.rails.end()) {
                        continue;
                    }
                    sc.rails.push_back(rail);
                    std::int64_t entry = rank_at(to_begin);
                    for (std::size_t y = to_begin; y < to_end; ++y) {
                        if (classifier.rail_of(rank_at(y)) == rail) {
                            entry = rank_at(y);
                            break;
                        }
                    }
                    add(rank_at(x), entry);
                }
            }
        }
    }
    if (stream) {
        return;
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    for (const auto& [a, b] : pairs) {
        fn(a, b);
    }
}

}  // namespace

std::vector<std::pair<std::int64_t, std::int64_t>> used_pairs(Pattern pattern, const std::vector<std::int64_t>& ranks,
                                                              const PairClassifier& classifier, const Placement& placement) {
    Scratch sc;
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    visit_pairs(pattern, ranks, classifier, placement, sc, [&](std::int64_t a, std::int64_t b) { out.emplace_back(a, b); });
    std::sort(out.begin(), out.end());  // a long ring's pairs come as they are made
    return out;
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

namespace {

// The group as NCCL sees it on multi-node NVLink: every NVLink domain it touches is one node
// (NCCL fuses a clique's topology, src/graph/topo.cc), each other node its own island. Without
// domains the islands are the nodes.
void add_islands(GroupFootprint& s, const std::vector<std::int64_t>& ranks, const PairClassifier& classifier,
                 const Placement& placement, Scratch& sc) {
    if (!classifier.has_domains()) {
        s.islands = s.nodes;
        s.max_per_island = s.max_per_node;
        s.min_nics_per_island = s.min_rails_per_node;
        s.max_nodes_per_island = s.nodes > 0 ? 1 : 0;
        return;
    }
    auto& is = sc.islands;
    is.clear();
    for (const auto r : ranks) {
        is.emplace_back(classifier.island_of(r), placement.node[static_cast<std::size_t>(r)], classifier.rail_of(r));
    }
    std::sort(is.begin(), is.end());
    s.min_nics_per_island = std::numeric_limits<int>::max();
    for (std::size_t i = 0; i < is.size();) {
        std::size_t j = i;
        int nics = 0;
        int nodes = 0;
        for (; j < is.size() && std::get<0>(is[j]) == std::get<0>(is[i]); ++j) {
            const bool new_node = j == i || std::get<1>(is[j]) != std::get<1>(is[j - 1]);
            nodes += new_node ? 1 : 0;
            nics += new_node || is[j] != is[j - 1] ? 1 : 0;  // distinct (node, rail): only the rail can differ
        }
        ++s.islands;
        s.max_per_island = std::max(s.max_per_island, static_cast<int>(j - i));
        s.min_nics_per_island = std::min(s.min_nics_per_island, nics);
        s.max_nodes_per_island = std::max(s.max_nodes_per_island, nodes);
        i = j;
    }
}

GroupFootprint classify_one_group(Pattern pattern, const std::vector<std::int64_t>& ranks, const PairClassifier& classifier,
                              const Placement& placement, bool uniform, Scratch& sc) {
    GroupFootprint s;
    s.n = static_cast<std::int64_t>(ranks.size());
    s.groups = 1;
    // (node, rail) of every member, sorted: nodes spanned, ranks and distinct rails per node.
    auto& where = sc.keys;
    where.clear();
    where.reserve(ranks.size());
    for (const auto r : ranks) {
        where.push_back(packed(placement.node[static_cast<std::size_t>(r)], classifier.rail_of(r)));
        s.worst_gpu_nic = worse(s.worst_gpu_nic, classifier.nic_class_of(r));
        s.gpus_per_node = std::max(s.gpus_per_node, classifier.gpus_on_node_of(r));
    }
    std::sort(where.begin(), where.end());
    s.min_rails_per_node = std::numeric_limits<int>::max();
    for (std::size_t i = 0; i < where.size();) {
        std::size_t j = i;
        int rails = 0;
        for (; j < where.size() && high_of(where[j]) == high_of(where[i]); ++j) {
            if (j == i || where[j] != where[j - 1]) {
                ++rails;
            }
        }
        ++s.nodes;
        s.max_per_node = std::max(s.max_per_node, static_cast<int>(j - i));
        s.min_rails_per_node = std::min(s.min_rails_per_node, rails);
        i = j;
    }
    add_islands(s, ranks, classifier, placement, sc);
    if (ranks.size() <= 1) {
        s.min_rails_per_node = 1;
        s.min_nics_per_island = 1;
        return s;
    }
    s.bottleneck_gbyte_s = std::numeric_limits<double>::infinity();
    visit_pairs(pattern, ranks, classifier, placement, sc, [&](std::int64_t a, std::int64_t b) {
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
    });
    if (s.bottleneck_gbyte_s == std::numeric_limits<double>::infinity()) {
        s.bottleneck_gbyte_s = 0;
    }
    return s;
}

}  // namespace

GroupFootprint classify_one_group(Pattern pattern, const std::vector<std::int64_t>& ranks, const PairClassifier& classifier,
                              const Placement& placement, bool uniform) {
    Scratch sc;
    return classify_one_group(pattern, ranks, classifier, placement, uniform, sc);
}

KindEdges kind_edges_of(const GroupKind& kind) {
    KindEdges e;
    e.kind = kind.name;
    e.role = kind.role;
    e.pattern = kind.pattern;
    e.groups = kind.group_count();
    e.size = kind.group_size();
    return e;
}

void FootprintTally::add(const GroupFootprint& s) {
    const Key key{s.nodes,
                  s.max_per_node,
                  s.gpus_per_node,
                  s.min_rails_per_node,
                  static_cast<int>(s.worst_intra),
                  static_cast<int>(s.worst_cross),
                  static_cast<int>(s.worst_gpu_nic),
                  s.bottleneck_gbyte_s,
                  s.pairs,
                  {s.islands, s.max_per_island, s.min_nics_per_island, s.max_nodes_per_island}};
    const auto [it, fresh] = shapes_.emplace(key, s);
    if (!fresh) {
        it->second.groups += s.groups;
    }
    classified_ += s.groups;
}

void FootprintTally::summarize_into(KindEdges& e) const {
    e.bottleneck_gbyte_s = std::numeric_limits<double>::infinity();
    for (const auto& [key, s] : shapes_) {
        e.max_nodes = std::max(e.max_nodes, s.nodes);
        for (std::size_t c = 0; c < s.pairs.size(); ++c) {
            // Scaled to the kind's group count when only a sample was classified.
            e.pairs[c] += classified_ > 0 ? s.pairs[c] * s.groups * e.groups / classified_ : 0;
        }
        e.worst = worse(e.worst, worse(s.worst_intra, s.worst_cross));
        if (s.bottleneck_gbyte_s > 0) {
            e.bottleneck_gbyte_s = std::min(e.bottleneck_gbyte_s, s.bottleneck_gbyte_s);
        }
        e.footprints.push_back(s);
    }
    if (e.bottleneck_gbyte_s == std::numeric_limits<double>::infinity()) {
        e.bottleneck_gbyte_s = 0;
    }
    // Worst footprint first: most nodes, then worst cross class, then narrowest link.
    std::stable_sort(e.footprints.begin(), e.footprints.end(), [](const GroupFootprint& a, const GroupFootprint& b) {
        return std::make_tuple(-a.nodes, -static_cast<int>(a.worst_cross), a.bottleneck_gbyte_s) <
               std::make_tuple(-b.nodes, -static_cast<int>(b.worst_cross), b.bottleneck_gbyte_s);
    });
}

std::vector<KindEdges> classify_groups(const Groups& groups, const Cluster& cluster, const Placement& placement,
                                       const std::vector<std::string>& kinds,
                                       const std::function<void(std::int64_t, std::int64_t)>& progress) {
    const PairClassifier classifier(cluster, placement);
    const bool uniform = uniform_cluster(cluster);
    std::vector<KindEdges> out;
    std::int64_t total = 0;
    for (const auto& k : groups.kinds) {
        total += k.group_count();
    }
    std::int64_t done = 0;
    std::vector<std::int64_t> ranks;
    Scratch scratch;
    for (const auto& k : groups.kinds) {
        if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), k.name) == kinds.end()) {
            done += k.group_count();
            continue;
        }
        KindEdges e = kind_edges_of(k);
        FootprintTally tally;
        ranks.resize(static_cast<std::size_t>(e.size));
        for (std::int64_t g = 0; g < e.groups; ++g) {
            for (std::int64_t i = 0; i < e.size; ++i) {
                ranks[static_cast<std::size_t>(i)] = k.member(g, i);
            }
            tally.add(classify_one_group(k.pattern, ranks, classifier, placement, uniform, scratch));
            ++done;
            if (progress && (done & 0xFFFF) == 0) {
                progress(done, total);
            }
        }
        tally.summarize_into(e);
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace planlayout
