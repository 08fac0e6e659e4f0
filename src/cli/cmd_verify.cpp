// CLI: `plan-layout verify` — NCCL INFO logs against the plan's transport and rail expectations.

#include <cstdint>
#include <utility>

#include "acceptance_inputs.hpp"
#include "commands.hpp"
#include "messages.hpp"
#include "planlayout/emit/verify_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/nccl_log.hpp"
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
        expectation = expectation_of(report, expect);
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
        std::vector<verify::RankPlacement> placement = verify::rail_aligned_placement(nodes, gpus);
        if (const auto list = a.get("--nics")) {
            // One NIC per GPU, a shared NIC (--nics mlx5_0) or one per GPU group (4 for 8 GPUs).
            const verify::NicList nics =
                verify::nic_list(split_csv(*list, /*keep_empty=*/true), gpus, "plan-layout verify --nics " + *list);
            placement = verify::node_major_placement(nodes, gpus, nics);
        }
        expectation = verify::expectation_from_placement(placement, {}, expect);
    }
    expectation.intra = a.get_or("--intra", "p2p") == "shm" ? verify::ExpectedIntra::Shm : verify::ExpectedIntra::P2p;
    NcclLog log = read_nccl_logs(a.positionals(), ctx);
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
