// Verify: stable-step statistics of a real A/B run (TCP vs RDMA …) and the measured benefit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/ingest/step_log.hpp"
#include "planlayout/verify/verify.hpp"

namespace planlayout::verify {

/// Inclusive range of steps whose instantaneous times are averaged (warm-up excluded).
struct StepWindow {
    int first = 6;
    int last = 20;
};

/// "6:20" → {6, 20}; throws a usage Error naming `where` otherwise.
[[nodiscard]] StepWindow parse_window(const std::string& text, const std::string& where);

struct AbOptions {
    StepWindow window;
    int global_batch = 0;    // samples per optimizer step; 0 → no samples/s
    double threshold = 0.05;  // a round deviating from its arm's median by more is flagged
    std::string baseline;    // arm the others are compared with; "" → "tcp" if present, else first
};

/// One run's stable-window result.
struct RunStats {
    std::string source;
    std::string arm;
    std::string round;
    StepValueKind kind = StepValueKind::CumulativeMean;
    int last_step = 0;               // last step in the file
    std::vector<double> instant_s;   // reconstructed step times over the window
    double mean_s = 0.0;             // mean seconds per step over the window
    double deviation = 0.0;          // (mean - arm median) / arm median
    bool outlier = false;            // |deviation| > threshold
};

struct ArmStats {
    std::string arm;
    std::size_t rounds = 0;
    double median_s = 0.0;  // median over rounds of the per-run window means
    double min_s = 0.0;
    double max_s = 0.0;
    std::optional<double> samples_per_s;  // global_batch / median_s
};

/// A predicted benefit (from the cost model) printed beside the measured one.
struct AbPrediction {
    double step_time_change = 0.0;          // fraction: -0.30 = 30 % faster
    std::optional<double> band_low;         // fraction, the optimistic/pessimistic ends
    std::optional<double> band_high;
    std::string source;                     // "layouts/seed-a.json" or "analyze"
};

struct AbComparison {
    std::string baseline;  // "tcp"
    std::string arm;       // "rdma"
    double step_time_change = 0.0;  // median_arm / median_baseline - 1 (negative: faster)
    double throughput_gain = 0.0;   // median_baseline / median_arm - 1
    std::optional<double> baseline_samples_per_s;
    std::optional<double> arm_samples_per_s;
    std::optional<AbPrediction> prediction;
    /// Measured change inside the prediction's band (only when a band is given).
    [[nodiscard]] std::optional<bool> within_band() const;
};

struct AbReport {
    AbOptions options;
    std::vector<RunStats> runs;  // sorted by arm order, then round
    std::vector<ArmStats> arms;  // in order of first appearance, baseline first
    std::vector<AbComparison> comparisons;
    std::vector<Finding> findings;  // outliers, too few rounds, odd reconstructions
};

/// instant_n = n*cum_n - (n-1)*cum_(n-1) for cumulative means (the values themselves for
/// instant series), for every step of the window. Throws Error when the series does not reach
/// the window's last step or lacks a step the formula needs.
[[nodiscard]] std::vector<double> window_step_times(const StepSeries& series, StepWindow window);

/// The widest window inside `window` that a series can average exactly: for interval means
/// (Megatron-LM, torchtitan logs) it starts where a logged interval starts and ends on a logged
/// step (first > last when none fits); other kinds: `window` itself.
[[nodiscard]] StepWindow aligned_window(const StepSeries& series, StepWindow window);

/// "10, 20, 30, ..., 100": the steps a series logged, for messages.
[[nodiscard]] std::string logged_steps_text(const StepSeries& series);

/// The whole analysis. Throws Error when a run has no arm/round tag, a (arm, round) repeats,
/// or a series does not cover the window.
[[nodiscard]] AbReport analyze_ab(const std::vector<StepSeries>& runs, const AbOptions& options);

/// Attaches a prediction to the comparison arm vs baseline; false when there is none.
bool attach_prediction(AbReport& report, const std::string& arm, const AbPrediction& prediction);

}  // namespace planlayout::verify
