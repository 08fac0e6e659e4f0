// Emit: compare two reports (table and JSON).
#include "planlayout/emit/compare_emit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "planlayout/emit/report_emit.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout {
namespace {

// One side of one kind row; present = the layout creates the kind.
struct Side {
    bool present = false;
    const KindEdges* edges = nullptr;
    const KindBreakdown* cost = nullptr;

    [[nodiscard]] bool crosses() const { return present && edges->max_nodes > 1 && edges->cross_pairs() > 0; }
    [[nodiscard]] double cross_bytes() const { return cost != nullptr && cost->cross_node ? cost->bytes_per_step : 0.0; }
};

Side side_of(const Report& r, const std::string& kind) {
    Side s;
    for (const auto& k : r.kinds) {
        if (!s.present && (k.kind == kind || k.role == kind)) {  // by role: a framework names its kinds itself
            s.present = true;
            s.edges = &k;
        }
    }
    if (r.score) {
        // The score names the traffic by role; a framework's kind carries its role.
        const std::string role = s.present && !s.edges->role.empty() ? s.edges->role : kind;
        for (const auto& k : r.score->by_kind) {
            if (k.kind == role) {
                s.cost = &k;
            }
        }
    }
    return s;
}

std::vector<std::string> kind_union(const Report& a, const Report& b) {
    std::vector<std::string> out;
    for (const auto* r : {&a, &b}) {
        for (const auto& k : r->kinds) {
            if (std::find(out.begin(), out.end(), k.kind) == out.end()) {
                out.push_back(k.kind);
            }
        }
    }
    return out;
}

bool differs(const Side& x, const Side& y) {
    if (x.present != y.present) {
        return true;
    }
    if (!x.present) {
        return false;
    }
    const bool cost_differs = (x.cost == nullptr) != (y.cost == nullptr) ||
                              (x.cost != nullptr && std::abs(x.cost->time_s[0] - y.cost->time_s[0]) >
                                                        1e-3 * std::max(x.cost->time_s[0], y.cost->time_s[0]));
    return x.edges->size != y.edges->size || x.edges->groups != y.edges->groups || x.edges->max_nodes != y.edges->max_nodes ||
           x.edges->worst != y.edges->worst || x.edges->pairs != y.edges->pairs || cost_differs;
}

std::string spec_text(const Report& r) { return sizes_text(r.groups.spec) + " " + r.groups.spec.order; }

// "tcp vs gdrdma", or "tcp only" when the hardware allows one arm.
std::string arms_text(const Score& s) {
    return s.single_arm ? std::string(to_string(s.baseline)) + " only"
                        : std::string(to_string(s.baseline)) + " vs " + std::string(to_string(s.candidate));
}

std::string benefit_text(const Score& s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * s.rdma_benefit);
    return s.single_arm ? std::string("none (") + std::string(to_string(s.baseline)) + " only)" : std::string(buf);
}

// The heavy kinds whose reach changes, in words: the "why" of A vs B.
std::vector<std::string> explanation(const Report& a, const Report& b) {
    std::vector<std::string> out;
    for (const char* kind : {"ep", "dp", "dp_cp", "expt_dp", "tp", "cp", "pp", "fsdp", "efsdp", "dp_replicate"}) {
        const Side x = side_of(a, kind);
        const Side y = side_of(b, kind);
        const bool in_a = x.present && x.edges->size > 1;
        const bool in_b = y.present && y.edges->size > 1;
        if (!in_a && !in_b) {
            continue;
        }
        auto where = [](const Side& s) {
            if (!s.present || s.edges->size <= 1) {
                return std::string("has no group of two or more ranks");
            }
            if (s.crosses()) {
                return "crosses nodes (" + std::to_string(s.edges->max_nodes) + " nodes, worst " +
                       std::string(to_string(s.edges->worst)) + ")";
            }
            return "stays inside a node (worst " + std::string(to_string(s.edges->worst)) + ")";
        };
        if (x.crosses() != y.crosses()) {
            out.push_back(std::string(kind) + ": " + where(x) + " in A; " + where(y) + " in B");
        }
    }
    if (a.score && b.score && is_intra_arm(a.score->baseline) && !a.score->single_arm) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "step time with %s: %+.1f%% in A vs %+.1f%% in B (share in kinds on one node %.1f%% vs %.1f%%)",
                      std::string(to_string(a.score->candidate)).c_str(), -100.0 * a.score->rdma_benefit,
                      -100.0 * b.score->rdma_benefit, 100.0 * a.score->cross_node_share, 100.0 * b.score->cross_node_share);
        out.emplace_back(buf);
    } else if (a.score && b.score) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "RDMA benefit: %s in A vs %s in B (cross-node share %.1f%% vs %.1f%%)",
                      benefit_text(*a.score).c_str(), benefit_text(*b.score).c_str(), 100.0 * a.score->cross_node_share,
                      100.0 * b.score->cross_node_share);
        out.emplace_back(buf);
        if (arms_text(*a.score) != arms_text(*b.score)) {
            out.push_back("the hardware allows " + arms_text(*a.score) + " in A, " + arms_text(*b.score) + " in B");
        }
    }
    return out;
}

nlohmann::ordered_json side_json(const Side& s, const Report& r) {
    if (!s.present) {
        return nullptr;
    }
    nlohmann::ordered_json pairs = nlohmann::ordered_json::object();
    for (int c = 0; c < kPathClassCount; ++c) {
        if (s.edges->pairs[static_cast<std::size_t>(c)] != 0) {
            pairs[std::string(to_string(static_cast<PathClass>(c)))] = s.edges->pairs[static_cast<std::size_t>(c)];
        }
    }
    nlohmann::ordered_json o;
    o["groups"] = s.edges->groups;
    o["size"] = s.edges->size;
    o["max_nodes"] = s.edges->max_nodes;
    o["worst"] = std::string(to_string(s.edges->worst));
    o["pairs"] = pairs;
    o["cross_pairs"] = s.edges->cross_pairs();
    o["cross_node_bytes_per_step"] = round_to(s.cross_bytes(), 0);
    if (s.cost != nullptr && r.score) {
        o["time_s"] = {{std::string(to_string(r.score->baseline)), round_to(s.cost->time_s[0], 6)},
                       {std::string(to_string(r.score->candidate)), round_to(s.cost->time_s[1], 6)}};
    } else {
        o["time_s"] = nullptr;
    }
    return o;
}

nlohmann::ordered_json layout_json(const Report& r) {
    nlohmann::ordered_json o;
    o["layout"] = r.layout_name;
    const ResolvedSpec& s = r.groups.spec;
    o["parallel"] = {{"world", s.world}, {"tp", s.tp}, {"pp", s.pp}, {"cp", s.cp}, {"ep", s.ep},
                     {"etp", s.etp}, {"dp", s.dp}, {"expert_dp", s.expert_dp}, {"order", s.order}};
    if (r.score) {
        const Score& sc = *r.score;
        nlohmann::ordered_json compared = nlohmann::ordered_json::array({std::string(to_string(sc.baseline))});
        if (!sc.single_arm) {
            compared.push_back(std::string(to_string(sc.candidate)));
        }
        o["score"] = {{"rdma_benefit", round_to(sc.rdma_benefit, 6)},
                      {"throughput_gain", round_to(sc.throughput_gain, 6)},
                      {"cross_node_share", round_to(sc.cross_node_share, 6)},
                      {"cross_node_hidden_s", round_to(sc.cross_node_hidden_s, 6)},
                      {"arms", compared},
                      {"arm_reasons", sc.arm_notes},
                      {"step_time_s",
                       {{std::string(to_string(sc.baseline)), round_to(sc.step_time_s[0], 6)},
                        {std::string(to_string(sc.candidate)), round_to(sc.step_time_s[1], 6)}}}};
    } else {
        o["score"] = nullptr;
    }
    return o;
}

}  // namespace

std::string compare_text(const Report& a, const Report& b) {
    std::ostringstream out;
    out << "A: " << a.layout_name << "  (" << spec_text(a) << ")\n";
    out << "B: " << b.layout_name << "  (" << spec_text(b) << ")\n\n";
    char line[512];
    std::snprintf(line, sizeof line, "  %-14s %-4s %-10s %-6s %-7s %-22s %-11s %-17s\n", "kind", "side", "groups", "nodes",
                  "worst", "pairs per class", "x-node B/rk", "time base/cand s");
    out << line;
    for (const auto& kind : kind_union(a, b)) {
        const Side x = side_of(a, kind);
        const Side y = side_of(b, kind);
        const bool diff = differs(x, y);
        bool first = true;
        for (const auto* pr : {&x, &y}) {
            const Side& s = *pr;
            const Report& r = pr == &x ? a : b;
            std::string groups = "-", nodes = "-", worst = "-", pairs = "-", bytes = "-", times = "-";
            if (s.present) {
                groups = std::to_string(s.edges->groups) + "x" + std::to_string(s.edges->size);
                nodes = std::to_string(s.edges->max_nodes);
                worst = std::string(to_string(s.edges->worst));
                pairs = class_counts_text(s.edges->pairs);
                if (pairs.empty()) {
                    pairs = "-";
                }
                bytes = s.cross_bytes() > 0 ? human_bytes(s.cross_bytes()) : "0";
                if (s.cost != nullptr && r.score) {
                    char t[64];
                    if (r.score->single_arm) {
                        std::snprintf(t, sizeof t, "%.4f/-", s.cost->time_s[0]);
                    } else {
                        std::snprintf(t, sizeof t, "%.4f/%.4f", s.cost->time_s[0], s.cost->time_s[1]);
                    }
                    times = t;
                }
            }
            std::snprintf(line, sizeof line, "%s %-14s %-4s %-10s %-6s %-7s %-22s %-11s %-17s\n",
                          first && diff ? "*" : " ", first ? kind.c_str() : "", pr == &x ? "A" : "B", groups.c_str(),
                          nodes.c_str(), worst.c_str(), pairs.c_str(), bytes.c_str(), times.c_str());
            out << line;
            first = false;
        }
    }
    out << "\n* = differs between A and B; x-node B/rk = bytes per rank per step of a kind whose collective crosses nodes\n";
    if (a.score || b.score) {
        out << "\n";
        for (const auto* r : {&a, &b}) {
            if (!r->score) {
                out << (r == &a ? "A" : "B") << ": no score (no model/training/transport sections)\n";
                continue;
            }
            const Score& s = *r->score;
            if (s.single_arm) {
                std::snprintf(line, sizeof line, "%s: step %.3f s (%s only), no RDMA benefit predicted, cross-node share %.1f%%\n",
                              r == &a ? "A" : "B", s.step_time_s[0], std::string(to_string(s.baseline)).c_str(),
                              100.0 * s.cross_node_share);
            } else if (is_intra_arm(s.baseline)) {  // p2p/shm: a step-time change, and the share the arms change
                std::snprintf(line, sizeof line,
                              "%s: step %.3f s (%s) -> %.3f s (%s), step time %+.1f%%, throughput %+.1f%%, share in kinds on one node %.1f%%\n",
                              r == &a ? "A" : "B", s.step_time_s[0], std::string(to_string(s.baseline)).c_str(),
                              s.step_time_s[1], std::string(to_string(s.candidate)).c_str(), -100.0 * s.rdma_benefit,
                              100.0 * s.throughput_gain, 100.0 * s.cross_node_share);
            } else {
                std::snprintf(line, sizeof line,
                              "%s: step %.3f s (%s) -> %.3f s (%s), RDMA benefit %.1f%%, throughput +%.1f%%, cross-node share %.1f%%\n",
                              r == &a ? "A" : "B", s.step_time_s[0], std::string(to_string(s.baseline)).c_str(),
                              s.step_time_s[1], std::string(to_string(s.candidate)).c_str(), 100.0 * s.rdma_benefit,
                              100.0 * s.throughput_gain, 100.0 * s.cross_node_share);
            }
            out << line;
            for (const auto& note : s.arm_notes) {
                out << "   arms: " << note << "\n";
            }
        }
    }
    const auto why = explanation(a, b);
    if (!why.empty()) {
        out << "\nwhy:\n";
        for (const auto& w : why) {
            out << "  " << w << "\n";
        }
    }
    return out.str();
}

std::string compare_json(const Report& a, const Report& b) {
    nlohmann::ordered_json j;
    j["schema_version"] = 1;
    j["command"] = "compare";
    j["a"] = layout_json(a);
    j["b"] = layout_json(b);
    nlohmann::ordered_json kinds = nlohmann::ordered_json::array();
    for (const auto& kind : kind_union(a, b)) {
        const Side x = side_of(a, kind);
        const Side y = side_of(b, kind);
        kinds.push_back({{"kind", kind}, {"differs", differs(x, y)}, {"a", side_json(x, a)}, {"b", side_json(y, b)}});
    }
    j["kinds"] = kinds;
    j["explanation"] = explanation(a, b);
    return j.dump(2) + "\n";
}

}  // namespace planlayout
