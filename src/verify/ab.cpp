// Verify: A/B step-time statistics (the seed's method: reconstruct instantaneous step times
// from cumulative means, average a stable window, median over rounds, compare arms).
#include "planlayout/verify/ab.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "planlayout/error.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout::verify {
namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/// Rounds compare numerically when both are numbers ("2" < "10"), else as text.
bool round_less(const std::string& a, const std::string& b) {
    char* ea = nullptr;
    char* eb = nullptr;
    const long na = std::strtol(a.c_str(), &ea, 10);
    const long nb = std::strtol(b.c_str(), &eb, 10);
    const bool num_a = !a.empty() && *ea == '\0';
    const bool num_b = !b.empty() && *eb == '\0';
    if (num_a && num_b) {
        return na < nb;
    }
    return a < b;
}

/// tqdm's bias-corrected EMA (tqdm/std.py class EMA): last_k = a*x_k + (1-a)*last_(k-1), shown
/// as last_k / (1 - (1-a)^k) after k updates, one update per step. Inverted: x_k = (last_k -
/// (1-a)*last_(k-1)) / a. k counts the steps from the first one the log shows.
double unsmoothed(const StepSeries& series, int n, double shown, double shown_prev) {
    const double a = series.smoothing;
    const double beta = 1.0 - a;
    const int k = n - series.points.front().step + 1;
    const double last = shown * (1.0 - std::pow(beta, k));
    const double last_prev = k > 1 ? shown_prev * (1.0 - std::pow(beta, k - 1)) : 0.0;
    return (last - beta * last_prev) / a;
}

/// Interval means: every step of the window takes the mean of the logged interval that holds it;
/// the window must start where an interval starts and end on a logged step.
std::vector<double> interval_step_times(const StepSeries& series, StepWindow window) {
    const StepWindow fit = aligned_window(series, window);
    if (fit.first != window.first || fit.last != window.last) {
        throw input_error(series.source,
                          "the log gives mean step times over intervals (" + std::string(series.value_column) +
                              ", logged at steps " + logged_steps_text(series) + "), so a window must start after a "
                              "logged step and end on one; " + std::to_string(window.first) + ":" +
                              std::to_string(window.last) + " does not",
                          fit.first <= fit.last ? "pass --window " + std::to_string(fit.first) + ":" + std::to_string(fit.last)
                                                : "log more often (Megatron-LM --log-interval 1) or pass a longer window");
    }
    std::vector<double> out;
    for (const auto& p : series.points) {
        if (p.first_step >= window.first && p.step <= window.last) {
            for (int n = p.first_step; n <= p.step; ++n) {
                out.push_back(p.seconds);
            }
        }
    }
    return out;
}

}  // namespace

std::string logged_steps_text(const StepSeries& series) {
    std::string out;
    const std::size_t n = series.points.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (i == 3 && n > 5) {
            out += ", ..., " + std::to_string(series.points.back().step);
            break;
        }
        out += (i == 0 ? "" : ", ") + std::to_string(series.points[i].step);
    }
    return out;
}

StepWindow aligned_window(const StepSeries& series, StepWindow window) {
    if (series.kind != StepValueKind::IntervalMean) {
        return window;
    }
    StepWindow fit{0, -1};
    for (const auto& p : series.points) {
        if (p.first_step >= window.first && p.step <= window.last) {
            if (fit.first == 0) {
                fit.first = p.first_step;
            }
            fit.last = p.step;
        }
    }
    if (fit.first == 0) {
        return {window.first, window.first - 1};
    }
    return fit;
}

StepWindow parse_window(const std::string& text, const std::string& where) {
    const auto colon = text.find(':');
    const auto bad = [&]() {
        return input_error(where, "window '" + text + "' is not FIRST:LAST",
                           "give two steps, e.g. --window 6:20 (inclusive, warm-up excluded)");
    };
    if (colon == std::string::npos) {
        throw bad();
    }
    const std::string a = text.substr(0, colon);
    const std::string b = text.substr(colon + 1);
    char* ea = nullptr;
    char* eb = nullptr;
    const long first = std::strtol(a.c_str(), &ea, 10);
    const long last = std::strtol(b.c_str(), &eb, 10);
    if (a.empty() || b.empty() || *ea != '\0' || *eb != '\0') {
        throw bad();
    }
    if (first < 1 || last < first || last > 100000000) {
        throw input_error(where, "window needs 1 <= FIRST <= LAST",
                          "e.g. --window 6:20 (steps are counted from 1)");
    }
    return {static_cast<int>(first), static_cast<int>(last)};
}

std::optional<bool> AbComparison::within_band() const {
    if (!prediction || !prediction->band_low || !prediction->band_high) {
        return std::nullopt;
    }
    const double lo = std::min(*prediction->band_low, *prediction->band_high);
    const double hi = std::max(*prediction->band_low, *prediction->band_high);
    return step_time_change >= lo && step_time_change <= hi;
}

std::vector<double> window_step_times(const StepSeries& series, StepWindow window) {
    std::map<int, double> by_step;
    for (const auto& p : series.points) {
        by_step[p.step] = p.seconds;
    }
    const int last = series.points.empty() ? 0 : series.points.back().step;
    if (last < window.last) {
        throw input_error(series.source,
                          "the run ends at step " + std::to_string(last) + " but the window is " +
                              std::to_string(window.first) + ":" + std::to_string(window.last),
                          "pass --window " + std::to_string(std::min(window.first, last)) + ":" +
                              std::to_string(last) + " or a longer run");
    }
    std::vector<double> out;
    if (series.kind == StepValueKind::IntervalMean) {
        return interval_step_times(series, window);
    }
    for (int n = window.first; n <= window.last; ++n) {
        const auto it = by_step.find(n);
        if (it == by_step.end()) {
            throw input_error(series.source, "step " + std::to_string(n) + " is missing",
                              "export every step of the window");
        }
        if (series.kind == StepValueKind::Instant || n == 1) {
            out.push_back(it->second);
            continue;
        }
        const auto prev = by_step.find(n - 1);
        if (prev == by_step.end()) {
            throw input_error(series.source,
                              "step " + std::to_string(n - 1) + " is missing; a cumulative mean at "
                                  "step " + std::to_string(n) + " needs the one before it",
                              "export every step from " + std::to_string(window.first - 1) +
                                  " to " + std::to_string(window.last));
        }
        if (series.kind == StepValueKind::Smoothed) {
            out.push_back(unsmoothed(series, n, it->second, prev->second));
            continue;
        }
        const double dn = n;
        out.push_back(dn * it->second - (dn - 1.0) * prev->second);
    }
    return out;
}

AbReport analyze_ab(const std::vector<StepSeries>& runs, const AbOptions& options) {
    AbReport report;
    report.options = options;
    if (runs.empty()) {
        throw input_error("plan-layout ab", "no runs given", "pass one step log per run");
    }
    std::vector<std::string> arm_order;
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& s : runs) {
        if (s.arm.empty() || s.round.empty()) {
            throw input_error(s.source, "the run names no arm or round",
                              "add `# arm: tcp` and `# round: 1` lines (or arm/round columns), "
                              "or pass it as --run tcp:1=FILE");
        }
        if (!seen.insert({s.arm, s.round}).second) {
            throw input_error(s.source, "arm " + s.arm + " round " + s.round + " given twice",
                              "give each run its own round");
        }
        if (std::find(arm_order.begin(), arm_order.end(), s.arm) == arm_order.end()) {
            arm_order.push_back(s.arm);
        }
        RunStats r;
        r.source = s.source;
        r.arm = s.arm;
        r.round = s.round;
        r.kind = s.kind;
        r.last_step = s.points.back().step;
        r.instant_s = window_step_times(s, options.window);
        double sum = 0.0;
        for (std::size_t i = 0; i < r.instant_s.size(); ++i) {
            sum += r.instant_s[i];
            if (r.instant_s[i] <= 0.0) {
                const int step = options.window.first + static_cast<int>(i);
                report.findings.push_back(
                    {Severity::Warning, "negative-step-time",
                     s.source + ": step " + std::to_string(step) + " reconstructs to " +
                         seconds_text(r.instant_s[i]) + " s",
                     "check that the column is a cumulative mean (train_speed(s/it)); "
                     "use step_time for per-step times"});
            }
        }
        r.mean_s = sum / static_cast<double>(r.instant_s.size());
        report.runs.push_back(std::move(r));
    }
    // Baseline first, then the rest in order of appearance.
    std::string base = options.baseline;
    if (base.empty()) {
        base = std::find(arm_order.begin(), arm_order.end(), "tcp") != arm_order.end()
                   ? "tcp"
                   : arm_order.front();
    }
    const auto bit = std::find(arm_order.begin(), arm_order.end(), base);
    if (bit == arm_order.end()) {
        std::string names;
        for (const auto& a : arm_order) {
            names += (names.empty() ? "" : ", ") + a;
        }
        throw input_error("--baseline " + base, "no run belongs to arm '" + base + "'",
                          "use one of: " + names);
    }
    std::rotate(arm_order.begin(), bit, bit + 1);
    const auto arm_index = [&](const std::string& a) {
        return std::find(arm_order.begin(), arm_order.end(), a) - arm_order.begin();
    };
    std::stable_sort(report.runs.begin(), report.runs.end(),
                     [&](const RunStats& a, const RunStats& b) {
                         if (a.arm != b.arm) {
                             return arm_index(a.arm) < arm_index(b.arm);
                         }
                         return round_less(a.round, b.round);
                     });
    for (const auto& arm : arm_order) {
        ArmStats st;
        st.arm = arm;
        std::vector<double> means;
        for (const auto& r : report.runs) {
            if (r.arm == arm) {
                means.push_back(r.mean_s);
            }
        }
        st.rounds = means.size();
        st.median_s = median(means);
        st.min_s = *std::min_element(means.begin(), means.end());
        st.max_s = *std::max_element(means.begin(), means.end());
        if (options.global_batch > 0) {
            st.samples_per_s = options.global_batch / st.median_s;
        }
        for (auto& r : report.runs) {
            if (r.arm == arm) {
                r.deviation = r.mean_s / st.median_s - 1.0;
                r.outlier = std::fabs(r.deviation) > options.threshold;
                if (r.outlier) {
                    report.findings.push_back(
                        {Severity::Warning, "outlier-round",
                         "arm " + arm + " round " + r.round + " (" + r.source + ") deviates " +
                             signed_percent_text(r.deviation) + " from the arm median " +
                             seconds_text(st.median_s) + " s (threshold " +
                             fixed_text(options.threshold * 100.0, 1) + "%)",
                         "look for a slow rank or node in that run (GPU, NIC counters, "
                         "NCCL log); keep it in the median and report it"});
                }
            }
        }
        if (st.rounds < 3) {
            report.findings.push_back({Severity::Info, "few-rounds",
                                       "arm " + arm + " has " + std::to_string(st.rounds) +
                                           (st.rounds == 1 ? " round" : " rounds"),
                                       "run at least three rounds per arm and report the median"});
        }
        report.arms.push_back(st);
    }
    const ArmStats& b = report.arms.front();
    for (std::size_t i = 1; i < report.arms.size(); ++i) {
        const ArmStats& a = report.arms[i];
        AbComparison c;
        c.baseline = b.arm;
        c.arm = a.arm;
        c.step_time_change = a.median_s / b.median_s - 1.0;
        c.throughput_gain = b.median_s / a.median_s - 1.0;
        c.baseline_samples_per_s = b.samples_per_s;
        c.arm_samples_per_s = a.samples_per_s;
        report.comparisons.push_back(c);
    }
    if (report.arms.size() < 2) {
        report.findings.push_back({Severity::Info, "one-arm",
                                   "only arm " + b.arm + " was given; nothing to compare",
                                   "pass the runs of both arms (e.g. tcp and rdma)"});
    }
    return report;
}

bool attach_prediction(AbReport& report, const std::string& arm, const AbPrediction& prediction) {
    for (auto& c : report.comparisons) {
        if (c.arm == arm) {
            c.prediction = prediction;
            return true;
        }
    }
    return false;
}

}  // namespace planlayout::verify
