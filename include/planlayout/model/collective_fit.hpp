// A calibrated collective: one (transport, collective, link class) fit with a per-call floor, a
// per-step latency and an efficiency curve over message size (docs/cost-model.md §4).
#pragma once

#include <string>
#include <vector>

#include "planlayout/model/collective_op.hpp"
#include "planlayout/model/model_spec.hpp"
#include "planlayout/topology/path_class.hpp"

namespace planlayout {

/// The efficiency (of the line rate) one measured message size reached.
struct EfficiencyPoint {
    double size_bytes = 0;
    double efficiency = 0;
};

/// One fit as the cost model uses it. Time of a call = floor + alpha per step (net steps for a
/// cross-node fit, every step for an NV/PCIe fit) + bandwidth time at efficiency_at(size).
struct CollectiveFit {
    Transport transport = Transport::Gdrdma;
    PathClass link_class = PathClass::Rail;
    CollectiveOp op = CollectiveOp::AllReduce;
    double floor_us = 0;                  // per call, independent of the steps
    double alpha_us = 0;                  // per step
    std::vector<EfficiencyPoint> curve;   // ascending sizes, at least one point
    std::string source;                   // the file it was read from (base name), for the assumptions

    /// Piecewise linear in log(size) between measured sizes; flat beyond the smallest and the
    /// largest (NCCL-like: no extrapolated trend).
    [[nodiscard]] double efficiency_at(double size_bytes) const;
    /// "tcp all_to_all RAIL (calib.json)"
    [[nodiscard]] std::string label() const;
    // (The fit in a line, with its numbers: collective_fit_text in planlayout/emit/collective_emit.hpp.)
};

/// Every fit a layout or command applies, one per (transport, collective, link class); a later
/// fit with the same key replaces the earlier one, fits with different keys never touch each other.
struct CollectiveFits {
    std::vector<CollectiveFit> fits;

    void add(CollectiveFit fit);
    /// The fit for a network (cross-node) path of `cls`: the exact class first, else any cross-node
    /// class of the same transport and collective. nullptr: the priors.
    [[nodiscard]] const CollectiveFit* network(Transport t, CollectiveOp op, PathClass cls) const;
    /// The fit for the intra-node path of `cls` (NV or PCIe family), whatever the transport: NCCL's
    /// transport choice does not change NVLink/PCIe. The exact class first, else the same family.
    [[nodiscard]] const CollectiveFit* intra(CollectiveOp op, PathClass cls) const;
    /// The SHM transport's fit of this collective (a one-node run with P2P off), nullptr: its priors.
    [[nodiscard]] const CollectiveFit* shm(CollectiveOp op) const;
};

}  // namespace planlayout
