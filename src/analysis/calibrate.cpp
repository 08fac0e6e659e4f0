// Calibration: weighted least squares of nccl-tests times against the cost model's own terms.
#include "planlayout/analysis/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "planlayout/error.hpp"

namespace planlayout {
namespace {

bool is_cross(const PlacedGroup& g) { return g.nodes >= 2 && g.n >= 2; }

/// Bandwidth time of one call at line rate (efficiency 1, no alpha), on the calibrated link.
double line_time_us(CollectiveOp op, const PlacedGroup& shape, double size, Transport t, CollectiveCost* steps) {
    PlacedGroup g = shape;
    g.nvlink_efficiency = 1.0;
    g.pcie_efficiency = 1.0;
    TransportModel unit;
    unit.kind = t;
    unit.efficiency = 1.0;
    unit.alltoall_efficiency = 1.0;
    unit.alpha_us = 0;
    unit.host_staged_efficiency = 1.0;
    unit.shm = t == Transport::Shm;  // SHM: its host-side bound at line rate
    unit.shm_efficiency = unit.shm_alltoall_efficiency = 1.0;
    unit.shm_alpha_us = 0;
    const CollectiveCost c = collective_cost(op, g, size, unit);
    *steps = c;
    return (is_cross(g) ? c.nic_s : c.intra_s) * 1e6;
}

}  // namespace

Calibration fit_calibration(const NcclTestsRun& run, const PlacedGroup& placed, Transport transport,
                            std::optional<PathClass> link_class, double min_size_bytes, bool socket_inside_node) {
    Calibration c;
    c.transport = transport;
    c.op = run.op;
    c.nodes = placed.nodes;
    c.gpus_per_node = placed.max_per_node;
    c.ranks = placed.n;
    c.socket_inside_node = socket_inside_node && transport == Transport::Tcp && placed.max_per_node >= 2;
    const PlacedGroup shape = c.socket_inside_node ? socket_endpoints(placed) : placed;
    const bool cross = is_cross(shape);
    if (is_intra_arm(transport) && (cross || shape.max_per_node < 2)) {
        throw input_error("--transport " + std::string(to_string(transport)),
                          std::string(to_string(transport)) + " is the path between GPUs of one node; this run " +
                              (cross ? "spans nodes" : "has one GPU per node"),
                          "calibrate it from a one-node run of two or more GPUs (--nodes 1 --gpus-per-node G; for shm "
                          "with NCCL_P2P_DISABLE=1)");
    }
    c.link_class = link_class.value_or(cross ? shape.worst_cross : shape.worst_intra);
    if (cross) {
        const bool tcp = transport == Transport::Tcp;
        c.line = tcp ? "TCP interface" : "rail NIC";
        c.line_gbyte_s = tcp ? shape.tcp_interfaces_per_node * shape.tcp_gbit_s / 8.0 : shape.nic_gbit_s / 8.0;
    } else if (transport == Transport::Shm) {
        const TransportModel bounds;  // the default host memory and inter-socket bounds (ShmSpec)
        c.line = "SHM (PCIe, host memory)";
        c.line_gbyte_s = shm_line_gbyte_s(shape, bounds, run.op == CollectiveOp::AllToAll);
    } else {
        const bool nv = shape.worst_intra <= PathClass::Nv;
        c.line = nv ? "NVLink" : "PCIe";
        c.line_gbyte_s = nv ? shape.nvlink_gbyte_s : shape.pcie_gbyte_s;
    }
    if (run.ranks != shape.n) {
        c.warnings.push_back("the file has " + std::to_string(run.ranks) + " ranks, the placement " +
                             std::to_string(shape.n) + "; fitted on the placement");
    }

    CollectiveCost steps;
    std::vector<double> xs;
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& r : run.rows) {
        CalibrationRow row;
        row.line = r.line;
        row.size_bytes = r.size_bytes;
        row.measured_us = r.time_us;
        row.measured_busbw_gbyte_s = r.size_bytes / r.time_us / 1e3 * bus_factor(run.op, shape.n);
        row.used = r.size_bytes >= min_size_bytes;
        const double x = line_time_us(run.op, shape, r.size_bytes, transport, &steps);
        xs.push_back(x);
        if (row.used) {
            const double w = 1.0 / (r.time_us * r.time_us);
            sw += w;
            sx += w * x;
            sy += w * r.time_us;
            sxx += w * x * x;
            sxy += w * x * r.time_us;
            ++c.rows_used;
        }
        c.rows.push_back(row);
    }
    if (shape.n < 2) {
        throw input_error("calibrate", "the rows come from a run of one rank: nothing was communicated, so there is no bandwidth to fit",
                          "calibrate from a run of two or more GPUs (--nodes/--gpus-per-node must match the run)");
    }
    if (c.rows_used < 2) {
        throw input_error("calibrate",
                          "only " + std::to_string(c.rows_used) + " row(s) to fit; two or more sizes are needed",
                          "lower --min-size or run nccl-tests over a range of sizes (-b 1M -e 8G -f 2)");
    }
    const double det = sw * sxx - sx * sx;
    double slope = det > 0 ? (sw * sxy - sx * sy) / det : sxy / sxx;
    double intercept = det > 0 ? (sy - slope * sx) / sw : 0.0;
    if (intercept < 0) {
        // Latency cannot be negative: fit the bandwidth through the origin instead.
        intercept = 0;
        slope = sxy / sxx;
    }
    if (!(slope > 0)) {
        throw input_error("calibrate", "the measured times do not grow with the message size",
                          "use rows from the bandwidth-bound range (larger sizes)");
    }
    c.efficiency = 1.0 / slope;
    // The intercept is alpha over every step; across nodes the intra-node steps keep the shape's
    // NVLink/PCIe alpha and the network steps take the rest.
    const int intra_steps = steps.steps - steps.net_steps;
    const double intra_alpha = shape.worst_intra <= PathClass::Nv ? shape.nvlink_alpha_us : shape.pcie_alpha_us;
    if (steps.net_steps > 0) {
        c.alpha_us = std::max(0.0, (intercept - intra_alpha * intra_steps) / steps.net_steps);
        intercept = intra_alpha * intra_steps + c.alpha_us * steps.net_steps;
    } else {
        c.alpha_us = steps.steps > 0 ? intercept / steps.steps : 0.0;
    }
    double sum_sq = 0;
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
        auto& row = c.rows[i];
        row.predicted_us = intercept + slope * xs[i];
        row.residual = (row.measured_us - row.predicted_us) / row.measured_us;
        row.predicted_busbw_gbyte_s = row.size_bytes / row.predicted_us / 1e3 * bus_factor(run.op, shape.n);
        if (row.used) {
            sum_sq += row.residual * row.residual;
        }
    }
    c.rms_residual = std::sqrt(sum_sq / static_cast<double>(c.rows_used));
    const auto& largest = c.rows.back();
    c.busbw_gbyte_s = largest.size_bytes / (slope * xs.back()) / 1e3 * bus_factor(run.op, shape.n);
    if (cross) {
        // Does the fitted link bind in the model? If NVLink does, the fit will not move predictions.
        TransportModel fitted;
        fitted.kind = transport;
        fitted.efficiency = fitted.alltoall_efficiency = fitted.host_staged_efficiency = c.efficiency;
        const CollectiveCost big = collective_cost(run.op, shape, largest.size_bytes, fitted);
        if (big.intra_s > big.nic_s) {
            c.warnings.push_back("at these sizes the model says NVLink/PCIe binds, not the " + c.line +
                                 ": the fitted efficiency will not change predictions (NVLS or a faster "
                                 "intra-node path than declared); calibrate --class NV on a one-node run too");
        }
    }
    if (c.efficiency > 1.0) {
        c.warnings.emplace_back("efficiency above 1: the link beats the model's line rate (NVLS/SHARP, a tree "
                             "gain above two_node_tree_gain, or a faster link than declared)");
    }
    return c;
}

void apply_calibration(const Calibration& c, TransportSpec& spec) {
    if (c.transport == Transport::Shm) {  // a one-node run with P2P off: SHM's own priors
        Prior& prior = c.op == CollectiveOp::AllToAll ? spec.shm_params.alltoall_efficiency : spec.shm_params.efficiency;
        const double scale = c.efficiency / prior.value;
        prior = {c.efficiency, prior.low * scale, prior.high * scale};
        spec.shm_params.alpha_us = c.alpha_us;
        return;
    }
    if (!is_cross_node(c.link_class)) {
        return;
    }
    TransportParams& p = spec.params(c.transport);
    Prior& prior = c.op == CollectiveOp::AllToAll ? p.alltoall_efficiency : p.efficiency;
    const double scale = c.efficiency / prior.value;
    prior = {c.efficiency, prior.low * scale, prior.high * scale};
    p.alpha_us = c.alpha_us;
}

void apply_calibration(const Calibration& c, PlacedGroup& shape) {
    if (is_cross_node(c.link_class) || c.transport == Transport::Shm) {  // SHM's fit is not the NVLink/PCIe one
        return;
    }
    if (c.link_class <= PathClass::Nv) {
        shape.nvlink_efficiency = c.efficiency;
        shape.nvlink_alpha_us = c.alpha_us;
    } else {
        shape.pcie_efficiency = c.efficiency;
        shape.pcie_alpha_us = c.alpha_us;
    }
}

void apply_calibration(const Calibration& c, NodeHardware& hw) {
    PlacedGroup s = make_placed_group(1, 2, hw);
    apply_calibration(c, s);
    hw.nvlink_efficiency = s.nvlink_efficiency;
    hw.nvlink_alpha_us = s.nvlink_alpha_us;
    hw.pcie_efficiency = s.pcie_efficiency;
    hw.pcie_alpha_us = s.pcie_alpha_us;
}

}  // namespace planlayout
