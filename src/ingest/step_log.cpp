// Ingest: step-time logs of training runs (CSV with tags or JSON), for `plan-layout ab`.
#include "planlayout/ingest/step_log.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/names.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout {
namespace {

std::string trim_unquoted(const std::string& s) {
    std::size_t a = 0;
    std::size_t b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a])) != 0) {
        ++a;
    }
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])) != 0) {
        --b;
    }
    std::string out = s.substr(a, b - a);
    if (out.size() >= 2 && out.front() == '"' && out.back() == '"') {
        out = out.substr(1, out.size() - 2);
    }
    return out;
}

std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> out;
    std::string cell;
    bool quoted = false;
    for (char ch : line) {
        if (ch == '"') {
            quoted = !quoted;
            cell += ch;
        } else if (ch == ',' && !quoted) {
            out.push_back(trim_unquoted(cell));
            cell.clear();
        } else {
            cell += ch;
        }
    }
    out.push_back(trim_unquoted(cell));
    return out;
}

std::optional<StepValueKind> kind_of_column(const std::string& name) {
    const std::string n = ascii_lower(name);
    for (const char* c : {"train_speed(s/it)", "train_speed", "s_per_it", "cumulative_s_per_it"}) {
        if (n == c) {
            return StepValueKind::CumulativeMean;
        }
    }
    for (const char* c : {"step_time", "step_time_s", "time_s", "iteration_time_s", "instant_s"}) {
        if (n == c) {
            return StepValueKind::Instant;
        }
    }
    // torchtitan's metrics (W&B / TensorBoard export): seconds per step averaged over the steps
    // since the previous logged step (torchtitan/components/metrics.py: time_delta / log_freq).
    if (n == "time_metrics/end_to_end(s)") {
        return StepValueKind::IntervalMean;
    }
    return std::nullopt;
}

StepValueKind parse_kind(const std::string& text, const std::string& where) {
    const std::string t = ascii_lower(text);
    if (t == "cumulative" || t == "cumulative_mean") {
        return StepValueKind::CumulativeMean;
    }
    if (t == "instant" || t == "instantaneous") {
        return StepValueKind::Instant;
    }
    throw input_error(where, "unknown kind '" + text + "'", "use cumulative or instant");
}

int parse_step(const std::string& text, const std::string& where) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || v < 1 || v > 100000000) {
        throw input_error(where, "step '" + text + "' is not a positive whole number",
                          "steps count optimizer steps from 1");
    }
    return static_cast<int>(v);
}

double check_seconds(double v, const std::string& text, const std::string& where) {
    if (!std::isfinite(v) || v <= 0.0) {  // the range: require_step_seconds, for every format
        throw input_error(where, "value '" + text + "' is not a positive number of seconds",
                          "give seconds per iteration, e.g. 4.49");
    }
    return v;
}

double parse_seconds(const std::string& text, const std::string& where) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
        throw input_error(where, "value '" + text + "' is not a number",
                          "give seconds per iteration, e.g. 4.49");
    }
    return check_seconds(v, text, where);
}

void add_point(StepSeries& s, StepPoint p, const std::string& where) {
    if (!s.points.empty() && p.step <= s.points.back().step) {
        throw input_error(where,
                          "step " + std::to_string(p.step) + " does not follow step " +
                              std::to_string(s.points.back().step),
                          "sort the rows by step and drop duplicates");
    }
    s.points.push_back(p);
}

void set_tag(std::string& slot, const std::string& value, const std::string& what,
             const std::string& where) {
    if (value.empty()) {
        return;
    }
    require_no_control_bytes(value, where, what);
    if (!slot.empty() && slot != value) {
        throw input_error(where, what + " changes from '" + slot + "' to '" + value + "'",
                          "one file holds one run: split it, one arm and round per file");
    }
    slot = value;
}

StepSeries parse_csv(const std::string& text, const std::string& source) {
    StepSeries s;
    s.source = source;
    std::optional<StepValueKind> tagged_kind;
    int step_col = -1;
    int value_col = -1;
    int arm_col = -1;
    int round_col = -1;
    std::size_t columns = 0;
    bool have_header = false;
    std::size_t start = 0;
    int line_no = 0;
    while (start <= text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        std::string line = text.substr(start, end - start);
        start = end + 1;
        ++line_no;
        const std::string where = source + ":" + std::to_string(line_no);
        if (line.find('\0') != std::string::npos) {
            throw input_error(where, "binary data in a step log",
                              "pass a CSV or JSON export of the run");
        }
        line = trim_unquoted(line);
        if (line.empty()) {
            continue;
        }
        if (line[0] == '#') {
            const std::string body = trim_unquoted(line.substr(1));
            const auto colon = body.find_first_of(":=");
            if (colon != std::string::npos) {
                const std::string key = ascii_lower(trim_unquoted(body.substr(0, colon)));
                const std::string value = trim_unquoted(body.substr(colon + 1));
                if (key == "arm") {
                    set_tag(s.arm, value, "arm", where);
                } else if (key == "round") {
                    set_tag(s.round, value, "round", where);
                } else if (key == "kind") {
                    tagged_kind = parse_kind(value, where);
                }
            }
            continue;
        }
        const auto cells = split_csv(line);
        if (!have_header) {
            have_header = true;
            columns = cells.size();
            for (std::size_t i = 0; i < cells.size(); ++i) {
                const std::string n = ascii_lower(cells[i]);
                const int idx = static_cast<int>(i);
                if (n == "step" || n == "iteration" || n == "iter" || n == "_step") {
                    step_col = idx;
                } else if (n == "arm") {
                    arm_col = idx;
                } else if (n == "round") {
                    round_col = idx;
                } else if (kind_of_column(n) && value_col < 0) {
                    value_col = idx;
                    s.kind = *kind_of_column(n);
                    s.value_column = cells[i];
                } else if (n == "value" && value_col < 0) {
                    value_col = idx;
                    s.value_column = cells[i];
                    if (!tagged_kind) {
                        throw input_error(where, "column 'value' needs a '# kind: cumulative' or "
                                                 "'# kind: instant' line before the header",
                                          "or name the column train_speed(s/it) or step_time");
                    }
                }
            }
            if (step_col < 0 || value_col < 0) {
                throw input_error(where,
                                  "header needs a step column and a step-time column",
                                  "name them step and train_speed(s/it) (cumulative mean) or "
                                  "step_time (seconds per step)");
            }
            if (tagged_kind) {
                s.kind = *tagged_kind;
            }
            continue;
        }
        if (cells.size() != columns) {
            throw input_error(where,
                              "row has " + std::to_string(cells.size()) + " cells, the header " +
                                  std::to_string(columns),
                              "check for a truncated line or an unquoted comma");
        }
        if (arm_col >= 0) {
            set_tag(s.arm, cells[static_cast<std::size_t>(arm_col)], "arm", where);
        }
        if (round_col >= 0) {
            set_tag(s.round, cells[static_cast<std::size_t>(round_col)], "round", where);
        }
        const std::string& v = cells[static_cast<std::size_t>(value_col)];
        if (v.empty()) {
            continue;  // trackers leave cells empty on steps that did not log this metric
        }
        StepPoint p;
        p.step = parse_step(cells[static_cast<std::size_t>(step_col)], where);
        p.seconds = parse_seconds(v, where);
        p.line = line_no;
        p.first_step = s.kind == StepValueKind::IntervalMean && !s.points.empty() ? s.points.back().step + 1 : p.step;
        add_point(s, p, where);
    }
    if (!have_header) {
        throw input_error(source, "no header line", "the first line names the columns, e.g. "
                                                    "step,train_speed(s/it)");
    }
    return s;
}

std::string json_tag(const JsonReader& r, const char* key) {
    if (!r.has(key)) {
        return {};
    }
    const auto& v = r.at(key);
    if (v.is_string()) {
        require_no_control_bytes(v.get<std::string>(), r.where(key), key);
        return v.get<std::string>();
    }
    if (v.is_number_integer()) {
        return v.dump();
    }
    throw input_error(r.where(key), std::string(key) + " must be a string or integer", "e.g. \"arm\": \"tcp\", \"round\": 1");
}

StepSeries parse_json(const std::string& text, const std::string& source) {
    const nlohmann::json j = parse_json_text(text, source);
    if (!j.is_object() || !j.contains("steps") || !j["steps"].is_array()) {
        throw input_error(source, "expected an object with a \"steps\" array",
                          "{\"arm\": \"tcp\", \"round\": 1, \"kind\": \"cumulative\", "
                          "\"steps\": [{\"step\": 1, \"value\": 9.1}]}");
    }
    const JsonReader r(j, source, "");
    r.check_keys({"arm", "round", "kind", "metric", "steps"});
    StepSeries s;
    s.source = source;
    s.format = "json";
    s.arm = json_tag(r, "arm");
    s.round = json_tag(r, "round");
    if (const auto kind = r.get<std::string>("kind")) {
        s.kind = parse_kind(*kind, r.where("kind"));
    }
    s.value_column = "value";  // "metric" names what the values measure; accepted, not needed
    const auto& steps = j["steps"];
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const std::string where = source + " (/steps/" + std::to_string(i) + ")";
        const auto& e = steps[i];
        if (!e.is_object() || !e.contains("step") || !e.contains("value")) {
            throw input_error(where, "each entry needs an integer \"step\" and a numeric \"value\"",
                              "{\"step\": 6, \"value\": 4.49}");
        }
        const JsonReader entry = r.element("steps", i);
        entry.check_keys({"step", "value"});
        const auto step = *entry.get<std::int64_t>("step", 1, 100000000);
        const double v = *entry.get<double>("value", -1e300, 1e300);
        StepPoint p;
        p.step = static_cast<int>(step);
        p.seconds = check_seconds(v, e["value"].dump(), where);
        p.first_step = p.step;
        add_point(s, p, where);
    }
    return s;
}

// Every point of a parsed series in the one range, named by its line (CSV, text logs) or its
// entry (JSON).
StepSeries checked_range(StepSeries s) {
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const StepPoint& p = s.points[i];
        require_step_seconds(p.seconds, p.line > 0 ? s.source + ":" + std::to_string(p.line)
                                                   : s.source + " (/steps/" + std::to_string(i) + ")");
    }
    return s;
}

}  // namespace

void require_step_seconds(double seconds, const std::string& where) {
    if (seconds >= kMinStepSeconds && seconds <= kMaxStepSeconds) {
        return;
    }
    char shown[32];
    std::snprintf(shown, sizeof shown, "%.6g", seconds);
    throw input_error(where, std::string("a step time of ") + shown + " s is outside 1e-6 to 1e6 s",
                      "step times are seconds per step: check the unit of the log's value column or of the number given");
}

const char* to_string(StepValueKind kind) {
    switch (kind) {
        case StepValueKind::CumulativeMean:
            return "cumulative";
        case StepValueKind::Instant:
            return "instant";
        case StepValueKind::IntervalMean:
            return "interval";
        case StepValueKind::Smoothed:
            return "smoothed";
    }
    return "instant";
}

namespace {

StepSeries parse_any_step_log(const std::string& text, const std::string& source, const StepLogOptions& options) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{') {
        StepSeries s = parse_json(text, source);
        if (s.points.empty()) {
            throw input_error(source, "no step rows", "export the run's per-step metric");
        }
        return s;
    }
    if (text.find('\0') == std::string::npos) {
        if (auto s = parse_megatron_log(text, source)) {
            return *s;
        }
        if (auto s = parse_torchtitan_log(text, source, options)) {
            return *s;
        }
        if (auto s = parse_tqdm_log(text, source)) {
            return *s;
        }
    }
    // A CSV export: its first line that is not a comment holds commas.
    std::size_t pos = 0;
    std::string header;
    while (pos < text.size()) {
        auto end = text.find('\n', pos);
        if (end == std::string::npos) {
            end = text.size();
        }
        header = trim_unquoted(text.substr(pos, end - pos));
        pos = end + 1;
        if (!header.empty() && header[0] != '#') {
            break;
        }
        header.clear();
    }
    bool csv_like = false;  // a header naming a step column or a step-time column
    for (const auto& cell : split_csv(header)) {
        const std::string n = ascii_lower(cell);
        csv_like = csv_like || n == "step" || n == "iteration" || n == "iter" || n == "_step" || n == "value" ||
                   kind_of_column(n).has_value();
    }
    if (!header.empty() && !csv_like && header.find('\0') == std::string::npos) {
        throw input_error(source, "no step times found: not a CSV or JSON export, a Megatron-LM log ('iteration N/ M | "
                                  "... elapsed time per iteration (ms): X'), a torchtitan log ('step: N  loss: ...  "
                                  "tps: T'), or a tqdm / HF Trainer progress bar ('N/M [mm:ss<mm:ss, X s/it]')",
                          "pass the run's own log or a CSV export with a step column and a step-time column "
                          "(docs/commands/ab.md lists the formats)");
    }
    StepSeries s = parse_csv(text, source);
    if (s.points.empty()) {
        throw input_error(source, "no step rows", "export the run's per-step metric");
    }
    return s;
}

}  // namespace

StepSeries parse_step_log(const std::string& text, const std::string& source, const StepLogOptions& options) {
    require_text_size(text, source, kMaxStepLogBytes, "kMaxStepLogBytes",
                      "cut the log to the steps compared (e.g. tail -n 20000 LOG > part.log)");
    return checked_range(parse_any_step_log(text, source, options));
}

}  // namespace planlayout
