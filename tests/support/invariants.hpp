// Test support: invariants every group listing must satisfy (checked after every run).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planlayout/parallel/groups.hpp"

namespace planlayout::testing {

/// Violations of: each rank of the grid exactly once per partitioning kind (embedding kinds
/// cover a subset, each rank at most once), sizes × counts = W, find() agrees with member(),
/// containment (tp ⊂ tp_dp, ep ⊂ tp_ep, cp ⊂ tp_cp, dp ⊂ dp_cp, tp_ep ⊂ tp_ep_pp), and the
/// pp groups of the dense and expert generators identical. Empty when all hold.
inline std::vector<std::string> check_group_invariants(const Groups& groups) {
    std::vector<std::string> bad;
    const auto& s = groups.spec;
    const std::int64_t w = s.grid_world;
    for (const auto& k : groups.kinds) {
        const bool partial = k.derivation == KindDerivation::Select;
        std::vector<int> seen(static_cast<std::size_t>(w), 0);
        for (std::int64_t g = 0; g < k.group_count(); ++g) {
            for (std::int64_t i = 0; i < k.group_size(); ++i) {
                const std::int64_t r = k.member(g, i);
                if (r < s.rank_offset || r >= s.rank_offset + w) {
                    bad.push_back(k.name + ": rank " + std::to_string(r) + " outside the grid");
                    continue;
                }
                ++seen[static_cast<std::size_t>(r - s.rank_offset)];
                const auto f = k.find(r);
                if (!f || f->first != g || f->second != i) {
                    bad.push_back(k.name + ": find(" + std::to_string(r) + ") disagrees with member()");
                }
            }
        }
        for (std::int64_t r = 0; r < w; ++r) {
            const int c = seen[static_cast<std::size_t>(r)];
            if ((!partial && c != 1) || c > 1) {
                bad.push_back(k.name + ": rank " + std::to_string(r + s.rank_offset) + " appears " + std::to_string(c) + " times");
                break;
            }
        }
        if (!partial && k.group_count() * k.group_size() != w) {
            bad.push_back(k.name + ": count*size != W");
        }
    }
    auto contained = [&](const std::string& inner, const std::string& outer) {
        const GroupKind* a = groups.find(inner);
        const GroupKind* b = groups.find(outer);
        if (!a || !b) {
            return;
        }
        for (std::int64_t g = 0; g < a->group_count(); ++g) {
            const auto first = b->find(a->member(g, 0));
            for (std::int64_t i = 1; i < a->group_size(); ++i) {
                if (b->find(a->member(g, i))->first != first->first) {
                    bad.push_back(inner + " group " + std::to_string(g) + " is not inside one " + outer + " group");
                    return;
                }
            }
        }
    };
    contained("tp", "tp_dp");
    contained("dp", "dp_cp");
    contained("cp", "tp_cp");
    contained("ep", "tp_ep");
    contained("tp_ep", "tp_ep_pp");
    contained("expt_tp", "tp_ep");
    // The pp groups of both generators are identical (Megatron asserts it).
    if (const GroupKind* pp = groups.find("pp")) {
        Grid expert_pp;
        expert_pp.offset = s.rank_offset;
        for (const auto& a : s.expert) {
            (a.name == "pp" ? expert_pp.masked : expert_pp.unmasked).push_back(a);
        }
        for (std::int64_t g = 0; g < pp->group_count(); ++g) {
            for (std::int64_t i = 0; i < pp->group_size(); ++i) {
                if (pp->member(g, i) != expert_pp.member(g, i)) {
                    bad.push_back("dense and expert pp groups differ at group " + std::to_string(g));
                    g = pp->group_count();
                    break;
                }
            }
        }
    }
    return bad;
}

}  // namespace planlayout::testing
