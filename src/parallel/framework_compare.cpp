// Framework comparison (parallel/framework_compare.hpp).
#include "planlayout/parallel/framework_compare.hpp"

#include <algorithm>
#include <map>

namespace planlayout {
namespace {

using GroupList = std::vector<std::vector<std::int64_t>>;

GroupList groups_of(const GroupKind& k) {
    GroupList out;
    out.reserve(static_cast<std::size_t>(k.group_count()));
    for (std::int64_t g = 0; g < k.group_count(); ++g) {
        out.push_back(k.group(g));
    }
    return out;
}

GroupList sorted_list(GroupList l) {
    std::sort(l.begin(), l.end());
    return l;
}

GroupList sorted_members(GroupList l) {
    for (auto& g : l) {
        std::sort(g.begin(), g.end());
    }
    return sorted_list(std::move(l));
}

// The group of `rank` in kind k (members in k's order), empty when it has none.
std::vector<std::int64_t> group_of(const GroupKind& k, std::int64_t rank) {
    const auto at = k.find(rank);
    return at ? k.group(at->first) : std::vector<std::int64_t>{};
}

}  // namespace

const char* verdict_name(KindVerdict v) {
    switch (v) {
        case KindVerdict::Same:
            return "same";
        case KindVerdict::SameMembers:
            return "same-members";
        case KindVerdict::Differ:
            return "differ";
        default:
            return "no-counterpart";
    }
}

Groups megatron_counterpart(const Groups& framework) {
    const ResolvedSpec& s = framework.spec;
    ParallelSpec p;
    p.world = s.world;
    p.tp = s.tp;
    p.pp = s.pp;
    p.cp = s.cp;
    p.ep = s.ep;
    p.vpp = s.vpp;
    return build_groups(resolve_spec(p, {"", "/parallel"}));
}

std::vector<KindComparison> compare_groups(const Groups& a, const Groups& b) {
    // b's kinds, listed once and sorted both ways, on demand.
    std::map<std::string, std::pair<GroupList, GroupList>> b_cache;
    auto b_forms = [&](const GroupKind& k) -> const std::pair<GroupList, GroupList>& {
        auto it = b_cache.find(k.name);
        if (it == b_cache.end()) {
            GroupList l = groups_of(k);
            it = b_cache.emplace(k.name, std::pair{sorted_list(l), sorted_members(l)}).first;
        }
        return it->second;
    };
    std::vector<KindComparison> out;
    for (const auto& k : a.kinds) {
        KindComparison c;
        c.kind = k.name;
        c.role = k.role;
        c.groups = k.group_count();
        c.size = k.group_size();
        const GroupList list = groups_of(k);
        const GroupList exact = sorted_list(list);
        const GroupList members = sorted_members(list);
        // Megatron's kind for a framework role: its own name, or the kind that carries the same
        // traffic in Megatron (FSDP's shard group is Megatron's dp_cp, the expert shard group expt_dp).
        const std::string counterpart_name = k.role == "fsdp" ? "dp_cp" : k.role == "efsdp" ? "expt_dp" : k.role;
        const GroupKind* by_role = counterpart_name.empty() ? nullptr : b.find(counterpart_name);
        std::vector<const GroupKind*> candidates;
        if (by_role != nullptr) {
            candidates.push_back(by_role);
        }
        for (const auto& o : b.kinds) {
            if (&o != by_role && o.group_count() == c.groups && o.group_size() == c.size) {
                candidates.push_back(&o);
            }
        }
        for (const GroupKind* o : candidates) {
            const auto& forms = b_forms(*o);
            if (forms.first == exact) {
                c.verdict = KindVerdict::Same;
            } else if (forms.second == members) {
                c.verdict = KindVerdict::SameMembers;
            } else {
                continue;
            }
            c.counterpart = o->name;
            break;
        }
        if (c.counterpart.empty() && by_role != nullptr) {
            c.verdict = KindVerdict::Differ;
            c.counterpart = by_role->name;
            for (std::int64_t r = a.spec.rank_offset; r < a.spec.rank_offset + a.spec.world; ++r) {
                auto mine = group_of(k, r);
                auto theirs = group_of(*by_role, r);
                auto mine_sorted = mine;
                auto theirs_sorted = theirs;
                std::sort(mine_sorted.begin(), mine_sorted.end());
                std::sort(theirs_sorted.begin(), theirs_sorted.end());
                if (mine_sorted != theirs_sorted) {
                    c.rank = r;
                    c.group = std::move(mine);
                    c.counterpart_group = std::move(theirs);
                    break;
                }
            }
        }
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace planlayout
