// Ingest: the one place that reads input files (and standard input, passed in by the CLI).
#pragma once

#include <cstddef>
#include <functional>
#include <istream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "planlayout/limits.hpp"

namespace planlayout {

// kMaxInputBytes, kMaxJsonDepth, kMaxJsonTokenBytes: planlayout/limits.hpp.

/// Reads a whole file. Throws Error: Io (exit 3) when it cannot be opened or read, BadInput
/// (exit 2) when it is a directory, or larger than max_bytes.
[[nodiscard]] std::string read_text_file(const std::string& path,
                                         std::size_t max_bytes = kMaxInputBytes);

/// Refuses text over `max_bytes` (BadInput naming the size, the limit and `limit_name`, e.g.
/// "kMaxConfigBytes"): the readers that take text call it first, so the library bounds what it
/// parses even when a caller read more than the CLI would.
void require_text_size(const std::string& text, const std::string& where, std::size_t max_bytes,
                       const char* limit_name, const std::string& fix);

/// Checks a file as read_text_file does before reading it (Io when it cannot be opened, BadInput
/// for a directory or a regular file over max_bytes) and returns its size; -1 for a pipe or
/// device, whose size is known only once read.
[[nodiscard]] long long checked_file_size(const std::string& path, std::size_t max_bytes = kMaxInputBytes);

/// Reads `in` to its end in 1 MiB chunks and passes each line, without its '\n', to on_line (a
/// last line without '\n' too; no line after a final '\n'), so that a big log is never held
/// whole: at most one chunk plus the longest line. Before the lines of each chunk, on_chunk gets
/// the bytes read so far (throw from it to enforce a limit). Returns the bytes read.
std::size_t for_each_line(std::istream& in,
                          const std::function<void(std::size_t)>& on_chunk,
                          const std::function<void(std::string_view)>& on_line);

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

/// Where the files a layout (or cluster spec) names may be. Names resolve against `dir` (the
/// naming file's folder); unless `anywhere`, the resolved file must lie inside `root` (the folder
/// of the layout given on the command line) after following symlinks: no absolute path, no ".."
/// above it, no link out of it. So a layout cannot make plan-layout read, and quote in an error,
/// a file such as /etc/shadow; `--allow-outside-files` lifts this for layouts one trusts.
struct FileScope {
    std::string dir = ".";
    std::string root = ".";
    bool anywhere = false;

    /// The scope of a file this one names: its own folder, the same root.
    [[nodiscard]] FileScope for_file(const std::string& path) const;
};

/// The path of a file `name` (as written in the document, at `where`) within the scope. Throws
/// Error (BadInput) naming `where` and the name, never the file's content, when it lies outside.
[[nodiscard]] std::string resolve_named_file(const FileScope& scope, const std::string& name, const std::string& where);

/// 1-based line and column of a byte offset in text.
struct TextPosition {
    std::size_t line = 1;
    std::size_t column = 1;
};

[[nodiscard]] TextPosition position_of(const std::string& text, std::size_t offset);

}  // namespace planlayout
