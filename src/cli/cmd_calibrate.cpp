// CLI: `plan-layout calibrate` — nccl-tests output → fitted latency and efficiency of one
// transport on one link class, with per-row residuals; -o writes the calibration file.
#include <sstream>

#include "commands.hpp"
#include "cost_options.hpp"
#include "messages.hpp"
#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/emit/atomic_write.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/nccl_tests.hpp"

namespace planlayout::cli {

void define_calibrate(CommandSpec& spec) {
    spec.usage = "plan-layout calibrate FILE --nodes K --gpus-per-node G --transport gdrdma|rdma|tcp [--class C] "
                 "[-o calib.json] [--format text|json]";
    spec.description =
        "Reads nccl-tests output (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf,\n"
        "broadcast_perf, sendrecv_perf; any version; MPI noise and prefixes are skipped) and fits\n"
        "t = alpha x steps + bytes_factor x S / B by weighted least squares, B = efficiency x the\n"
        "declared line rate of the bottleneck link (one rail NIC, the node's TCP interface, or\n"
        "NVLink inside a node). Prints the fit and every row's residual. -o writes a calibration\n"
        "file that a layout's \"transport\": {\"calibration\": FILE} or collective --calibration reads.\n"
        "Calibrate at the message sizes training sends: a ratio measured at one size does not carry\n"
        "over to another.";
    spec.positionals = {1, 1, "one nccl-tests output file", "give one file (or - for standard input)"};
    add_options(spec, {
        {"--nodes", "K", "nodes the test ran on (default 1)"},
        {"--gpus-per-node", "G", "GPUs (ranks) per node"},
        {"--transport", "T", "the transport the test used: gdrdma, rdma or tcp"},
        {"--class", "C", "link class to record (default RAIL across nodes, NV inside one)"},
        {"--op", "OP", "the collective, when the file does not name it"},
        {"--min-size", "SIZE", "leave rows below SIZE out of the fit (still listed), e.g. 1MiB"},
    });
    define_hardware_flags(spec);
    add_options(spec, {
        {"--format", "text|json", "text (default) or the calibration JSON with residuals"},
        {"-o", "FILE", "write the calibration file (JSON) to FILE, atomically"},
        {"--help,-h", "", "this help"},
    });
    check_transport(spec, "--transport");
    check_collective_op(spec, "--op");
    check_choice(spec, "--format", "format", {"text", "json"});
    spec.examples = {
        "plan-layout calibrate all_reduce.txt --nodes 2 --gpus-per-node 8 --transport gdrdma -o calib.json",
        "plan-layout calibrate alltoall.txt --nodes 2 --gpus-per-node 8 --transport tcp --tcp-gbit 200 --min-size 1MiB",
        "plan-layout calibrate single-node.txt --nodes 1 --gpus-per-node 8 --transport gdrdma --class NV",
    };
}

int run_calibrate(const ParsedArgs& args, Context& ctx) {
    if (!args.has("--transport")) {
        throw missing_option("calibrate", "--transport", "say which transport the test used: --transport gdrdma|rdma|tcp");
    }
    const bool json = args.get_or("--format", "text") == "json";
    const std::string path = args.positionals().front();
    const std::string name = path == "-" ? "stdin" : base_name(path);
    const CostShape shape = shape_from(args, "calibrate", ctx);
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
    if (const auto o = args.get("-o"); o && *o != "-") {
        write_file_atomically(*o, to_json(c).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    }
    ctx.out << (json ? to_json(c).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n" : render_text(c));
    return 0;
}

}  // namespace planlayout::cli
