// Ingest: calibration files named by a transport section. Format 2 holds any number of fits
// under "fits"; format 1 (one fit at the top, no curve) is still read; a top-level "compute"
// object (a compute calibration) is accepted and left to its reader.
#include "planlayout/ingest/calibration_file.hpp"

#include "planlayout/error.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/ingest/read_file.hpp"

namespace planlayout {
namespace {

constexpr int kCalibrationFormat = 2;

const char* const kCalibrationFix = "write the file with plan-layout calibrate -o FILE";

void need(const JsonReader& r, const char* key) {
    if (!r.has(key)) {
        throw input_error(r.where(key), std::string("missing '") + key + "'", kCalibrationFix);
    }
}

/// The fields one fit has in both formats.
Calibration fit_fields(const JsonReader& r) {
    for (const char* key : {"transport", "class", "op", "alpha_us", "efficiency", "line_gbyte_s", "nodes", "gpus_per_node"}) {
        need(r, key);
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

Calibration fit_v1(const JsonReader& r) {
    r.check_keys({"schema_version", "kind", "transport", "class", "op", "nodes", "gpus_per_node", "ranks", "socket_inside_node",
                  "alpha_us", "efficiency", "line", "line_gbyte_s", "busbw_gbps", "rms_residual", "rows_used", "source", "rows",
                  "warnings"});
    Calibration c = fit_fields(r);
    c.curve = {{0, c.efficiency}};  // format 1: one efficiency for every size, no floor
    return c;
}

Calibration fit_v2(const JsonReader& r) {
    r.check_keys({"transport", "class", "op", "nodes", "gpus_per_node", "ranks", "socket_inside_node", "floor_us", "alpha_us",
                  "alpha_prior_us", "alpha_from_prior", "latency_us", "efficiency", "curve", "line", "line_gbyte_s",
                  "busbw_gbps", "rms_residual", "rows_used", "source", "rows", "warnings"});
    for (const char* key : {"floor_us", "curve"}) {
        need(r, key);
    }
    Calibration c = fit_fields(r);
    c.floor_us = *r.get<double>("floor_us", 0, 1e9);
    c.alpha_prior_us = r.get<double>("alpha_prior_us", 0, 1e9).value_or(0);
    c.alpha_from_prior = r.get<bool>("alpha_from_prior").value_or(true);
    c.latency_us = r.get<double>("latency_us", 0, 1e12).value_or(0);
    const nlohmann::json* curve = r.get_array("curve");
    if (curve->empty()) {
        throw input_error(r.where("curve"), "the efficiency curve has no point", kCalibrationFix);
    }
    for (std::size_t i = 0; i < curve->size(); ++i) {
        const JsonReader p = r.element("curve", i);
        p.check_keys({"size", "efficiency"});
        need(p, "size");
        need(p, "efficiency");
        const double size = *p.get<double>("size", 0, 1e18);
        if (!c.curve.empty() && size <= c.curve.back().size_bytes) {
            throw input_error(p.where("size"), "curve sizes must increase", "list the points by size, smallest first");
        }
        c.curve.push_back({size, *p.get<double>("efficiency", 1e-9, 100)});
    }
    return c;
}

}  // namespace

std::vector<Calibration> calibrations_from_json(const nlohmann::json& j, const std::string& file) {
    const JsonReader r(j, file, "");
    need(r, "kind");
    if (r.get<std::string>("kind") != "plan-layout calibration") {
        throw input_error(r.where("kind"), "not a plan-layout calibration file", kCalibrationFix);
    }
    const int version = r.get<int>("schema_version", 1, 1 << 20).value_or(1);
    if (version > kCalibrationFormat) {
        throw input_error(r.where("schema_version"),
                          "format " + std::to_string(version) + " is newer than this plan-layout reads (" +
                              std::to_string(kCalibrationFormat) + ")",
                          "use a newer plan-layout, or rewrite the file with this one's calibrate -o FILE");
    }
    if (version == 1 || !r.has("fits")) {
        if (version != 1) {
            need(r, "fits");
        }
        return {fit_v1(r)};
    }
    r.check_keys({"schema_version", "kind", "fits", "curve_rule", "compute"});
    (void)compute_calibration_from_json(j, file);  // checked here, used by read_calibration_files
    const nlohmann::json* fits = r.get_array("fits");
    std::vector<Calibration> out;
    for (std::size_t i = 0; i < fits->size(); ++i) {
        out.push_back(fit_v2(r.element("fits", i)));
    }
    return out;
}

std::optional<ComputeCalibration> compute_calibration_from_json(const nlohmann::json& j, const std::string& file) {
    if (!j.is_object() || !j.contains("compute")) {
        return std::nullopt;
    }
    const JsonReader top(j, file, "");
    (void)top.get_object("compute");
    const JsonReader r(j.at("compute"), file, "/compute");
    r.check_keys({"compute_scale", "gpu", "layout", "spec", "measured_transport", "measured_step_time_s", "compute_s"});
    need(r, "compute_scale");
    ComputeCalibration c;
    c.compute_scale = *r.get<double>("compute_scale", 1e-4, 100.0);
    c.gpu = r.get<std::string>("gpu").value_or("");
    c.layout = r.get<std::string>("layout").value_or("");
    c.spec = r.get<std::string>("spec").value_or("");
    c.measured_transport = r.get<std::string>("measured_transport").value_or("");
    c.measured_step_time_s = r.get<double>("measured_step_time_s", 0, 1e6).value_or(0);
    c.compute_s = r.get<double>("compute_s", 0, 1e6).value_or(0);
    return c;
}

Calibration calibration_from_json(const nlohmann::json& j, const std::string& file) {
    auto all = calibrations_from_json(j, file);
    if (all.size() != 1) {
        throw input_error(file + " (/fits)", "expected one fit, found " + std::to_string(all.size()),
                          "read it with calibrations_from_json");
    }
    return all.front();
}

std::vector<Calibration> read_calibration_files(const std::vector<std::string>& files, const FileScope& scope,
                                                const std::string& where, std::vector<std::string>* paths,
                                                std::vector<ComputeCalibration>* compute) {
    std::vector<Calibration> out;
    out.reserve(files.size());
    for (const auto& rel : files) {
        const std::string path = resolve_named_file(scope, rel, where);
        if (paths != nullptr) {
            paths->push_back(path);
        }
        const nlohmann::json j = parse_json_text(read_text_file(path), path);
        for (auto& c : calibrations_from_json(j, path)) {
            c.file = rel;
            out.push_back(std::move(c));
        }
        if (auto c = compute_calibration_from_json(j, path); c && compute != nullptr) {
            c->file = rel;
            compute->push_back(std::move(*c));
        }
    }
    return out;
}

}  // namespace planlayout
