// CLI: `plan-layout calibrate` — nccl-tests outputs → per collective, a floor, alpha and an
// efficiency curve of one transport on one link class, with per-row residuals; -o writes the
// calibration file (every fit in one file).
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
        throw missing_option("calibrate", "--transport", "say which transport the test used: --transport gdrdma|rdma|tcp");
    }
    const bool json = args.get_or("--format", "text") == "json";
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
    // Every file: its collective from its test name (or --op); files of one collective are pooled.
    std::vector<NcclTestsRun> runs;
    std::vector<std::string> names;
    std::vector<std::vector<std::string>> warnings;  // per file
    for (const auto& path : args.positionals()) {
        const std::string name = path == "-" ? "stdin" : base_name(path);
        NcclTestsRun run = parse_nccl_tests(read_input(path, ctx), path, opt);
        warnings.emplace_back();
        for (auto w : run.warnings) {
            if (w.rfind(path, 0) == 0) {
                w = name + w.substr(path.size());
            }
            warnings.back().push_back(w);
        }
        runs.push_back(std::move(run));
        names.push_back(name);
    }
    std::vector<Calibration> fits = fit_calibrations(runs, shape, transport, cls, min_size, socket_inside_node(args, transport));
    const bool several = runs.size() > 1;
    for (auto& c : fits) {
        std::string source;
        std::size_t row = 0;
        for (std::size_t i = 0; i < runs.size(); ++i) {
            if (runs[i].op != c.op) {
                continue;
            }
            source += (source.empty() ? "" : ", ") + names[i];
            c.warnings.insert(c.warnings.end(), warnings[i].begin(), warnings[i].end());
            for (std::size_t k = 0; k < runs[i].rows.size() && row < c.rows.size(); ++k, ++row) {
                c.rows[row].source = several ? names[i] : "";
            }
        }
        c.source = source;
    }
    if (const auto o = args.get("-o"); o && *o != "-") {  // the calibration file; the report still prints
        OutputFile file(*o, ctx.inputs);
        file.write(to_json(fits).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
        file.commit();
    }
    ctx.out << (json ? to_json(fits).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n" : render_text(fits));
    check_standard_output(ctx.out);
    return 0;
}

}  // namespace planlayout::cli
