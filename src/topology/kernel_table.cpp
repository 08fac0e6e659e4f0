// Topology: the measured kernel table's lookups (interpolation over sequence and head dim).
#include "planlayout/topology/kernel_table.hpp"

#include <cmath>

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

}  // namespace

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
