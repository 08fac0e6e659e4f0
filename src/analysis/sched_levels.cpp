// Analysis: per communication kind, the fabric level its groups stay inside and whether a
// scheduler must keep them there (docs/formats/schedulers.md "Required and preferred").
#include "planlayout/analysis/sched_levels.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace planlayout {
namespace {

struct KindRule {
    const char* kind;
    bool required;
    const char* why;
};

// The kinds model/traffic times, with the reason for each; docs/cost-model.md lists the same.
const KindRule kRules[] = {
    {"tp", true, "all-reduce (or reduce-scatter + all-gather) in every layer"},
    {"cp", true, "KV send/recv around the ring in every layer"},
    {"ep", true, "token all-to-all in every MoE layer"},
    {"expt_tp", true, "expert activation all-reduce in every MoE layer"},
    {"pp", false, "send/recv at stage boundaries, 2 per micro-batch"},
    {"dp", false, "gradient reduce once per step, overlapped with the backward"},
    {"dp_cp", false, "gradient reduce (with CP) once per step, overlapped"},
    {"expt_dp", false, "expert gradient reduce once per step, overlapped"},
    // Other frameworks' roles (GroupKind::role): FSDP/HSDP.
    {"fsdp", false, "FSDP parameter all-gather and gradient reduce-scatter per layer, prefetched under compute"},
    {"efsdp", false, "FSDP expert parameter all-gather and gradient reduce-scatter, prefetched under compute"},
    {"dp_replicate", false, "HSDP replica gradient all-reduce once per step, overlapped"},
};

}  // namespace

const char* to_string(SchedLevel level) {
    switch (level) {
        case SchedLevel::Node: return "node";
        case SchedLevel::Domain: return "nvlink-domain";
        case SchedLevel::Leaf: return "leaf";
        case SchedLevel::Spine: return "spine";
        case SchedLevel::Cluster: return "cluster";
    }
    return "cluster";
}

bool kind_is_required(const std::string& kind) {
    return std::any_of(std::begin(kRules), std::end(kRules), [&](const KindRule& r) { return r.required && kind == r.kind; });
}

std::int64_t smallest_block(const std::vector<std::vector<std::int64_t>>& groups, std::int64_t positions_count) {
    for (std::int64_t s = 1; s < positions_count; ++s) {
        if (positions_count % s != 0) {
            continue;
        }
        const bool fits = std::all_of(groups.begin(), groups.end(), [&](const std::vector<std::int64_t>& g) {
            return std::all_of(g.begin(), g.end(), [&](std::int64_t p) { return p / s == g.front() / s; });
        });
        if (fits) {
            return s;
        }
    }
    return std::max<std::int64_t>(positions_count, 1);
}

bool domains_nest_in_leaves(const Cluster& cluster) {
    if (cluster.nvlink.empty()) {
        return false;
    }
    const FabricDomains d = fabric_domains(cluster);
    std::map<std::int32_t, std::int64_t> leaf_of_domain;
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
        const std::int32_t dom = cluster.domain_of(static_cast<std::int64_t>(n));
        if (dom < 0) {
            return false;  // a node in no domain: the level would not cover the cluster
        }
        const auto it = leaf_of_domain.emplace(dom, d.leaf_group[n]).first;
        if (it->second != d.leaf_group[n] || d.leaf_group[n] < 0) {
            return false;
        }
    }
    return !leaf_of_domain.empty();
}

SchedulerLevels scheduler_levels(const Cluster& cluster, const Placement& placement, const Groups& groups) {
    SchedulerLevels out;
    const FabricDomains d = fabric_domains(cluster);
    out.domain_level = domains_nest_in_leaves(cluster);
    std::map<std::int32_t, std::int64_t> position;  // node → its position among the job's nodes
    for (const std::int32_t n : placement.node) {
        if (position.emplace(n, static_cast<std::int64_t>(out.job_nodes.size())).second) {
            out.job_nodes.push_back(n);
        }
    }
    // The level a set of nodes spans: one node, one leaf group, one pod, or more.
    auto span_of = [&](const std::set<std::int32_t>& nodes) {
        if (nodes.size() <= 1) {
            return SchedLevel::Node;
        }
        const std::int32_t first_domain = cluster.domain_of(*nodes.begin());
        if (out.domain_level && first_domain >= 0 &&
            std::all_of(nodes.begin(), nodes.end(), [&](std::int32_t n) { return cluster.domain_of(n) == first_domain; })) {
            return SchedLevel::Domain;
        }
        std::set<std::int64_t> leaves;
        std::set<std::int64_t> pods;
        for (const auto n : nodes) {
            leaves.insert(d.leaf_group[static_cast<std::size_t>(n)]);
            pods.insert(d.pod[static_cast<std::size_t>(n)]);
        }
        const bool railless = leaves.count(-1) > 0;  // a node without a rail NIC reaches others over TCP only
        if (leaves.size() == 1 && !railless) {
            return SchedLevel::Leaf;
        }
        return pods.size() == 1 && !railless ? SchedLevel::Spine : SchedLevel::Cluster;
    };
    const std::set<std::int32_t> all(out.job_nodes.begin(), out.job_nodes.end());
    out.job_span = span_of(all);
    std::set<std::int64_t> leaves;
    std::set<std::int64_t> pods;
    std::set<std::int32_t> domains;
    for (const auto n : all) {
        leaves.insert(d.leaf_group[static_cast<std::size_t>(n)]);
        pods.insert(d.pod[static_cast<std::size_t>(n)]);
        if (cluster.domain_of(n) >= 0) {
            domains.insert(cluster.domain_of(n));
        }
    }
    out.domains_used = static_cast<std::int64_t>(domains.size());
    out.leaf_groups_used = static_cast<std::int64_t>(leaves.size());
    out.pods_used = static_cast<std::int64_t>(pods.size());
    const auto job_nodes = static_cast<std::int64_t>(out.job_nodes.size());
    std::vector<std::vector<std::int64_t>> required_groups;  // node positions of every required group
    for (const auto& rule : kRules) {
        const GroupKind* kind = groups.find_role(rule.kind);  // Megatron's kinds: their own name
        if (kind == nullptr || kind->group_size() <= 1) {
            continue;  // no such groups (size 1: nothing crosses)
        }
        // The data-parallel reduce runs over dp_cp when CP > 1, else over dp (model/traffic).
        if ((std::string(rule.kind) == "dp" && groups.spec.cp > 1) || (std::string(rule.kind) == "dp_cp" && groups.spec.cp <= 1)) {
            continue;
        }
        KindLevel level{kind->name, SchedLevel::Node, rule.required, rule.why, 1};
        std::vector<std::vector<std::int64_t>> positions;
        for (std::int64_t g = 0; g < kind->group_count(); ++g) {
            std::set<std::int32_t> nodes;
            std::vector<std::int64_t> pos;
            for (std::int64_t m = 0; m < kind->group_size(); ++m) {
                const std::int32_t n = placement.node[static_cast<std::size_t>(kind->member(g, m))];
                nodes.insert(n);
                pos.push_back(position.at(n));
            }
            level.span = std::max(level.span, span_of(nodes));
            positions.push_back(std::move(pos));
        }
        level.slice_nodes = smallest_block(positions, job_nodes);
        if (rule.required) {
            out.required = std::max(out.required, level.span);
            required_groups.insert(required_groups.end(), positions.begin(), positions.end());
        }
        out.kinds.push_back(std::move(level));
    }
    out.slice_nodes = smallest_block(required_groups, job_nodes);
    out.job_required = out.required == out.job_span && out.job_span != SchedLevel::Node;
    return out;
}

}  // namespace planlayout
