// Test support: invariants every analysis report must satisfy.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "invariants.hpp"
#include "planlayout/report.hpp"

namespace planlayout::testing {

/// Violations of: every rank placed exactly once on a GPU that exists; per-kind pair counts add
/// up over shapes; group counts add up; the group invariants; a score's band holds its point
/// estimate, its factors and shares lie in [0, 1] and the shares add up to at most the step;
/// one arm claims no benefit.
inline std::vector<std::string> check_report_invariants(const Report& r) {
    std::vector<std::string> bad = check_group_invariants(r.groups);
    std::set<std::pair<int, int>> used;
    if (r.placement.world() != r.groups.spec.world) {
        bad.push_back("placement covers " + std::to_string(r.placement.world()) + " ranks, not the world");
    }
    for (std::int64_t i = 0; i < r.placement.world(); ++i) {
        const auto n = r.placement.node[static_cast<std::size_t>(i)];
        const auto g = r.placement.gpu[static_cast<std::size_t>(i)];
        if (n < 0 || n >= r.cluster.node_count() || g < 0 || g >= r.cluster.facts_of(n).gpu_count) {
            bad.push_back("rank " + std::to_string(i) + " on a GPU that does not exist");
        }
        if (!used.emplace(n, g).second) {
            bad.push_back("two ranks on node " + std::to_string(n) + " GPU " + std::to_string(g));
        }
    }
    for (const auto& k : r.kinds) {
        ClassCounts sum{};
        std::int64_t groups = 0;
        for (const auto& s : k.footprints) {
            groups += s.groups;
            for (std::size_t c = 0; c < sum.size(); ++c) {
                sum[c] += s.pairs[c] * s.groups;
            }
        }
        if (sum != k.pairs || groups != k.groups) {
            bad.push_back(k.kind + ": shape counts do not add up to the kind's totals");
        }
        // Across nodes a used pair is on the network or, inside an NVLink domain, on MNNVL.
        const std::int64_t between_nodes = k.cross_pairs() + k.pairs[static_cast<std::size_t>(PathClass::Mnnvl)];
        if (k.max_nodes > 1 && between_nodes == 0 && k.size > 1) {
            bad.push_back(k.kind + ": spans nodes but no used pair crosses");
        }
    }
    if (r.score) {
        const Score& s = *r.score;
        if (!(s.band_low <= s.rdma_benefit + 1e-12 && s.rdma_benefit <= s.band_high + 1e-12)) {
            bad.push_back("the score's band does not contain its point estimate");
        }
        for (double f : {s.cross_node_share, s.eliminable, s.non_overlapped}) {
            if (f < -1e-12 || f > 1 + 1e-12) {
                bad.push_back("a score factor lies outside [0, 1]");
            }
        }
        // Shares are shares: the kinds' exposed parts and compute + bubble make up the step.
        double parts = s.has_model ? (s.compute_s + s.bubble_s) / s.step_time_s[0] : 0.0;
        for (const auto& k : s.by_kind) {
            parts += k.share;
            if (k.share < -1e-12 || k.share > 1 + 1e-12 || k.hidden_s < 0) {
                bad.push_back(k.kind + ": its share of the step lies outside [0, 1]");
            }
        }
        if (s.has_model && parts > 1 + 1e-9) {
            bad.push_back("the kinds' shares and compute add up to more than the step");
        }
        if (s.cross_node_hidden_s < 0) {
            bad.push_back("negative hidden cross-node time");
        }
        if (s.single_arm && (s.rdma_benefit != 0 || s.band_low != 0 || s.band_high != 0)) {
            bad.push_back("one arm, yet a benefit is claimed");
        }
    }
    return bad;
}

}  // namespace planlayout::testing
