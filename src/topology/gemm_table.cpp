// Topology: the measured GEMM grid (filled at load by inverse distance, read trilinearly in log2).
#include "planlayout/topology/gemm_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

#include "planlayout/model/numbers/compute.hpp"

namespace planlayout {
namespace {

using Log3 = std::array<double, GemmDims>;

Log3 log2_of(const GemmPoint& p) { return {std::log2(p.m), std::log2(p.n), std::log2(p.k)}; }

double squared_distance(const Log3& a, const Log3& b) {
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        d += (a[i] - b[i]) * (a[i] - b[i]);
    }
    return d;
}

/// The sorted distinct values of one coordinate.
std::vector<double> axis_of(const std::vector<Log3>& logs, std::size_t dim) {
    std::vector<double> a;
    a.reserve(logs.size());
    for (const Log3& l : logs) {
        a.push_back(l[dim]);
    }
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    return a;
}

/// The inverse-distance mean at `at` of the nearest measured shapes: weights 1 / d²^power over the
/// numbers::kGemmTableNeighbours nearest (ties: the earlier point, so the result is deterministic);
/// a measured shape at `at` itself gives its own efficiency.
double inverse_distance(const std::vector<Log3>& logs, const std::vector<GemmPoint>& pts, const Log3& at,
                        std::vector<std::pair<double, std::size_t>>& scratch) {
    scratch.clear();
    for (std::size_t i = 0; i < logs.size(); ++i) {
        scratch.emplace_back(squared_distance(logs[i], at), i);
    }
    const std::size_t k = std::min(scratch.size(), static_cast<std::size_t>(numbers::kGemmTableNeighbours.count()));
    std::partial_sort(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(k), scratch.end());
    if (scratch.front().first <= 0) {
        return pts[scratch.front().second].eff;
    }
    double sum = 0;
    double weights = 0;
    for (std::size_t i = 0; i < k; ++i) {
        const double w = 1.0 / std::pow(scratch[i].first, double{numbers::kGemmTableDistancePower});
        sum += w * pts[scratch[i].second].eff;
        weights += w;
    }
    return sum / weights;
}

/// The cell of `x` on `axis` (x clamped to its range): the lower node's index and the share of the
/// way to the next one (0 on a one-value axis).
std::pair<std::size_t, double> cell_of(const std::vector<double>& axis, double x) {
    if (axis.size() <= 1 || x <= axis.front()) {
        return {0, 0.0};
    }
    if (x >= axis.back()) {
        return {axis.size() - 1 - 1, 1.0};  // the last cell, at its upper node
    }
    const auto hi = static_cast<std::size_t>(std::upper_bound(axis.begin(), axis.end(), x) - axis.begin());
    const std::size_t lo = hi - 1;
    return {lo, (x - axis[lo]) / (axis[hi] - axis[lo])};
}

}  // namespace

GemmTable::GemmTable(std::vector<GemmPoint> points, std::string source, std::string measured_on)
    : points_(std::move(points)), source_(std::move(source)), measured_on_(std::move(measured_on)) {
    if (points_.empty()) {
        return;
    }
    std::vector<Log3> logs;
    logs.reserve(points_.size());
    for (const GemmPoint& p : points_) {
        logs.push_back(log2_of(p));
    }
    for (std::size_t d = 0; d < axes_.size(); ++d) {
        axes_[d] = axis_of(logs, d);
    }
    grid_.reserve(axes_[GemmM].size() * axes_[GemmN].size() * axes_[GemmK].size());
    std::vector<std::pair<double, std::size_t>> scratch;
    scratch.reserve(points_.size());
    for (const double m : axes_[GemmM]) {
        for (const double n : axes_[GemmN]) {
            for (const double k : axes_[GemmK]) {
                grid_.push_back(inverse_distance(logs, points_, {m, n, k}, scratch));
            }
        }
    }
}

std::optional<double> GemmTable::efficiency(double m, double n, double k) const {
    if (points_.empty() || m <= 0 || n <= 0 || k <= 0) {
        return std::nullopt;
    }
    const std::array<std::pair<std::size_t, double>, GemmDims> c = {
        cell_of(axes_[GemmM], std::log2(m)), cell_of(axes_[GemmN], std::log2(n)), cell_of(axes_[GemmK], std::log2(k))};
    const std::size_t nn = axes_[GemmN].size();
    const std::size_t nk = axes_[GemmK].size();
    double eff = 0;
    for (std::size_t corner = 0; corner < (std::size_t{1} << c.size()); ++corner) {
        double w = 1;
        std::array<std::size_t, GemmDims> at{};
        for (std::size_t d = 0; d < c.size(); ++d) {
            const bool upper = ((corner >> d) & 1U) != 0;
            w *= upper ? c[d].second : 1.0 - c[d].second;
            at[d] = c[d].first + (upper ? 1 : 0);
        }
        if (w > 0) {
            eff += w * grid_[(at[GemmM] * nn + at[GemmN]) * nk + at[GemmK]];
        }
    }
    return eff;
}

}  // namespace planlayout
