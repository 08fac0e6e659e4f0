// Cost: GroupShape (edge classes) → CostShape (cost model).
#include "planlayout/analysis/cost_shape.hpp"

#include <algorithm>

namespace planlayout {

CostShape cost_shape_from_edges(const GroupShape& shape, int gpus_per_node, const NodeHardware& hw, bool pxn) {
    CostShape c = make_cost_shape(std::max(1, shape.nodes), std::max(1, shape.max_per_node), hw);
    c.n = static_cast<int>(shape.n);
    c.rails_per_node = std::max(1, shape.min_rails_per_node);
    c.worst_intra = shape.worst_intra;
    c.worst_cross = shape.worst_cross;
    c.one_rank_per_node = shape.max_per_node == 1 && shape.nodes >= 2;
    c.gpu_nic_sys = shape.worst_gpu_nic >= PathClass::Node;
    c.pxn = pxn;
    c.concurrent_groups_per_node = std::max(1, gpus_per_node / std::max(1, shape.max_per_node));
    return c;
}

}  // namespace planlayout
