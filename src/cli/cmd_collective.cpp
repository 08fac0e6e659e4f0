// CLI: `plan-layout collective` — one collective's predicted time, algbw and busbw on one
// placement, printed in nccl-tests' vocabulary and columns.
#include <cstdio>
#include <sstream>

#include "commands.hpp"
#include "cost_options.hpp"
#include "planlayout/ingest/calibration_file.hpp"
#include "messages.hpp"
#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/emit/collective_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/nccl_tests.hpp"
#include "planlayout/ingest/read_file.hpp"

namespace planlayout::cli {
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
    for (const auto& path : args.get_all("--calibration")) {  // in order; fits of other ops never interfere
        const std::string name = path == "-" ? "stdin" : base_name(path);
        for (const auto& c : calibrations_from_json(parse_json_text(read_input(path, ctx), path), path)) {
            apply_calibration(c, spec, name);
        }
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
    std::vector<CollectivePoint> points;
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
        p.cost = collective_cost(*op, shape, p.size_bytes, x);
    }

    CollectiveTable table;
    table.calibrated = args.has("--calibration");
    const FitsUsed used = fits_used(*op, shape, x);
    for (const CollectiveFit* f : {used.network, used.intra}) {
        if (f != nullptr) {
            table.fits.push_back(f->describe());
        }
    }
    table.op = *op;
    table.transport = transport;
    table.placed = shape;
    table.model = x;
    table.type = type;
    table.type_bytes = type_bytes;
    table.measured_name = measured_name;
    table.measured_rows = measured.rows.size();
    table.measured_ranks = measured.ranks;
    table.points = std::move(points);
    for (auto w : measured.warnings) {
        // Name the file as its base name: output must not depend on where it lies.
        if (const auto path = args.get("--measured"); path && w.rfind(*path, 0) == 0) {
            w = measured_name + w.substr(path->size());
        }
        table.warnings.push_back(std::move(w));
    }
    const bool single = !args.has("--sizes") && !args.has("--measured");
    write_output(args,
                 json ? collective_json(table, single).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
                      : collective_text(table),
                 ctx);
    return 0;
}

}  // namespace planlayout::cli
