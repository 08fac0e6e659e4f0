// Fabric load: node-pair bytes per kind and per-link loads (fabric_load.hpp).
#include "planlayout/analysis/fabric_load.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/model/numbers/network.hpp"
#include "planlayout/model/units.hpp"

namespace planlayout {

double KindTraffic::wire_bytes(std::int64_t n) const {
    double f = ops.empty() ? 1.0 : 0.0;
    for (const CollectiveOp op : ops) {
        f = std::max(f, bus_factor(op, static_cast<int>(n)));
    }
    return bytes_per_rank * f;
}

std::vector<KindTraffic> kind_traffic(const std::optional<Score>& score) {
    std::vector<KindTraffic> out;
    if (!score) {
        return out;
    }
    for (const auto& kb : score->by_kind) {
        if (kb.bytes_per_step <= 0) {
            continue;
        }
        KindTraffic t{kb.kind, kb.bytes_per_step, {}};
        std::string_view rest = kb.collective;
        while (!rest.empty()) {
            const auto plus = rest.find('+');
            if (const auto op = parse_collective_op(rest.substr(0, plus))) {
                t.ops.push_back(*op);
            }
            rest = plus == std::string_view::npos ? std::string_view() : rest.substr(plus + 1);
        }
        out.push_back(std::move(t));
    }
    return out;
}

namespace {

using NodePair = std::pair<std::int32_t, std::int32_t>;

NodePair node_pair(const Placement& p, std::int64_t a, std::int64_t b) {
    const std::int32_t na = p.node[static_cast<std::size_t>(a)];
    const std::int32_t nb = p.node[static_cast<std::size_t>(b)];
    return {std::min(na, nb), std::max(na, nb)};
}

// Ring weights: inside a node w per edge (2w for a two-rank ring); at node boundaries the
// boundary's w split evenly over the pairs (rails) that cross it.
void ring_weights(std::vector<PairBytes>& pairs, const Placement& placement, std::int64_t n, double w) {
    std::vector<std::int32_t> nodes;
    std::vector<NodePair> cross;
    for (const auto& p : pairs) {
        const NodePair np = node_pair(placement, p.a, p.b);
        nodes.push_back(np.first);
        nodes.push_back(np.second);
        if (np.first != np.second) {
            cross.push_back(np);
        }
    }
    std::sort(nodes.begin(), nodes.end());
    const auto k = std::unique(nodes.begin(), nodes.end()) - nodes.begin();
    std::sort(cross.begin(), cross.end());
    const double boundary = w * (k == numbers::kRingPair.count() ? numbers::kRingPair : 1.0);
    for (auto& p : pairs) {
        const NodePair np = node_pair(placement, p.a, p.b);
        if (np.first == np.second) {
            p.bytes = n == numbers::kRingPair.count() ? numbers::kRingPair * w : w;
        } else {
            const auto range = std::equal_range(cross.begin(), cross.end(), np);
            p.bytes = boundary / static_cast<double>(range.second - range.first);
        }
    }
}

}  // namespace

std::vector<PairBytes> group_pair_bytes(const GroupKind& kind,
                                        std::int64_t group,
                                        const Cluster& cluster,
                                        const Placement& placement,
                                        const KindTraffic* traffic) {
    std::vector<PairBytes> out;
    const std::vector<std::int64_t> ranks = kind.group(group);
    const auto n = static_cast<std::int64_t>(ranks.size());
    if (n <= 1) {
        return out;
    }
    const PairClassifier classifier(cluster, placement);
    for (const auto& [a, b] : used_pairs(kind.pattern, ranks, classifier, placement)) {
        out.push_back({a, b, classifier.classify(a, b), 1.0});
    }
    if (traffic == nullptr) {
        return out;  // pair counts
    }
    switch (kind.pattern) {
        case Pattern::AllToAll:
            for (auto& p : out) {
                p.bytes = numbers::kPairDirections * traffic->bytes_per_rank / static_cast<double>(n);
            }
            break;
        case Pattern::PipelineP2p:
            for (auto& p : out) {
                p.bytes = traffic->bytes_per_rank;
            }
            break;
        case Pattern::Ring:
        case Pattern::Embedding:
            ring_weights(out, placement, n, traffic->wire_bytes(n));
            break;
    }
    return out;
}

double MatrixCell::total() const {
    double t = 0;
    for (const double b : bytes) {
        t += b;
    }
    return t;
}

PathClass MatrixCell::dominant() const {
    std::size_t best = 0;
    for (std::size_t c = 0; c < bytes.size(); ++c) {
        if (bytes[c] > 0 && bytes[c] >= bytes[best]) {
            best = c;
        }
    }
    return static_cast<PathClass>(best);
}

TrafficMatrix traffic_matrix(const Cluster& cluster,
                             const Placement& placement,
                             const GroupKind& kind,
                             const KindTraffic* traffic,
                             std::int64_t block,
                             std::int64_t first_node,
                             std::int64_t nodes) {
    TrafficMatrix m;
    m.kind = kind.name;
    m.first_node = std::clamp<std::int64_t>(first_node, 0, cluster.node_count());
    m.nodes = nodes < 0 ? cluster.node_count() - m.first_node : std::min(nodes, cluster.node_count() - m.first_node);
    m.block = std::max<std::int64_t>(block, 1);
    m.cells = (m.nodes + m.block - 1) / m.block;
    m.bytes_known = traffic != nullptr;
    std::unordered_map<std::int64_t, MatrixCell> cells;
    auto add = [&](std::int64_t row, std::int64_t col, PathClass c, double bytes) {
        MatrixCell& cell = cells[row * m.cells + col];
        cell.row = row;
        cell.col = col;
        cell.bytes[static_cast<std::size_t>(c)] += bytes;
    };
    for (std::int64_t g = 0; g < kind.group_count(); ++g) {
        for (const auto& p : group_pair_bytes(kind, g, cluster, placement, traffic)) {
            const std::int64_t na = placement.node[static_cast<std::size_t>(p.a)] - m.first_node;
            const std::int64_t nb = placement.node[static_cast<std::size_t>(p.b)] - m.first_node;
            if (na < 0 || nb < 0 || na >= m.nodes || nb >= m.nodes) {
                continue;
            }
            const std::int64_t ra = na / m.block;
            const std::int64_t rb = nb / m.block;
            add(ra, rb, p.cls, p.bytes);
            if (ra != rb) {
                add(rb, ra, p.cls, p.bytes);
            }
            m.class_bytes[static_cast<std::size_t>(p.cls)] += p.bytes;
        }
    }
    m.entries.reserve(cells.size());
    for (auto& [key, cell] : cells) {
        m.entries.push_back(cell);
    }
    std::sort(m.entries.begin(), m.entries.end(), [](const MatrixCell& x, const MatrixCell& y) {
        return std::make_pair(x.row, x.col) < std::make_pair(y.row, y.col);
    });
    for (const auto& e : m.entries) {
        const double t = e.total();
        m.max_total = std::max(m.max_total, t);
        m.min_total = m.min_total == 0 ? t : std::min(m.min_total, t);
    }
    return m;
}

std::string_view to_string(LinkTier t) {
    switch (t) {
        case LinkTier::NodeLeaf:
            return "node -> leaf";
        case LinkTier::NodeTcp:
            return "node TCP";
        case LinkTier::LeafSpine:
            return "leaf -> spine";
        case LinkTier::SpineCore:
            return "spine -> core";
    }
    return "?";
}

double TierLoad::mean_bytes() const { return links > 0 ? total_bytes / static_cast<double>(links) : 0.0; }

namespace {

// Loads per link and kind, flat: link * kinds + kind.
struct Loads {
    std::size_t kinds = 0;
    std::vector<double> nic;      // (node * rails + rail)
    std::vector<double> tcp;      // node
    std::vector<double> leaf_up;  // leaf
    std::vector<double> pod_up;   // pod

    void add(std::vector<double>& v, std::int64_t link, std::size_t kind, double bytes) const {
        v[static_cast<std::size_t>(link) * kinds + kind] += bytes;
    }
};

// The rail on `node` whose leaf is `leaf`; -1 when none.
int rail_to_leaf(const Cluster& cl, std::int64_t node, std::int64_t leaf) {
    const auto rails = static_cast<int>(cl.facts_of(node).rail_nics.size());
    for (int r = 0; r < rails; ++r) {
        if (cl.leaf_of(node, r) == leaf) {
            return r;
        }
    }
    return -1;
}

struct Candidate {
    std::int64_t link = -1;
    double capacity = 0;
    std::string name;
};

// Fills a row from its links: bytes summed per link over kinds; the busiest by time when every
// link's capacity is known, else by bytes.
TierLoad make_row(LinkTier tier, int rail, const std::vector<Candidate>& links, const std::vector<double>& loads,
                  std::size_t kinds) {
    TierLoad row;
    row.tier = tier;
    row.rail = rail;
    row.links = static_cast<std::int64_t>(links.size());
    row.busiest_by_kind.assign(kinds, 0.0);
    double best_key = -1;
    const Candidate* best = nullptr;
    for (const auto& c : links) {
        double bytes = 0;
        for (std::size_t k = 0; k < kinds; ++k) {
            bytes += loads[static_cast<std::size_t>(c.link) * kinds + k];
        }
        row.total_bytes += bytes;
        row.loaded_links += bytes > 0 ? 1 : 0;
        const double key = c.capacity > 0 ? bytes / c.capacity : bytes;
        if (key > best_key) {
            best_key = key;
            best = &c;
            row.max_bytes = bytes;
        }
    }
    if (best != nullptr) {
        row.busiest = best->name;
        row.capacity_gbyte_s = best->capacity;
        row.seconds = best->capacity > 0 ? row.max_bytes / (best->capacity * units::kGiga) : 0.0;
        for (std::size_t k = 0; k < kinds; ++k) {
            row.busiest_by_kind[k] = loads[static_cast<std::size_t>(best->link) * kinds + k];
        }
    }
    return row;
}

// Each leaf's downlink capacity (its nodes' rail NICs together), GB/s; sets out.pods.
std::vector<double> leaf_downlinks(const Cluster& cluster, FabricLoad& out) {
    std::vector<double> leaf_down_gbyte_s;
    for (std::int64_t n = 0; n < cluster.node_count(); ++n) {
        const auto& f = cluster.facts_of(n);
        for (int r = 0; r < static_cast<int>(f.rail_nics.size()); ++r) {
            const std::int64_t leaf = cluster.leaf_of(n, r);
            if (leaf < 0) {
                continue;
            }
            if (static_cast<std::size_t>(leaf) >= leaf_down_gbyte_s.size()) {
                leaf_down_gbyte_s.resize(static_cast<std::size_t>(leaf) + 1, 0.0);
            }
            leaf_down_gbyte_s[static_cast<std::size_t>(leaf)] += f.rail_gbit_s[static_cast<std::size_t>(r)] / units::kBitsPerByte;
            out.pods = std::max(out.pods, cluster.pod_of_leaf(leaf) + 1);
        }
    }
    return leaf_down_gbyte_s;
}

// Adds kind k's cross-node pair bytes to the links they cross (half each way): both NICs (PXN:
// one side moved onto the other's rail), the leaf uplinks across rails, the pod uplinks across
// pods; TCP pairs on the nodes' TCP links. True when some pair went over TCP.
bool add_kind_loads(const Cluster& cluster, const Placement& placement, const PairClassifier& classifier,
                    const GroupKind& kind, const KindTraffic* bytes, std::size_t k, int rails, Loads& loads) {
    bool any_tcp = false;
    for (std::int64_t g = 0; g < kind.group_count(); ++g) {
        for (const auto& p : group_pair_bytes(kind, g, cluster, placement, bytes)) {
            if (!is_cross_node(p.cls)) {
                continue;
            }
            const double half = p.bytes / numbers::kPairDirections;  // each direction
            const std::int64_t na = placement.node[static_cast<std::size_t>(p.a)];
            const std::int64_t nb = placement.node[static_cast<std::size_t>(p.b)];
            int ra = classifier.rail_of(p.a);
            int rb = classifier.rail_of(p.b);
            if (ra < 0 || rb < 0) {
                loads.add(loads.tcp, na, k, half);
                loads.add(loads.tcp, nb, k, half);
                any_tcp = true;
                continue;
            }
            const std::int64_t la = cluster.leaf_of(na, ra);
            const std::int64_t lb = cluster.leaf_of(nb, rb);
            if (p.cls == PathClass::Pxn) {
                // The relay GPU's NIC on the peer's leaf: one side moves onto the other's rail.
                if (const int via = rail_to_leaf(cluster, na, lb); via >= 0) {
                    ra = via;
                } else if (const int via_b = rail_to_leaf(cluster, nb, la); via_b >= 0) {
                    rb = via_b;
                }
            }
            loads.add(loads.nic, na * rails + ra, k, half);
            loads.add(loads.nic, nb * rails + rb, k, half);
            if (p.cls == PathClass::Xrail || p.cls == PathClass::Xpod) {
                loads.add(loads.leaf_up, la, k, half);
                loads.add(loads.leaf_up, lb, k, half);
            }
            if (p.cls == PathClass::Xpod) {
                loads.add(loads.pod_up, cluster.pod_of_leaf(la), k, half);
                loads.add(loads.pod_up, cluster.pod_of_leaf(lb), k, half);
            }
        }
    }
    return any_tcp;
}

// Per link, the bytes of every kind together.
std::vector<double> sum_kinds(const std::vector<double>& v, std::size_t kinds) {
    std::vector<double> out_v(kinds > 0 ? v.size() / kinds : 0, 0.0);
    for (std::size_t i = 0; i < v.size(); ++i) {
        out_v[i / kinds] += v[i];
    }
    return out_v;
}

// The node tiers' rows: one per rail (node -> leaf), and node TCP when a pair went over TCP.
void add_node_rows(const Cluster& cluster, const Loads& loads, int rails, bool any_tcp, FabricLoad& out) {
    const std::int64_t nodes = cluster.node_count();
    for (int r = 0; r < rails; ++r) {
        std::vector<Candidate> links;
        for (std::int64_t n = 0; n < nodes; ++n) {
            const auto& f = cluster.facts_of(n);
            if (r < static_cast<int>(f.rail_nics.size())) {
                links.push_back({n * rails + r, f.rail_gbit_s[static_cast<std::size_t>(r)] / units::kBitsPerByte,
                                 cluster.nodes[static_cast<std::size_t>(n)].host + " rail " + std::to_string(r) + " -> " +
                                     cluster.leaf_name(cluster.leaf_of(n, r))});
            }
        }
        if (!links.empty()) {
            out.rows.push_back(make_row(LinkTier::NodeLeaf, r, links, loads.nic, loads.kinds));
        }
    }
    if (any_tcp) {
        std::vector<Candidate> links;
        for (std::int64_t n = 0; n < nodes; ++n) {
            links.push_back({n, cluster.facts_of(n).tcp_gbit_s / units::kBitsPerByte, cluster.nodes[static_cast<std::size_t>(n)].host + " TCP"});
        }
        out.rows.push_back(make_row(LinkTier::NodeTcp, -1, links, loads.tcp, loads.kinds));
    }
}

// The upper tiers' rows: leaf -> spine (one per rail on a rail-aligned fabric), spine -> core when
// there are pods; sets out.pod_up_gbyte_s.
void add_uplink_rows(const Cluster& cluster, const Loads& loads, int rails, const std::vector<double>& leaf_down_gbyte_s,
                     double oversub, FabricLoad& out) {
    const bool by_rail = cluster.wiring.empty() && rails > 0;
    for (int r = 0; r < (by_rail ? rails : 1) && out.leaves > 0; ++r) {
        std::vector<Candidate> links;
        for (std::int64_t leaf = 0; leaf < out.leaves; ++leaf) {
            const double down = leaf_down_gbyte_s[static_cast<std::size_t>(leaf)];
            if (down <= 0 || (by_rail && leaf % rails != r)) {
                continue;
            }
            links.push_back({leaf, down / oversub,
                             cluster.leaf_name(leaf) + " -> spine" + std::to_string(cluster.pod_of_leaf(leaf))});
        }
        if (!links.empty()) {
            out.rows.push_back(make_row(LinkTier::LeafSpine, by_rail ? r : -1, links, loads.leaf_up, loads.kinds));
        }
    }
    out.pod_up_gbyte_s.assign(static_cast<std::size_t>(out.pods), 0.0);
    for (std::int64_t leaf = 0; leaf < out.leaves; ++leaf) {
        out.pod_up_gbyte_s[static_cast<std::size_t>(cluster.pod_of_leaf(leaf))] += out.leaf_up_gbyte_s[static_cast<std::size_t>(leaf)];
    }
    if (out.pods > 1) {
        std::vector<Candidate> links;
        for (std::int64_t p = 0; p < out.pods; ++p) {
            links.push_back({p, out.pod_up_gbyte_s[static_cast<std::size_t>(p)], "spine" + std::to_string(p) + " -> core"});
        }
        out.rows.push_back(make_row(LinkTier::SpineCore, -1, links, loads.pod_up, loads.kinds));
    }
}

// Sets out.bottleneck: the row with the most time at capacity; when no loaded link has a known
// capacity, the most bytes.
void find_bottleneck(FabricLoad& out) {
    double worst = 0;
    for (std::size_t i = 0; i < out.rows.size(); ++i) {
        const TierLoad& row = out.rows[i];
        if (row.max_bytes > 0 && row.seconds > worst) {
            worst = row.seconds;
            out.bottleneck = i;
        }
    }
    for (std::size_t i = 0; !out.bottleneck && i < out.rows.size(); ++i) {
        if (out.rows[i].max_bytes > worst) {
            worst = out.rows[i].max_bytes;
            out.bottleneck = i;
        }
    }
}

}  // namespace

FabricLoad fabric_load(const Cluster& cluster,
                       const Placement& placement,
                       const Groups& groups,
                       const std::vector<KindTraffic>& traffic) {
    FabricLoad out;
    const std::int64_t nodes = cluster.node_count();
    const int rails = std::max(cluster.rails, 0);
    const std::vector<double> leaf_down_gbyte_s = leaf_downlinks(cluster, out);
    out.leaves = static_cast<std::int64_t>(leaf_down_gbyte_s.size());
    std::vector<const GroupKind*> kinds;
    std::vector<const KindTraffic*> kind_bytes;
    for (const auto& t : traffic) {
        if (const GroupKind* k = groups.find(t.kind)) {
            kinds.push_back(k);
            kind_bytes.push_back(&t);
            out.kinds.push_back(t.kind);
        }
    }
    Loads loads;
    loads.kinds = kinds.size();
    loads.nic.assign(static_cast<std::size_t>(nodes * rails) * loads.kinds, 0.0);
    loads.tcp.assign(static_cast<std::size_t>(nodes) * loads.kinds, 0.0);
    loads.leaf_up.assign(static_cast<std::size_t>(out.leaves) * loads.kinds, 0.0);
    loads.pod_up.assign(static_cast<std::size_t>(out.pods) * loads.kinds, 0.0);
    const PairClassifier classifier(cluster, placement);
    bool any_tcp = false;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
        if (add_kind_loads(cluster, placement, classifier, *kinds[k], kind_bytes[k], k, rails, loads)) {
            any_tcp = true;
        }
    }

    const double oversub = cluster.fabric.oversubscription > 0 ? cluster.fabric.oversubscription : 1.0;
    out.rails = rails;
    out.nic_bytes = sum_kinds(loads.nic, loads.kinds);
    out.leaf_up_bytes = sum_kinds(loads.leaf_up, loads.kinds);
    out.pod_up_bytes = sum_kinds(loads.pod_up, loads.kinds);
    if (out.kinds.empty()) {  // no bytes: zero loads, one per link
        out.nic_bytes.assign(static_cast<std::size_t>(nodes * rails), 0.0);
        out.leaf_up_bytes.assign(static_cast<std::size_t>(out.leaves), 0.0);
        out.pod_up_bytes.assign(static_cast<std::size_t>(out.pods), 0.0);
    }
    for (const double down : leaf_down_gbyte_s) {
        out.leaf_up_gbyte_s.push_back(down / oversub);
    }
    add_node_rows(cluster, loads, rails, any_tcp, out);
    add_uplink_rows(cluster, loads, rails, leaf_down_gbyte_s, oversub, out);
    find_bottleneck(out);
    return out;
}

}  // namespace planlayout
