// CLI: the acceptance inputs verify, ab and report share: NCCL logs read and checked against a
// plan's placement, step logs of an A/B, and the plan's predicted benefit for them.
#pragma once

#include <string>
#include <vector>

#include "context.hpp"
#include "planlayout/ingest/nccl_log.hpp"
#include "planlayout/ingest/step_log.hpp"
#include "planlayout/report.hpp"
#include "planlayout/verify/ab.hpp"
#include "planlayout/verify/verify.hpp"

namespace planlayout::cli {

/// What the plan expects NCCL to use: each rank's node, GPU and rail NIC (named from its own
/// node's template; clusters may mix them).
[[nodiscard]] verify::VerifyExpectation expectation_of(const Report& report, verify::ExpectedTransport expect);

/// Every NCCL INFO log of paths ("-" = standard input) parsed line by line as it is read, never
/// held whole; all logs together are held to kMaxLogBytes. NIC names resolved.
[[nodiscard]] NcclLog read_nccl_logs(const std::vector<std::string>& paths, Context& ctx);

/// One step log per path, each named by its file name (arm and round from inside the file).
[[nodiscard]] std::vector<StepSeries> read_step_logs(const std::vector<std::string>& paths, Context& ctx,
                                                     const StepLogOptions& options = {});

/// The runs of an A/B: one step log per path (arm and round from inside the file), then one per
/// --run ARM:ROUND=FILE spec (arm and round from the spec). A spec not of that form is bad input.
[[nodiscard]] std::vector<StepSeries> read_ab_runs(const std::vector<std::string>& paths,
                                                   const std::vector<std::string>& run_specs, Context& ctx,
                                                   const StepLogOptions& options = {});

/// The score's predicted step-time change and band, for the A/B comparisons.
[[nodiscard]] verify::AbPrediction prediction_of(const Score& score, const std::string& source);

}  // namespace planlayout::cli
