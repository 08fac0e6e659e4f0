// CLI: the acceptance inputs verify, ab and report share.
#include "acceptance_inputs.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>
#include <utility>

#include "messages.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/limits.hpp"

namespace planlayout::cli {

verify::VerifyExpectation expectation_of(const Report& report, verify::ExpectedTransport expect) {
    std::vector<verify::RankPlacement> placement;
    placement.reserve(static_cast<std::size_t>(report.placement.world()));
    for (std::int64_t r = 0; r < report.placement.world(); ++r) {
        const auto i = static_cast<std::size_t>(r);
        const std::int64_t node = report.placement.node[i];
        const int gpu = report.placement.gpu[i];
        const TemplateFacts& facts = report.cluster.facts_of(node);
        const int rail = facts.gpu_rail[static_cast<std::size_t>(gpu)];
        const auto device_of = [&](int a_rail) {
            if (a_rail < 0 || static_cast<std::size_t>(a_rail) >= facts.rail_nics.size()) {
                return std::string();
            }
            const Nic& nic = report.cluster.template_of(node).nics[static_cast<std::size_t>(
                facts.rail_nics[static_cast<std::size_t>(a_rail)])];
            return nic.device.empty() ? nic.name : nic.device;
        };
        verify::RankPlacement p;
        p.rank = static_cast<int>(r);
        p.node = static_cast<int>(node);
        p.local_gpu = gpu;
        p.nic_index = rail;
        p.nic_device = device_of(rail);
        p.domain = report.cluster.domain_of(node);
        // The other NICs as near to this GPU: NCCL may pick any of them (topo.cc ncclTopoGetLocal).
        const auto g = static_cast<std::size_t>(gpu);
        for (const int other : g < facts.gpu_local_rails.size() ? facts.gpu_local_rails[g] : std::vector<int>{}) {
            if (other != rail) {
                p.other_nic_indices.push_back(other);
                p.other_nic_devices.push_back(device_of(other));
            }
        }
        placement.push_back(std::move(p));
    }
    return verify::expectation_from_placement(placement, {}, expect);
}

NcclLog read_nccl_logs(const std::vector<std::string>& paths, Context& ctx) {
    NcclLog log;
    // The parsed connections stay, so all logs together are held to kMaxLogBytes (issue #20).
    std::size_t total = 0;
    for (const auto& path : paths) {
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
    return log;
}

std::vector<StepSeries> read_step_logs(const std::vector<std::string>& paths, Context& ctx,
                                       const StepLogOptions& options) {
    std::vector<StepSeries> runs;
    runs.reserve(paths.size());
    for (const auto& path : paths) {
        runs.push_back(parse_step_log(read_input(path, ctx, kMaxStepLogBytes), base_name(path), options));
    }
    return runs;
}

std::vector<StepSeries> read_ab_runs(const std::vector<std::string>& paths, const std::vector<std::string>& run_specs,
                                     Context& ctx, const StepLogOptions& options) {
    std::vector<StepSeries> runs = read_step_logs(paths, ctx, options);
    for (const auto& spec : run_specs) {
        const auto colon = spec.find(':');
        const auto eq = spec.find('=');
        if (colon == std::string::npos || eq == std::string::npos || colon == 0 || eq < colon + 2 ||
            eq + 1 >= spec.size()) {
            throw input_error("--run " + spec, "not ARM:ROUND=FILE", "e.g. --run tcp:1=runs/tcp-1.csv");
        }
        const std::string path = spec.substr(eq + 1);
        StepSeries s = parse_step_log(read_input(path, ctx, kMaxStepLogBytes), base_name(path), options);
        s.arm = spec.substr(0, colon);
        s.round = spec.substr(colon + 1, eq - colon - 1);
        runs.push_back(std::move(s));
    }
    return runs;
}

verify::AbPrediction prediction_of(const Score& score, const std::string& source) {
    verify::AbPrediction p;
    p.step_time_change = -score.rdma_benefit;
    p.band_low = -score.band_high;
    p.band_high = -score.band_low;
    p.source = source;
    return p;
}

}  // namespace planlayout::cli
