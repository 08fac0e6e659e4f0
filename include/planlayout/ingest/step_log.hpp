// Ingest: per-run step-time logs (CSV or JSON exports of train_speed(s/it) or step times).
#pragma once

#include <string>
#include <vector>

namespace planlayout {

/// What the value column holds.
enum class StepValueKind {
    CumulativeMean,  // mean seconds per iteration from step 1 to this step (train_speed(s/it))
    Instant,         // seconds this one step took
};

[[nodiscard]] const char* to_string(StepValueKind kind);

struct StepPoint {
    int step = 0;          // 1-based optimizer step
    double seconds = 0.0;  // value of the column (see StepValueKind)
    int line = 0;          // 1-based line in a CSV file; 0 for JSON
};

/// One run's series, tagged with its A/B arm ("tcp", "rdma", "gdrdma", …) and round ("1", "2"…).
struct StepSeries {
    std::string source;  // file name, used in messages and reports
    std::string arm;     // "" when the file does not say (the CLI's --run ARM:ROUND=FILE tags it)
    std::string round;
    StepValueKind kind = StepValueKind::CumulativeMean;
    std::string value_column;       // the column/key the values came from
    std::vector<StepPoint> points;  // strictly increasing steps
};

/// Parses a step log. CSV: `#` comment lines may carry tags (`# arm: tcp`, `# round: 2`,
/// `# kind: cumulative|instant`); the header names a step column (step, iteration, iter, _step)
/// and one value column: train_speed(s/it), train_speed, s_per_it, cumulative_s_per_it →
/// cumulative mean; step_time, step_time_s, time_s, iteration_time_s, instant_s → instant;
/// `value` with a `# kind:` tag; optional `arm` and `round` columns (constant per file).
/// JSON (text starting with '{'): {"arm": "tcp", "round": 1, "kind": "cumulative"|"instant",
/// "steps": [{"step": 1, "value": 9.1}, …]}. Throws Error (exit 2) naming "file:line" on
/// anything malformed: unknown columns, non-numeric or non-positive values, steps out of order.
[[nodiscard]] StepSeries parse_step_log(const std::string& text, const std::string& source);

}  // namespace planlayout
