// Emit: calibrations as JSON files and text.
#include "planlayout/emit/calibration_emit.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace planlayout {
namespace {

/// Fixed decimals keep the file byte-identical across runs and platforms.
double fixed(double x, int decimals) {
    const double scale = std::pow(10.0, decimals);
    return std::round(x * scale) / scale;
}

}  // namespace

nlohmann::json to_json(const Calibration& c) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : c.rows) {
        rows.push_back({{"line", r.line},
                        {"size", r.size_bytes},
                        {"time_us", fixed(r.measured_us, 3)},
                        {"predicted_us", fixed(r.predicted_us, 3)},
                        {"residual", fixed(r.residual, 5)},
                        {"busbw_gbps", fixed(r.measured_busbw_gbyte_s, 5)},
                        {"predicted_busbw_gbps", fixed(r.predicted_busbw_gbyte_s, 5)},
                        {"used", r.used}});
    }
    return {{"schema_version", 1},
            {"kind", "plan-layout calibration"},
            {"transport", std::string(to_string(c.transport))},
            {"class", std::string(to_string(c.link_class))},
            {"op", std::string(to_string(c.op))},
            {"nodes", c.nodes},
            {"gpus_per_node", c.gpus_per_node},
            {"ranks", c.ranks},
            {"socket_inside_node", c.socket_inside_node},
            {"alpha_us", fixed(c.alpha_us, 4)},
            {"efficiency", fixed(c.efficiency, 6)},
            {"line", c.line},
            {"line_gbyte_s", c.line_gbyte_s},
            {"busbw_gbps", fixed(c.busbw_gbyte_s, 3)},
            {"rms_residual", fixed(c.rms_residual, 5)},
            {"rows_used", c.rows_used},
            {"source", c.source},
            {"rows", rows},
            {"warnings", c.warnings}};
}

std::string render_text(const Calibration& c) {
    std::ostringstream out;
    char buf[256];
    std::snprintf(buf, sizeof buf, "# plan-layout calibrate: %s, %d ranks = %d nodes x %d GPUs, transport %s, class %s\n",
                  std::string(to_string(c.op)).c_str(), c.ranks, c.nodes, c.gpus_per_node,
                  std::string(to_string(c.transport)).c_str(), std::string(to_string(c.link_class)).c_str());
    out << buf;
    if (c.socket_inside_node) {
        out << "# sockets inside the node (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1): every rank a socket endpoint\n";
    }
    std::snprintf(buf, sizeof buf,
                  "# fit: alpha %.2f us per step, efficiency %.3f of the %s line rate (%.2f GB/s), busbw %.2f GB/s\n",
                  c.alpha_us, c.efficiency, c.line.c_str(), c.line_gbyte_s, c.busbw_gbyte_s);
    out << buf;
    std::snprintf(buf, sizeof buf, "# rows: %zu fitted of %zu, rms residual %.1f%%\n", c.rows_used, c.rows.size(),
                  100.0 * c.rms_residual);
    out << buf;
    out << "#\n#       size     measured   predicted  residual     busbw  predicted\n"
           "#        (B)         (us)        (us)       (%)    (GB/s)     (GB/s)\n";
    for (const auto& r : c.rows) {
        std::snprintf(buf, sizeof buf, "%12.0f  %11.2f %11.2f  %8.1f  %8.2f   %8.2f%s\n", r.size_bytes, r.measured_us,
                      r.predicted_us, 100.0 * r.residual, r.measured_busbw_gbyte_s, r.predicted_busbw_gbyte_s,
                      r.used ? "" : "  (not fitted)");
        out << buf;
    }
    for (const auto& w : c.warnings) {
        out << "warning: " << w << "\n";
    }
    return out.str();
}

}  // namespace planlayout
