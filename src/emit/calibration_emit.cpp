// Emit: calibrations as JSON files and text.
#include "planlayout/emit/calibration_emit.hpp"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <sstream>

#include "planlayout/text_format.hpp"

namespace planlayout {
namespace {

/// Fixed decimals keep the file byte-identical across runs and platforms.
double rounded_json(double x, int decimals) {
    const double scale = std::pow(10.0, decimals);
    const double v = std::round(x * scale) / scale;
    return v == 0 ? 0.0 : v;  // never "-0.0"
}

}  // namespace

const char* const kCurveRule =
    "efficiency piecewise linear in log(size) between the measured sizes, flat (the nearest measured "
    "point) below the smallest and above the largest";

nlohmann::json to_json(const Calibration& c) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : c.rows) {
        nlohmann::json row{{"line", r.line},
                           {"size", r.size_bytes},
                           {"time_us", rounded_json(r.measured_us, 3)},
                           {"predicted_us", rounded_json(r.predicted_us, 3)},
                           {"residual", rounded_json(r.residual, 5)},
                           {"busbw_gbps", rounded_json(r.measured_busbw_gbyte_s, 5)},
                           {"predicted_busbw_gbps", rounded_json(r.predicted_busbw_gbyte_s, 5)},
                           {"used", r.used}};
        if (!r.source.empty()) {
            row["source"] = r.source;
        }
        rows.push_back(row);
    }
    nlohmann::json curve = nlohmann::json::array();
    for (const auto& p : c.curve) {
        curve.push_back({{"size", p.size_bytes}, {"efficiency", rounded_json(p.efficiency, 6)}});
    }
    return {{"transport", std::string(to_string(c.transport))},
            {"class", std::string(to_string(c.link_class))},
            {"op", std::string(to_string(c.op))},
            {"nodes", c.nodes},
            {"gpus_per_node", c.gpus_per_node},
            {"ranks", c.ranks},
            {"socket_inside_node", c.socket_inside_node},
            {"floor_us", rounded_json(c.floor_us, 4)},
            {"alpha_us", rounded_json(c.alpha_us, 4)},
            {"alpha_prior_us", rounded_json(c.alpha_prior_us, 4)},
            {"alpha_from_prior", c.alpha_from_prior},
            {"latency_us", rounded_json(c.latency_us, 4)},
            {"efficiency", rounded_json(c.efficiency, 6)},
            {"curve", curve},
            {"line", c.line},
            {"line_gbyte_s", c.line_gbyte_s},
            {"busbw_gbps", rounded_json(c.busbw_gbyte_s, 3)},
            {"rms_residual", rounded_json(c.rms_residual, 5)},
            {"rows_used", c.rows_used},
            {"source", c.source},
            {"rows", rows},
            {"warnings", c.warnings}};
}

nlohmann::json to_json(const std::vector<Calibration>& fits) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& c : fits) {
        all.push_back(to_json(c));
    }
    return {{"schema_version", 2}, {"kind", "plan-layout calibration"}, {"curve_rule", kCurveRule}, {"fits", all}};
}

std::string render_text(const Calibration& c) {
    std::ostringstream out;
    char buf[512];
    std::snprintf(buf, sizeof buf, "# plan-layout calibrate: %s, %d ranks = %d nodes x %d GPUs, transport %s, class %s\n",
                  std::string(to_string(c.op)).c_str(), c.ranks, c.nodes, c.gpus_per_node,
                  std::string(to_string(c.transport)).c_str(), std::string(to_string(c.link_class)).c_str());
    out << buf;
    if (c.socket_inside_node) {
        out << "# sockets inside the node (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1): every rank a socket endpoint\n";
    }
    std::snprintf(buf, sizeof buf,
                  "# fit: floor %.2f us per call, alpha %.2f us per step, efficiency %.3f of the %s line rate (%.2f GB/s) "
                  "at the largest size, busbw %.2f GB/s\n",
                  c.floor_us, c.alpha_us, c.efficiency, c.line.c_str(), c.line_gbyte_s, c.busbw_gbyte_s);
    out << buf;
    std::snprintf(buf, sizeof buf,
                  "# latency: %.2f us per call, fixed part of the weighted least-squares line; %s\n", c.latency_us,
                  c.alpha_from_prior
                      ? "alpha is the prior per step, the floor the rest (one group size: they cannot be told apart)"
                      : "below the prior alpha per step: alpha lowered to fit, no floor");
    out << buf;
    out << "# efficiency by size:";
    for (std::size_t i = 0; i < c.curve.size(); ++i) {
        out << (i == 0 ? " " : ", ") << human_bytes(c.curve[i].size_bytes) << " " << fixed_text(c.curve[i].efficiency, 3);
    }
    out << "\n# " << kCurveRule << "\n";
    std::snprintf(buf, sizeof buf, "# rows: %zu fitted of %zu, rms residual %.1f%%\n", c.rows_used, c.rows.size(),
                  100.0 * c.rms_residual);
    out << buf;
    out << "#\n#       size     measured   predicted  residual     busbw  predicted\n"
           "#        (B)         (us)        (us)       (%)    (GB/s)     (GB/s)\n";
    for (const auto& r : c.rows) {
        const double residual = std::abs(r.residual) < 5e-4 ? 0.0 : 100.0 * r.residual;  // no "-0.0"
        std::snprintf(buf, sizeof buf, "%12.0f  %11.2f %11.2f  %8.1f  %8.2f   %8.2f%s%s\n", r.size_bytes, r.measured_us,
                      r.predicted_us, residual, r.measured_busbw_gbyte_s, r.predicted_busbw_gbyte_s,
                      r.used ? "" : "  (not fitted)", r.source.empty() ? "" : ("  " + r.source).c_str());
        out << buf;
    }
    for (const auto& w : c.warnings) {
        out << "warning: " << w << "\n";
    }
    return out.str();
}

std::string render_text(const std::vector<Calibration>& fits) {
    std::string out;
    for (std::size_t i = 0; i < fits.size(); ++i) {
        out += (i == 0 ? "" : "\n") + render_text(fits[i]);
    }
    return out;
}

nlohmann::json to_json(const ComputeCalibration& c) {
    return {{"schema_version", 2},
            {"kind", "plan-layout calibration"},
            {"fits", nlohmann::json::array()},
            {"compute",
             {{"compute_scale", c.compute_scale},
              {"gpu", c.gpu},
              {"layout", c.layout},
              {"spec", c.spec},
              {"measured_transport", c.measured_transport},
              {"measured_step_time_s", c.measured_step_time_s},
              {"compute_s", c.compute_s}}}};
}

std::string render_text(const ComputeCalibration& c) {
    std::ostringstream out;
    out << "# plan-layout calibrate --compute: " << c.layout << " (" << c.spec << ") on " << c.gpu << "\n";
    out << "measured step: " << fixed_text(c.measured_step_time_s, 3) << " s on " << c.measured_transport << "\n";
    out << "compute_scale: " << fixed_text(c.compute_scale, 6) << " (the compute model's efficiency x this makes the "
        << c.measured_transport << " step equal the measurement)\n";
    out << "compute per GPU per step: " << fixed_text(c.compute_s, 3) << " s, MFU " << percent_text(c.mfu) << " on "
        << c.measured_transport << "\n";
    out << "use: list the file in a layout's \"transport\": {\"calibration\": [...]}; a layout that gives neither "
           "training.compute_scale nor a measured step takes this scale\n";
    return out.str();
}

namespace {

std::string ratio_text(double r) { return fixed_text(r, 2); }

std::string micros_text(double s) { return fixed_text(s * 1e6, s * 1e6 < 100 ? 2 : 1); }

}  // namespace

std::string render_text(const OpCheck& c) {
    std::ostringstream out;
    int runs = 0;
    for (const auto& r : c.rows) {
        runs = std::max(runs, r.op.runs);
    }
    out << "# plan-layout calibrate --ops: the compute model on " << c.gpu << " (" << c.gpu_source << "), compute_scale "
        << fixed_text(c.compute_scale, 4) << ", against " << c.rows.size() << " measured ops (median of " << runs
        << (runs == 1 ? " run" : " runs") << ")\n";
    out << "# ratio = predicted / measured time: below 1 the model is too fast, above 1 too slow\n";
    out << "# median |ratio - 1| over every op: " << percent_text(c.median_abs_error) << "\n";
    out << padded("kind", 12) << padded("ops", 6) << padded("median", 8) << padded("p10", 6) << padded("p90", 6)
        << padded("min", 6) << padded("max", 6) << padded("med|err|", 9) << "worst op\n";
    for (const auto& k : c.kinds) {
        out << padded(k.kind, 12) << padded(std::to_string(k.count), 6) << padded(ratio_text(k.median_ratio), 8)
            << padded(ratio_text(k.p10_ratio), 6) << padded(ratio_text(k.p90_ratio), 6) << padded(ratio_text(k.min_ratio), 6)
            << padded(ratio_text(k.max_ratio), 6) << padded(percent_text(k.median_abs_error), 9) << k.worst << " ("
            << ratio_text(k.worst_ratio) << ")\n";
    }
    if (!c.largest_errors.empty()) {
        out << "\n# the " << c.largest_errors.size() << " largest errors\n";
        out << padded("kind", 12) << padded("op", 30) << padded("shape", 28) << padded("measured_us", 13)
            << padded("predicted_us", 14) << "ratio\n";
        for (const auto& r : c.largest_errors) {
            out << padded(r.op.kind, 12) << padded(r.op.name, 30) << padded(r.op.shape, 28)
                << padded(micros_text(r.op.seconds), 13) << padded(micros_text(r.predicted_s), 14) << ratio_text(r.ratio)
                << "\n";
        }
    }
    return out.str();
}

nlohmann::json to_json(const OpCheck& c) {
    nlohmann::json j;
    j["gpu"] = c.gpu;
    j["gpu_source"] = c.gpu_source;
    j["compute_scale"] = c.compute_scale;
    j["median_abs_error"] = c.median_abs_error;
    j["kinds"] = nlohmann::json::array();
    for (const auto& k : c.kinds) {
        j["kinds"].push_back({{"kind", k.kind},
                              {"ops", k.count},
                              {"median_ratio", k.median_ratio},
                              {"p10_ratio", k.p10_ratio},
                              {"p90_ratio", k.p90_ratio},
                              {"min_ratio", k.min_ratio},
                              {"max_ratio", k.max_ratio},
                              {"median_abs_error", k.median_abs_error},
                              {"worst", k.worst},
                              {"worst_ratio", k.worst_ratio}});
    }
    j["rows"] = nlohmann::json::array();
    for (const auto& r : c.rows) {
        j["rows"].push_back({{"kind", r.op.kind},
                             {"name", r.op.name},
                             {"shape", r.op.shape},
                             {"measured_s", r.op.seconds},
                             {"runs", r.op.runs},
                             {"spread", r.op.spread},
                             {"predicted_s", r.predicted_s},
                             {"ratio", r.ratio}});
    }
    return j;
}

}  // namespace planlayout
