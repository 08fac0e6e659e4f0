// Topology: the measured kernel table's lookups (interpolation over sequence and head dim).
#include "planlayout/topology/kernel_table.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace planlayout {
namespace {

/// The efficiency at `seq` over one head dim's points, sorted by seq: linear in log2(seq), the
/// ends held. nullopt without points.
std::optional<double> along_seq(std::vector<std::pair<double, double>> pts, double seq) {
    if (pts.empty()) {
        return std::nullopt;
    }
    std::sort(pts.begin(), pts.end());
    if (seq <= pts.front().first) {
        return pts.front().second;
    }
    for (std::size_t i = 1; i < pts.size(); ++i) {
        if (seq <= pts[i].first) {
            const double x0 = std::log2(pts[i - 1].first);
            const double x1 = std::log2(pts[i].first);
            const double t = x1 > x0 ? (std::log2(seq) - x0) / (x1 - x0) : 1.0;
            return pts[i - 1].second + t * (pts[i].second - pts[i - 1].second);
        }
    }
    return pts.back().second;
}

}  // namespace

std::optional<double> KernelTable::attention_efficiency(AttentionBackend b, double head_dim, double seq,
                                                        bool backward) const {
    std::map<int, std::vector<std::pair<double, double>>> by_dim;
    for (const AttentionPoint& p : attention) {
        if (p.backend == b) {
            by_dim[p.head_dim].emplace_back(p.seq, backward ? p.bwd : p.fwd);
        }
    }
    if (by_dim.empty()) {
        return std::nullopt;
    }
    // The two measured head dims around `head_dim` (or the nearest end).
    auto hi = by_dim.lower_bound(static_cast<int>(std::ceil(head_dim)));
    if (hi == by_dim.end()) {
        return along_seq(std::prev(hi)->second, seq);
    }
    if (hi == by_dim.begin() || hi->first == head_dim) {
        return along_seq(hi->second, seq);
    }
    const auto lo = std::prev(hi);
    const auto a = along_seq(lo->second, seq);
    const auto c = along_seq(hi->second, seq);
    const double t = (head_dim - lo->first) / static_cast<double>(hi->first - lo->first);
    return *a + t * (*c - *a);
}

const ImplementationBlocks* KernelTable::implementation(const std::string& name) const {
    const auto it = blocks.find(name);
    return it == blocks.end() ? nullptr : &it->second;
}

std::string to_string(AttentionBackend b) {
    switch (b) {
        case AttentionBackend::Auto:
            return "auto";
        case AttentionBackend::Flash:
            return "flash";
        case AttentionBackend::Cudnn:
            return "cudnn";
        case AttentionBackend::Efficient:
            return "efficient";
        case AttentionBackend::Unfused:
            return "unfused";
    }
    return "auto";
}

std::optional<AttentionBackend> parse_attention_backend(const std::string& s) {
    for (const AttentionBackend b : {AttentionBackend::Auto, AttentionBackend::Flash, AttentionBackend::Cudnn,
                                     AttentionBackend::Efficient, AttentionBackend::Unfused}) {
        if (s == to_string(b)) {
            return b;
        }
    }
    return std::nullopt;
}

}  // namespace planlayout
