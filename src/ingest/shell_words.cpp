// Ingest (private): shell words and their expansions for the launch-script reader.
#include "shell_words.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"

namespace planlayout::shell {
namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

// A character that ends an unquoted word (NUL is an ordinary byte, never the end of the set).
bool is_meta(char c) {
    return c != '\0' && std::strchr(";&|()<>\n", c) != nullptr;
}

bool is_digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

bool all_digits(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

}  // namespace

bool is_name_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool is_name_char(char c) {
    return is_name_start(c) || is_digit(c);
}

std::string unset_reason(const std::string& name) {
    if (name == "0") {
        return "$0 is the script's name";
    }
    if (all_digits(name)) {
        return "$" + name + " is an argument of the script";
    }
    if (name == "@" || name == "*") {
        return "$" + name + " is the script's arguments";
    }
    if (name == "#") {
        return "$# is the number of the script's arguments";
    }
    if (!name.empty() && !is_name_start(name[0])) {
        return "$" + name + " is set by the shell as the script runs";
    }
    return "$" + name + " is not set";
}

// ---------------------------------------------------------------------------- Value

void Value::append(const Value& v) {
    const std::size_t off = text.size();
    text += v.text;
    lines.insert(lines.end(), v.lines.begin(), v.lines.end());
    for (const auto& u : v.unknowns) {
        unknowns.push_back({u.begin + off, u.end + off, u.reason});
    }
}

void Value::append_char(char c, int line) {
    text += c;
    lines.push_back(line);
}

void Value::append_text(const std::string& s, int line) {
    text += s;
    lines.insert(lines.end(), s.size(), line);
}

void Value::append_unknown(const std::string& raw, int line, std::string reason) {
    const std::size_t off = text.size();
    append_text(raw, line);
    unknowns.push_back({off, text.size(), std::move(reason)});
}

Value Value::slice(std::size_t begin, std::size_t end) const {
    Value out;
    out.text = text.substr(begin, end - begin);
    out.lines.assign(lines.begin() + static_cast<std::ptrdiff_t>(begin), lines.begin() + static_cast<std::ptrdiff_t>(end));
    for (const auto& u : unknowns) {
        if (u.end > begin && u.begin < end) {
            out.unknowns.push_back({std::max(u.begin, begin) - begin, std::min(u.end, end) - begin, u.reason});
        }
    }
    return out;
}

const Unknown* Value::whole_unknown() const {
    return unknowns.size() == 1 && unknowns[0].begin == 0 && unknowns[0].end == text.size() && !text.empty()
               ? unknowns.data()
               : nullptr;
}

// ---------------------------------------------------------------------------- Shell

const std::string* Shell::env_value(const std::string& name) const {
    const auto it = env_.find(name);
    return it == env_.end() ? nullptr : &it->second;
}

const Var* Shell::find(const std::string& name) const {
    const auto it = vars_.find(name);
    return it == vars_.end() ? nullptr : &it->second;
}

void Shell::assign(const std::string& name, Var v, bool append) {
    if (pinned(name)) {
        return;
    }
    const auto it = vars_.find(name);
    if (!append || it == vars_.end()) {
        vars_[name] = std::move(v);
        return;
    }
    Var& cur = it->second;
    cur.line = v.line;
    if (v.array) {
        cur.array = true;
        cur.elems.insert(cur.elems.end(), v.elems.begin(), v.elems.end());
    } else if (cur.elems.empty()) {
        cur.elems = std::move(v.elems);
    } else if (!v.elems.empty()) {
        cur.elems.front().append(v.elems.front());
    }
}

std::optional<Var> Shell::saved(const std::string& name, int line) {
    const Var* v = find(name);
    if (v == nullptr) {
        return std::nullopt;
    }
    for (const auto& e : v->elems) {
        charge(e.text.size(), line);  // a copy, kept while the command's words are read
    }
    return *v;
}

void Shell::restore(const std::string& name, const std::optional<Var>& v) {
    if (v) {
        vars_[name] = *v;
    } else {
        vars_.erase(name);
    }
}

void Shell::charge(std::size_t bytes, int line) {
    spent_ += bytes;
    if (spent_ > kMaxLaunchExpansionBytes) {
        throw input_error(where(line),
                          "the script's expansions produce more than " + std::to_string(kMaxLaunchExpansionBytes >> 20U) +
                              " MiB, over the limit (kMaxLaunchExpansionBytes)",
                          "a launch script expands to a few kilobytes; look for a variable that grows by doubling");
    }
}

void Shell::enter(int line) {
    if (++depth_ > kMaxLaunchNesting) {
        throw input_error(where(line),
                          "nesting deeper than " + std::to_string(kMaxLaunchNesting) +
                              " levels (eval, bash -c, here-documents, ${...}, parentheses), over the limit (kMaxLaunchNesting)",
                          "a launch script nests a few levels; simplify this line");
    }
}

// ---------------------------------------------------------------------------- words

std::vector<Value> fields_of(const std::vector<Piece>& pieces, bool split, int line) {
    std::vector<Value> out;
    Value cur;
    bool have = false;
    const auto flush = [&] {
        if (have) {
            out.push_back(std::move(cur));
        }
        cur = Value{};
        have = false;
    };
    for (const auto& p : pieces) {
        if (p.new_word) {
            if (split) {
                flush();
            } else {
                cur.append_char(' ', cur.lines.empty() ? line : cur.lines.back());
            }
        }
        if (!split || !p.split) {
            cur.append(p.value);
            have = true;
            continue;
        }
        const Value& v = p.value;
        std::size_t u = 0;
        for (std::size_t i = 0; i < v.text.size();) {
            if (u < v.unknowns.size() && v.unknowns[u].begin == i) {
                cur.append(v.slice(i, v.unknowns[u].end));
                have = true;
                i = v.unknowns[u++].end;
            } else if (is_blank(v.text[i]) || v.text[i] == '\n') {
                flush();
                ++i;
            } else {
                const std::size_t stop = u < v.unknowns.size() ? v.unknowns[u].begin : v.text.size();
                std::size_t j = i;
                while (j < stop && !is_blank(v.text[j]) && v.text[j] != '\n') {
                    ++j;
                }
                cur.append(v.slice(i, j));
                have = true;
                i = j;
            }
        }
    }
    if (!split) {
        return {cur};
    }
    flush();
    return out;
}

int Lexer::line_at(std::size_t at) const {
    if (at < src_.lines.size()) {
        return src_.lines[at];
    }
    return src_.lines.empty() ? 1 : src_.lines.back();
}

void Lexer::skip_blanks() {
    while (!at_end()) {
        if (is_blank(peek())) {
            advance();
        } else if (peek() == '\\' && peek(1) == '\n') {
            advance(2);
        } else {
            break;
        }
    }
}

void Lexer::unterminated(std::size_t at, const std::string& what, const std::string& fix) const {
    throw input_error(sh_.where(line_at(at)), "unterminated " + what + " opened on this line", fix);
}

std::vector<Piece> Lexer::word() {
    return word_until(Stop::Meta);
}

std::string Lexer::literal_word(bool& quoted) {
    std::string out;
    while (!at_end() && !is_blank(peek()) && !is_meta(peek())) {
        const char c = peek();
        if (c == '\'' || c == '"') {
            quoted = true;
            const std::size_t close = src_.text.find(c, pos_ + 1);
            if (close == std::string::npos) {
                unterminated(pos_, c == '"' ? "double quote" : "single quote",
                             std::string("close it with ") + c + " as the shell would need");
            }
            out += src_.text.substr(pos_ + 1, close - pos_ - 1);
            pos_ = close + 1;
        } else if (c == '\\' && pos_ + 1 < src_.text.size()) {
            quoted = true;
            out += peek(1);
            advance(2);
        } else {
            out += c;
            advance();
        }
    }
    return out;
}

std::vector<Piece> Lexer::word_until(Stop stop) {
    std::vector<Piece> out;
    const auto literal = [&out](char c, int line, bool split) {
        if (out.empty() || out.back().split != split) {
            out.push_back(Piece{Value{}, split, false});
        }
        out.back().value.append_char(c, line);
    };
    while (!at_end()) {
        const char c = peek();
        if (stop == Stop::Meta && (is_blank(c) || is_meta(c))) {
            break;
        }
        if (stop == Stop::Brace && c == '}') {
            break;
        }
        if (c == '\\') {
            if (peek(1) == '\n') {
                advance(2);
            } else if (pos_ + 1 < src_.text.size()) {
                literal(peek(1), line(), false);
                advance(2);
            } else {
                literal(c, line(), false);
                advance();
            }
        } else if (c == '\'') {
            const std::size_t close = src_.text.find('\'', pos_ + 1);
            if (close == std::string::npos) {
                unterminated(pos_, "single quote", "close it with ' as the shell would need");
            }
            out.push_back(Piece{});
            for (std::size_t i = pos_ + 1; i < close; ++i) {
                out.back().value.append_char(src_.text[i], line_at(i));
            }
            pos_ = close + 1;
        } else if (c == '"') {
            double_quoted(out);
        } else if (c == '$') {
            dollar(out, false);
        } else if (c == '`') {
            const std::size_t end = skip_substitution(pos_ + 1, '`', "backquote");
            out.push_back(Piece{Value{}, true, false});
            out.back().value.append_unknown(src_.text.substr(pos_, end - pos_), line(), "a command substitution `...` is not run");
            pos_ = end;
        } else {
            literal(c, line(), stop == Stop::Brace && (is_blank(c) || c == '\n'));
            advance();
        }
    }
    return out;
}

void Lexer::double_quoted(std::vector<Piece>& out) {
    const std::size_t start = pos_;
    advance();
    const std::size_t first = out.size();
    const bool outer = vanished_;
    vanished_ = false;
    out.push_back(Piece{});
    const auto literal = [&out](char c, int line) {
        if (out.back().split || out.back().new_word) {
            out.push_back(Piece{});
        }
        out.back().value.append_char(c, line);
    };
    while (true) {
        if (at_end()) {
            unterminated(start, "double quote", "close it with \" as the shell would need");
        }
        const char c = peek();
        if (c == '"') {
            advance();
            const bool empty = std::all_of(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                                           [](const Piece& p) { return p.value.text.empty() && !p.new_word; });
            if (vanished_ && empty) {
                out.resize(first);  // "${A[@]}" of an empty array: no word, as bash
            }
            vanished_ = outer;
            return;
        }
        if (c == '\\' && pos_ + 1 < src_.text.size() && peek(1) != '\0' && std::strchr("$`\"\\\n", peek(1)) != nullptr) {
            if (peek(1) != '\n') {
                literal(peek(1), line());
            }
            advance(2);
        } else if (c == '$') {
            dollar(out, true);
        } else if (c == '`') {
            const std::size_t end = skip_substitution(pos_ + 1, '`', "backquote");
            out.push_back(Piece{});
            out.back().value.append_unknown(src_.text.substr(pos_, end - pos_), line(), "a command substitution `...` is not run");
            pos_ = end;
        } else {
            literal(c, line());
            advance();
        }
    }
}

void Lexer::ansi_c_quoted(std::vector<Piece>& out) {
    const std::size_t start = pos_ - 1;
    advance();  // the quote
    out.push_back(Piece{});
    static constexpr const char* kFrom = "ntrabefv\\'\"";
    static constexpr const char* kTo = "\n\t\r\a\b\x1b\f\v\\'\"";
    while (true) {
        if (at_end()) {
            unterminated(start, "$'...' quote", "close it with ' as the shell would need");
        }
        const char c = peek();
        if (c == '\'') {
            advance();
            return;
        }
        if (c == '\\' && pos_ + 1 < src_.text.size()) {
            const char* at = std::strchr(kFrom, peek(1));
            if (at != nullptr && peek(1) != '\0') {
                out.back().value.append_char(kTo[at - kFrom], line());
            } else {
                out.back().value.append_char('\\', line());
                out.back().value.append_char(peek(1), line());
            }
            advance(2);
        } else {
            out.back().value.append_char(c, line());
            advance();
        }
    }
}

std::size_t Lexer::skip_substitution(std::size_t from, char close, const char* what) const {
    const std::size_t start = from - (close == ')' ? 2 : 1);
    int depth = 1;
    std::size_t i = from;
    while (i < src_.text.size()) {
        const char c = src_.text[i];
        if (c == '\\') {
            i += 2;
            continue;
        }
        if (close == ')' && (c == '\'' || c == '"')) {
            std::size_t j = i + 1;
            while (j < src_.text.size() && src_.text[j] != c) {
                j += (c == '"' && src_.text[j] == '\\') ? 2 : 1;
            }
            i = j + 1;
            continue;
        }
        depth += close == ')' && c == '(' ? 1 : 0;
        depth -= c == close ? 1 : 0;  // a backquote closes at the first one
        ++i;
        if (depth == 0) {
            return i;
        }
    }
    unterminated(start, what, std::string("close it with ") + close + " as the shell would need");
}

void Lexer::dollar(std::vector<Piece>& out, bool quoted) {
    const std::size_t start = pos_;
    const int at = line();
    const char c = peek(1);
    if (c == '(' && peek(2) == '(') {
        arithmetic(out, quoted, start);
    } else if (c == '(') {
        const std::size_t end = skip_substitution(pos_ + 2, ')', "$(");
        out.push_back(Piece{Value{}, !quoted, false});
        out.back().value.append_unknown(src_.text.substr(start, end - start), at, "a command substitution $(...) is not run");
        pos_ = end;
    } else if (c == '{') {
        braced(out, quoted, start);
    } else if (c == '\'' && !quoted) {
        advance();
        ansi_c_quoted(out);
    } else if (c == '"' && !quoted) {
        advance();  // $"..." is "..."
    } else if (is_name_start(c)) {
        std::size_t end = pos_ + 1;
        while (end < src_.text.size() && is_name_char(src_.text[end])) {
            ++end;
        }
        const std::string name = src_.text.substr(pos_ + 1, end - pos_ - 1);
        pos_ = end;
        variable(out, name, "", quoted, "$" + name, at);
    } else if (c != '\0' && (is_digit(c) || std::strchr("@*#?$!-", c) != nullptr)) {
        advance(2);
        variable(out, std::string(1, c), "", quoted, std::string("$") + c, at);
    } else {
        out.push_back(Piece{Value{}, false, false});
        out.back().value.append_char('$', at);
        advance();
    }
}

}  // namespace planlayout::shell
