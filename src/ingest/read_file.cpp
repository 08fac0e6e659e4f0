// Ingest: reading files and JSON text with errors that name the place.
#include "planlayout/ingest/read_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <vector>

#include "planlayout/error.hpp"
#include "planlayout/names.hpp"

namespace planlayout {

std::string read_text_file(const std::string& path, std::size_t max_bytes) {
    const long long size = checked_file_size(path, max_bytes);  // -1: not a regular file (a pipe)
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw io_error(path, std::string("cannot open: ") + std::strerror(errno),
                       "check the path and its permissions");
    }
    std::string text;
    if (size > 0) {
        text.reserve(static_cast<std::size_t>(size));  // no doubling: a 256 MiB file peaked at 768 MB
    }
    // At most max_bytes + 1 bytes are read, so a device that never ends (/dev/zero) or a pipe
    // stops one byte past the limit, whatever the limit.
    std::array<char, 65536> buf{};
    while (in) {
        const std::size_t want = std::min(buf.size(), max_bytes + 1 - text.size());
        in.read(buf.data(), static_cast<std::streamsize>(want));
        text.append(buf.data(), static_cast<std::size_t>(in.gcount()));
        if (text.size() > max_bytes) {
            throw input_error(path, "input is over the limit of " + std::to_string(max_bytes) +
                                        " bytes", "pass a smaller file");
        }
    }
    if (in.bad()) {
        throw io_error(path, "read failed", "check the file system");
    }
    return text;
}

void require_text_size(const std::string& text, const std::string& where, std::size_t max_bytes,
                       const char* limit_name, const std::string& fix) {
    if (text.size() > max_bytes) {
        throw input_error(where, "the input is " + std::to_string(text.size()) + " bytes, over the limit of " +
                                     std::to_string(max_bytes) + " bytes (" + limit_name + ")",
                          fix);
    }
}

FileScope FileScope::for_file(const std::string& path) const {
    const auto slash = path.find_last_of('/');
    return {slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash)), root, anywhere};
}

std::string resolve_named_file(const FileScope& scope, const std::string& name, const std::string& where) {
    namespace fs = std::filesystem;
    if (name.empty()) {
        throw input_error(where, "the file name is empty", "name a file next to the layout, e.g. \"hosts.txt\"");
    }
    const bool absolute = name.front() == '/';
    std::string path = absolute || scope.dir == "." ? name : scope.dir + "/" + name;
    if (scope.anywhere) {
        return path;
    }
    std::error_code root_error;
    std::error_code target_error;
    const fs::path root = fs::weakly_canonical(scope.root.empty() ? "." : scope.root, root_error);
    const fs::path target = fs::weakly_canonical(path, target_error);
    // Inside root: root is a prefix of target, component by component.
    const auto mismatch = std::mismatch(root.begin(), root.end(), target.begin(), target.end());
    if (root_error || target_error || mismatch.first != root.end()) {
        throw input_error(where,
                          "'" + printable(name) + "' lies outside the layout's folder (" + printable(root.string()) +
                              (absolute ? "): absolute paths are not followed" : "): '..' and links out of it are not followed"),
                          "put the file in the layout's folder (or below it), or pass --allow-outside-files if you trust "
                          "this layout");
    }
    return path;
}

long long checked_file_size(const std::string& path, std::size_t max_bytes) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        throw io_error(path, std::string("cannot open: ") + std::strerror(errno),
                       "check the path and its permissions");
    }
    if (S_ISDIR(st.st_mode)) {
        throw input_error(path, "is a directory, not a file", "name a file inside it");
    }
    if (!S_ISREG(st.st_mode)) {
        return -1;
    }
    if (static_cast<std::size_t>(st.st_size) > max_bytes) {
        throw input_error(path,
                          "file is " + std::to_string(st.st_size) + " bytes, over the limit of " +
                              std::to_string(max_bytes) + " bytes",
                          "pass a smaller capture or cut it to the relevant part");
    }
    return static_cast<long long>(st.st_size);
}

std::size_t for_each_line(std::istream& in,
                          const std::function<void(std::size_t)>& on_chunk,
                          const std::function<void(std::string_view)>& on_line) {
    constexpr std::size_t kChunk = std::size_t{1} << 20U;
    std::string buf;   // the unfinished line, then the chunk read after it
    std::size_t total = 0;
    while (in) {
        const std::size_t carried = buf.size();
        buf.resize(carried + kChunk);
        in.read(&buf[carried], static_cast<std::streamsize>(kChunk));
        const auto got = static_cast<std::size_t>(in.gcount());
        buf.resize(carried + got);
        if (got == 0) {
            break;
        }
        total += got;
        on_chunk(total);
        const std::string_view all = buf;
        std::size_t start = 0;
        for (auto nl = all.find('\n', carried); nl != std::string_view::npos; nl = all.find('\n', start)) {
            on_line(all.substr(start, nl - start));
            start = nl + 1;
        }
        buf.erase(0, start);
    }
    if (!buf.empty()) {
        on_line(buf);
    }
    return total;
}

TextPosition position_of(const std::string& text, std::size_t offset) {
    TextPosition p;
    const std::size_t end = std::min(offset, text.size());
    for (std::size_t i = 0; i < end; ++i) {
        if (text[i] == '\n') {
            ++p.line;
            p.column = 1;
        } else {
            ++p.column;
        }
    }
    return p;
}

namespace {

// A string token's text between its quotes, from `open` (the opening quote); `close` is set to
// the closing quote (or text.size() when unterminated).
std::string_view string_token(const std::string& text, std::size_t open, std::size_t& close) {
    std::size_t i = open + 1;
    for (; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') {
            ++i;
        }
    }
    close = std::min(i, text.size());
    const std::string_view all = text;
    return all.substr(open + 1, close - open - 1);
}

// The key a string token names: escapes decoded (so "a" and "\u0061" are one key).
std::string key_of(std::string_view raw) {
    if (raw.find('\\') == std::string_view::npos) {
        return std::string(raw);
    }
    try {
        return nlohmann::json::parse("\"" + std::string(raw) + "\"").get<std::string>();
    } catch (const nlohmann::json::exception&) {
        return std::string(raw);  // the parser reports the bad escape with its place
    }
}

std::string line_column_where(const std::string& where, const std::string& text, std::size_t at) {
    const TextPosition p = position_of(text, at);
    return where + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
}

// A string, a number or a run of white space longer than kMaxJsonTokenBytes: the parser copies
// what it reads for a token (white space before it included) and quotes a bad token whole in its
// error: a 256 MiB number took 25 s and 2 GB, 256 MiB of spaces 18 s and 1 GB, before this check.
Error long_token(const std::string& where, const std::string& text, std::size_t at, const char* what) {
    return input_error(line_column_where(where, text, at),
                       std::string(what) + " longer than " + std::to_string(kMaxJsonTokenBytes) + " bytes (kMaxJsonTokenBytes)",
                       "names, paths and numbers in layouts are short: check that this is the right file");
}

bool is_number_char(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// One pass over the text before the parser, refusing with their places: nesting deeper than
// kMaxJsonDepth, a token longer than kMaxJsonTokenBytes, and a key given twice in one object.
// Skips strings and // and /* */ comments as the parser does; malformed text is left to the
// parser. Linear in the text (a set of keys per open object).
void check_json_structure(const std::string& text, const std::string& where) {
    struct Frame {
        bool object = false;
        bool expect_key = false;
        std::map<std::string, std::size_t> keys;  // key -> offset of its first occurrence
    };
    std::vector<Frame> stack;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            std::size_t close = 0;
            const std::string_view raw = string_token(text, i, close);
            if (close - i > kMaxJsonTokenBytes) {
                throw long_token(where, text, i, "a string");
            }
            if (!stack.empty() && stack.back().object && stack.back().expect_key) {
                stack.back().expect_key = false;
                const auto [it, fresh] = stack.back().keys.emplace(key_of(raw), i);
                if (!fresh) {
                    const TextPosition first = position_of(text, it->second);
                    throw input_error(line_column_where(where, text, i),
                                      "key \"" + printable(it->first) + "\" is given twice in one object (first at line " +
                                          std::to_string(first.line) + ", column " + std::to_string(first.column) + ")",
                                      "keep one of the two: JSON readers silently keep only one of them");
                }
            }
            i = close;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            i = text.find('\n', i);
            if (i == std::string::npos) {
                break;
            }
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
            i = text.find("*/", i + 2);
            if (i == std::string::npos) {
                break;
            }
            ++i;
        } else if (c == '[' || c == '{') {
            if (stack.size() + 1 > kMaxJsonDepth) {
                throw input_error(line_column_where(where, text, i), "JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep",
                                  "layouts, templates and step logs are a few levels deep: check that this is the right file");
            }
            stack.push_back({c == '{', c == '{', {}});
        } else if ((c == ']' || c == '}') && !stack.empty()) {
            stack.pop_back();
        } else if (c == ',' && !stack.empty() && stack.back().object) {
            stack.back().expect_key = true;
        } else if (is_number_char(c) || is_space(c)) {
            const bool number = is_number_char(c);
            std::size_t end = i + 1;
            while (end < text.size() && (number ? is_number_char(text[end]) : is_space(text[end]))) {
                ++end;
            }
            if (end - i > kMaxJsonTokenBytes) {
                throw long_token(where, text, i, number ? "a number" : "white space");
            }
            i = end - 1;
        }
    }
}

}  // namespace

void require_8bit_text(const std::string& text, const std::string& where) {
    const auto starts = [&text](std::initializer_list<unsigned char> bom) {
        if (text.size() < bom.size()) {
            return false;
        }
        std::size_t i = 0;
        for (const unsigned char b : bom) {
            if (static_cast<unsigned char>(text[i++]) != b) {
                return false;
            }
        }
        return true;
    };
    std::string encoding;
    if (starts({0xFF, 0xFE, 0x00, 0x00})) {
        encoding = "UTF-32 (little-endian, byte-order mark FF FE 00 00)";
    } else if (starts({0x00, 0x00, 0xFE, 0xFF})) {
        encoding = "UTF-32 (big-endian, byte-order mark 00 00 FE FF)";
    } else if (starts({0xFF, 0xFE})) {
        encoding = "UTF-16 (little-endian, byte-order mark FF FE)";
    } else if (starts({0xFE, 0xFF})) {
        encoding = "UTF-16 (big-endian, byte-order mark FE FF)";
    } else if (text.size() >= 4 && (text[0] == '\0') != (text[1] == '\0') && (text[2] == '\0') != (text[3] == '\0')) {
        encoding = "UTF-16 or UTF-32 without a byte-order mark (NUL bytes between the characters)";
    }
    if (!encoding.empty()) {
        throw input_error(where, "file is " + encoding,
                          "convert it to UTF-8: iconv -f " + encoding.substr(0, 6) + " -t UTF-8 FILE > FILE.utf8 "
                          "(Windows tools often save UTF-16)");
    }
}

nlohmann::json parse_json_text(const std::string& text, const std::string& where) {
    require_8bit_text(text, where);
    check_json_structure(text, where);
    try {
        return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/true,
                                     /*ignore_comments=*/true);
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is 1-based and points just past the offending character.
        const TextPosition p = position_of(text, e.byte > 0 ? e.byte - 1 : 0);
        std::string what = e.what();
        // Drop nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: "
        if (const auto pos = what.find(": "); pos != std::string::npos) {
            what = what.substr(pos + 2);
        }
        throw input_error(where + ":" + std::to_string(p.line) + ":" + std::to_string(p.column),
                          "invalid JSON: " + terminal_safe(what),
                          "fix the JSON syntax there (comments with // are allowed)");
    } catch (const nlohmann::json::exception& e) {
        // out_of_range.406: a number too large for a double ("1e999"); nlohmann gives no position.
        std::string what = e.what();
        if (const auto pos = what.find("] "); pos != std::string::npos) {
            what = what.substr(pos + 2);
        }
        throw input_error(where, "invalid JSON: " + what,
                          "numbers must fit a double (at most about 1.8e308); fix that number");
    }
}

}  // namespace planlayout
