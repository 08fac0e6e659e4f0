// Emit: an A/B report as text and JSON.
#include "planlayout/emit/ab_emit.hpp"

#include <cmath>
#include <sstream>

#include "planlayout/text_format.hpp"

namespace planlayout::verify {
namespace {

/// JSON numbers at a fixed precision (6 decimals), so golden files do not depend on the last ulp.
double r6(double v) { return std::round(v * 1e6) / 1e6; }

std::vector<double> r6(const std::vector<double>& v) {
    std::vector<double> out;
    out.reserve(v.size());
    for (double x : v) {
        out.push_back(r6(x));
    }
    return out;
}

}  // namespace

std::string prediction_text(const AbComparison& c) {
    if (!c.prediction) {
        return {};
    }
    const AbPrediction& p = *c.prediction;
    std::string s = "predicted step time " + signed_percent_text(p.step_time_change);
    if (p.band_low && p.band_high) {
        s += " (band " + signed_percent_text(*p.band_low) + " .. " + signed_percent_text(*p.band_high) + ")";
    }
    if (!p.source.empty()) {
        s += " from " + p.source;
    }
    if (const auto in = c.within_band()) {
        s += *in ? "; measured is inside the band" : "; measured is OUTSIDE the band";
    }
    return s;
}

std::string render_text(const AbReport& report) {
    const AbOptions& o = report.options;
    std::ostringstream out;
    out << "ab: " << report.runs.size() << " runs, stable window steps " << o.window.first << "-"
        << o.window.last << " (" << (o.window.last - o.window.first + 1) << " steps)";
    if (o.global_batch > 0) {
        out << ", global batch " << o.global_batch;
    }
    out << ", outlier threshold " << fixed_text(o.threshold * 100.0, 1) << "%\n\n";
    out << padded("run", 22) << padded("arm", 8) << padded("round", 7) << padded("form", 12) << padded("steps", 7)
        << padded("mean s/step", 13) << "vs arm median\n";
    for (const auto& r : report.runs) {
        out << padded(r.source, 22) << padded(r.arm, 8) << padded(r.round, 7) << padded(to_string(r.kind), 12)
            << padded(std::to_string(r.last_step), 7) << padded(seconds_text(r.mean_s), 13)
            << signed_percent_text(r.deviation) << (r.outlier ? "  OUTLIER" : "") << "\n";
    }
    out << "\n"
        << padded("arm", 8) << padded("rounds", 8) << padded("median s/step", 15) << padded("min", 8)
        << padded("max", 8) << "samples/s\n";
    for (const auto& a : report.arms) {
        out << padded(a.arm, 8) << padded(std::to_string(a.rounds), 8) << padded(seconds_text(a.median_s), 15)
            << padded(seconds_text(a.min_s), 9) << padded(seconds_text(a.max_s), 9)
            << (a.samples_per_s ? fixed_text(*a.samples_per_s, 3) : "-") << "\n";
    }
    if (!report.comparisons.empty()) {
        out << "\n";
    }
    for (const auto& c : report.comparisons) {
        out << c.arm << " vs " << c.baseline << ": step time " << signed_percent_text(c.step_time_change)
            << ", throughput " << signed_percent_text(c.throughput_gain);
        if (c.baseline_samples_per_s && c.arm_samples_per_s) {
            out << " (" << fixed_text(*c.baseline_samples_per_s, 3) << " -> "
                << fixed_text(*c.arm_samples_per_s, 3) << " samples/s)";
        }
        out << "\n";
        if (const std::string p = prediction_text(c); !p.empty()) {
            out << "  " << p << "\n";
        }
    }
    std::size_t outliers = 0;
    for (const auto& r : report.runs) {
        outliers += r.outlier ? 1 : 0;
    }
    if (!report.findings.empty()) {
        out << "\nfindings:\n";
        for (const auto& f : report.findings) {
            out << "  " << padded(std::string(to_string(f.severity)), 8) << f.code << ": " << f.message << "\n";
            if (!f.fix.empty()) {
                out << "           fix: " << f.fix << "\n";
            }
        }
    }
    out << "\nab: " << report.arms.size() << " arms " << report.runs.size() << " runs " << outliers
        << " outlier rounds\n";
    return out.str();
}

nlohmann::json to_json(const AbReport& report) {
    using nlohmann::json;
    const auto opt = [](const std::optional<double>& v) { return v ? json(r6(*v)) : json(nullptr); };
    json runs = json::array();
    for (const auto& r : report.runs) {
        runs.push_back({{"source", r.source},
                        {"arm", r.arm},
                        {"round", r.round},
                        {"form", to_string(r.kind)},
                        {"last_step", r.last_step},
                        {"window_step_times_s", r6(r.instant_s)},
                        {"mean_s", r6(r.mean_s)},
                        {"deviation", r6(r.deviation)},
                        {"outlier", r.outlier}});
    }
    json arms = json::array();
    for (const auto& a : report.arms) {
        arms.push_back({{"arm", a.arm},
                        {"rounds", a.rounds},
                        {"median_s", r6(a.median_s)},
                        {"min_s", r6(a.min_s)},
                        {"max_s", r6(a.max_s)},
                        {"samples_per_s", opt(a.samples_per_s)}});
    }
    json comps = json::array();
    for (const auto& c : report.comparisons) {
        json p = nullptr;
        if (c.prediction) {
            p = {{"step_time_change", r6(c.prediction->step_time_change)},
                 {"band_low", opt(c.prediction->band_low)},
                 {"band_high", opt(c.prediction->band_high)},
                 {"source", c.prediction->source}};
            const auto in = c.within_band();
            p["within_band"] = in ? json(*in) : json(nullptr);
        }
        comps.push_back({{"baseline", c.baseline},
                         {"arm", c.arm},
                         {"step_time_change", r6(c.step_time_change)},
                         {"throughput_gain", r6(c.throughput_gain)},
                         {"baseline_samples_per_s", opt(c.baseline_samples_per_s)},
                         {"arm_samples_per_s", opt(c.arm_samples_per_s)},
                         {"prediction", p}});
    }
    json findings = json::array();
    for (const auto& f : report.findings) {
        findings.push_back({{"severity", std::string(to_string(f.severity))},
                            {"code", f.code},
                            {"message", f.message},
                            {"fix", f.fix}});
    }
    const AbOptions& o = report.options;
    return json{{"schema_version", 1},
                {"command", "ab"},
                {"window", {{"first", o.window.first}, {"last", o.window.last}}},
                {"global_batch", o.global_batch > 0 ? json(o.global_batch) : json(nullptr)},
                {"threshold", r6(o.threshold)},
                {"runs", runs},
                {"arms", arms},
                {"comparisons", comps},
                {"findings", findings}};
}

}  // namespace planlayout::verify
