// Ingest: per-run step-time logs (CSV or JSON exports of train_speed(s/it) or step times).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace planlayout {

/// What the value column holds.
enum class StepValueKind {
    CumulativeMean,  // mean seconds per iteration from step 1 to this step (train_speed(s/it))
    Instant,         // seconds this one step took
    IntervalMean,    // mean seconds per step over the steps since the previous logged line
                     // (Megatron-LM's `elapsed time per iteration (ms)`, torchtitan's tps):
                     // StepPoint::first_step..step
    Smoothed,        // tqdm's exponential moving average of seconds per step (HF Trainer's
                     // progress bar): StepSeries::smoothing is its weight of the newest step
};

[[nodiscard]] const char* to_string(StepValueKind kind);

struct StepPoint {
    int step = 0;          // 1-based optimizer step
    double seconds = 0.0;  // value of the column (see StepValueKind)
    int line = 0;          // 1-based line in a CSV file or text log; 0 for JSON
    int first_step = 0;    // IntervalMean: the first step the value covers (<= step); else step
};

/// What a text log needs beyond itself.
struct StepLogOptions {
    /// torchtitan prints tps (tokens per second per GPU), not time: seconds per step =
    /// tokens of one optimizer step / GPUs / tps. 0 = not given (a torchtitan log is refused).
    double tokens_per_gpu_step = 0.0;
};

/// One run's series, tagged with its A/B arm ("tcp", "rdma", "gdrdma", …) and round ("1", "2"…).
struct StepSeries {
    std::string source;  // file name, used in messages and reports
    std::string arm;     // "" when the file does not say (the CLI's --run ARM:ROUND=FILE tags it)
    std::string round;
    StepValueKind kind = StepValueKind::CumulativeMean;
    std::string value_column;       // the column/key the values came from
    std::string format = "csv";     // csv, json, megatron-log, torchtitan-log, tqdm
    double smoothing = 0.0;         // Smoothed: the EMA weight of the newest step
    std::vector<StepPoint> points;  // strictly increasing steps
};

/// Parses a step log. CSV: `#` comment lines may carry tags (`# arm: tcp`, `# round: 2`,
/// `# kind: cumulative|instant`); the header names a step column (step, iteration, iter, _step)
/// and one value column: train_speed(s/it), train_speed, s_per_it, cumulative_s_per_it →
/// cumulative mean; step_time, step_time_s, time_s, iteration_time_s, instant_s → instant;
/// `value` with a `# kind:` tag; optional `arm` and `round` columns (constant per file).
/// JSON (text starting with '{'): {"arm": "tcp", "round": 1, "kind": "cumulative"|"instant",
/// "steps": [{"step": 1, "value": 9.1}, …]}. Throws Error (exit 2) naming "file:line" on
/// anything malformed: unknown columns, non-numeric or non-positive values, steps out of order,
/// a step time outside kMinStepSeconds..kMaxStepSeconds (require_step_seconds, every format).
/// Text logs are detected by their lines (docs/commands/ab.md names each format's source):
/// Megatron-LM's `iteration N/ M | ... elapsed time per iteration (ms): X |` (IntervalMean),
/// torchtitan's `step: N  loss: ...  tps: T ...` (IntervalMean, needs tokens_per_gpu_step),
/// tqdm / HF Trainer progress bars `N/M [mm:ss<mm:ss, X s/it]` or `X it/s]` (Smoothed). When no
/// format matches, the error names every format tried.
[[nodiscard]] StepSeries parse_step_log(const std::string& text, const std::string& source,
                                        const StepLogOptions& options = {});

/// The step times every step-log reader accepts (ab, report --run, analyze/calibrate
/// --measured-step, from a log or a number): seconds per step, from a microsecond to ~11.6 days.
/// Outside it a value is a unit mix-up, and its medians and gains stop being numbers.
inline constexpr double kMinStepSeconds = 1e-6;
inline constexpr double kMaxStepSeconds = 1e6;

/// The one check of that range: throws Error (BadInput) at `where` unless seconds lies in
/// [kMinStepSeconds, kMaxStepSeconds], with the same message for every reader.
void require_step_seconds(double seconds, const std::string& where);

/// The text-log readers (step_log_text.cpp); nullopt when the text is not that format.
[[nodiscard]] std::optional<StepSeries> parse_megatron_log(const std::string& text, const std::string& source);
[[nodiscard]] std::optional<StepSeries> parse_torchtitan_log(const std::string& text, const std::string& source,
                                                             const StepLogOptions& options);
[[nodiscard]] std::optional<StepSeries> parse_tqdm_log(const std::string& text, const std::string& source);

/// tqdm's default `smoothing` (tqdm/std.py, tqdm.__init__: smoothing=0.3), which HF Trainer's
/// ProgressCallback keeps (transformers trainer_callback.py: tqdm(total=max_steps, dynamic_ncols=True)).
inline constexpr double kTqdmDefaultSmoothing = 0.3;

}  // namespace planlayout
