// Ingest: calibration files named by a transport section.
#include "planlayout/ingest/calibration_file.hpp"

#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/json_reader.hpp"
#include "planlayout/ingest/read_file.hpp"

namespace planlayout {

Calibration calibration_from_json(const nlohmann::json& j, const std::string& file) {
    const JsonReader r(j, file, "");
    r.check_keys({"schema_version", "kind", "transport", "class", "op", "nodes", "gpus_per_node", "ranks", "socket_inside_node",
                  "alpha_us", "efficiency", "line", "line_gbyte_s", "busbw_gbps", "rms_residual", "rows_used", "source", "rows",
                  "warnings"});
    const auto need = [&](const char* key) {
        if (!r.has(key)) {
            throw input_error(r.where(key), std::string("missing '") + key + "'", "write the file with plan-layout calibrate -o FILE");
        }
    };
    for (const char* key : {"kind", "transport", "class", "op", "alpha_us", "efficiency", "line_gbyte_s", "nodes", "gpus_per_node"}) {
        need(key);
    }
    if (r.get<std::string>("kind") != "plan-layout calibration") {
        throw input_error(r.where("kind"), "not a plan-layout calibration file", "write it with plan-layout calibrate -o FILE");
    }
    Calibration c;
    c.transport = *r.get_enum<Transport>("transport", parse_transport, "tcp, rdma, gdrdma, p2p or shm");
    c.link_class = *r.get_enum<PathClass>("class", parse_path_class, "NV, PIX, PXB, PHB, NODE, SYS, RAIL, PXN, XRAIL or XPOD");
    c.op = *r.get_enum<CollectiveOp>("op", parse_collective_op,
                                     "all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce or sendrecv");
    c.alpha_us = *r.get<double>("alpha_us", 0, 1e9);
    c.efficiency = *r.get<double>("efficiency", 1e-9, 100);
    c.line_gbyte_s = *r.get<double>("line_gbyte_s", 1e-3, 1e6);
    c.nodes = *r.get<int>("nodes", 1, 1 << 24);
    c.gpus_per_node = *r.get<int>("gpus_per_node", 1, 1 << 16);
    c.ranks = c.nodes * c.gpus_per_node;
    c.socket_inside_node = r.get<bool>("socket_inside_node").value_or(false);
    c.line = r.get<std::string>("line").value_or("");
    c.source = r.get<std::string>("source").value_or("");
    return c;
}

std::vector<Calibration> read_calibration_files(const std::vector<std::string>& files, const FileScope& scope,
                                                const std::string& where, std::vector<std::string>* paths) {
    std::vector<Calibration> out;
    out.reserve(files.size());
    for (const auto& rel : files) {
        const std::string path = resolve_named_file(scope, rel, where);
        if (paths != nullptr) {
            paths->push_back(path);
        }
        out.push_back(calibration_from_json(parse_json_text(read_text_file(path), path), path));
    }
    return out;
}

}  // namespace planlayout
