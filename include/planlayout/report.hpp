// Report: everything an emitter may show; the only thing emitters see.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/analysis/edge_class.hpp"
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
    nlohmann::json sections;       // the layout's model/training/transport/score sections, as given
};

}  // namespace planlayout
