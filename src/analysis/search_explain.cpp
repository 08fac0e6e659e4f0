// Search: why the #1 beats a layout the user names (`search --explain`), part by part of the step.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>

#include "planlayout/analysis/search.hpp"
#include "planlayout/error.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout {

namespace {

// "tp4" → ("tp", 4); nullopt when the part is not letters then digits.
std::optional<std::pair<std::string, int>> split_part(const std::string& part) {
    std::size_t i = 0;
    while (i < part.size() && std::isalpha(static_cast<unsigned char>(part[i])) != 0) {
        ++i;
    }
    if (i == 0 || i == part.size() || part.size() - i > 7) {
        return std::nullopt;
    }
    int n = 0;
    for (std::size_t j = i; j < part.size(); ++j) {
        if (std::isdigit(static_cast<unsigned char>(part[j])) == 0) {
            return std::nullopt;
        }
        n = n * 10 + (part[j] - '0');
    }
    return n >= 1 ? std::optional<std::pair<std::string, int>>({part.substr(0, i), n}) : std::nullopt;
}

// The parts of one step (the arm compared): compute, bubble and each kind's exposed communication.
std::map<std::string, double> step_parts(const Score& s, int arm) {
    std::map<std::string, double> parts;
    parts["compute"] = s.compute_s;
    parts["pipeline bubble"] = s.bubble_s;
    for (const KindBreakdown& k : s.by_kind) {
        parts[k.kind + " exposed communication"] += k.exposed_s[arm];
    }
    return parts;
}

}  // namespace

NamedLayout parse_layout_name(const std::string& text, const std::string& where) {
    NamedLayout out;
    const std::size_t space = text.find(' ');
    const std::string sizes = text.substr(0, space);
    if (space != std::string::npos) {
        const std::size_t start = text.find_first_not_of(' ', space);
        if (start != std::string::npos) {
            out.order = text.substr(start);
        }
    }
    std::map<std::string, int> seen;
    std::string part;
    const auto take = [&]() {
        if (part.empty()) {
            return;
        }
        const auto kv = split_part(part);
        static const char* const kKeys[] = {"tp", "pp", "vp", "vpp", "cp", "ep", "etp", "dp"};
        if (!kv || std::find(std::begin(kKeys), std::end(kKeys), kv->first) == std::end(kKeys)) {
            throw input_error(where, "'" + part + "' is not a size of the layout name",
                              "name the layout as search prints it, e.g. tp4-pp8-vp5-cp1-ep1-etp4-dp2 tp-cp-ep-dp-pp");
        }
        seen[kv->first == "vpp" ? "vp" : kv->first] = kv->second;
        part.clear();
    };
    for (const char c : sizes) {
        if (c == '-' || c == ',') {
            take();
        } else {
            part += c;
        }
    }
    take();
    if (seen.empty()) {
        throw input_error(where, "no sizes", "name the layout as search prints it, e.g. tp4-pp8-cp1-ep1-etp4-dp2");
    }
    const auto get = [&](const char* k, int dflt) { return seen.count(k) > 0 ? seen.at(k) : dflt; };
    out.sizes.tp = get("tp", 1);
    out.sizes.pp = get("pp", 1);
    out.sizes.vpp = get("vp", 1);
    out.sizes.cp = get("cp", 1);
    out.sizes.ep = get("ep", 1);
    out.etp_given = seen.count("etp") > 0;
    out.sizes.etp = get("etp", out.sizes.tp);
    out.dp_given = seen.count("dp") > 0;
    out.sizes.dp = get("dp", 0);
    return out;
}

SearchExplanation explain_layout(const SearchResult& result, const SearchLayout& named, SearchSort sort, std::int64_t rank,
                                 const std::string& why) {
    SearchExplanation e;
    e.named = named.name();
    e.rank = rank;
    e.why = why;
    e.arm = sort == SearchSort::Baseline ? 0 : 1;
    e.named_step_s = named.score.step_time_s[e.arm];
    e.named_memory_gib = named.memory.total_bytes() / kGiB;
    if (result.layouts.empty()) {
        return e;
    }
    const SearchLayout& best = result.layouts.front();
    e.best_step_s = best.score.step_time_s[e.arm];
    e.best_memory_gib = best.memory.total_bytes() / kGiB;
    const std::map<std::string, double> a = step_parts(named.score, e.arm);
    const std::map<std::string, double> b = step_parts(best.score, e.arm);
    std::map<std::string, ExplainPart> parts;
    for (const auto& [what, s] : a) {
        parts[what] = {what, s, 0.0};
    }
    for (const auto& [what, s] : b) {
        parts.emplace(what, ExplainPart{what, 0.0, 0.0}).first->second.best_s = s;
    }
    for (const auto& [what, p] : parts) {
        if (std::abs(p.named_s - p.best_s) > 1e-4 * e.best_step_s) {  // what the text's milliseconds would show
            e.parts.push_back(p);
        }
    }
    std::stable_sort(e.parts.begin(), e.parts.end(), [](const ExplainPart& x, const ExplainPart& y) {
        return std::abs(x.named_s - x.best_s) > std::abs(y.named_s - y.best_s);
    });
    return e;
}

}  // namespace planlayout
