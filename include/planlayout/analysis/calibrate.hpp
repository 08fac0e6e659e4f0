// Calibration: fit one (transport, collective, link class) from nccl-tests rows: a per-call floor,
// a per-step latency and an efficiency curve over message size (docs/cost-model.md §4).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planlayout/analysis/collective_measurement.hpp"
#include "planlayout/model/collective_fit.hpp"
#include "planlayout/model/cost.hpp"

namespace planlayout {

struct CalibrationRow {
    std::size_t line = 0;
    std::string source;   // the file the row came from (base name)
    double size_bytes = 0;
    double measured_us = 0;
    double predicted_us = 0;
    double residual = 0;  // (measured − predicted) / measured
    double measured_busbw_gbyte_s = 0;
    double predicted_busbw_gbyte_s = 0;
    bool used = true;     // false: below min_size, left out of the fit
};

/// A fitted collective on one link class. Efficiencies are relative to line_gbyte_s, the line
/// rate the shape declares for the bottleneck (one rail NIC, the node's TCP interface(s), NVLink).
/// The time of one call is floor_us + alpha_us per step (network steps for a cross-node class;
/// the intra-node steps keep the NVLink/PCIe alpha) + the bandwidth time at the efficiency of the
/// curve at that size (piecewise linear in log size between measured sizes, flat beyond them).
struct Calibration {
    Transport transport = Transport::Gdrdma;
    PathClass link_class = PathClass::Rail;
    CollectiveOp op = CollectiveOp::AllReduce;
    int nodes = 1;
    int gpus_per_node = 1;
    int ranks = 1;
    bool socket_inside_node = false;  // a TCP run with P2P/SHM off: every rank a socket endpoint
    double floor_us = 0;         // per call
    double alpha_us = 0;         // per step
    double alpha_prior_us = 0;   // the prior alpha the split started from
    bool alpha_from_prior = true;  // false: the measured latency was below the prior's, alpha lowered
    double latency_us = 0;       // the fixed part of a call: floor + alpha × steps (+ intra steps' alpha)
    double efficiency = 0;       // at the largest measured size (the curve's last point)
    std::vector<EfficiencyPoint> curve;
    double line_gbyte_s = 0;
    std::string line;            // "rail NIC", "TCP interface", "NVLink", "PCIe"
    double busbw_gbyte_s = 0;    // fitted bus bandwidth at the largest size
    double rms_residual = 0;     // over the rows used
    std::size_t rows_used = 0;
    std::string source;          // the inputs' file names (no folder), comma separated
    std::string file;            // the calibration file it was read from, as named (read_calibration_files)
    std::vector<CalibrationRow> rows;
    std::vector<std::string> warnings;
};

/// Fits one collective from one or more runs of it (rounds are pooled: each size's curve point
/// is the mean of its rows). The shape gives the placement and line rates; link_class defaults
/// to RAIL across nodes, NV (or PCIe) inside one. Rows below min_size_bytes are reported but
/// not fitted. The fixed latency is the intercept of a weighted least-squares line over the rows
/// used (relative error, so small and large sizes both count); alpha is the transport's (or
/// NVLink/PCIe's) prior and the floor the rest; each measured size then gets the efficiency that
/// reproduces its time. Throws Error when fewer than two sizes remain or the runs disagree on op.
/// socket_inside_node (TCP only): the run had NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1, so the fit is
/// on socket_endpoints(shape).
[[nodiscard]] Calibration fit_calibration(const std::vector<NcclTestsRun>& runs, const PlacedGroup& placed,
                                          Transport transport, std::optional<PathClass> link_class,
                                          double min_size_bytes = 0, bool socket_inside_node = false);
[[nodiscard]] Calibration fit_calibration(const NcclTestsRun& run, const PlacedGroup& placed, Transport transport,
                                          std::optional<PathClass> link_class, double min_size_bytes = 0,
                                          bool socket_inside_node = false);

/// One fit per collective of the runs, in the order the collectives first appear.
[[nodiscard]] std::vector<Calibration> fit_calibrations(const std::vector<NcclTestsRun>& runs,
                                                        const PlacedGroup& placed, Transport transport,
                                                        std::optional<PathClass> link_class,
                                                        double min_size_bytes = 0, bool socket_inside_node = false);

/// The fit as the cost model uses it; source: the calibration file's base name (for the assumptions).
[[nodiscard]] CollectiveFit to_fit(const Calibration& c, const std::string& source = "");

/// Adds the calibration's fit to spec.fits: it replaces an earlier fit of the same (transport,
/// collective, class) only; an NV/PCIe-class fit applies to the intra-node time of that
/// collective whatever the transport.
void apply_calibration(const Calibration& c, TransportSpec& spec, const std::string& source = "");

/// A compute calibration (`calibrate --compute`): the compute_scale that made one layout's
/// predicted step equal its measured step, for other layouts on the same GPUs and model to use.
struct ComputeCalibration {
    double compute_scale = 1;        // multiplies the efficiency of compute-bound ops
    std::string gpu;                 // the GPU it was fitted on
    std::string layout;              // the layout it was fitted on (name, no folder)
    std::string spec;                // its parallel sizes, "tp1 pp1 cp1 ep16 etp1 dp16"
    std::string measured_transport;  // the arm the step was measured on
    double measured_step_time_s = 0;
    double compute_s = 0;            // the fitted compute per GPU per step
    double mfu = 0;                  // on the measured arm (text output only)
    std::string file;                // when read: the name the layout gave
};

/// Sets t.compute_scale from the last of `compute` when the training run gives nothing that
/// decides the compute itself (compute_scale, a measured step, mfu, compute_time_s): the given
/// list gains "/compute_scale". Returns the calibration applied, or null.
const ComputeCalibration* apply_compute_calibration(const std::vector<ComputeCalibration>& compute, TrainingSpec& t);

}  // namespace planlayout
