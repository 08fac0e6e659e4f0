// Sampled edge classes: the worst group footprint of each kind from a few representative groups.
// On a homogeneous, rail-aligned cluster with node-major placement the groups of a kind are
// translates of one another, so the groups through a handful of nodes (the first node, the
// last node of the first scalable unit and of the first pod, the last node) show every shape
// that matters for the score. Search uses it; analyze keeps the full classification.
#pragma once

#include <string>
#include <vector>

#include "planlayout/analysis/edge_class.hpp"

namespace planlayout {

/// The nodes whose groups are classified: 0, the last node of SU 0 and of pod 0, the last node, and
/// the two nodes at each multi-node NVLink domain boundary.
[[nodiscard]] std::vector<std::int32_t> sample_nodes(const Cluster& cluster, const Placement& placement);

/// Like classify_groups, but only the groups through `sample_nodes` are classified (each once).
/// shapes[].groups counts sampled groups; pairs are scaled to the kind's group count (an
/// estimate). groups, size, max_nodes (over the sample), worst and bottleneck are as for the
/// sampled groups. kinds empty: every kind.
[[nodiscard]] std::vector<KindEdges> classify_groups_sampled(const Groups& groups,
                                                             const Cluster& cluster,
                                                             const Placement& placement,
                                                             const std::vector<std::string>& kinds);

}  // namespace planlayout
