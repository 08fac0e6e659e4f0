// Emit: the RDMA-benefit score as JSON and text.
#include "planlayout/emit/score_emit.hpp"

#include <cmath>
#include <sstream>

#include "planlayout/text_format.hpp"

namespace planlayout {

nlohmann::json to_json(const Score& s) {
    const std::string b(to_string(s.baseline));
    const std::string c(to_string(s.candidate));
    nlohmann::json j;
    j["rdma_benefit"] = s.rdma_benefit;
    j["throughput_gain"] = s.throughput_gain;
    j["transports"] = {{"baseline", b}, {"candidate", c}};
    if (s.has_model) {
        j["step_time_s"] = {{b, s.step_time_s[0]}, {c, s.step_time_s[1]}};
        j["compute_s"] = s.compute_s;
        j["bubble_s"] = s.bubble_s;
    } else {
        j["step_time_s"] = nullptr;
    }
    j["factors"] = {{"cross_node_share", s.cross_node_share},
                    {"eliminable", s.eliminable},
                    {"non_overlapped", s.non_overlapped}};
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
        kinds[k.kind] = {{"collective", k.collective},
                         {"class", std::string(to_string(k.path_class))},
                         {"cross_node", k.cross_node},
                         {"socket_inside_node", k.socket_inside},
                         {"bytes_per_step", k.bytes_per_step},
                         {"calls_per_step", k.calls},
                         {"time_s", {{b, k.time_s[0]}, {c, k.time_s[1]}}},
                         {"exposed_s", {{b, k.exposed_s[0]}, {c, k.exposed_s[1]}}},
                         {"busbw_gbps", {{b, k.busbw_gbyte_s[0]}, {c, k.busbw_gbyte_s[1]}}},
                         {"share", k.share},
                         {"phi", k.phi},
                         {"u", k.u},
                         {"contribution", k.contribution}};
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
    out << "RDMA benefit (" << b << " -> " << c << "): predicted step-time reduction "
        << percent_text(s.rdma_benefit) << " (band " << percent_text(s.band_low) << " to " << percent_text(s.band_high)
        << "), throughput " << (s.throughput_gain >= 0 ? "+" : "") << percent_text(s.throughput_gain) << "\n";
    if (s.has_model) {
        out << "  step time: " << b << " " << fixed_text(s.step_time_s[0], 3) << " s, " << c << " "
            << fixed_text(s.step_time_s[1], 3) << " s (compute " << fixed_text(s.compute_s, 3) << " s, bubble "
            << fixed_text(s.bubble_s, 3) << " s)\n";
    }
    const auto tag = [](bool given) { return given ? "given" : "computed"; };
    out << "  factors: cross_node_share " << fixed_text(s.cross_node_share, 3) << " (" << tag(s.given_share)
        << ") x eliminable " << fixed_text(s.eliminable, 3) << " (" << tag(s.given_eliminable)
        << ") x non_overlapped " << fixed_text(s.non_overlapped, 3) << " (" << tag(s.given_non_overlapped) << ")\n";
    if (!s.reasons.empty()) {
        out << "Reasons:\n";
        for (const auto& r : s.reasons) {
            out << "  - " << r << "\n";
        }
    }
    if (!s.by_kind.empty()) {
        char line[256];
        std::snprintf(line, sizeof line, "%-8s %-26s %-6s %12s %10s %10s %7s %5s %5s\n", "kind", "collective",
                      "class", "bytes/step", (b + " s").c_str(), (c + " s").c_str(), "share", "phi", "u");
        out << "By kind:\n  " << line;
        for (const auto& k : s.by_kind) {
            std::snprintf(line, sizeof line, "%-8s %-26s %-6s %12s %10.4f %10.4f %7s %5.2f %5.2f\n",
                          k.kind.c_str(), k.collective.c_str(), std::string(to_string(k.path_class)).c_str(),
                          human_bytes(k.bytes_per_step).c_str(), k.time_s[0], k.time_s[1],
                          percent_text(k.share).c_str(), k.phi, k.u);
            out << "  " << line;
        }
    }
    for (const auto& w : s.warnings) {
        out << "warning: " << w << "\n";
    }
    return out.str();
}

}  // namespace planlayout
