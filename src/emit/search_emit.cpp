// Emit: search results (table and JSON). Fixed precision, no DOM order surprises.
#include "planlayout/emit/search_emit.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "planlayout/emit/report_emit.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout {
namespace {

// Rounds for JSON so the output is stable across platforms' last-bit differences.
std::size_t shown(const SearchResult& r, const SearchHeader& h) {
    return h.top > 0 ? std::min(r.layouts.size(), static_cast<std::size_t>(h.top)) : r.layouts.size();
}

std::string reach_text(const KindReach& k) {
    if (k.size <= 1) {
        return "-";
    }
    return std::string(to_string(k.worst)) + (k.max_nodes > 1 ? "/" + std::to_string(k.max_nodes) + "n" : "");
}

// Where the first layout keeps each parallel kind on a cluster with NVLink domains: inside one
// node, inside one domain (MNNVL), or across domains over the network.
std::string domain_note(const SearchLayout& l, const Cluster& cluster) {
    const std::string s = nvlink_domains_text(cluster);
    std::string kinds;
    for (const auto& k : l.kinds) {
        if (k.size <= 1) {
            continue;
        }
        const std::string where = is_cross_node(k.worst)       ? "across domains over the network (" + std::string(to_string(k.worst)) + ")"
                                  : k.worst == PathClass::Mnnvl ? "inside one NVLink domain (MNNVL, " + std::to_string(k.max_nodes) + " nodes)"
                                                                : "inside one node";
        kinds += (kinds.empty() ? "" : "; ") + k.kind + " " + std::to_string(k.size) + " " + where;
    }
    return s + "\n#1 keeps " + (kinds.empty() ? std::string("every group on one GPU") : kinds) + "\n";
}

/// --explain: the named layout's rank and step against #1, part by part, and the part that decides.
std::string explain_text(const SearchExplanation& e, const std::string& arm) {
    std::ostringstream out;
    out << "\nexplain " << e.named << ": ";
    if (e.rank > 0) {
        out << "#" << e.rank;
    } else {
        out << "not ranked (" << e.why << ")";
    }
    const double diff = e.named_step_s - e.best_step_s;
    out << "; " << arm << " step " << fixed_text(e.named_step_s, 3) << " s against #1's " << fixed_text(e.best_step_s, 3) << " s ("
        << (diff >= 0 ? "+" : "") << fixed_text(e.best_step_s > 0 ? 100.0 * diff / e.best_step_s : 0.0, 1) << " %); memory "
        << fixed_text(e.named_memory_gib, 1) << " against " << fixed_text(e.best_memory_gib, 1) << " GiB per GPU\n";
    if (e.parts.empty()) {
        out << "  every part of the step is the same as #1's\n";
        return out.str();
    }
    out << "  part of the " << arm << " step                  named s       #1 s    difference\n";
    char line[256];
    for (const ExplainPart& p : e.parts) {
        std::snprintf(line, sizeof line, "  %-36s %10s %10s %+12.3f s\n", p.what.c_str(), fixed_text(p.named_s, 3).c_str(),
                      fixed_text(p.best_s, 3).c_str(), p.named_s - p.best_s);
        out << line;
    }
    const ExplainPart& top = e.parts.front();
    out << "  decided by: " << top.what << " (" << (top.named_s >= top.best_s ? "+" : "") << fixed_text(top.named_s - top.best_s, 3)
        << " s of the " << (diff >= 0 ? "+" : "") << fixed_text(diff, 3) << " s)\n";
    return out.str();
}

}  // namespace

std::string search_text(const SearchResult& r, const Cluster& cluster, const SearchHeader& h) {
    std::ostringstream out;
    const std::string base(r.layouts.empty() ? "tcp" : to_string(r.layouts.front().score.baseline));
    const std::string cand(r.layouts.empty() ? "gdrdma" : to_string(r.layouts.front().score.candidate));
    // Every layout runs on the same placement, so on the same arms.
    const bool one_arm = !r.layouts.empty() && r.layouts.front().score.single_arm;
    out << "search: " << r.world << " GPUs on " << cluster.node_count() << " node(s) of " << h.cluster_source << "\n";
    out << "model: " << h.model_source << "; transports " << (one_arm ? base + " only" : base + " vs " + cand)
        << "; sorted by "
        << (h.sort == "benefit" ? "RDMA benefit (most transport-sensitive first)" : h.sort + " step time (fastest first)")
        << "\n";
    out << "memory budget per GPU: " << memory_budget_text(r.budget)
        << (r.budget.known() ? "" : "; nothing is pruned for memory (give --gpu-memory)") << "\n";
    if (!r.layouts.empty()) {
        for (const auto& note : r.layouts.front().score.arm_notes) {
            out << "arms: " << note << "\n";
        }
    }
    for (const auto& w : h.warnings) {
        out << "warning: " << w << "\n";
    }
    out << "layouts: " << r.candidates << " candidate(s), " << r.rejected << " rejected, " << r.pruned_memory
        << " pruned for memory";
    if (r.budget.known()) {
        out << " (> " << fixed_text(r.budget.budget_bytes() / kGiB, 1) << " GiB per GPU)";
    }
    out << ", " << r.evaluated << " evaluated\n";
    for (const auto& [why, n] : r.reasons) {
        out << "  " << n << " x " << why << "\n";
    }
    if (r.pruned_memory > 0) {
        out << "  the smallest pruned layout needs " << fixed_text(r.smallest_pruned_bytes / kGiB, 1) << " GiB per GPU\n";
    }
    out << "\n";
    // MFU of the arm the table is sorted by (the candidate's for a benefit sort).
    const std::size_t mfu_arm = one_arm || h.sort == base ? 0 : 1;
    char line[512];
    std::snprintf(line, sizeof line, "%4s  %-42s %7s %9s %9s %8s %7s %8s %6s  %-8s %-8s %-8s %-8s %-8s\n", "#", "layout",
                  "mem GiB", (base + " s").c_str(), (one_arm ? std::string("-") : cand + " s").c_str(), "benefit", "x-node",
                  "comp s", "MFU", "ep", "dp", "tp", "pp", "cp");
    out << line;
    for (std::size_t i = 0; i < shown(r, h); ++i) {
        const SearchLayout& l = r.layouts[i];
        std::snprintf(line, sizeof line, "%4zu  %-42s %7s %9s %9s %8s %6s%% %8s %5s%%  %-8s %-8s %-8s %-8s %-8s\n", i + 1,
                      l.name().c_str(), fixed_text(l.memory.total_bytes() / kGiB, 1).c_str(),
                      fixed_text(l.score.step_time_s[0], 3).c_str(), one_arm ? "-" : fixed_text(l.score.step_time_s[1], 3).c_str(),
                      one_arm ? "-" : (fixed_text(100.0 * l.score.rdma_benefit, 1) + "%").c_str(),
                      fixed_text(100.0 * l.score.cross_node_share, 1).c_str(),
                      fixed_text(l.score.compute_s + l.score.bubble_s, 3).c_str(), fixed_text(100.0 * l.score.mfu[mfu_arm], 1).c_str(),
                      reach_text(l.kinds[0]).c_str(), reach_text(l.kinds[1]).c_str(), reach_text(l.kinds[2]).c_str(),
                      reach_text(l.kinds[3]).c_str(), reach_text(l.kinds[4]).c_str());
        out << line;
    }
    if (static_cast<std::int64_t>(shown(r, h)) < r.evaluated) {  // kept or not (SearchOptions::keep)
        out << "  ... " << r.evaluated - static_cast<std::int64_t>(shown(r, h)) << " more (--top 0 shows all)\n";
    }
    if (!cluster.nvlink.empty() && !r.layouts.empty()) {
        out << "\n" << domain_note(r.layouts.front(), cluster);
    }
    if (h.explain) {
        out << explain_text(*h.explain, h.explain->arm == 0 ? base : cand);
    }
    out << "\nx-node: the part of the " << base
        << " step spent in exposed cross-node communication (time hidden under compute is not counted); per kind: "
           "worst path class of its worst group, /Nn = nodes it spans. comp s: compute + pipeline bubble per step; "
           "MFU: model FLOPs / (" << (mfu_arm == 0 ? base : cand) << " step x peak x GPUs), compute from the "
        << (r.layouts.empty() ? std::string("GPU") : r.layouts.front().score.gpu_name) << " spec.\n";
    return out.str();
}

std::string search_json(const SearchResult& r, const Cluster& cluster, const SearchHeader& h) {
    nlohmann::ordered_json j;
    j["schema_version"] = 1;
    j["command"] = "search";
    j["cluster"] = cluster_summary_json(cluster);
    j["world"] = r.world;
    j["model"] = h.model_source;
    j["sort"] = h.sort;
    j["gpu_memory_gib"] = round_to(r.budget.gpu_memory_bytes / kGiB, 3);  // 0: unknown
    j["memory_headroom_gib"] = round_to(r.budget.headroom_bytes / kGiB, 3);
    j["memory_budget_gib"] = round_to(r.budget.budget_bytes() / kGiB, 3);  // 0: unknown, nothing pruned
    j["memory_budget_source"] = r.budget.source;
    j["counts"] = {{"candidates", r.candidates},
                   {"rejected", r.rejected},
                   {"pruned_memory", r.pruned_memory},
                   {"evaluated", r.evaluated},
                   {"shown", shown(r, h)}};
    nlohmann::ordered_json reasons = nlohmann::ordered_json::object();
    for (const auto& [why, n] : r.reasons) {
        reasons[why] = n;
    }
    j["reasons"] = reasons;
    j["smallest_pruned_gib"] = round_to(r.smallest_pruned_bytes / kGiB, 3);
    j["warnings"] = h.warnings;
    if (r.layouts.empty()) {
        j["arms"] = nullptr;
    } else {
        const Score& s = r.layouts.front().score;
        nlohmann::ordered_json compared = nlohmann::ordered_json::array({std::string(to_string(s.baseline))});
        if (!s.single_arm) {
            compared.push_back(std::string(to_string(s.candidate)));
        }
        j["arms"] = {{"requested", {std::string(to_string(s.requested_baseline)), std::string(to_string(s.requested_candidate))}},
                     {"compared", compared},
                     {"reasons", s.arm_notes}};
    }
    nlohmann::ordered_json layouts = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < shown(r, h); ++i) {
        const SearchLayout& l = r.layouts[i];
        nlohmann::ordered_json o;
        o["rank"] = i + 1;
        o["name"] = l.name();
        o["parallel"] = {{"tp", l.sizes.tp}, {"pp", l.sizes.pp}, {"vpp", l.sizes.vpp}, {"cp", l.sizes.cp}, {"ep", l.sizes.ep},
                         {"etp", l.sizes.etp}, {"dp", l.sizes.dp}, {"expert_dp", l.sizes.expert_dp}, {"order", l.order}};
        o["memory_gib"] = {{"params", round_to(l.memory.params_bytes / kGiB, 3)},
                           {"grads", round_to(l.memory.grads_bytes / kGiB, 3)},
                           {"optimizer", round_to(l.memory.optimizer_bytes / kGiB, 3)},
                           {"activations", round_to(l.memory.activations_bytes / kGiB, 3)},
                           {"total", round_to(l.memory.total_bytes() / kGiB, 3)}};
        o["step_time_s"] = {{std::string(to_string(l.score.baseline)), round_to(l.score.step_time_s[0], 6)},
                            {std::string(to_string(l.score.candidate)), round_to(l.score.step_time_s[1], 6)}};
        o["rdma_benefit"] = round_to(l.score.rdma_benefit, 6);
        o["throughput_gain"] = round_to(l.score.throughput_gain, 6);
        o["band"] = {{"low", round_to(l.score.band_low, 6)}, {"high", round_to(l.score.band_high, 6)}};
        o["cross_node_share"] = round_to(l.score.cross_node_share, 6);
        o["cross_node_hidden_s"] = round_to(l.score.cross_node_hidden_s, 6);
        o["compute_s"] = round_to(l.score.compute_s, 6);
        o["bubble_s"] = round_to(l.score.bubble_s, 6);
        o["mfu"] = {{std::string(to_string(l.score.baseline)), round_to(l.score.mfu[0], 6)},
                    {std::string(to_string(l.score.candidate)), round_to(l.score.mfu[1], 6)}};
        nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
        for (const auto& k : l.kinds) {
            kinds[k.kind] = {{"size", k.size}, {"max_nodes", k.max_nodes}, {"worst", std::string(to_string(k.worst))}};
        }
        o["kinds"] = kinds;
        layouts.push_back(o);
    }
    j["layouts"] = layouts;
    if (h.explain) {
        const SearchExplanation& e = *h.explain;
        nlohmann::ordered_json parts = nlohmann::ordered_json::array();
        for (const ExplainPart& p : e.parts) {
            parts.push_back({{"what", p.what}, {"named_s", round_to(p.named_s, 6)}, {"best_s", round_to(p.best_s, 6)}});
        }
        j["explain"] = {{"named", e.named},
                        {"rank", e.rank > 0 ? nlohmann::ordered_json(e.rank) : nlohmann::ordered_json(nullptr)},
                        {"not_ranked", e.rank > 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.why)},
                        {"named_step_s", round_to(e.named_step_s, 6)},
                        {"best_step_s", round_to(e.best_step_s, 6)},
                        {"named_memory_gib", round_to(e.named_memory_gib, 3)},
                        {"best_memory_gib", round_to(e.best_memory_gib, 3)},
                        {"parts", parts}};
    }
    return j.dump(2) + "\n";
}

}  // namespace planlayout
