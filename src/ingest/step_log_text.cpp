// Ingest: step times from the text logs training runs print (Megatron-LM, torchtitan, tqdm /
// HF Trainer progress bars). Each format's source is named where it is read and in
// docs/commands/ab.md; tests/data/ab/logs/README.md names the samples' sources.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "planlayout/error.hpp"
#include "planlayout/ingest/step_log.hpp"

namespace planlayout {
namespace {

struct TextLine {
    std::string text;
    int number = 0;  // 1-based, counting '\n' only (a progress bar's '\r' updates share a line)
};

/// Lines split at '\n' and at '\r' (progress bars redraw with '\r'); ANSI colour escapes
/// (ESC [ ... letter) removed: torchtitan colours its fields.
std::vector<TextLine> text_lines(const std::string& text) {
    std::vector<TextLine> out;
    std::string cur;
    int number = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
            i += 2;
            while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) {
                ++i;
            }
            continue;
        }
        if (c == '\n' || c == '\r') {
            out.push_back({cur, number});
            cur.clear();
            if (c == '\n') {
                ++number;
            }
            continue;
        }
        cur += c;
    }
    out.push_back({cur, number});
    return out;
}

double number_of(const std::string& text, const std::string& where) {
    std::string digits;
    for (const char c : text) {
        if (c != ',') {  // torchtitan prints tps with thousands separators: "tps: 5,432"
            digits += c;
        }
    }
    char* end = nullptr;
    const double v = std::strtod(digits.c_str(), &end);
    if (digits.empty() || end != digits.c_str() + digits.size() || !std::isfinite(v) || v <= 0.0) {
        throw input_error(where, "value '" + text + "' is not a positive number", "check the log line is complete");
    }
    return v;
}

int step_of(const std::string& text, const std::string& where) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || v < 1 || v > 100000000) {
        throw input_error(where, "step '" + text + "' is not a positive whole number", "steps count from 1");
    }
    return static_cast<int>(v);
}

void push_point(StepSeries& s, StepPoint p, const std::string& where, const char* fix) {
    if (!s.points.empty() && p.step <= s.points.back().step) {
        throw input_error(where,
                          "step " + std::to_string(p.step) + " does not follow step " +
                              std::to_string(s.points.back().step),
                          fix);
    }
    s.points.push_back(p);
}

/// Interval means: a logged value covers the steps after the previous logged line, up to its own
/// step. The first line covers as many steps as the spacing after it (at least its own step).
void set_intervals(StepSeries& s) {
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        if (i > 0) {
            s.points[i].first_step = s.points[i - 1].step + 1;
            continue;
        }
        const int spacing = s.points.size() > 1 ? s.points[1].step - s.points[0].step : 1;
        s.points[0].first_step = std::max(1, s.points[0].step - spacing + 1);
    }
}

}  // namespace

// Megatron-LM, megatron/training/training.py `training_log` (NVIDIA/Megatron-LM commit
// d98e8a64ddf34856e74b24714e3bedb2f5a39553): the last rank prints, every --log-interval
// iterations, ` iteration {:8d}/{:8d} | consumed samples: ... | elapsed time per iteration (ms):
// {:.1f} | ...`, the interval timer's time divided by the iterations since the last print
// (advanced + skipped). The run's first iteration is printed too (`is_first_iteration`) without
// resetting the timer or the count, so the next line covers the first iteration as well.
std::optional<StepSeries> parse_megatron_log(const std::string& text, const std::string& source) {
    static const std::string kKey = "elapsed time per iteration (ms):";
    if (text.find(kKey) == std::string::npos) {
        return std::nullopt;
    }
    const std::regex iter_re(R"(iteration\s+(\d+)\s*/\s*(\d+)\s*\|)");
    const std::regex time_re(R"(elapsed time per iteration \(ms\):\s*([^\s|]+))");
    StepSeries s;
    s.source = source;
    s.format = "megatron-log";
    s.kind = StepValueKind::IntervalMean;
    s.value_column = "elapsed time per iteration (ms)";
    for (const auto& line : text_lines(text)) {
        if (line.text.find(kKey) == std::string::npos) {
            continue;
        }
        const std::string where = source + ":" + std::to_string(line.number);
        std::smatch it;
        std::smatch tm;
        if (!std::regex_search(line.text, it, iter_re) || !std::regex_search(line.text, tm, time_re)) {
            throw input_error(where, "a Megatron-LM log line without 'iteration N/ M |' before its elapsed time",
                              "pass the log as Megatron-LM printed it (training.py training_log)");
        }
        StepPoint p;
        p.step = step_of(it[1].str(), where);
        p.seconds = number_of(tm[1].str(), where) / 1000.0;
        p.line = line.number;
        push_point(s, p, where, "one log holds one run: split the log where the run restarted");
    }
    if (s.points.empty()) {
        return std::nullopt;
    }
    set_intervals(s);
    // The first-iteration line: printed off the regular spacing and not resetting the timer.
    if (s.points.size() >= 3) {
        const int first_gap = s.points[1].step - s.points[0].step;
        const int spacing = s.points[2].step - s.points[1].step;
        if (first_gap != spacing && s.points[1].step % spacing == 0) {
            s.points[0].first_step = s.points[0].step;
            s.points[1].first_step = s.points[0].step;
        }
    }
    return s;
}

// torchtitan, torchtitan/components/metrics.py `MetricsProcessor.log` (pytorch/torchtitan
// commit b5bcd76c66d0acb1a08b176d9639425bc55e0b2a): at step 1 and every log_freq steps,
// `step: {step:2}  loss: ...  grad_norm: ...  memory: ...GiB(...%)  tps: {round(tps):,}
// tflops: ...  mfu: ...%` in ANSI colours, where tps = tokens since the last line / (seconds
// since the last line × non-data-parallel size): tokens per second per GPU. Seconds per step
// = tokens of one optimizer step per GPU / tps. `validate step:` lines are not training steps.
std::optional<StepSeries> parse_torchtitan_log(const std::string& text, const std::string& source,
                                               const StepLogOptions& options) {
    if (text.find("tps:") == std::string::npos || text.find("step:") == std::string::npos) {
        return std::nullopt;
    }
    const std::regex line_re(R"((^|[^a-z_])step:\s*(\d+)\s+loss:.*\btps:\s*([0-9][0-9,]*))");
    StepSeries s;
    s.source = source;
    s.format = "torchtitan-log";
    s.kind = StepValueKind::IntervalMean;
    s.value_column = "tps";
    for (const auto& line : text_lines(text)) {
        if (line.text.find("tps:") == std::string::npos || line.text.find("validate step:") != std::string::npos) {
            continue;
        }
        std::smatch m;
        if (!std::regex_search(line.text, m, line_re)) {
            continue;
        }
        const std::string where = source + ":" + std::to_string(line.number);
        if (options.tokens_per_gpu_step <= 0.0) {
            throw input_error(where, "a torchtitan log gives tps (tokens per second per GPU), not seconds",
                              "pass ab --tokens-per-gpu-step N (global batch x sequence length / GPUs) to turn it into "
                              "seconds per step, or give the step time in seconds (--measured-step ARM=SECONDS)");
        }
        StepPoint p;
        p.step = step_of(m[2].str(), where);
        p.seconds = options.tokens_per_gpu_step / number_of(m[3].str(), where);
        p.line = line.number;
        push_point(s, p, where, "one log holds one run: split the log where the run restarted");
    }
    if (s.points.empty()) {
        return std::nullopt;
    }
    set_intervals(s);
    return s;
}

// tqdm, tqdm/std.py `format_meter` (tqdm/tqdm commit 000ba6fabc991180c280d7d34976798090107232):
// `| {n}/{total} [{elapsed}<{remaining}, {rate_fmt}{postfix}]`, rate_fmt `{:5.2f}s/it` when an
// iteration takes over a second, else `{:5.2f}it/s`; with the default smoothing 0.3 the rate is
// an exponential moving average (the EMA class, bias-corrected). HF Trainer's progress bar is
// one tqdm bar over the optimizer steps. Redraws are separated by '\r'. The first bar's total
// names the training bar; evaluation bars (other totals) are skipped.
std::optional<StepSeries> parse_tqdm_log(const std::string& text, const std::string& source) {
    if (text.find("s/it") == std::string::npos && text.find("it/s") == std::string::npos) {
        return std::nullopt;
    }
    const std::regex bar_re(R"((\d+)/(\d+) \[[0-9:]+<[0-9:?]+,\s*([0-9.]+)(s/it|it/s)[,\]])");
    StepSeries s;
    s.source = source;
    s.format = "tqdm";
    s.kind = StepValueKind::Smoothed;
    s.smoothing = kTqdmDefaultSmoothing;
    s.value_column = "s/it";
    std::string total;
    for (const auto& line : text_lines(text)) {
        std::smatch m;
        if (!std::regex_search(line.text, m, bar_re)) {
            continue;
        }
        if (total.empty()) {
            total = m[2].str();
        } else if (m[2].str() != total) {
            continue;  // another bar (evaluation)
        }
        const std::string where = source + ":" + std::to_string(line.number);
        const int step = step_of(m[1].str(), where);
        if (!s.points.empty() && step <= s.points.back().step) {
            continue;  // a redraw of a step already read (refresh, close)
        }
        const double v = number_of(m[3].str(), where);
        StepPoint p;
        p.step = step;
        p.seconds = m[4].str() == "s/it" ? v : 1.0 / v;
        p.line = line.number;
        p.first_step = step;
        s.points.push_back(p);
    }
    if (s.points.empty()) {
        return std::nullopt;
    }
    return s;
}

}  // namespace planlayout
