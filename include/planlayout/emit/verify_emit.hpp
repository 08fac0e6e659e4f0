// Emit: a verify report (plan-layout verify) as text and JSON.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "planlayout/verify/verify.hpp"

namespace planlayout::verify {

/// "verify: PASS 0 errors 2 warnings 16 ranks 32 channels" (or FAIL): one line for CI greps.
[[nodiscard]] std::string summary_line(const VerifyReport& report);

/// Human text: header, per-rank/channel table, findings, the summary line.
[[nodiscard]] std::string render_text(const VerifyReport& report);

/// Machine form, `"schema_version": 1`.
[[nodiscard]] nlohmann::json to_json(const VerifyReport& report);

/// The same bytes as `to_json(report).dump(2)` (invalid UTF-8 replaced) plus a newline, with the
/// connection and plan arrays rendered one element at a time: a DOM of every connection of a big
/// log took about 30 times the log's size in memory.
[[nodiscard]] std::string to_json_text(const VerifyReport& report);

/// Writes to_json_text's bytes to `out` as they are produced (never the whole text in memory).
void write_json(const VerifyReport& report, std::ostream& out);

}  // namespace planlayout::verify
