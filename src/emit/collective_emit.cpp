// Emit: collective predictions in nccl-tests' columns, and as JSON.
#include "planlayout/emit/collective_emit.hpp"

#include "planlayout/text_format.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace planlayout {
namespace {

std::string time_text(double us) {
    // nccl-tests: no decimals from 10 ms, one from 100 us, two below.
    require_finite(us);
    char buf[32];
    std::snprintf(buf, sizeof buf, us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f", us);
    return buf;
}

double rounded(double x, int decimals) {
    const double scale = std::pow(10.0, decimals);
    return std::round(x * scale) / scale;
}

}  // namespace

std::string collective_text(const CollectiveTable& t) {
    std::ostringstream out;
    const bool cross = t.placed.nodes >= 2;
    const bool socket = t.model.socket_inside_node && t.placed.n >= 2 && t.placed.max_per_node >= 2;
    char buf[320];
    std::snprintf(buf, sizeof buf, "# plan-layout collective: %s, %d ranks = %d nodes x %d GPUs, transport %s, class %s%s\n",
                  std::string(to_string(t.op)).c_str(), t.placed.n, t.placed.nodes, t.placed.max_per_node,
                  std::string(to_string(t.transport)).c_str(),
                  std::string(to_string(cross ? t.placed.worst_cross : t.placed.worst_intra)).c_str(),
                  socket ? " (P2P and SHM off: every rank a socket endpoint)" : "");
    out << buf;
    if (t.model.shm && t.placed.max_per_node >= 2) {
        const bool a2a = t.op == CollectiveOp::AllToAll;
        std::snprintf(buf, sizeof buf,
                      "# links: SHM through host memory, bound %.1f GB/s (PCIe %.0f, host memory %.1f per socket, "
                      "inter-socket %.0f) x %.2f; alpha %.1f us/step inside a node\n",
                      shm_line_gbyte_s(t.placed, t.model, a2a), t.placed.pcie_gbyte_s, t.model.host_memory_gbyte_s,
                      t.model.inter_socket_gbyte_s, a2a ? t.model.shm_alltoall_efficiency : t.model.shm_efficiency,
                      t.model.shm_alpha_us);
        out << buf;
    }
    if (t.model.shm && t.placed.max_per_node >= 2 && !cross) {
        buf[0] = '\0';  // the SHM line above is the whole story
    } else if ((cross || socket) && t.transport == Transport::Tcp) {
        std::snprintf(buf, sizeof buf,
                      "# links: %s %.0f GB/s x %.2f; %d TCP interface(s) of %.0f Gbit/s per node x %.2f, shared by %d GPUs; "
                      "alpha %.1f us/step\n",
                      over_nvlink(t.placed.worst_intra) ? "NVLink" : "PCIe",
                      over_nvlink(t.placed.worst_intra) ? t.placed.nvlink_gbyte_s : t.placed.pcie_gbyte_s,
                      over_nvlink(t.placed.worst_intra) ? t.placed.nvlink_efficiency : t.placed.pcie_efficiency,
                      t.placed.tcp_interfaces_per_node, t.placed.tcp_gbit_s,
                      t.op == CollectiveOp::AllToAll ? t.model.alltoall_efficiency : t.model.efficiency, t.placed.max_per_node,
                      t.model.alpha_us);
    } else if (cross) {
        std::snprintf(buf, sizeof buf,
                      "# links: %s %.0f GB/s x %.2f; %d rail NIC(s) of %.0f Gbit/s per node x %.2f; alpha %.1f us/step\n",
                      over_nvlink(t.placed.worst_intra) ? "NVLink" : "PCIe",
                      over_nvlink(t.placed.worst_intra) ? t.placed.nvlink_gbyte_s : t.placed.pcie_gbyte_s,
                      over_nvlink(t.placed.worst_intra) ? t.placed.nvlink_efficiency : t.placed.pcie_efficiency,
                      t.placed.rails_per_node, t.placed.nic_gbit_s,
                      t.op == CollectiveOp::AllToAll ? t.model.alltoall_efficiency : t.model.efficiency, t.model.alpha_us);
    } else {
        const bool nv = over_nvlink(t.placed.worst_intra);
        std::snprintf(buf, sizeof buf, "# links: %s %.0f GB/s x %.2f; alpha %.1f us/step (the transport does not matter inside a node)\n",
                      nv ? "NVLink" : "PCIe", nv ? t.placed.nvlink_gbyte_s : t.placed.pcie_gbyte_s,
                      nv ? t.placed.nvlink_efficiency : t.placed.pcie_efficiency, nv ? t.placed.nvlink_alpha_us : t.placed.pcie_alpha_us);
    }
    out << buf;
    for (const auto& f : t.fits) {
        out << "# fit: " << f << " (replaces the efficiency and alpha above for " << to_string(t.op) << ")\n";
    }
    if (t.calibrated && t.fits.empty()) {
        out << "# fit: none for " << to_string(t.op) << " on this path in the calibration files: the priors above\n";
    }
    if (!t.measured_name.empty()) {
        out << "# measured: " << t.measured_name << " (" << t.measured_rows << " rows, busbw recomputed for "
            << t.measured_ranks << " ranks)\n";
    }
    out << "#\n#                                                        predicted";
    out << (t.measured_name.empty() ? "\n" : "                     measured\n");
    out << "#       size         count      type   redop    root     time   algbw   busbw";
    out << (t.measured_name.empty() ? "  bottleneck\n" : "     time   busbw  ratio\n");
    out << "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)";
    out << (t.measured_name.empty() ? "\n" : "     (us)  (GB/s)  pred/meas\n");
    const bool reduces = t.op == CollectiveOp::AllReduce || t.op == CollectiveOp::ReduceScatter;
    const int root = t.op == CollectiveOp::Broadcast ? 0 : -1;
    for (const auto& p : t.points) {
        const double count = count_for_size(t.op, p.size_bytes, t.placed.n, t.type_bytes);
        require_finite(p.cost.algbw_gbyte_s);
        require_finite(p.cost.busbw_gbyte_s);
        std::snprintf(buf, sizeof buf, "%12.0f  %12.0f  %8s  %6s  %6d  %s  %6.2f  %6.2f", p.size_bytes, count, t.type.c_str(),
                      reduces ? "sum" : "none", root, time_text(p.cost.time_s * 1e6).c_str(), p.cost.algbw_gbyte_s,
                      p.cost.busbw_gbyte_s);
        out << buf;
        if (p.measured != nullptr) {
            std::snprintf(buf, sizeof buf, "  %s  %6.2f  %5.2f\n", time_text(p.measured->time_us).c_str(),
                          p.measured->busbw_gbyte_s, p.cost.time_s * 1e6 / p.measured->time_us);
            out << buf;
        } else {
            out << "  " << p.cost.bottleneck << "\n";
        }
    }
    for (const auto& w : t.warnings) {
        out << "# warning: " << w << "\n";
    }
    return out.str();
}

nlohmann::json collective_json(const CollectiveTable& t, bool single) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& p : t.points) {
        nlohmann::json j = {{"size", p.size_bytes},
                            {"time_us", rounded(p.cost.time_s * 1e6, 3)},
                            {"algbw_gbps", rounded(p.cost.algbw_gbyte_s, 3)},
                            {"busbw_gbps", rounded(p.cost.busbw_gbyte_s, 3)},
                            {"bottleneck", p.cost.bottleneck}};
        if (!t.fits.empty()) {
            j["fits"] = t.fits;
        }
        if (p.measured != nullptr) {
            j["measured_time_us"] = rounded(p.measured->time_us, 3);
            j["measured_busbw_gbps"] = rounded(p.measured->busbw_gbyte_s, 3);
        }
        list.push_back(j);
    }
    return single && list.size() == 1 ? list.front() : list;
}

std::string collective_fit_text(const CollectiveFit& fit) {
    std::string out = fit.label() + ": floor " + fixed_text(fit.floor_us, 1) + " us/call, alpha " + fixed_text(fit.alpha_us, 1) +
                      " us/step, efficiency ";
    if (fit.curve.size() == 1 || fit.curve.empty()) {
        out += fixed_text(fit.efficiency_at(0), 3) + " at every size";
    } else {
        out += fixed_text(fit.curve.front().efficiency, 3) + " at " + human_bytes(fit.curve.front().size_bytes) + " .. " +
               fixed_text(fit.curve.back().efficiency, 3) + " at " + human_bytes(fit.curve.back().size_bytes) + " (" +
               std::to_string(fit.curve.size()) + " sizes)";
    }
    return out;
}

}  // namespace planlayout
