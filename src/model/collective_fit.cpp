// Calibrated collectives: the efficiency curve over size and the table of fits by key.
#include "planlayout/model/collective_fit.hpp"

#include <algorithm>
#include <cmath>

namespace planlayout {
namespace {

bool nv_family(PathClass c) { return over_nvlink(c); }

}  // namespace

double CollectiveFit::efficiency_at(double size_bytes) const {
    if (curve.empty()) {
        return 0;
    }
    if (size_bytes <= curve.front().size_bytes) {
        return curve.front().efficiency;
    }
    if (size_bytes >= curve.back().size_bytes) {
        return curve.back().efficiency;
    }
    const auto hi = std::upper_bound(curve.begin(), curve.end(), size_bytes,
                                     [](double s, const EfficiencyPoint& p) { return s < p.size_bytes; });
    const auto lo = hi - 1;
    const double span = std::log(hi->size_bytes) - std::log(lo->size_bytes);
    const double f = span > 0 ? (std::log(size_bytes) - std::log(lo->size_bytes)) / span : 0.0;
    return lo->efficiency + f * (hi->efficiency - lo->efficiency);
}

std::string CollectiveFit::label() const {
    std::string out = std::string(to_string(transport)) + " " + std::string(to_string(op)) + " " +
                      std::string(to_string(link_class));
    if (!source.empty()) {
        out += " (" + source + ")";
    }
    return out;
}

void CollectiveFits::add(CollectiveFit fit) {
    const bool cross = is_cross_node(fit.link_class);
    for (auto& f : fits) {
        // NV/PCIe fits hold for every transport: one per (collective, class).
        // SHM fits are the SHM arm's, apart from the NVLink/PCIe fits of the same class.
        const bool same_kind = (f.transport == Transport::Shm) == (fit.transport == Transport::Shm);
        if (f.op == fit.op && f.link_class == fit.link_class && same_kind && (!cross || f.transport == fit.transport)) {
            f = std::move(fit);
            return;
        }
    }
    fits.push_back(std::move(fit));
}

const CollectiveFit* CollectiveFits::network(Transport t, CollectiveOp op, PathClass cls) const {
    const CollectiveFit* family = nullptr;
    for (const auto& f : fits) {
        if (f.transport != t || f.op != op || !is_cross_node(f.link_class)) {
            continue;
        }
        if (f.link_class == cls) {
            return &f;
        }
        family = family != nullptr ? family : &f;
    }
    return family;
}

const CollectiveFit* CollectiveFits::intra(CollectiveOp op, PathClass cls) const {
    const CollectiveFit* family = nullptr;
    for (const auto& f : fits) {
        if (f.op != op || f.transport == Transport::Shm || is_cross_node(f.link_class) ||
            nv_family(f.link_class) != nv_family(cls)) {
            continue;
        }
        if (f.link_class == cls) {
            return &f;
        }
        family = family != nullptr ? family : &f;
    }
    return family;
}

const CollectiveFit* CollectiveFits::shm(CollectiveOp op) const {
    for (const auto& f : fits) {
        if (f.transport == Transport::Shm && f.op == op) {
            return &f;
        }
    }
    return nullptr;
}

}  // namespace planlayout
