// Emit: the RDMA-benefit score as JSON and text.
#include "planlayout/emit/score_emit.hpp"

#include <cmath>
#include <sstream>

#include "planlayout/model/cost.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout {
namespace {

/// A count of calls per step: whole numbers without decimals, others with one.
std::string count_text(double v) { return fixed_text(v, v == std::floor(v) ? 0 : 1); }

/// Why no host time is priced (model/compute_model.hpp, HostGap), one clause.
std::string host_gap_text(const HostGap& g, Implementation impl) {
    const std::string on = g.measured_for.empty() ? "" : " (" + g.measured_for + ")";
    switch (g.why) {
        case HostGap::Why::NoSection:
            return "the kernel table has no host section";
        case HostGap::Why::Implementation:
            return "measured for " + g.measured_for + " only, not " + std::string(to_string(impl));
        case HostGap::Why::Hidden:
            return "hidden " + count_text(g.value) + " outside the measured " + count_text(g.lo) + ".." + count_text(g.hi) + on;
        case HostGap::Why::Experts:
            return count_text(g.value) + " local experts, more than the " + count_text(g.hi) + " measured" + on;
        case HostGap::Why::None:
            break;
    }
    return "";
}
// The compute model's part of the score (model/compute_model.hpp).
nlohmann::json compute_json(const Score& s) {
    const ComputeBreakdown& c = s.compute;
    nlohmann::json stages = nlohmann::json::array();
    for (const auto& st : c.stages) {
        stages.push_back({{"layers", st.layers}, {"moe_layers", st.moe_layers}, {"fwd_s", st.fwd_s}, {"bwd_s", st.bwd_s}});
    }
    nlohmann::json ops = nlohmann::json::array();
    for (const auto& o : c.ops) {
        ops.push_back({{"name", o.name},
                       {"flops", o.flops},
                       {"bytes", o.bytes},
                       {"seconds", o.seconds},
                       {"bound", o.host_bound ? "host" : o.memory_bound ? "memory" : "compute"}});
    }
    nlohmann::json kernels = nullptr;
    if (c.kernels.table) {
        kernels = {{"table", c.kernels.table->file},
                   {"measured_on", c.kernels.table->gpu},
                   {"derived", c.kernels.derived},
                   {"memory_scale", c.kernels.mem_scale},
                   {"implementation", std::string(to_string(c.kernels.implementation))},
                   {"blocks", c.kernels.blocks},
                   {"attention_backend", to_string(c.kernels.attention)},
                   {"optimizer", std::string(to_string(c.kernels.optimizer))},
                   {"host", c.kernels.host.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.kernels.host)}};
        if (c.kernels.host_gap.why != HostGap::Why::None) {
            kernels["host_not_modelled"] = host_gap_text(c.kernels.host_gap, c.kernels.implementation);
        }
        const GemmTable& g = c.kernels.table->gemm;
        kernels["gemm"] = g.empty() ? nlohmann::json("prior curve (assumed)")
                                    : nlohmann::json{{"measured_on", g.measured_on()}, {"shapes", g.points().size()}};
        if (!c.kernels.cuda_graph.empty()) {
            kernels["cuda_graph"] = c.kernels.cuda_graph;
        }
        if (!c.kernels.power_gpu.empty()) {
            kernels["power"] = {{"duty", c.kernels.power_duty},
                                {"ratio", c.kernels.power_ratio},
                                {"measured_on", c.kernels.power_gpu}};
        }
        if (!c.kernels.fp8_recipe.empty()) {
            kernels["fp8"] = {{"recipe", c.kernels.fp8_recipe},
                              {"gemm", c.kernels.fp8_gemm},
                              {"quant_ps_per_element", c.kernels.fp8_quant_ps}};
        }
    }
    return {{"gpu", s.gpu_name},
            {"gpu_source", s.gpu_source},
            {"kernels", kernels},
            {"peak_tflops", s.gpu_peak_tflops},
            {"basis", c.basis},
            {"compute_scale", s.compute_scale},
            {"anchored", s.anchored},
            {"anchoring", s.anchoring},
            {"mfu", {{std::string(to_string(s.baseline)), s.mfu[0]}, {std::string(to_string(s.candidate)), s.mfu[1]}}},
            {"model_flops", c.model_flops},
            {"micro_batches", c.micro_batches},
            {"fwd_s", c.fwd_s},
            {"bwd_s", c.bwd_s},
            {"optimizer_s", c.optimizer_s},
            {"host_wait_s", c.host_wait_s},
            {"slowest_stage", c.slowest_stage},
            {"stages", stages},
            {"ops", ops}};
}

// "inside vs across NVLink domains": the step without the cluster's domains, on the same arms.
void domain_what_if_text(std::ostream& out, const Score& s, const std::string& b, const std::string& c) {
    const DomainWhatIf& d = *s.domain_what_if;
    const std::size_t arm = s.single_arm ? 0 : 1;
    out << "  nvlink domains: without them (every node its own NVLink island) the step would be " << b << " "
        << fixed_text(d.step_time_s[0], 3) << " s";
    if (!s.single_arm) {
        out << ", " << c << " " << fixed_text(d.step_time_s[1], 3) << " s";
    }
    const double saved = d.step_time_s[arm] > 0 ? 1.0 - s.step_time_s[arm] / d.step_time_s[arm] : 0.0;
    out << ": the domains save " << percent_text(saved) << " of the " << (arm == 0 ? b : c) << " step\n";
    // Which NCCL algorithm the model assumes for MNNVL groups (docs/cost-model.md, "NVLS").
    out << "  MNNVL algorithms: all-reduce inside one NVLink domain as NCCL's NVLS (busbw " << fixed_text(nvls_busbw_factor(), 2)
        << " x NVLink =\n    2 x 0.74 x 23/24, Blackwell) where faster than the ring; all-gather, reduce-scatter, all-to-all as\n"
        << "    NVLink rings and P2P; across domains the network's rings (NVLSTree: the 2-island tree gain)\n";
}

// "compute: H100 SXM (989 TFLOPS bf16), MFU 31.2% tcp, 35.0% gdrdma; largest: experts 0.41 s (memory), ..."
void compute_text(std::ostream& out, const Score& s) {
    const ComputeBreakdown& c = s.compute;
    out << "  compute: " << s.gpu_name << " (" << fixed_text(s.gpu_peak_tflops, 0) << " TFLOPS bf16), MFU "
        << percent_text(s.mfu[0]) << " " << to_string(s.baseline);
    if (!s.single_arm) {
        out << ", " << percent_text(s.mfu[1]) << " " << to_string(s.candidate);
    }
    if (!c.modelled) {
        out << " (flat model: training." << c.basis << " given)";
    }
    out << "\n";
    if (c.modelled && c.kernels.table) {
        out << "  kernels: " << to_string(c.kernels.implementation) << ", attention " << to_string(c.kernels.attention)
            << ", optimizer " << to_string(c.kernels.optimizer);
        if (!c.kernels.cuda_graph.empty()) {
            out << ", CUDA graphs: " << c.kernels.cuda_graph;
        }
        if (!c.kernels.fp8_recipe.empty()) {
            out << ", fp8 " << c.kernels.fp8_recipe << " (GEMMs " << c.kernels.fp8_gemm << "-scaled, quantization "
                << fixed_text(c.kernels.fp8_quant_ps, 2) << " ps/element)";
        }
        out << "; " << c.kernels.table->file << " (measured on "
            << c.kernels.table->gpu;
        if (c.kernels.derived) {
            out << ", carried to " << s.gpu_name << ": memory-bound times x" << fixed_text(c.kernels.mem_scale, 2);
        }
        out << ")";
        const GemmTable& g = c.kernels.table->gemm;
        if (g.empty()) {
            out << "; GEMMs on the prior curve (assumed)";
        } else {
            out << "; GEMMs from " << g.points().size() << " measured shapes";
            if (g.measured_on() != c.kernels.table->gpu) {
                out << " (measured on " << g.measured_on() << ", carried as shares of the bf16 peak)";
            }
        }
        if (c.kernels.host_gap.why != HostGap::Why::None) {
            out << "; host time not modelled: " << host_gap_text(c.kernels.host_gap, c.kernels.implementation);
        }
        if (!c.kernels.power_gpu.empty()) {
            out << "; at the power limit: GEMMs and attention " << fixed_text(100.0 * c.kernels.power_duty, 0)
                << "% of the time, at x" << fixed_text(c.kernels.power_ratio, 3) << " their burst rate (measured on "
                << c.kernels.power_gpu << ")";
        }
        out << "\n";
    }
    if (s.anchored || s.compute_scale != 1.0) {
        out << "  compute_scale " << fixed_text(s.compute_scale, 4)
            << (s.anchored ? " (fitted to the measured step)" : " (given, or from a compute calibration: see the assumptions)") << "\n";
    }
    for (const std::string& note : s.anchoring) {
        out << "  anchored " << note << "\n";
    }
    if (!c.modelled) {
        return;
    }
    out << "  largest compute:";
    for (std::size_t i = 0; i < c.ops.size() && i < 4; ++i) {
        out << (i > 0 ? "," : "") << " " << c.ops[i].name << " " << fixed_text(c.ops[i].seconds, 3) << " s ("
            << (c.ops[i].host_bound ? "host" : c.ops[i].memory_bound ? "memory" : "compute") << ")";
    }
    out << "\n";
    if (c.stages.size() > 1) {
        out << "  stages (fwd+bwd ms per micro-batch, layers):";
        for (std::size_t i = 0; i < c.stages.size() && i < 16; ++i) {
            out << " " << fixed_text(1e3 * (c.stages[i].fwd_s + c.stages[i].bwd_s), 2) << "/" << c.stages[i].layers
                << (static_cast<int>(i) == c.slowest_stage ? "*" : "");
        }
        out << (c.stages.size() > 16 ? " ..." : "") << "\n";
    }
}

}  // namespace

nlohmann::json to_json(const Score& s) {
    const std::string b(to_string(s.baseline));
    const std::string c(to_string(s.candidate));
    nlohmann::json j;
    j["rdma_benefit"] = s.rdma_benefit;
    j["throughput_gain"] = s.throughput_gain;
    j["transports"] = {{"baseline", b}, {"candidate", s.single_arm ? nlohmann::json(nullptr) : nlohmann::json(c)}};
    nlohmann::json compared = nlohmann::json::array({b});
    if (!s.single_arm) {
        compared.push_back(c);
    }
    j["arms"] = {{"requested", {std::string(to_string(s.requested_baseline)), std::string(to_string(s.requested_candidate))}},
                 {"compared", compared},
                 {"reasons", s.arm_notes}};
    if (s.domain_what_if) {
        j["domain_what_if"] = {{"step_time_s", s.domain_what_if->step_time_s}};
    }
    if (s.what_if) {
        j["what_if"] = {{"hardware", s.what_if->hardware},
                        {"transport", std::string(to_string(s.what_if->transport))},
                        {"step_time_s", s.what_if->step_time_s},
                        {"rdma_benefit", s.what_if->rdma_benefit}};
    } else {
        j["what_if"] = nullptr;
    }
    if (s.has_model) {
        j["step_time_s"] = {{b, s.step_time_s[0]}, {c, s.step_time_s[1]}};
        j["compute_s"] = s.compute_s;
        j["bubble_s"] = s.bubble_s;
        j["compute"] = compute_json(s);
    } else {  // the three factors given: the same keys, without the times a model would give
        j["step_time_s"] = nullptr;
        j["compute_s"] = nullptr;
        j["bubble_s"] = nullptr;
    }
    j["factors"] = {{"cross_node_share", s.cross_node_share},
                    {"eliminable", s.eliminable},
                    {"non_overlapped", s.non_overlapped}};
    j["cross_node_hidden_s"] = s.cross_node_hidden_s;
    nlohmann::json given = nlohmann::json::array();
    nlohmann::json computed = nlohmann::json::array();
    (s.given_share ? given : computed).push_back("cross_node_share");
    (s.given_eliminable ? given : computed).push_back("eliminable");
    (s.given_non_overlapped ? given : computed).push_back("non_overlapped");
    j["given"] = given;
    j["computed"] = computed;
    j["band"] = {{"low", s.band_low}, {"high", s.band_high}};
    nlohmann::json kinds = nlohmann::json::object();
    for (const auto& k : s.by_kind) {
        nlohmann::json windows = nlohmann::json::array();
        for (const auto& w : k.windows) {
            windows.push_back({{"what", w.what},
                               {"collective", w.collective},
                               {"window", w.window},
                               {"window_s", w.window_s},
                               {"calls_per_step", w.calls},
                               {"call_bytes", w.call_bytes},
                               {"bucket_source", w.bucket_source.empty() ? nlohmann::json(nullptr) : nlohmann::json(w.bucket_source)},
                               {"time_s", {{b, w.time_s[0]}, {c, w.time_s[1]}}},
                               {"exposed_s", {{b, w.exposed_s[0]}, {c, w.exposed_s[1]}}}});
        }
        kinds[k.kind] = {{"collective", k.collective},
                         {"class", std::string(to_string(k.path_class))},
                         {"cross_node", k.cross_node},
                         {"socket_inside_node", k.socket_inside},
                         {"shm_inside_node", k.shm_inside},
                         {"bytes_per_step", k.bytes_per_step},
                         {"calls_per_step", k.calls},
                         {"time_s", {{b, k.time_s[0]}, {c, k.time_s[1]}}},
                         {"exposed_s", {{b, k.exposed_s[0]}, {c, k.exposed_s[1]}}},
                         {"busbw_gbps", {{b, k.busbw_gbyte_s[0]}, {c, k.busbw_gbyte_s[1]}}},
                         {"share", k.share},
                         {"hidden_s", k.hidden_s},
                         {"phi", k.phi},
                         {"u", k.u},
                         {"contribution", k.contribution},
                         {"windows", windows}};
        if (s.calibrated) {
            kinds[k.kind]["fits"] = k.fits;
        }
    }
    j["by_kind"] = kinds;
    j["reasons"] = s.reasons;
    j["warnings"] = s.warnings;
    return j;
}

std::string render_text(const Score& s) {
    const std::string b(to_string(s.baseline));
    const std::string c(to_string(s.candidate));
    std::ostringstream out;
    if (s.single_arm) {
        out << "RDMA benefit: none predicted: only the " << b << " arm can run on these nodes\n";
    } else if (is_intra_arm(s.baseline)) {
        // p2p/shm: the change inside nodes, as a step-time change (SHM usually makes it slower).
        out << "Intra-node path (" << b << " -> " << c << "): predicted step time " << signed_percent_text(-s.rdma_benefit)
            << " (band " << signed_percent_text(-s.band_high) << " to " << signed_percent_text(-s.band_low)
            << "), throughput " << signed_percent_text(s.throughput_gain) << "\n";
    } else {
        out << "RDMA benefit (" << b << " -> " << c << "): predicted step-time reduction " << percent_text(s.rdma_benefit)
            << " (band " << percent_text(s.band_low) << " to " << percent_text(s.band_high) << "), throughput "
            << (s.throughput_gain >= 0 ? "+" : "") << percent_text(s.throughput_gain) << "\n";
    }
    for (const auto& note : s.arm_notes) {
        out << "  arms: " << note << "\n";
    }
    if (s.what_if) {
        out << "  what if: with " << s.what_if->hardware << ", the predicted step would be "
            << fixed_text(s.what_if->step_time_s, 3) << " s (" << to_string(s.what_if->transport) << "), "
            << percent_text(s.what_if->rdma_benefit) << " less than " << b << "\n";
    }
    if (s.has_model) {
        out << "  step time: " << b << " " << fixed_text(s.step_time_s[0], 3) << " s";
        if (!s.single_arm) {
            out << ", " << c << " " << fixed_text(s.step_time_s[1], 3) << " s";
        }
        out << " (compute " << fixed_text(s.compute_s, 3) << " s, bubble " << fixed_text(s.bubble_s, 3) << " s)\n";
        if (s.domain_what_if) {
            domain_what_if_text(out, s, b, c);
        }
        compute_text(out, s);
    }
    const auto tag = [](bool given) { return given ? "given" : "computed"; };
    if (is_intra_arm(s.baseline) && !s.single_arm) {
        // The three factors assume a faster candidate; here the share of the step the arms change says it.
        out << "  share of the " << b << " step in kinds with ranks on one node (what the arms change): "
            << fixed_text(s.cross_node_share, 3) << "\n";
    } else if (s.single_arm) {
        out << "  cross-node share of the " << b << " step: " << fixed_text(s.cross_node_share, 3) << " ("
            << tag(s.given_share) << ")\n";
    } else {
        out << "  factors: cross_node_share " << fixed_text(s.cross_node_share, 3) << " (" << tag(s.given_share)
            << ") x eliminable " << fixed_text(s.eliminable, 3) << " (" << tag(s.given_eliminable)
            << ") x non_overlapped " << fixed_text(s.non_overlapped, 3) << " (" << tag(s.given_non_overlapped) << ")\n";
    }
    if (s.cross_node_hidden_s > 0) {
        out << (is_intra_arm(s.baseline) ? "  their communication" : "  cross-node communication") << " hidden under compute (" << b << " arm, not in the share): "
            << fixed_text(s.cross_node_hidden_s, 3) << " s\n";
    }
    if (!s.reasons.empty()) {
        out << "Reasons:\n";
        for (const auto& r : s.reasons) {
            out << "  - " << r << "\n";
        }
    }
    if (!s.by_kind.empty()) {
        char line[256];
        const std::string cand_col = s.single_arm ? "-" : c + " s";
        std::snprintf(line, sizeof line, "%-8s %-26s %-6s %12s %10s %10s %7s %5s %5s\n", "kind", "collective",
                      "class", "bytes/step", (b + " s").c_str(), cand_col.c_str(), "share", "phi", "u");
        out << "By kind:\n  " << line;
        for (const auto& k : s.by_kind) {
            std::snprintf(line, sizeof line, "%-8s %-26s %-6s %12s %10.4f %10s %7s %5s %5s\n",
                          k.kind.c_str(), k.collective.c_str(), std::string(to_string(k.path_class)).c_str(),
                          human_bytes(k.bytes_per_step).c_str(), k.time_s[0],
                          s.single_arm ? "-" : fixed_text(k.time_s[1], 4).c_str(), percent_text(k.share).c_str(),
                          s.single_arm ? "-" : fixed_text(k.phi, 2).c_str(), s.single_arm ? "-" : fixed_text(k.u, 2).c_str());
            out << "  " << line;
        }
    }
    bool overlap_header = false;
    for (const auto& k : s.by_kind) {
        for (const auto& w : k.windows) {
            if (w.window_s <= 0) {
                continue;  // no window: fully exposed, as the table says
            }
            if (!overlap_header) {
                out << "Overlap (" << b << " arm):\n";
                overlap_header = true;
            }
            out << "  " << k.kind << " " << w.what << ": ";
            if (!w.bucket_source.empty()) {
                out << count_text(w.calls) << (w.calls == 1.0 ? " bucket" : " buckets") << " of up to "
                    << human_bytes(w.call_bytes) << " (" << w.bucket_source << ")";
            } else {
                out << count_text(w.calls) << (w.calls == 1.0 ? " call" : " calls") << " of " << human_bytes(w.call_bytes);
            }
            out << "; window " << w.window << ", " << fixed_text(w.window_s, 4) << " s: " << fixed_text(w.time_s[0], 4)
                << " s, " << fixed_text(w.time_s[0] - w.exposed_s[0], 4) << " s hidden, " << fixed_text(w.exposed_s[0], 4)
                << " s exposed";
            if (!s.single_arm) {
                out << " (" << c << " " << fixed_text(w.exposed_s[1], 4) << " s)";
            }
            out << "\n";
        }
    }
    if (s.calibrated) {
        out << "Calibrated fits used (others: the priors):\n";
        for (const auto& k : s.by_kind) {
            std::string used;
            for (const auto& f : k.fits) {
                used += (used.empty() ? "" : "; ") + f;
            }
            out << "  " << k.kind << " " << k.collective << ": " << (used.empty() ? "priors (no fit for its collectives)" : used)
                << "\n";
        }
    }
    for (const auto& w : s.warnings) {
        out << "warning: " << w << "\n";
    }
    return out.str();
}

}  // namespace planlayout
