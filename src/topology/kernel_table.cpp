// Topology: the measured kernel table's lookups (interpolation over sequence and head dim).
#include "planlayout/topology/kernel_table.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace planlayout {
namespace {

/// The efficiency at `seq` over the points of one backend and head dim: linear in log2(seq)
/// between the neighbouring measured sequences, the ends held. No allocation: the search prices
/// this for every candidate. nullopt without points.
std::optional<double> along_seq(const std::vector<AttentionPoint>& pts, AttentionBackend b, int head_dim, double seq,
                                bool backward) {
    const AttentionPoint* below = nullptr;  // the longest sequence <= seq
    const AttentionPoint* above = nullptr;  // the shortest sequence >= seq
    for (const AttentionPoint& p : pts) {
        if (p.backend != b || p.head_dim != head_dim) {
            continue;
        }
        if (p.seq <= seq && (below == nullptr || p.seq > below->seq)) {
            below = &p;
        }
        if (p.seq >= seq && (above == nullptr || p.seq < above->seq)) {
            above = &p;
        }
    }
    const auto eff = [backward](const AttentionPoint* p) { return backward ? p->bwd : p->fwd; };
    if (below == nullptr && above == nullptr) {
        return std::nullopt;
    }
    if (below == nullptr || above == nullptr || below->seq == above->seq) {
        return eff(below != nullptr ? below : above);
    }
    const double x0 = std::log2(below->seq);
    const double t = (std::log2(seq) - x0) / (std::log2(above->seq) - x0);
    return eff(below) + t * (eff(above) - eff(below));
}

/// Linear in log2(x) between the two points of [first, last) around x (x ascending), the ends
/// held. No allocation: the search prices this for every candidate.
template <class It, class X, class Y>
std::optional<double> along_log2(It first, It last, double x, X xof, Y yof) {
    if (first == last) {
        return std::nullopt;
    }
    if (x <= xof(*first)) {
        return yof(*first);
    }
    for (It prev = first, it = std::next(first); it != last; prev = it, ++it) {
        if (x <= xof(*it)) {
            const double x0 = std::log2(xof(*prev));
            const double x1 = std::log2(xof(*it));
            const double t = x1 > x0 ? (std::log2(x) - x0) / (x1 - x0) : 1.0;
            return yof(*prev) + t * (yof(*it) - yof(*prev));
        }
    }
    return yof(*std::prev(last));
}

}  // namespace

double PowerCurve::ratio(bool fp8_gemms, double duty) const {
    const std::vector<PowerPoint>& pts = fp8_gemms && !fp8.empty() ? fp8 : bf16;
    if (pts.empty()) {
        return 1.0;
    }
    if (duty <= pts.front().duty) {
        return pts.front().ratio;
    }
    for (std::size_t i = 1; i < pts.size(); ++i) {
        if (duty <= pts[i].duty) {
            const double t = (duty - pts[i - 1].duty) / (pts[i].duty - pts[i - 1].duty);
            return pts[i - 1].ratio + t * (pts[i].ratio - pts[i - 1].ratio);
        }
    }
    return pts.back().ratio;
}

bool PowerCurve::applies_to(const std::string& gpu_name) const {
    return std::find(gpus.begin(), gpus.end(), gpu_name) != gpus.end();
}

std::optional<double> KernelTable::fp8_speedup(const std::string& variant, double m, double n, double k) const {
    const auto it = gemm_fp8.find(variant);
    if (it == gemm_fp8.end() || m <= 0 || n <= 0 || k <= 0) {
        return std::nullopt;
    }
    return along_log2(it->second.begin(), it->second.end(), std::cbrt(m * n * k), [](const SpeedupPoint& p) { return p.d; },
                      [](const SpeedupPoint& p) { return p.speedup; });
}

std::optional<double> KernelTable::grouped_efficiency(double tokens_per_expert, double k, double n) const {
    // The measured shape nearest in log(K·N); its points are contiguous and by tokens ascending
    // (the reader sorts them).
    double best = -1;
    double best_kn = 0;
    for (const GroupedPoint& p : grouped_gemm) {
        const double dist = std::fabs(std::log(p.k * p.n) - std::log(k * n));
        if (best < 0 || dist < best || (dist == best && p.k * p.n < best_kn)) {
            best = dist;
            best_kn = p.k * p.n;
        }
    }
    if (best < 0 || tokens_per_expert <= 0) {
        return std::nullopt;
    }
    // The first shape of that size (k, n both fixed by the sort).
    const auto first = std::find_if(grouped_gemm.begin(), grouped_gemm.end(),
                                    [&](const GroupedPoint& p) { return p.k * p.n == best_kn; });
    auto last = first;
    while (last != grouped_gemm.end() && last->k == first->k && last->n == first->n) {
        ++last;
    }
    return along_log2(first, last, tokens_per_expert, [](const GroupedPoint& p) { return p.tokens_per_expert; },
                      [](const GroupedPoint& p) { return p.eff; });
}

std::optional<double> KernelTable::attention_efficiency(AttentionBackend b, double head_dim, double seq,
                                                        bool backward) const {
    int lo = 0;  // the widest measured head dim <= head_dim, and the narrowest >= it
    int hi = 0;
    for (const AttentionPoint& p : attention) {
        if (p.backend != b) {
            continue;
        }
        if (p.head_dim <= head_dim && p.head_dim > lo) {
            lo = p.head_dim;
        }
        if (p.head_dim >= head_dim && (hi == 0 || p.head_dim < hi)) {
            hi = p.head_dim;
        }
    }
    if (lo == 0 && hi == 0) {
        return std::nullopt;
    }
    if (lo == 0 || hi == 0 || lo == hi) {
        return along_seq(attention, b, lo == 0 ? hi : lo, seq, backward);
    }
    const auto a = along_seq(attention, b, lo, seq, backward);
    const auto c = along_seq(attention, b, hi, seq, backward);
    const double t = (head_dim - lo) / static_cast<double>(hi - lo);
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
