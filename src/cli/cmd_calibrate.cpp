// CLI: `plan-layout calibrate` — nccl-tests output → fitted latency and efficiency of one
// transport on one link class, with per-row residuals; -o writes the calibration file.
#include <sstream>

#include "commands.hpp"
#include "cost_options.hpp"
#include "planlayout/emit/calibration_emit.hpp"
#include "messages.hpp"
#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/emit/output_file.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/nccl_tests.hpp"

namespace planlayout::cli {

int run_calibrate(const ParsedArgs& args, Context& ctx) {
    if (!args.has("--transport")) {
        throw missing_option("calibrate", "--transport", "say which transport the test used: --transport gdrdma|rdma|tcp, or shm for a one-node run with NCCL_P2P_DISABLE=1");
    }
    const bool json = args.get_or("--format", "text") == "json";
    const std::string path = args.positionals().front();
    const std::string name = path == "-" ? "stdin" : base_name(path);
    const PlacedGroup shape = shape_from(args, "calibrate", ctx);
    const Transport transport = transport_from(args, "gdrdma");
    std::optional<PathClass> cls;
    if (const auto c = args.get("--class")) {
        cls = parse_path_class(*c);
        if (!cls) {
            throw unknown_choice("--class", *c, "link class",
                                 "NV, PIX, PXB, PHB, NODE, SYS (inside a node) or RAIL, PXN, XRAIL, XPOD");
        }
        if (is_cross_node(*cls) != (shape.nodes >= 2)) {
            throw input_error("--class " + *c,
                              "class " + *c + (is_cross_node(*cls) ? " crosses nodes but --nodes is 1"
                                                                    : " is inside a node but the test spans nodes"),
                              is_cross_node(*cls) ? "give --nodes K with K >= 2" : "use RAIL, PXN or XRAIL");
        }
    }
    NcclTestsOptions opt;
    opt.ranks = shape.n;
    if (const auto o = args.get("--op")) {
        opt.op = parse_collective_op(*o);  // checked by the option's validator
    }
    double min_size = 0;
    if (const auto m = args.get("--min-size")) {
        min_size = parse_size_bytes(*m, "--min-size");
    }
    const NcclTestsRun run = parse_nccl_tests(read_input(path, ctx), path, opt);
    Calibration c = fit_calibration(run, shape, transport, cls, min_size, socket_inside_node(args, transport));
    c.source = name;
    for (auto w : run.warnings) {
        if (w.rfind(path, 0) == 0) {
            w = name + w.substr(path.size());
        }
        c.warnings.push_back(w);
    }
    if (const auto o = args.get("-o"); o && *o != "-") {  // the calibration file; the report still prints
        OutputFile file(*o, ctx.inputs);
        file.write(to_json(c).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
        file.commit();
    }
    ctx.out << (json ? to_json(c).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n" : render_text(c));
    check_standard_output(ctx.out);
    return 0;
}

}  // namespace planlayout::cli
