// CLI: `plan-layout collective` — one collective's predicted time, algbw and busbw on one
// placement, printed in nccl-tests' vocabulary and columns.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "commands.hpp"
#include "cost_options.hpp"
#include "planlayout/ingest/calibration_file.hpp"
#include "messages.hpp"
#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/emit/charts.hpp"
#include "planlayout/emit/collective_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/nccl_tests.hpp"
#include "planlayout/ingest/read_file.hpp"

namespace planlayout::cli {
namespace {

// One calibration file's fits, with the name the assumptions show.
struct NamedCalibration {
    Calibration fit;
    std::string name;
};

// The transport model of one transport: its priors, the calibration files' fits, and the
// --efficiency / --alpha-us overrides. The model points at the spec's fits: keep them together.
struct Model {
    TransportSpec spec;
    TransportModel x;
};

Model model_of(const ParsedArgs& args, Transport transport, bool socket, const std::vector<NamedCalibration>& calibrations) {
    Model m;
    TransportSpec& spec = m.spec;
    spec.tcp.inside_node = socket;
    for (const auto& c : calibrations) {  // in order; fits of other ops never interfere
        apply_calibration(c.fit, spec, c.name);
    }
    m.x = transport_model(spec, transport);
    TransportModel& x = m.x;
    if (const auto e = args.get_double("--efficiency", 1e-6, 2.0)) {
        (x.shm ? x.shm_efficiency : x.efficiency) = *e;  // shm: the SHM path's, not the network's
        (x.shm ? x.shm_alltoall_efficiency : x.alltoall_efficiency) = *e;
    }
    if (const auto a = args.get_double("--alpha-us", 0, 1e6)) {
        (x.shm ? x.shm_alpha_us : x.alpha_us) = *a;
    }
    return m;
}

// A single --size is drawn over this factor each side of it (5 doublings), so the curve shows
// where the size sits between the latency- and the bandwidth-bound ends.
constexpr double kSingleSizeSpan = 32;

// `collective --format svg`: busbw over size, one curve per --transport (repeatable), each
// --measured file's rows as markers beside the transport of the same position.
int run_collective_svg(const ParsedArgs& args, CollectiveOp op, const PlacedGroup& shape,
                       const std::vector<NamedCalibration>& calibrations, Context& ctx) {
    std::vector<std::string> names = args.get_all("--transport");
    if (names.empty()) {
        names.emplace_back("gdrdma");
    }
    std::vector<Transport> transports;
    transports.reserve(names.size());
    for (const auto& n : names) {
        transports.push_back(*parse_transport(n));  // checked by the option's validator
    }
    if (transports.size() > 1 && (args.has("--efficiency") || args.has("--alpha-us"))) {
        throw input_error(args.has("--efficiency") ? "--efficiency" : "--alpha-us",
                          "sets one transport's prior, but " + std::to_string(transports.size()) + " transports are drawn",
                          "draw one --transport, or drop it");
    }
    const bool any_tcp = std::find(transports.begin(), transports.end(), Transport::Tcp) != transports.end();
    const bool socket = socket_inside_node(args, any_tcp ? Transport::Tcp : transports.front());  // refused without tcp
    const std::vector<std::string> files = args.get_all("--measured");
    if (!files.empty() && files.size() != transports.size()) {
        throw input_error("--measured", std::to_string(files.size()) + " file(s) for " + std::to_string(transports.size()) +
                                            " transport(s)",
                          "give one --measured per --transport, in the same order");
    }
    std::vector<NcclTestsRun> runs;
    double lo = 0;
    double hi = 0;
    const auto cover = [&](double size) {
        lo = lo == 0 ? size : std::min(lo, size);
        hi = std::max(hi, size);
    };
    for (const auto& path : files) {
        NcclTestsOptions opt;
        opt.op = op;
        opt.ranks = shape.n;
        runs.push_back(parse_nccl_tests(read_input(path, ctx), path, opt));
        for (const auto& row : runs.back().rows) {
            cover(row.size_bytes);
        }
        for (auto w : runs.back().warnings) {
            if (w.rfind(path, 0) == 0) {
                w = base_name(path) + w.substr(path.size());
            }
            print_message(ctx, "warning", w);
        }
    }
    if (const auto s = args.get("--size")) {
        const double size = parse_size_bytes(*s, "--size");
        cover(size / kSingleSizeSpan);
        cover(size * kSingleSizeSpan);
    } else if (const auto r = args.get("--sizes")) {
        const auto colon = r->find(':');
        if (colon == std::string::npos) {
            throw input_error("--sizes " + *r, "expected MIN:MAX", "e.g. --sizes 1MiB:8GiB");
        }
        const double a = parse_size_bytes(r->substr(0, colon), "--sizes");
        const double b = parse_size_bytes(r->substr(colon + 1), "--sizes");
        if (b < a) {
            throw input_error("--sizes " + *r, "MAX is below MIN", "write the smaller size first");
        }
        cover(a);
        cover(b);
    } else if (files.empty()) {
        throw missing_option("collective", "--size, --sizes or --measured", "e.g. --size 256MiB, or --sizes 1MiB:8GiB");
    }
    BusbwChart chart;
    const std::string op_name(to_string(op));
    chart.title = "plan-layout collective: " + op_name + ", " + std::to_string(shape.n) + " ranks = " +
                  std::to_string(shape.nodes) + (shape.nodes == 1 ? " node x " : " nodes x ") + std::to_string(shape.max_per_node) + " GPUs";
    chart.subtitle = "busbw over message size: predicted (lines), measured (markers); GB = 10^9 B, busbw as nccl-tests computes it";
    for (std::size_t i = 0; i < transports.size(); ++i) {
        const Transport t = transports[i];
        const Model m = model_of(args, t, socket && t == Transport::Tcp, calibrations);
        const TransportModel& x = m.x;
        BusbwCurve c;
        c.transport = std::string(to_string(t));
        c.collective = op_name;
        std::string fits;
        const FitsUsed used = fits_used(op, shape, x);
        for (const CollectiveFit* f : {used.network, used.intra, used.shm}) {
            if (f != nullptr) {
                fits += (fits.empty() ? "" : ", ") + f->label();
            }
        }
        c.label = c.transport + " " + op_name + ": " + (fits.empty() ? "priors (docs/cost-model.md)" : "fit " + fits);
        for (const double size : curve_sizes(lo, hi)) {
            c.predicted.emplace_back(size, collective_cost(op, shape, size, x).busbw_gbyte_s);
        }
        if (!files.empty()) {
            for (const auto& row : runs[i].rows) {
                c.measured.emplace_back(row.size_bytes, row.busbw_gbyte_s);
            }
            c.measured_label = "measured: " + base_name(files[i]) + " (" + std::to_string(runs[i].rows.size()) +
                               " sizes, busbw recomputed for " + std::to_string(shape.n) + " ranks)";
        }
        chart.curves.push_back(std::move(c));
    }
    write_output(args, busbw_chart_svg(chart), ctx);
    return 0;
}

}  // namespace

int run_collective(const ParsedArgs& args, Context& ctx) {
    const auto op_name = args.get("--op");
    if (!op_name) {
        throw missing_option("collective", "--op", "give one of " + std::string(kCollectiveOps));
    }
    const auto op = parse_collective_op(*op_name);  // checked by the option's validator
    const std::string format = args.get_or("--format", "text");
    const bool json = format == "json";
    PlacedGroup shape = shape_from(args, "collective", ctx);
    std::vector<NamedCalibration> calibrations;
    for (const auto& path : args.get_all("--calibration")) {
        const std::string name = path == "-" ? "stdin" : base_name(path);
        for (auto& c : calibrations_from_json(parse_json_text(read_input(path, ctx), path), path)) {
            calibrations.push_back({std::move(c), name});
        }
    }
    if (format == "svg") {
        return run_collective_svg(args, *op, shape, calibrations, ctx);
    }
    for (const char* flag : {"--transport", "--measured"}) {
        if (args.get_all(flag).size() > 1) {
            throw input_error(flag, "given " + std::to_string(args.get_all(flag).size()) + " times",
                              "give it once, or draw several with --format svg");
        }
    }
    const Transport transport = transport_from(args, "gdrdma");
    const Model m = model_of(args, transport, socket_inside_node(args, transport), calibrations);
    const TransportModel& x = m.x;
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
    for (const CollectiveFit* f : {used.network, used.intra, used.shm}) {
        if (f != nullptr) {
            table.fits.push_back(collective_fit_text(*f));
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
