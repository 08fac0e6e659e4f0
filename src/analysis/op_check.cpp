// Analysis: the compute model checked op by op (op_check.hpp).
#include "planlayout/analysis/op_check.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace planlayout {
namespace {

/// The q-quantile by linear interpolation between order statistics (sorted input).
double quantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) {
        return 0.0;
    }
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(sorted.size() - 1, lo + 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return quantile(v, 0.5);
}

/// How far a ratio is from 1, symmetric for too fast and too slow.
double distance(double ratio) { return ratio > 0 ? std::abs(std::log(ratio)) : INFINITY; }

}  // namespace

std::vector<BenchOp> merge_bench_runs(const std::vector<std::vector<BenchOp>>& runs) {
    if (runs.empty()) {
        return {};
    }
    using Key = std::tuple<std::string, std::string, std::string>;
    std::map<Key, std::vector<double>> times;
    for (const auto& run : runs) {
        for (const auto& o : run) {
            times[Key{o.kind, o.name, o.shape}].push_back(o.seconds);
        }
    }
    std::vector<BenchOp> out;
    out.reserve(runs.front().size());
    for (const auto& o : runs.front()) {
        const auto& t = times.at(Key{o.kind, o.name, o.shape});
        BenchOp m = o;
        m.seconds = median_of(t);
        m.runs = static_cast<int>(t.size());
        const auto [lo, hi] = std::minmax_element(t.begin(), t.end());
        m.spread = m.seconds > 0 ? (*hi - *lo) / m.seconds : 0.0;
        out.push_back(m);
    }
    return out;
}

OpCheck check_ops(const std::vector<BenchOp>& ops, const GpuSpec& gpu, double compute_scale, int largest) {
    OpCheck c;
    c.gpu = gpu.name;
    c.gpu_source = gpu.source;
    c.compute_scale = compute_scale;
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::size_t>> by_kind;
    for (const auto& o : ops) {
        if (!(o.seconds > 0)) {
            continue;
        }
        OpCheckRow r;
        r.op = o;
        r.predicted_s = op_seconds(o.op, gpu, compute_scale);
        r.ratio = r.predicted_s / o.seconds;
        if (by_kind.find(o.kind) == by_kind.end()) {
            order.push_back(o.kind);
        }
        by_kind[o.kind].push_back(c.rows.size());
        c.rows.push_back(r);
    }
    std::vector<double> all_err;
    all_err.reserve(c.rows.size());
    for (const auto& r : c.rows) {
        all_err.push_back(std::abs(r.ratio - 1.0));
    }
    c.median_abs_error = median_of(all_err);
    for (const auto& kind : order) {
        OpKindSummary s;
        s.kind = kind;
        std::vector<double> ratios;
        std::vector<double> errs;
        const OpCheckRow* worst = nullptr;
        for (const std::size_t i : by_kind.at(kind)) {
            const auto& r = c.rows[i];
            ratios.push_back(r.ratio);
            errs.push_back(std::abs(r.ratio - 1.0));
            if (!worst || distance(r.ratio) > distance(worst->ratio)) {
                worst = &r;
            }
        }
        std::sort(ratios.begin(), ratios.end());
        s.count = static_cast<int>(ratios.size());
        s.median_ratio = quantile(ratios, 0.5);
        s.p10_ratio = quantile(ratios, 0.1);
        s.p90_ratio = quantile(ratios, 0.9);
        s.min_ratio = ratios.front();
        s.max_ratio = ratios.back();
        s.median_abs_error = median_of(errs);
        s.worst = worst->op.name + " " + worst->op.shape;
        s.worst_ratio = worst->ratio;
        c.kinds.push_back(s);
    }
    std::vector<std::size_t> idx(c.rows.size());
    for (std::size_t i = 0; i < idx.size(); ++i) {
        idx[i] = i;
    }
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return distance(c.rows[a].ratio) > distance(c.rows[b].ratio);
    });
    for (std::size_t i = 0; i < idx.size() && static_cast<int>(i) < largest; ++i) {
        c.largest_errors.push_back(c.rows[idx[i]]);
    }
    return c;
}

}  // namespace planlayout
