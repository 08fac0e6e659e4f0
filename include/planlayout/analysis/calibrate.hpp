// Calibration: fit a transport's effective bandwidth and per-step latency on one link class
// from nccl-tests rows, by least squares on t = alpha·steps + bytes_factor·S / B.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planlayout/analysis/cost.hpp"
#include "planlayout/ingest/nccl_tests.hpp"

namespace planlayout {

struct CalibrationRow {
    std::size_t line = 0;
    double size_bytes = 0;
    double measured_us = 0;
    double predicted_us = 0;
    double residual = 0;  // (measured − predicted) / measured
    double measured_busbw_gbyte_s = 0;
    double predicted_busbw_gbyte_s = 0;
    bool used = true;     // false: below min_size, left out of the fit
};

/// A fitted transport on one link class. efficiency is relative to line_gbyte_s, the line rate
/// the shape declares for the bottleneck (one rail NIC, the node's TCP interface(s), NVLink).
struct Calibration {
    Transport transport = Transport::Gdrdma;
    PathClass link_class = PathClass::Rail;
    CollectiveOp op = CollectiveOp::AllReduce;
    int nodes = 1;
    int gpus_per_node = 1;
    int ranks = 1;
    bool socket_inside_node = false;  // a TCP run with P2P/SHM off: every rank a socket endpoint
    double alpha_us = 0;
    double efficiency = 0;
    double line_gbyte_s = 0;
    std::string line;            // "rail NIC", "TCP interface", "NVLink", "PCIe"
    double busbw_gbyte_s = 0;    // fitted asymptotic bus bandwidth (large messages)
    double rms_residual = 0;     // over the rows used
    std::size_t rows_used = 0;
    std::string source;          // the input's file name (no folder)
    std::vector<CalibrationRow> rows;
    std::vector<std::string> warnings;
};

/// Fits alpha and efficiency. The shape gives the placement and line rates; link_class defaults
/// to RAIL across nodes, NV (or PCIe) inside one. Rows below min_size_bytes are reported but
/// not fitted. Weighted least squares on relative error, so small and large sizes both count.
/// Throws Error when fewer than two rows remain. socket_inside_node (TCP only): the run had
/// NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1, so the fit is on socket_endpoints(shape).
[[nodiscard]] Calibration fit_calibration(const NcclTestsRun& run, const PlacedGroup& placed,
                                          Transport transport, std::optional<PathClass> link_class,
                                          double min_size_bytes = 0, bool socket_inside_node = false);

/// Applies a NIC/TCP-class calibration to its transport: efficiency (all-to-all efficiency for
/// an all_to_all fit; the band keeps its relative width) and alpha.
void apply_calibration(const Calibration& c, TransportSpec& spec);

/// Applies an NV/PCIe-class calibration to a shape's intra-node efficiency and alpha.
void apply_calibration(const Calibration& c, PlacedGroup& shape);

/// Applies an NV/PCIe-class calibration to the node hardware every shape is built from.
void apply_calibration(const Calibration& c, NodeHardware& hw);

}  // namespace planlayout
