// Analysis: cluster-level lint — every node template's checks plus rails and heterogeneity.
#pragma once

#include <vector>

#include "planlayout/analysis/lint.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// lint_node() for every distinct template (messages prefixed with the template's name), then
/// the fabric: rail i of the nodes of one scalable unit on different leaves, or one leaf
/// holding several rails (not rail-aligned: an error with PXN off, where that traffic crosses the
/// spine; a warning with PXN on), mixed node templates, NIC speeds the templates do not give,
/// an oversubscribed spine. Sorted by severity, then code.
[[nodiscard]] std::vector<Finding> lint_cluster(const Cluster& cluster);

}  // namespace planlayout
