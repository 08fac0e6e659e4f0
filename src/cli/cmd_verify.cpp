// CLI: `plan-layout verify` — NCCL INFO logs against the plan's transport and rail expectations.

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string_view>
#include <utility>

#include "commands.hpp"
#include "messages.hpp"
#include "planlayout/emit/verify_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/nccl_log.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/plan.hpp"
#include "planlayout/verify/verify.hpp"

namespace planlayout::cli {
int run_verify(const ParsedArgs& a, Context& ctx) {
    const std::string format = a.get_or("--format", "text");
    const auto expect = verify::parse_expected_transport(a.get_or("--expect", "gdrdma"),
                                                         "plan-layout verify --expect");
    verify::VerifyExpectation expectation;
    std::vector<std::string> layout_files;  // files the layout named: inputs too
    if (const auto layout = a.get("--layout")) {
        // The plan's own placement: each rank's node, GPU and rail NIC (NCCL's choice).
        PlanRequest request = layout_request(*layout, ctx);
        request.kinds = {"tp"};  // classification is not needed here; keep it cheap
        const Report report = plan(request);
        layout_files = report.files;
        // Each rank's rail NIC is named from its own node's template (clusters may mix them).
        std::vector<verify::RankPlacement> placement;
        for (std::int64_t r = 0; r < report.placement.world(); ++r) {
            const auto i = static_cast<std::size_t>(r);
            const std::int64_t node = report.placement.node[i];
            const int gpu = report.placement.gpu[i];
            const TemplateFacts& facts = report.cluster.facts_of(node);
            const int rail = facts.gpu_rail[static_cast<std::size_t>(gpu)];
            std::string device;
            if (rail >= 0 && static_cast<std::size_t>(rail) < facts.rail_nics.size()) {
                const Nic& nic = report.cluster.template_of(node).nics[static_cast<std::size_t>(
                    facts.rail_nics[static_cast<std::size_t>(rail)])];
                device = nic.device.empty() ? nic.name : nic.device;
            }
            placement.push_back({static_cast<int>(r), static_cast<int>(node), gpu, rail, device});
        }
        expectation = verify::expectation_from_placement(placement, {}, expect);
    } else {
        if (!a.has("--nodes")) {  // CLI11 checks that --nodes and --gpus-per-node come together
            throw usage_error("verify", "the plan is missing",
                              "give --layout LAYOUT, or --nodes N --gpus-per-node G (rank r on node r/G, NIC r%G)");
        }
        const auto nodes = static_cast<int>(*a.get_int("--nodes"));
        const auto gpus = static_cast<int>(*a.get_int("--gpus-per-node"));
        if (static_cast<long long>(nodes) * gpus > 1000000) {
            throw usage_error("verify", "more than 1000000 ranks",
                              "check --nodes and --gpus-per-node");
        }
        std::vector<std::string> nics;
        if (const auto list = a.get("--nics")) {
            nics = split_csv(*list, /*keep_empty=*/true);
            if (nics.size() < static_cast<std::size_t>(gpus)) {
                throw input_error("plan-layout verify --nics " + *list,
                                  "names " + std::to_string(nics.size()) + " NICs for " +
                                      std::to_string(gpus) + " GPUs per node",
                                  "list one NIC per GPU, in GPU order (the rail of GPU i is NIC i)");
            }
        }
        expectation = verify::expectation_from_placement(verify::rail_aligned_placement(nodes, gpus), nics, expect);
    }
    expectation.intra = a.get_or("--intra", "p2p") == "shm" ? verify::ExpectedIntra::Shm : verify::ExpectedIntra::P2p;
    NcclLog log;
    // Each log is parsed line by line as it is read, never held whole (issue #20); the parsed
    // connections stay, so all logs together are held to kMaxLogBytes.
    std::size_t total = 0;
    for (const auto& path : a.positionals()) {
        const std::string where = path == "-" ? "<stdin>" : path;
        auto check_total = [&](std::size_t bytes) {
            if (path == "-" && bytes > kMaxInputBytes) {
                throw input_error("<stdin>", "input is over the limit of " + std::to_string(kMaxInputBytes) + " bytes",
                                  "pass a smaller input or cut it to the relevant part");
            }
            if (total + bytes > kMaxLogBytes) {
                throw input_error(where,
                                  "the logs given to verify total " + std::to_string(total + bytes) +
                                      " bytes with this one, over the limit of " + std::to_string(kMaxLogBytes) +
                                      " bytes (kMaxLogBytes)",
                                  "keep the NCCL INFO lines only (grep 'NCCL INFO'), or verify fewer logs at a time");
            }
        };
        NcclLogParser parser(log, base_name(path));
        auto on_line = [&](std::string_view line) { parser.line(line); };
        if (path == "-") {
            total += for_each_line(ctx.in, check_total, on_line);
        } else {
            if (const long long size = checked_file_size(path); size >= 0) {
                check_total(static_cast<std::size_t>(size));  // a regular file: before reading it
            }
            std::ifstream in(path, std::ios::binary);
            if (!in) {
                throw io_error(path, std::string("cannot open: ") + std::strerror(errno),
                               "check the path and its permissions");
            }
            total += for_each_line(in, check_total, on_line);
            if (in.bad()) {
                throw io_error(path, "read failed", "check the file system");
            }
        }
        parser.finish();
    }
    resolve_nic_names(log);
    const auto report = verify::verify_log(std::move(log), expectation);
    Output out(a, ctx, layout_files);
    if (format == "json") {
        verify::write_json(report, out.stream());  // streamed: never the whole JSON in memory
    } else {
        out.write(verify::render_text(report));
    }
    out.commit();
    return report.passed() ? 0 : static_cast<int>(ExitCode::CheckFailed);
}

}  // namespace planlayout::cli
