// Analysis: the fabric levels a scheduler knows (node, leaf group, spine pod, cluster) and, per
// communication kind, the level its groups stay inside in the plan and whether a scheduler must
// keep them there (required) or should (preferred). Pure functions over the cluster, the
// placement and the groups; the scheduler formats (emit/sched_topology_emit) print the result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planlayout/parallel/groups.hpp"
#include "planlayout/parallel/placement.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// Fabric levels, innermost first. Domain: the nodes of one multi-node NVLink domain (a GB200/GB300
/// NVL72 rack or a partition of it: Cluster::nvlink), a level only where every domain lies inside
/// one leaf group (SchedulerLevels::domain_level). Leaf: the nodes whose rail NICs share one set of
/// leaf switches (a scalable unit of a rail-aligned fabric; with explicit wiring, the leaf of the
/// node's first rail). Spine: the leaf groups under one spine tier (a pod). Cluster: everything.
enum class SchedLevel : int { Node = 0, Domain = 1, Leaf = 2, Spine = 3, Cluster = 4 };

/// "node", "nvlink-domain", "leaf", "spine", "cluster".
[[nodiscard]] const char* to_string(SchedLevel level);

/// One communication kind's level in the plan.
struct KindLevel {
    std::string kind;            // "tp", "ep", ...
    SchedLevel span = SchedLevel::Node;  // the widest level any of its groups reaches in the plan
    bool required = false;       // true: collectives in every layer (tp, cp, ep, expt_tp)
    std::string why;             // the reason, one line
    std::int64_t slice_nodes = 1;  // smallest block of consecutive job nodes holding each of its groups
};

/// What a scheduler needs from the plan.
struct SchedulerLevels {
    std::vector<KindLevel> kinds;             // the kinds the traffic model times, in a fixed order
    std::vector<std::int32_t> job_nodes;      // node indices in order of their first rank
    SchedLevel job_span = SchedLevel::Node;   // the level holding every node of the job
    SchedLevel required = SchedLevel::Node;   // widest span of the required kinds
    std::int64_t slice_nodes = 1;             // one block size of consecutive nodes that holds every required group
    bool job_required = false;                // required == job_span: the whole job must fit in one domain
    std::int64_t leaf_groups_used = 0;        // distinct leaf groups the job's nodes use
    std::int64_t pods_used = 0;
    bool domain_level = false;                // the cluster's NVLink domains are a level: each inside one leaf group
    std::int64_t domains_used = 0;            // distinct NVLink domains the job's nodes use (0: none)
};

/// True when every node of the cluster is in a multi-node NVLink domain and every domain sits in one
/// leaf group, so that the domains nest between the node and the leaf levels (a scheduler's levels
/// must nest and cover every node; otherwise the domains are left out of them).
[[nodiscard]] bool domains_nest_in_leaves(const Cluster& cluster);

/// The kinds a scheduler is told about and whether each is required: tp, cp, ep and expt_tp run
/// collectives in every layer (model/traffic: calls per step scale with the layers), so a
/// group that leaves its level slows every layer; dp, dp_cp and expt_dp reduce gradients once
/// per step, overlapped with the backward pass, and pp sends point-to-point at stage boundaries:
/// preferred.
[[nodiscard]] bool kind_is_required(const std::string& kind);

/// The smallest S dividing `positions_count` such that every group (a list of node positions
/// 0..positions_count-1) lies inside one block [kS, (k+1)S). positions_count when none smaller.
[[nodiscard]] std::int64_t smallest_block(const std::vector<std::vector<std::int64_t>>& groups,
                                          std::int64_t positions_count);

[[nodiscard]] SchedulerLevels scheduler_levels(const Cluster& cluster, const Placement& placement, const Groups& groups);

}  // namespace planlayout
