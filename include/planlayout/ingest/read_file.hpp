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

/// Parses JSON text with `//` and `/* */` comments allowed. Errors name `where`, the line and
/// column, and what the parser expected. Nesting deeper than kMaxJsonDepth, and a string or
/// number longer than kMaxJsonTokenBytes, are refused before the parser runs.
[[nodiscard]] nlohmann::json parse_json_text(const std::string& text, const std::string& where);

/// 1-based line and column of a byte offset in text.
struct TextPosition {
    std::size_t line = 1;
    std::size_t column = 1;
};

[[nodiscard]] TextPosition position_of(const std::string& text, std::size_t offset);

}  // namespace planlayout
