// Topology: the measured GEMM grid (filled at load by inverse distance, read trilinearly in log2).
#include "planlayout/topology/gemm_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

#include "planlayout/model/numbers/compute.hpp"

namespace planlayout {
namespace {

/// The measured shapes' log2 M, log2 N, log2 K, one array each (the grid's fill walks them for every
/// node: the table is read at every start, so the inner loop is kept to one subtraction per shape).
using Logs = std::array<std::vector<double>, GemmDims>;

/// The sorted distinct values of one coordinate.
std::vector<double> axis_of(const std::vector<double>& values) {
    std::vector<double> a = values;
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    return a;
}

/// out[i] = base[i] + (values[i] - at)²: the squared distance of every shape, one dimension added.
void add_dimension(const std::vector<double>& base, const std::vector<double>& values, double at, std::vector<double>& out) {
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double d = values[i] - at;
        out[i] = base[i] + d * d;
    }
}

/// The inverse-distance mean of the nearest measured shapes, given every shape's squared distance
/// `d2` to the node: weights 1 / d²^power over the numbers::kGemmTableNeighbours nearest (ties: the
/// earlier point, so the result is deterministic); a measured shape at the node gives its own
/// efficiency. `nearest` is scratch: (squared distance, point), ascending, kept by insertion.
double inverse_distance(const std::vector<double>& d2, const std::vector<GemmPoint>& pts,
                        std::vector<std::pair<double, std::size_t>>& nearest) {
    const std::size_t k = std::min(d2.size(), static_cast<std::size_t>(numbers::kGemmTableNeighbours.count()));
    nearest.clear();
    double kth = std::numeric_limits<double>::infinity();  // the k-th nearest distance so far (infinite until there are k)
    for (std::size_t i = 0; i < d2.size(); ++i) {
        if (!(d2[i] < kth)) {
            continue;  // not nearer than the k-th (an equal distance keeps the earlier point)
        }
        if (nearest.size() == k) {
            nearest.pop_back();
        }
        const std::pair<double, std::size_t> c{d2[i], i};
        nearest.insert(std::upper_bound(nearest.begin(), nearest.end(), c), c);
        if (nearest.size() == k) {
            kth = nearest.back().first;
        }
    }
    if (nearest.front().first <= 0) {
        return pts[nearest.front().second].eff;
    }
    double sum = 0;
    double weights = 0;
    for (const auto& [d, i] : nearest) {
        const double w = 1.0 / std::pow(d, double{numbers::kGemmTableDistancePower});
        sum += w * pts[i].eff;
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
    Logs logs;
    for (const GemmPoint& p : points_) {
        logs[GemmM].push_back(std::log2(p.m));
        logs[GemmN].push_back(std::log2(p.n));
        logs[GemmK].push_back(std::log2(p.k));
    }
    for (std::size_t d = 0; d < axes_.size(); ++d) {
        axes_[d] = axis_of(logs[d]);
    }
    grid_.reserve(axes_[GemmM].size() * axes_[GemmN].size() * axes_[GemmK].size());
    const std::vector<double> zero(points_.size(), 0.0);
    std::vector<double> dm(points_.size());
    std::vector<double> dmn(points_.size());
    std::vector<double> d2(points_.size());
    std::vector<std::pair<double, std::size_t>> scratch;
    scratch.reserve(static_cast<std::size_t>(numbers::kGemmTableNeighbours.count()) + 1);
    for (const double m : axes_[GemmM]) {
        add_dimension(zero, logs[GemmM], m, dm);
        for (const double n : axes_[GemmN]) {
            add_dimension(dm, logs[GemmN], n, dmn);
            for (const double k : axes_[GemmK]) {
                add_dimension(dmn, logs[GemmK], k, d2);
                grid_.push_back(inverse_distance(d2, points_, scratch));
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
