// Errors: message rendering.
#include "planlayout/error.hpp"

#include <algorithm>
#include <utility>

namespace planlayout {
namespace {

// Limits of one rendered part: a message quotes what it found, but a 100 MB value or file name
// quoted whole would bury the message (and the terminal).
constexpr std::size_t kMaxWhere = 400;
constexpr std::size_t kMaxWhat = 2000;
constexpr std::size_t kMaxHint = 1000;

/// One line, at most max bytes (cut at a UTF-8 character boundary, the cut said in words):
/// newlines and other control characters of quoted input are shown escaped.
std::string one_line(const std::string& text, std::size_t max) {
    std::string s;
    s.reserve(std::min(text.size(), max) + 32);
    std::size_t i = 0;
    for (; i < text.size() && s.size() < max; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            s += "\\n";
        } else if (c == '\r') {
            s += "\\r";
        } else if (c < 0x20 && c != '\t') {
            s += '?';
        } else {
            s += static_cast<char>(c);
        }
    }
    if (i < text.size()) {
        while (i > 0 && (static_cast<unsigned char>(text[i]) & 0xC0U) == 0x80U) {  // inside a character
            --i;
            s.pop_back();
        }
        s += "... (" + std::to_string(text.size() - i) + " more bytes)";
    }
    return s;
}

std::string render(const std::string& where, const std::string& what, const std::string& hint) {
    std::string s;
    if (!where.empty()) {
        s += one_line(where, kMaxWhere) + ": ";
    }
    s += one_line(what, kMaxWhat);
    if (!hint.empty()) {
        s += "; " + one_line(hint, kMaxHint);
    }
    return s;
}

}  // namespace

Error::Error(ExitCode code, std::string where, std::string what, std::string hint)
    : std::runtime_error(render(where, what, hint))
    , code_(code)
    , where_(std::move(where))
    , problem_(std::move(what))
    , hint_(std::move(hint)) {}

Error input_error(std::string where, std::string what, std::string hint) {
    return {ExitCode::BadInput, std::move(where), std::move(what), std::move(hint)};
}

Error io_error(std::string where, std::string what, std::string hint) {
    return {ExitCode::Io, std::move(where), std::move(what), std::move(hint)};
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
    // Levenshtein distance, one row at a time; words here are flag and key names (short).
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

std::string nearest_match(const std::string& word, const std::vector<std::string>& candidates) {
    if (word.size() > 256) {
        return {};
    }
    const std::size_t allowed = std::max<std::size_t>(1, word.size() / 3);
    std::string best;
    std::size_t best_distance = allowed + 1;
    for (const auto& c : candidates) {
        const std::size_t d = edit_distance(word, c);
        if (d < best_distance) {
            best = c;
            best_distance = d;
        }
    }
    if (best.empty() && word.size() >= 3) {
        for (const auto& c : candidates) {  // a prefix of a longer name: "speed" → "speed_gbit_s"
            if (c.size() > word.size() && c.compare(0, word.size(), word) == 0) {
                return c;
            }
        }
    }
    return best;
}

}  // namespace planlayout
