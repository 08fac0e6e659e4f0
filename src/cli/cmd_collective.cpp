// CLI: `plan-layout collective` — one collective's predicted time, algbw and busbw on one
// placement, printed in nccl-tests' vocabulary and columns.
#include <cstdio>
#include <sstream>

#include "commands.hpp"
#include "cost_options.hpp"
#include "planlayout/ingest/calibration_file.hpp"
#include "messages.hpp"
#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/nccl_tests.hpp"
#include "planlayout/ingest/read_file.hpp"

namespace planlayout::cli {
namespace {

struct Point {
    double size = 0;
    CollectiveCost cost;
    const NcclTestsRow* measured = nullptr;
};

std::string time_text(double us) {
    // nccl-tests: no decimals from 10 ms, one from 100 us, two below.
    char buf[32];
    std::snprintf(buf, sizeof buf, us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f", us);
    return buf;
}

}  // namespace

int run_collective(const ParsedArgs& args, Context& ctx) {
    const auto op_name = args.get("--op");
    if (!op_name) {
        throw missing_option("collective", "--op", "give one of " + std::string(kCollectiveOps));
    }
    const auto op = parse_collective_op(*op_name);  // checked by the option's validator
    const bool json = args.get_or("--format", "text") == "json";
    PlacedGroup shape = shape_from(args, "collective", ctx);
    const Transport transport = transport_from(args, "gdrdma");
    TransportSpec spec;
    spec.tcp.inside_node = socket_inside_node(args, transport);
    if (const auto path = args.get("--calibration")) {
        const Calibration c = calibration_from_json(parse_json_text(read_input(*path, ctx), *path), *path);
        apply_calibration(c, spec);
        apply_calibration(c, shape);
    }
    TransportModel x = transport_model(spec, transport);
    if (const auto e = args.get_double("--efficiency", 1e-6, 2.0)) {
        x.efficiency = *e;
        x.alltoall_efficiency = *e;
    }
    if (const auto a = args.get_double("--alpha-us", 0, 1e6)) {
        x.alpha_us = *a;
    }
    const std::string type = args.get_or("--type", "float");
    const int type_bytes = nccl_type_bytes(type);
    if (type_bytes == 0) {
        throw unknown_choice("--type", type, "type", "float, bfloat16, half, int8, double, ...");
    }

    // The sizes: one, a doubling curve, or those of a measured run.
    if (!args.has("--size") && !args.has("--sizes") && !args.has("--measured")) {  // CLI11 excludes two
        throw missing_option("collective", "--size, --sizes or --measured", "e.g. --size 256MiB, or --sizes 1MiB:8GiB");
    }
    std::vector<Point> points;
    NcclTestsRun measured;
    std::string measured_name;
    if (const auto s = args.get("--size")) {
        points.push_back({parse_size_bytes(*s, "--size"), {}, nullptr});
    } else if (const auto r = args.get("--sizes")) {
        const auto colon = r->find(':');
        if (colon == std::string::npos) {
            throw input_error("--sizes " + *r, "expected MIN:MAX", "e.g. --sizes 1MiB:8GiB");
        }
        const double lo = parse_size_bytes(r->substr(0, colon), "--sizes");
        const double hi = parse_size_bytes(r->substr(colon + 1), "--sizes");
        if (hi < lo) {
            throw input_error("--sizes " + *r, "MAX is below MIN", "write the smaller size first");
        }
        for (double sz = lo; sz <= hi && points.size() < 64; sz *= 2) {
            points.push_back({sz, {}, nullptr});
        }
    } else {
        const std::string path = *args.get("--measured");
        measured_name = base_name(path);
        NcclTestsOptions opt;
        opt.op = *op;
        opt.ranks = shape.n;
        measured = parse_nccl_tests(read_input(path, ctx), path, opt);
        for (const auto& row : measured.rows) {
            points.push_back({row.size_bytes, {}, &row});
        }
    }
    for (auto& p : points) {
        p.cost = collective_cost(*op, shape, p.size, x);
    }

    std::ostringstream out;
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& p : points) {
            nlohmann::json j = {{"size", p.size},
                                {"time_us", rounded(p.cost.time_s * 1e6, 3)},
                                {"algbw_gbps", rounded(p.cost.algbw_gbyte_s, 3)},
                                {"busbw_gbps", rounded(p.cost.busbw_gbyte_s, 3)},
                                {"bottleneck", p.cost.bottleneck}};
            if (p.measured != nullptr) {
                j["measured_time_us"] = rounded(p.measured->time_us, 3);
                j["measured_busbw_gbps"] = rounded(p.measured->busbw_gbyte_s, 3);
            }
            list.push_back(j);
        }
        out << (points.size() == 1 && !args.has("--sizes") && !args.has("--measured") ? list.front() : list).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
            << "\n";
    } else {
        const bool cross = shape.nodes >= 2;
        const bool socket = x.socket_inside_node && shape.n >= 2 && shape.max_per_node >= 2;
        char buf[320];
        std::snprintf(buf, sizeof buf, "# plan-layout collective: %s, %d ranks = %d nodes x %d GPUs, transport %s, class %s%s\n",
                      std::string(to_string(*op)).c_str(), shape.n, shape.nodes, shape.max_per_node,
                      std::string(to_string(transport)).c_str(),
                      std::string(to_string(cross ? shape.worst_cross : shape.worst_intra)).c_str(),
                      socket ? " (P2P and SHM off: every rank a socket endpoint)" : "");
        out << buf;
        if ((cross || socket) && transport == Transport::Tcp) {
            std::snprintf(buf, sizeof buf,
                          "# links: %s %.0f GB/s x %.2f; %d TCP interface(s) of %.0f Gbit/s per node x %.2f, shared by %d GPUs; "
                          "alpha %.1f us/step\n",
                          shape.worst_intra <= PathClass::Nv ? "NVLink" : "PCIe",
                          shape.worst_intra <= PathClass::Nv ? shape.nvlink_gbyte_s : shape.pcie_gbyte_s,
                          shape.worst_intra <= PathClass::Nv ? shape.nvlink_efficiency : shape.pcie_efficiency,
                          shape.tcp_interfaces_per_node, shape.tcp_gbit_s,
                          *op == CollectiveOp::AllToAll ? x.alltoall_efficiency : x.efficiency, shape.max_per_node,
                          x.alpha_us);
        } else if (cross) {
            std::snprintf(buf, sizeof buf,
                          "# links: %s %.0f GB/s x %.2f; %d rail NIC(s) of %.0f Gbit/s per node x %.2f; alpha %.1f us/step\n",
                          shape.worst_intra <= PathClass::Nv ? "NVLink" : "PCIe",
                          shape.worst_intra <= PathClass::Nv ? shape.nvlink_gbyte_s : shape.pcie_gbyte_s,
                          shape.worst_intra <= PathClass::Nv ? shape.nvlink_efficiency : shape.pcie_efficiency,
                          shape.rails_per_node, shape.nic_gbit_s,
                          *op == CollectiveOp::AllToAll ? x.alltoall_efficiency : x.efficiency, x.alpha_us);
        } else {
            const bool nv = shape.worst_intra <= PathClass::Nv;
            std::snprintf(buf, sizeof buf, "# links: %s %.0f GB/s x %.2f; alpha %.1f us/step (the transport does not matter inside a node)\n",
                          nv ? "NVLink" : "PCIe", nv ? shape.nvlink_gbyte_s : shape.pcie_gbyte_s,
                          nv ? shape.nvlink_efficiency : shape.pcie_efficiency, nv ? shape.nvlink_alpha_us : shape.pcie_alpha_us);
        }
        out << buf;
        if (!measured_name.empty()) {
            out << "# measured: " << measured_name << " (" << measured.rows.size() << " rows, busbw recomputed for "
                << measured.ranks << " ranks)\n";
        }
        out << "#\n#                                                        predicted";
        out << (measured_name.empty() ? "\n" : "                     measured\n");
        out << "#       size         count      type   redop    root     time   algbw   busbw";
        out << (measured_name.empty() ? "  bottleneck\n" : "     time   busbw  ratio\n");
        out << "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)";
        out << (measured_name.empty() ? "\n" : "     (us)  (GB/s)  pred/meas\n");
        const bool reduces = *op == CollectiveOp::AllReduce || *op == CollectiveOp::ReduceScatter;
        const int root = *op == CollectiveOp::Broadcast ? 0 : -1;
        for (const auto& p : points) {
            const double count = count_for_size(*op, p.size, shape.n, type_bytes);
            std::snprintf(buf, sizeof buf, "%12.0f  %12.0f  %8s  %6s  %6d  %s  %6.2f  %6.2f", p.size, count, type.c_str(),
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
        for (auto w : measured.warnings) {
            // Name the file as its base name: output must not depend on where it lies.
            if (const auto path = args.get("--measured"); path && w.rfind(*path, 0) == 0) {
                w = measured_name + w.substr(path->size());
            }
            out << "# warning: " << w << "\n";
        }
    }
    write_output(args, out.str(), ctx);
    return 0;
}

}  // namespace planlayout::cli
