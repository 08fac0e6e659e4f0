// Emit: `plan-layout collective` predictions in nccl-tests' columns (text) or as JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/ingest/nccl_tests.hpp"
#include "planlayout/model/collective_fit.hpp"
#include "planlayout/model/cost.hpp"

namespace planlayout {

/// One size: the prediction, and the measured row beside it when there is one.
struct CollectivePoint {
    double size_bytes = 0;
    CollectiveCost cost;
    const NcclTestsRow* measured = nullptr;
};

/// Everything the table shows: the collective, where it runs, the transport model used, the
/// nccl-tests columns (type, count) and the points.
struct CollectiveTable {
    CollectiveOp op = CollectiveOp::AllReduce;
    Transport transport = Transport::Gdrdma;
    PlacedGroup placed;
    TransportModel model;
    std::string type = "float";
    int type_bytes = 4;
    std::string measured_name;  // base name of the measured file; empty when none
    std::size_t measured_rows = 0;
    int measured_ranks = 0;
    std::vector<std::string> warnings;
    std::vector<CollectivePoint> points;
    std::vector<std::string> fits;  // the calibrated fits this op uses ("floor ..., alpha ..."), empty: priors
    bool calibrated = false;        // --calibration was given (then "no fit" is said when fits is empty)
};

/// The header (collective, placement, links, alpha) and one nccl-tests row per point.
[[nodiscard]] std::string collective_text(const CollectiveTable& table);

/// One object per point (time, algbw, busbw, bottleneck, measured values); `single`: the one
/// point as an object rather than a one-element list.
[[nodiscard]] nlohmann::json collective_json(const CollectiveTable& table, bool single);

/// One calibrated fit in a line: "gdrdma all_reduce RAIL (calib.json): floor 20.1 us/call, alpha
/// 14.0 us/step, efficiency 0.412 at 8.0 KiB .. 0.903 at 1.0 GiB (24 sizes)".
[[nodiscard]] std::string collective_fit_text(const CollectiveFit& fit);

}  // namespace planlayout
