// Emit: the allocation section of analyze (allocation_emit.hpp).
#include "planlayout/emit/allocation_emit.hpp"

#include <sstream>

#include <nlohmann/json.hpp>

#include "planlayout/emit/sched_topology_emit.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout {
namespace {

std::string hosts_of(const Report& r, const std::vector<std::int32_t>& nodes) {
    std::vector<std::string> hosts;
    hosts.reserve(nodes.size());
    for (const std::int32_t n : nodes) {
        hosts.push_back(r.cluster.nodes[static_cast<std::size_t>(n)].host);
    }
    return slurm_hostlist(hosts);
}

std::string span_text(const Span& s, bool domains) {
    std::string out = std::to_string(s.leaves) + (s.leaves == 1 ? " leaf group, " : " leaf groups, ") +
                      std::to_string(s.pods) + (s.pods == 1 ? " pod" : " pods");
    if (domains) {
        out += ", " + std::to_string(s.domains) + (s.domains == 1 ? " NVLink domain" : " NVLink domains");
    }
    return out;
}

std::string diff_text(double t, double compact) {
    const double d = t - compact;
    return (d >= 0 ? "+" : "") + fixed_text(d, 3) + " s" +
           (compact > 0 ? " (" + signed_percent_text(d / compact) + ")" : std::string());
}

void kind_lines(std::ostringstream& out, const AllocationReport& a, bool domains) {
    std::string inside;
    out << "  groups that straddle leaf groups" << (domains ? ", pods or NVLink domains" : " or pods") << ":\n";
    for (const auto& k : a.kinds) {
        if (k.over_leaves == 0 && k.over_pods == 0 && k.over_domains == 0) {
            inside += k.size > 1 ? (inside.empty() ? "" : ", ") + k.kind : std::string();
            continue;
        }
        out << "    " << padded(k.kind, 8) << k.over_leaves << " of " << k.groups << " over leaf groups, " << k.over_pods
            << " over pods";
        if (domains) {
            out << ", " << k.over_domains << " over NVLink domains";
        }
        out << (k.example.empty() ? std::string() : "; e.g. " + k.example) << "\n";
    }
    out << "    inside one leaf group" << (domains ? " and domain" : "") << ": " << (inside.empty() ? "-" : inside) << "\n";
}

void time_lines(std::ostringstream& out, const Report& r, const AllocationReport& a) {
    const std::string b(to_string(r.score->baseline));
    const std::string c(to_string(r.score->candidate));
    out << "  step time: " << b << " " << fixed_text(a.step_time_s[0], 3) << " s here, " << fixed_text(a.compact_step_time_s[0], 3)
        << " s compact, " << diff_text(a.step_time_s[0], a.compact_step_time_s[0]) << "; " << c << " "
        << fixed_text(a.step_time_s[1], 3) << " s here, " << fixed_text(a.compact_step_time_s[1], 3) << " s compact, "
        << diff_text(a.step_time_s[1], a.compact_step_time_s[1]) << "\n";
    out << "    " << padded("kind", 9) << right_aligned(b + " s", 9) << right_aligned("compact", 9) << right_aligned("diff", 9) << right_aligned(c + " s", 11)
        << right_aligned("compact", 9) << right_aligned("diff", 9) << "\n";
    for (const auto& k : a.by_kind) {
        out << "    " << padded(k.kind, 9);
        for (int arm = 0; arm < 2; ++arm) {
            const double d = k.time_s[arm] - k.compact_time_s[arm];
            out << right_aligned(fixed_text(k.time_s[arm], 3), arm == 0 ? 9 : 11) << right_aligned(fixed_text(k.compact_time_s[arm], 3), 9)
                << right_aligned((d >= 0 ? "+" : "") + fixed_text(d, 3), 9);
        }
        out << "\n";
    }
}

}  // namespace

std::string allocation_text(const Report& r) {
    if (!r.allocation) {
        return {};
    }
    const AllocationReport& a = *r.allocation;
    const bool domains = !r.cluster.nvlink.empty();
    std::ostringstream out;
    out << "allocation: " << a.span.nodes << " of " << r.cluster.node_count() << " nodes (" << hosts_of(r, a.nodes) << ") over "
        << span_text(a.span, domains) << "\n";
    if (a.compact_nodes.empty()) {
        out << "  compact: none fits the ranks (no run of " << a.span.nodes << " consecutive nodes has their GPUs)\n";
    } else {
        out << "  compact: the same layout on " << hosts_of(r, a.compact_nodes) << ", " << a.compact_where << " ("
            << span_text(a.compact_span, domains) << ")\n";
    }
    kind_lines(out, a, domains);
    if (a.scored) {
        time_lines(out, r, a);
    }
    return out.str();
}

nlohmann::json allocation_json(const Report& r) {
    const AllocationReport& a = *r.allocation;
    auto span = [](const Span& s) {
        return nlohmann::json{{"nodes", s.nodes}, {"leaf_groups", s.leaves}, {"pods", s.pods}, {"nvlink_domains", s.domains}};
    };
    nlohmann::json j = span(a.span);
    j["hosts"] = hosts_of(r, a.nodes);
    j["compact"] = nullptr;
    if (!a.compact_nodes.empty()) {
        j["compact"] = span(a.compact_span);
        j["compact"]["hosts"] = hosts_of(r, a.compact_nodes);
        j["compact"]["where"] = a.compact_where;
    }
    j["kinds"] = nlohmann::json::array();
    for (const auto& k : a.kinds) {
        j["kinds"].push_back({{"kind", k.kind},
                              {"groups", k.groups},
                              {"size", k.size},
                              {"over_leaf_groups", k.over_leaves},
                              {"over_pods", k.over_pods},
                              {"over_nvlink_domains", k.over_domains},
                              {"example", k.example}});
    }
    j["step_time_s"] = nullptr;
    if (a.scored) {
        const std::string b(to_string(r.score->baseline));
        const std::string c(to_string(r.score->candidate));
        j["step_time_s"] = {{"arms", {b, c}},
                            {"allocation", {a.step_time_s[0], a.step_time_s[1]}},
                            {"compact", {a.compact_step_time_s[0], a.compact_step_time_s[1]}}};
        j["by_kind"] = nlohmann::json::array();
        for (const auto& k : a.by_kind) {
            j["by_kind"].push_back({{"kind", k.kind},
                                    {"allocation_s", {k.time_s[0], k.time_s[1]}},
                                    {"compact_s", {k.compact_time_s[0], k.compact_time_s[1]}}});
        }
    }
    return j;
}

}  // namespace planlayout
