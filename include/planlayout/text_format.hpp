// Text formatting shared by every stage's messages and by the emitters: fixed decimals,
// percentages, seconds and byte sizes, each written one way.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace planlayout {

/// Throws Error (Internal, exit 4) for NaN or infinity: no output ever prints one. Inputs are
/// range-checked where they enter, so a non-finite result is a bug; every formatter below calls it.
void require_finite(double v);

/// "%.*f": fixed_text(1.23456, 2) == "1.23".
[[nodiscard]] std::string fixed_text(double v, int decimals);

/// A fraction as a percentage: percent_text(0.336, 1) == "33.6%".
[[nodiscard]] std::string percent_text(double fraction, int decimals = 1);

/// A signed change: signed_percent_text(-0.3208) == "-32.08%"; |change| < 0.005% prints "+0.00%".
[[nodiscard]] std::string signed_percent_text(double fraction);

/// Seconds with at least 4 significant digits: "4.490", "0.008260".
[[nodiscard]] std::string seconds_text(double v);

/// Bytes in a GiB: every figure printed in GiB is bytes / kGiB.
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// "3.8 GiB" (powers of 1024, one decimal above bytes).
[[nodiscard]] std::string human_bytes(double b);

/// s padded with spaces to width (one space when it is already as wide).
[[nodiscard]] std::string padded(const std::string& s, std::size_t width);

/// s filled with spaces on the right up to width (as it is when already as wide): a table column.
[[nodiscard]] std::string left_aligned(const std::string& s, std::size_t width);

/// s filled with spaces on the left up to width (as it is when already as wide): a number column.
[[nodiscard]] std::string right_aligned(const std::string& s, std::size_t width);

/// s with ASCII letters in lower case (names compared without case: "H100" == "h100").
[[nodiscard]] std::string ascii_lower(std::string_view s);

/// The text's columns a line wraps before (a terminal's 100).
inline constexpr std::size_t kTextWrap = 100;

/// `items` after `prefix`, joined by `sep`, wrapped before `width` columns: where the next item
/// would pass it, the separator loses its trailing spaces and a new line starts with `indent`
/// (wrapped_text({"a", "b"}, "x: ", "   ", ", ") == "x: a, b"). No newline at the end.
[[nodiscard]] std::string wrapped_text(const std::vector<std::string>& items, std::string_view prefix, std::string_view indent,
                                       std::string_view sep, std::size_t width = kTextWrap);

/// v rounded to `decimals` decimals, for a JSON number: round_to(1.2345, 2) == 1.23.
[[nodiscard]] double round_to(double v, int decimals);

}  // namespace planlayout
