// Report: everything an emitter may show; the only thing emitters see.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <optional>

#include "planlayout/analysis/allocation.hpp"
#include "planlayout/analysis/assumptions.hpp"
#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/model/memory.hpp"
#include "planlayout/model/score.hpp"
#include "planlayout/parallel/groups.hpp"
#include "planlayout/parallel/placement.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

struct Report {
    std::string layout_name;       // the layout file as given, or "... (embedded)"
    Cluster cluster;
    Groups groups;
    Placement placement;
    std::vector<KindEdges> kinds;  // creation order
    std::vector<std::string> warnings;
    std::vector<std::string> files;  // files plan() read besides the layout (cluster, templates, captures, calibrations, hostfile)
    nlohmann::json sections;       // the layout's model/training/transport/score sections, as given
    std::optional<Score> score;    // when the layout has model/training/transport or score sections
    // The layout as plan() read it (after the caller composed its inputs), the same with every
    // value explicit (cluster as given), where each given value came from, and the listing of
    // every number the plan used with its source.
    nlohmann::json layout;
    nlohmann::json effective_layout;
    std::map<std::string, std::string> sources;
    std::vector<Assumption> assumptions;
    std::optional<MemoryReport> memory;  // when the layout has model and training sections
    std::optional<AllocationReport> allocation;  // the placement names part of the cluster's hosts (an allocation)
};

}  // namespace planlayout
