// CLI: the usage messages that recur across commands, one named factory each. Every one renders
// as "<where>: <what>; <fix>" through Error (exit 2).
#pragma once

#include <string>
#include <vector>

#include "planlayout/error.hpp"

namespace planlayout::cli {

/// items joined by sep: "a, b, c".
[[nodiscard]] std::string join(const std::vector<std::string>& items, const std::string& sep);

/// "a", "a or b", "a, b or c".
[[nodiscard]] std::string choice_list(const std::vector<std::string>& items);

/// "plan-layout COMMAND: WHAT; HINT": a usage error about the command line as a whole.
[[nodiscard]] Error usage_error(const std::string& command, std::string what, std::string hint);

/// "FLAG VALUE: unknown KIND 'VALUE'; use CHOICES" (format, view, transport, collective, ...).
[[nodiscard]] Error unknown_choice(const std::string& flag, const std::string& value, const std::string& kind,
                                   const std::string& choices);

/// "--kinds LIST: unknown or not created kind 'KIND'; HINT".
[[nodiscard]] Error unknown_kind(const std::string& list, const std::string& kind, std::string hint);

/// "plan-layout COMMAND: missing FLAG; HINT".
[[nodiscard]] Error missing_option(const std::string& command, const std::string& flag, std::string hint);

/// "plan-layout COMMAND: unknown option 'SPELLED'; did you mean 'NEAREST'? ..." (nearest of known).
[[nodiscard]] Error unknown_option(const std::string& command, const std::string& spelled,
                                   const std::vector<std::string>& known);

/// "plan-layout COMMAND: unexpected argument 'ARG'; HINT".
[[nodiscard]] Error unexpected_argument(const std::string& command, const std::string& arg, std::string hint);

/// "FLAG TEXT: 'TEXT' is not an integer; give a whole number, e.g. FLAG EXAMPLE".
[[nodiscard]] Error not_an_integer(const std::string& flag, const std::string& text, long long example);

/// "FLAG TEXT: value out of range [MIN, MAX]; give a value from MIN to MAX".
/// "--tp 18446744073709551615: 18446744073709551615 is larger than 2147483648": the value as given.
[[nodiscard]] Error out_of_range(const std::string& flag, const std::string& text, bool below, long long min, long long max);

}  // namespace planlayout::cli
