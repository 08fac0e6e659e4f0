// Calibration: a fixed latency from a weighted least-squares line over the rows, split into a
// per-call floor and alpha per step, and the efficiency each measured size reached.
#include "planlayout/analysis/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "planlayout/error.hpp"
#include "planlayout/model/units.hpp"

namespace planlayout {
namespace {

bool is_cross(const PlacedGroup& g) { return g.nodes > 1 && g.n > 1; }

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
    return (is_cross(g) ? c.nic_s : c.intra_s) * units::kMega;
}

std::string size_text(double bytes) {
    std::string text(static_cast<std::size_t>(std::snprintf(nullptr, 0, "%.0f B", bytes)), '\0');
    std::snprintf(text.data(), text.size() + 1, "%.0f B", bytes);
    return text;
}

/// The fixed latency of a call: the weighted least-squares intercept of t = L + slope·x, at
/// least 0 and at most what leaves every measured size a bandwidth term no faster than the
/// larger of the line rate and the fitted slope's efficiency.
struct LineFit {
    double latency_us = 0;
    double slope = 0;
};

LineFit fit_line(const std::vector<double>& xs, const std::vector<double>& ts, const std::vector<bool>& used) {
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        if (!used[i]) {
            continue;
        }
        const double w = 1.0 / (ts[i] * ts[i]);
        sw += w;
        sx += w * xs[i];
        sy += w * ts[i];
        sxx += w * xs[i] * xs[i];
        sxy += w * xs[i] * ts[i];
    }
    const double det = sw * sxx - sx * sx;
    LineFit f;
    f.slope = det > 0 ? (sw * sxy - sx * sy) / det : sxy / sxx;
    f.latency_us = det > 0 ? (sy - f.slope * sx) / sw : 0.0;
    if (f.latency_us < 0) {
        // Latency cannot be negative: fit the bandwidth through the origin instead.
        f.latency_us = 0;
        f.slope = sxy / sxx;
    }
    return f;
}

/// Sets the calibrated link (c.line) and its line rate: the rail NIC or TCP interfaces across
/// nodes, else SHM, NVLink or PCIe inside one.
void set_line(Calibration& c, const PlacedGroup& shape, Transport transport, bool cross) {
    if (cross) {
        const bool tcp = transport == Transport::Tcp;
        c.line = tcp ? "TCP interface" : "rail NIC";
        c.line_gbyte_s = tcp ? shape.tcp_interfaces_per_node * shape.tcp_gbit_s / units::kBitsPerByte
                             : shape.nic_gbit_s / units::kBitsPerByte;
    } else if (transport == Transport::Shm) {
        const TransportModel bounds;  // the default host memory and inter-socket bounds (ShmSpec)
        c.line = "SHM (PCIe, host memory)";
        c.line_gbyte_s = shm_line_gbyte_s(shape, bounds, c.op == CollectiveOp::AllToAll);
    } else {
        const bool nv = over_nvlink(shape.worst_intra);
        c.line = nv ? "NVLink" : "PCIe";
        c.line_gbyte_s = nv ? shape.nvlink_gbyte_s : shape.pcie_gbyte_s;
    }
}

/// The rows as fit points, by row: line time (x), measured time and whether the row is fitted.
struct FitPoints {
    std::vector<double> xs;
    std::vector<double> ts;
    std::vector<bool> used;
};

/// Adds every run's rows to c.rows (counting c.rows_used, warning on a rank count unlike the
/// placement's); their fit points. `steps`: the cost model's steps of one call.
FitPoints add_rows(const std::vector<NcclTestsRun>& runs, const PlacedGroup& placed, const PlacedGroup& shape,
                   Transport transport, double min_size_bytes, Calibration& c, CollectiveCost& steps) {
    FitPoints p;
    for (const auto& run : runs) {
        if (run.op != c.op) {
            throw input_error("calibrate", "one fit mixes " + std::string(to_string(c.op)) + " and " +
                                               std::string(to_string(run.op)) + " rows",
                              "fit each collective on its own (fit_calibrations groups them)");
        }
        if (run.ranks != shape.n && run.ranks != placed.n) {
            c.warnings.push_back("the file has " + std::to_string(run.ranks) + " ranks, the placement " +
                                 std::to_string(placed.n) + "; fitted on the placement");
        }
        for (const auto& r : run.rows) {
            CalibrationRow row;
            row.line = r.line;
            row.size_bytes = r.size_bytes;
            row.measured_us = r.time_us;
            row.measured_busbw_gbyte_s = r.size_bytes / r.time_us / units::kKilo * bus_factor(c.op, shape.n);
            row.used = r.size_bytes >= min_size_bytes;
            p.xs.push_back(line_time_us(c.op, shape, r.size_bytes, transport, &steps));
            p.ts.push_back(r.time_us);
            p.used.push_back(row.used);
            if (row.used) {
                ++c.rows_used;
            }
            c.rows.push_back(row);
        }
    }
    return p;
}

/// Splits the fixed latency into floor and alpha (set in c); the latency they make up.
/// With one group size they cannot be told apart (both are a constant per call). Alpha is the
/// prior per step; the floor is what the fixed latency has beyond it.
double split_latency(Calibration& c, double latency, const CollectiveCost& steps, const PlacedGroup& shape,
                     Transport transport) {
    const int intra_steps = steps.steps - steps.net_steps;
    const double intra_alpha = transport == Transport::Shm          ? TransportSpec{}.shm_params.alpha_us
                               : over_nvlink(shape.worst_intra) ? shape.nvlink_alpha_us
                                                                    : shape.pcie_alpha_us;
    if (steps.net_steps > 0) {
        c.alpha_prior_us = TransportSpec{}.params(transport).alpha_us;
        const double fixed_intra = intra_alpha * intra_steps;
        if (latency >= fixed_intra + c.alpha_prior_us * steps.net_steps) {
            c.alpha_us = c.alpha_prior_us;
            c.floor_us = latency - fixed_intra - c.alpha_prior_us * steps.net_steps;
        } else {
            c.alpha_from_prior = false;
            c.alpha_us = std::max(0.0, (latency - fixed_intra) / steps.net_steps);
        }
        return c.floor_us + fixed_intra + c.alpha_us * steps.net_steps;
    }
    c.alpha_prior_us = intra_alpha;
    const double prior = intra_alpha * steps.steps;
    if (latency >= prior) {
        c.alpha_us = intra_alpha;
        c.floor_us = latency - prior;
    } else {
        c.alpha_from_prior = false;
        c.alpha_us = steps.steps > 0 ? latency / steps.steps : 0.0;
    }
    return latency;
}

/// Predicts every row through the cost model with the fit alone (the round trip): each row's
/// prediction and residual, c.rms_residual, and the warnings on what the fit cannot change.
void predict_rows(Calibration& c, const PlacedGroup& shape, Transport transport, bool cross) {
    CollectiveFits fits;
    fits.add(to_fit(c));
    TransportModel x;
    x.kind = transport;
    x.fits = &fits;
    double sum_sq = 0;
    const CollectiveFit shm_fit = to_fit(c);
    for (auto& row : c.rows) {
        if (transport == Transport::Shm) {  // SHM's own path: its efficiency at this size, alpha and floor
            TransportModel sx;
            sx.shm = true;
            sx.shm_efficiency = sx.shm_alltoall_efficiency = shm_fit.efficiency_at(row.size_bytes);
            sx.shm_alpha_us = c.alpha_us;
            row.predicted_us = collective_cost(c.op, shape, row.size_bytes, sx).time_s * units::kMega + c.floor_us;
        } else {
            row.predicted_us = collective_cost(c.op, shape, row.size_bytes, x).time_s * units::kMega;
        }
        row.residual = (row.measured_us - row.predicted_us) / row.measured_us;
        row.predicted_busbw_gbyte_s = row.size_bytes / row.predicted_us / units::kKilo * bus_factor(c.op, shape.n);
        if (row.used) {
            sum_sq += row.residual * row.residual;
        }
    }
    c.rms_residual = std::sqrt(sum_sq / static_cast<double>(c.rows_used));
    if (cross) {
        // Does the fitted link bind in the model? If NVLink does, the fit will not move predictions.
        const CollectiveCost big = collective_cost(c.op, shape, c.curve.back().size_bytes, x);
        if (big.intra_s > big.nic_s) {
            c.warnings.push_back("at these sizes the model says NVLink/PCIe binds, not the " + c.line +
                                 ": the fitted efficiency will not change predictions (NVLS or a faster "
                                 "intra-node path than declared); calibrate --class NV on a one-node run too");
        }
    }
    const bool above_one = std::any_of(c.curve.begin(), c.curve.end(), [](const EfficiencyPoint& p) { return p.efficiency > 1.0; });
    if (above_one) {
        c.warnings.emplace_back("efficiency above 1: the link beats the model's line rate (NVLS/SHARP, a tree "
                             "gain above two_node_tree_gain, or a faster link than declared)");
    }
}

}  // namespace

Calibration fit_calibration(const std::vector<NcclTestsRun>& runs, const PlacedGroup& placed, Transport transport,
                            std::optional<PathClass> link_class, double min_size_bytes, bool socket_inside_node) {
    if (runs.empty()) {
        throw input_error("calibrate", "no nccl-tests rows to fit", "give one or more nccl-tests output files");
    }
    Calibration c;
    c.transport = transport;
    c.op = runs.front().op;
    c.nodes = placed.nodes;
    c.gpus_per_node = placed.max_per_node;
    c.ranks = placed.n;
    c.socket_inside_node = socket_inside_node && transport == Transport::Tcp && placed.max_per_node > 1;
    const PlacedGroup shape = c.socket_inside_node ? socket_endpoints(placed) : placed;
    const bool cross = is_cross(shape);
    if (is_intra_arm(transport) && (cross || shape.max_per_node <= 1)) {
        throw input_error("--transport " + std::string(to_string(transport)),
                          std::string(to_string(transport)) + " is the path between GPUs of one node; this run " +
                              (cross ? "spans nodes" : "has one GPU per node"),
                          "calibrate it from a one-node run of two or more GPUs (--nodes 1 --gpus-per-node G; for shm "
                          "with NCCL_P2P_DISABLE=1)");
    }
    c.link_class = link_class.value_or(cross ? shape.worst_cross : shape.worst_intra);
    set_line(c, shape, transport, cross);
    if (shape.n <= 1) {
        throw input_error("calibrate", "the rows come from a run of one rank: nothing was communicated, so there is no bandwidth to fit",
                          "calibrate from a run of two or more GPUs (--nodes/--gpus-per-node must match the run)");
    }

    CollectiveCost steps;
    const FitPoints p = add_rows(runs, placed, shape, transport, min_size_bytes, c, steps);
    // Each used size: the mean of its rows (rounds pooled) and its line time.
    std::map<double, std::pair<double, int>> by_size;
    std::map<double, double> x_of;
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
        if (p.used[i]) {
            auto& [sum, count] = by_size[c.rows[i].size_bytes];
            sum += p.ts[i];
            ++count;
            x_of[c.rows[i].size_bytes] = p.xs[i];
        }
    }
    if (by_size.size() <= 1) {
        throw input_error("calibrate",
                          "only " + std::to_string(by_size.size()) + " size(s) to fit; two or more sizes are needed",
                          "lower --min-size or run nccl-tests over a range of sizes (-b 1M -e 8G -f 2)");
    }
    const LineFit line = fit_line(p.xs, p.ts, p.used);
    if (!(line.slope > 0)) {
        throw input_error("calibrate", "the measured times do not grow with the message size",
                          "use rows from the bandwidth-bound range (larger sizes)");
    }
    const double cap = std::max(1.0, 1.0 / line.slope);
    double latency = line.latency_us;
    for (const auto& [size, st] : by_size) {
        latency = std::min(latency, st.first / st.second - x_of[size] / cap);
    }
    latency = split_latency(c, std::max(0.0, latency), steps, shape, transport);
    c.latency_us = latency;
    for (const auto& [size, st] : by_size) {
        const double bw_us = st.first / st.second - latency;
        if (!(bw_us > 0)) {
            throw input_error("calibrate",
                              "at " + size_text(size) + " the measured time is not above the fixed latency (" +
                                  std::to_string(latency) + " us) the other sizes imply",
                              "leave the latency-bound sizes out with --min-size");
        }
        c.curve.push_back({size, x_of[size] / bw_us});
    }
    c.efficiency = c.curve.back().efficiency;
    c.busbw_gbyte_s =
        c.curve.back().size_bytes / (x_of.rbegin()->second / c.efficiency) / units::kKilo * bus_factor(c.op, shape.n);
    predict_rows(c, shape, transport, cross);
    return c;
}

Calibration fit_calibration(const NcclTestsRun& run, const PlacedGroup& placed, Transport transport,
                            std::optional<PathClass> link_class, double min_size_bytes, bool socket_inside_node) {
    return fit_calibration(std::vector<NcclTestsRun>{run}, placed, transport, link_class, min_size_bytes,
                           socket_inside_node);
}

std::vector<Calibration> fit_calibrations(const std::vector<NcclTestsRun>& runs, const PlacedGroup& placed,
                                          Transport transport, std::optional<PathClass> link_class,
                                          double min_size_bytes, bool socket_inside_node) {
    std::vector<CollectiveOp> ops;
    for (const auto& r : runs) {
        if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) {
            ops.push_back(r.op);
        }
    }
    std::vector<Calibration> out;
    for (const auto op : ops) {
        std::vector<NcclTestsRun> same;
        for (const auto& r : runs) {
            if (r.op == op) {
                same.push_back(r);
            }
        }
        out.push_back(fit_calibration(same, placed, transport, link_class, min_size_bytes, socket_inside_node));
    }
    return out;
}

CollectiveFit to_fit(const Calibration& c, const std::string& source) {
    CollectiveFit f;
    f.transport = c.transport;
    f.link_class = c.link_class;
    f.op = c.op;
    f.floor_us = c.floor_us;
    f.alpha_us = c.alpha_us;
    f.curve = c.curve;
    if (f.curve.empty()) {
        f.curve.push_back({0, c.efficiency});
    }
    f.source = source;
    return f;
}

void apply_calibration(const Calibration& c, TransportSpec& spec, const std::string& source) {
    if (c.transport == Transport::Shm) {
        // A one-node run with P2P off: SHM's own priors (its large-message efficiency and alpha,
        // the band's centre), never the NVLink/PCIe ones; and its fit (per-size curve, floor) for
        // the SHM arm's calls.
        Prior& prior = c.op == CollectiveOp::AllToAll ? spec.shm_params.alltoall_efficiency : spec.shm_params.efficiency;
        const double scale = prior.value > 0 ? c.efficiency / prior.value : 1.0;
        prior = {c.efficiency, prior.low * scale, prior.high * scale};
        spec.shm_params.alpha_us = c.alpha_us;
    }
    auto fits = spec.fits ? std::make_shared<CollectiveFits>(*spec.fits) : std::make_shared<CollectiveFits>();
    fits->add(to_fit(c, source));
    spec.fits = std::move(fits);
}

const ComputeCalibration* apply_compute_calibration(const std::vector<ComputeCalibration>& compute, TrainingSpec& t) {
    const bool decided = std::any_of(t.given.begin(), t.given.end(), [](const std::string& g) {
        return g == "/compute_scale" || g == "/measured_step_time_s" || g == "/mfu" || g == "/compute_time_s";
    });
    if (decided || compute.empty()) {
        return nullptr;
    }
    t.compute_scale = compute.back().compute_scale;
    t.given.emplace_back("/compute_scale");
    return &compute.back();
}

}  // namespace planlayout
