// Ingest: the one place that reads input files (and standard input, passed in by the CLI).
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "planlayout/limits.hpp"

namespace planlayout {

// kMaxInputBytes, kMaxJsonDepth, kMaxJsonTokenBytes: planlayout/limits.hpp.

/// Reads a whole file. Throws Error: Io (exit 3) when it cannot be opened or read, BadInput
/// (exit 2) when it is a directory, or larger than max_bytes.
[[nodiscard]] std::string read_text_file(const std::string& path,
                                         std::size_t max_bytes = kMaxInputBytes);

/// Refuses text in UTF-16 or UTF-32 (by its byte-order mark, or by NUL bytes between ASCII
/// characters when it has none), naming the encoding and the iconv command that converts it.
/// Every text reader calls it before anything else, so no message quotes such a file's bytes.
void require_8bit_text(const std::string& text, const std::string& where);

/// Parses JSON text with `//` and `/* */` comments allowed. Errors name `where`, the line and
/// column, and what the parser expected (bytes that are not printable shown as \xHH). Refused
/// before the parser runs: nesting deeper than kMaxJsonDepth, a string or number longer than
/// kMaxJsonTokenBytes, and a key given twice in one object (JSON parsers keep one of the two
/// silently), naming both places.
[[nodiscard]] nlohmann::json parse_json_text(const std::string& text, const std::string& where);

/// 1-based line and column of a byte offset in text.
struct TextPosition {
    std::size_t line = 1;
    std::size_t column = 1;
};

[[nodiscard]] TextPosition position_of(const std::string& text, std::size_t offset);

}  // namespace planlayout
