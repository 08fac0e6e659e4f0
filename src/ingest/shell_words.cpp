// Ingest (private): shell words and their expansions for the launch-script reader.
// Over 500 lines: values with their unknown parts, the variable state (and its merge after
// if/case), and the lexer of quotes including bash's $'...' decoding belong together.
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

bool is_one_of_text(char c, const char* set) {
    return c != '\0' && std::strchr(set, c) != nullptr;
}

}  // namespace

bool is_digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

bool all_digits(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

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
    for (auto u : v.unknowns) {
        u.begin += off;
        u.end += off;
        unknowns.push_back(std::move(u));
    }
    for (auto u : v.kept) {
        u.begin += off;
        u.end += off;
        kept.push_back(std::move(u));
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
    append_unknown(raw, line, std::move(reason), "", "");
}

void Value::append_unknown(const std::string& raw, int line, std::string reason, std::string expr, std::string refusal) {
    const std::size_t off = text.size();
    append_text(raw, line);
    Unknown u;
    u.begin = off;
    u.end = text.size();
    u.reason = std::move(reason);
    u.expr = std::move(expr);
    u.refusal = std::move(refusal);
    u.line = line;
    unknowns.push_back(std::move(u));
}

Value Value::slice(std::size_t begin, std::size_t end) const {
    Value out;
    out.text = text.substr(begin, end - begin);
    out.lines.assign(lines.begin() + static_cast<std::ptrdiff_t>(begin), lines.begin() + static_cast<std::ptrdiff_t>(end));
    const auto cut = [&](const std::vector<Unknown>& from, std::vector<Unknown>& to) {
        for (auto u : from) {
            if (u.end > begin && u.begin < end) {
                u.begin = std::max(u.begin, begin) - begin;
                u.end = std::min(u.end, end) - begin;
                to.push_back(std::move(u));
            }
        }
    };
    cut(unknowns, out.unknowns);
    cut(kept, out.kept);
    return out;
}

const Unknown* Value::whole_unknown() const {
    return unknowns.size() == 1 && unknowns[0].begin == 0 && unknowns[0].end == text.size() && !text.empty()
               ? unknowns.data()
               : nullptr;
}

// ---------------------------------------------------------------------------- Shell

namespace {

bool is_positional_name(const std::string& name) {
    return name == "@" || name == "*" || name == "#" || (all_digits(name) && name != "0");
}

}  // namespace

const std::string* Shell::env_value(const std::string& name) const {
    if (args_ && is_positional_name(name)) {
        return nullptr;
    }
    const auto it = env_.find(resolve(name));
    return it == env_.end() ? nullptr : &it->second;
}

const Var* Shell::find(const std::string& name) const {
    if (args_ && is_positional_name(name)) {
        const auto p = positional_.find(name);
        return p == positional_.end() ? nullptr : &p->second;
    }
    const auto it = vars_.find(resolve(name));
    return it == vars_.end() ? nullptr : &it->second;
}

bool Shell::cleared(const std::string& name) const {
    if (args_ && is_positional_name(name)) {
        return positional_.count(name) == 0;  // past the call's arguments: empty
    }
    return cleared_.count(resolve(name)) > 0;
}

std::string Shell::resolve(const std::string& name) const {
    std::string n = name;
    for (int i = 0; i < 8; ++i) {
        const auto it = namerefs_.find(n);
        if (it == namerefs_.end()) {
            return n;
        }
        n = it->second;
    }
    return n;
}

void Shell::nameref(const std::string& name, const std::string& target) {
    if (!inactive) {
        namerefs_[name] = target;
    }
}

void Shell::integer(const std::string& name, bool on) {
    if (inactive) {
        return;
    }
    if (on) {
        integers_.insert(resolve(name));
    } else {
        integers_.erase(resolve(name));
    }
}

void Shell::make_readonly(const std::string& name, int line) {
    if (!inactive) {
        readonly_.emplace(resolve(name), line);
    }
}

std::optional<std::vector<Value>> Shell::set_args(std::optional<std::vector<Value>> args) {
    auto previous = std::move(args_);
    args_ = std::move(args);
    positional_.clear();
    if (args_) {
        Var all;
        all.array = true;
        for (std::size_t i = 0; i < args_->size(); ++i) {
            Var one;
            one.elems.push_back((*args_)[i]);
            positional_[std::to_string(i + 1)] = std::move(one);
            all.elems.push_back((*args_)[i]);
        }
        positional_["@"] = all;
        positional_["*"] = std::move(all);
        Var count;
        count.elems.emplace_back();
        count.elems.back().append_text(std::to_string(args_->size()), 0);
        positional_["#"] = std::move(count);
    }
    return previous;
}

void Shell::make_local(const std::string& name, int line) {
    if (inactive || frames_.empty() || frames_.back().count(name) > 0) {
        return;
    }
    frames_.back()[name] = saved(name, line);
}

void Shell::pop_frame() {
    for (const auto& [name, v] : frames_.back()) {
        restore(name, v);
    }
    frames_.pop_back();
}

namespace {

bool same_marks(const std::vector<Unknown>& a, const std::vector<Unknown>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Unknown& x, const Unknown& y) {
        return x.begin == y.begin && x.end == y.end && x.expr == y.expr && x.refusal == y.refusal && x.split == y.split;
    });
}

bool same_var(const Var& a, const Var& b) {
    return a.array == b.array &&
           std::equal(a.elems.begin(), a.elems.end(), b.elems.begin(), b.elems.end(), [](const Value& x, const Value& y) {
               return x.text == y.text && same_marks(x.unknowns, y.unknowns) && same_marks(x.kept, y.kept);
           });
}

}  // namespace

Shell::State Shell::state(int line) {
    for (const auto& [name, v] : vars_) {
        for (const auto& e : v.elems) {
            charge(e.text.size() + name.size(), line);
        }
    }
    return State{vars_, cleared_};
}

void Shell::merge(const std::vector<State>& ends, const std::string& reason, const std::string& refusal, int line) {
    std::set<std::string> names;
    for (const auto& e : ends) {
        for (const auto& [name, v] : e.vars) {
            names.insert(name);
        }
        names.insert(e.cleared.begin(), e.cleared.end());
    }
    State out = ends.front();
    for (const auto& name : names) {
        bool alike = true;
        const auto first = ends.front().vars.find(name);
        const bool first_cleared = ends.front().cleared.count(name) > 0;
        for (const auto& e : ends) {
            const auto it = e.vars.find(name);
            const bool has = it != e.vars.end();
            alike = alike && has == (first != ends.front().vars.end()) && (e.cleared.count(name) > 0) == first_cleared &&
                    (!has || same_var(it->second, first->second));
        }
        if (alike) {
            continue;
        }
        Var v;
        v.line = line;
        Value u;
        u.append_unknown("$" + name, line, "$" + name + " " + reason, "", "$" + name + " " + refusal);
        v.elems.push_back(std::move(u));
        out.cleared.erase(name);
        out.vars[name] = std::move(v);
    }
    set_state(std::move(out));
}

std::vector<std::string> Shell::merge_assumed(const std::vector<State>& ends, std::size_t chosen, const std::string& refusal,
                                              int line) {
    std::set<std::string> names;
    for (const auto& e : ends) {
        for (const auto& [name, v] : e.vars) {
            names.insert(name);
        }
        names.insert(e.cleared.begin(), e.cleared.end());
    }
    State out = ends[chosen];
    std::vector<std::string> differ;
    for (const auto& name : names) {
        const auto mine = out.vars.find(name);
        const bool cleared = out.cleared.count(name) > 0;
        const bool alike = std::all_of(ends.begin(), ends.end(), [&](const State& e) {
            const auto it = e.vars.find(name);
            return (it != e.vars.end()) == (mine != out.vars.end()) && (e.cleared.count(name) > 0) == cleared &&
                   (it == e.vars.end() || same_var(it->second, mine->second));
        });
        if (alike) {
            continue;
        }
        differ.push_back(name);
        const bool markable = mine != out.vars.end() && !mine->second.elems.empty() &&
                              std::all_of(mine->second.elems.begin(), mine->second.elems.end(),
                                          [](const Value& e) { return !e.text.empty(); });
        if (markable) {
            for (auto& e : mine->second.elems) {
                Unknown k;
                k.end = e.text.size();
                k.refusal = "$" + name + " " + refusal;
                k.line = line;
                e.kept.push_back(std::move(k));
            }
            continue;
        }
        Var v;  // no value to mark (unset, or empty, in the chosen branch): not known
        v.line = line;
        Value u;
        u.append_unknown("$" + name, line, "$" + name + " depends on which branch of the block on line " +
                                               std::to_string(line) + " bash runs",
                         "", "$" + name + " " + refusal);
        v.elems.push_back(std::move(u));
        out.cleared.erase(name);
        out.vars[name] = std::move(v);
    }
    set_state(std::move(out));
    return differ;
}

void Shell::unset(const std::string& given) {
    const std::string name = resolve(given);
    if (inactive || pinned(name)) {
        return;
    }
    vars_.erase(name);
    cleared_.insert(name);
}

namespace {

// A `declare -i` variable's new value: the arithmetic of what is assigned (added to the old
// value for +=), or not known.
Var integer_assignment(const Shell& sh, const std::string& name, const Var& v, bool append, const Var* old) {
    Var out;
    out.line = v.line;
    out.elems.emplace_back();
    std::string why = "its value is not known";
    bool known = false;
    long long result = 0;
    if (!v.array && v.elems.size() == 1 && v.elems.front().unknowns.empty() && v.elems.front().kept.empty()) {
        const ArithResult r = arithmetic_value(v.elems.front().text, sh, v.line);
        why = r.value && !r.assigned.empty() ? "its value assigns, which plan-layout does not follow" : r.why;
        known = r.value.has_value() && r.assigned.empty();
        result = r.value.value_or(0);
        if (known && append && old != nullptr && !old->elems.empty()) {
            const Value& o = old->elems.front();
            const std::string digits = o.text.substr(o.text.rfind('-', 0) == 0 ? 1 : 0);
            known = o.unknowns.empty() && all_digits(digits) && digits.size() < 19;
            why = known ? why : "its value before += is not known";
            result = known ? static_cast<long long>(static_cast<unsigned long long>(std::stoll(o.text)) +
                                                    static_cast<unsigned long long>(result))
                           : 0;
        }
    }
    if (!known) {
        const std::string reason = "is an integer (declare -i), and the arithmetic of its assignment on line " +
                                   std::to_string(v.line) + " is not evaluated: " + why;
        out.elems.back().append_unknown("$" + name, v.line, "$" + name + " " + reason, "", "$" + name + " (" + reason + ")");
        return out;
    }
    out.elems.back().append_text(std::to_string(result), v.line);
    return out;
}

}  // namespace

void Shell::assign(const std::string& given, Var v, bool append) {
    const std::string name = resolve(given);
    if (inactive || pinned(name)) {
        return;
    }
    if (const auto ro = readonly_.find(name); ro != readonly_.end()) {
        throw input_error(where(v.line), "$" + name + " is readonly (since line " + std::to_string(ro->second) +
                                             "): bash refuses this assignment and skips the rest of the command line, "
                                             "which plan-layout does not follow",
                          "remove the assignment or the readonly");
    }
    if (integers_.count(name) > 0) {
        const auto cur = vars_.find(name);
        v = integer_assignment(*this, name, v, append, cur == vars_.end() ? nullptr : &cur->second);
        append = false;
    }
    cleared_.erase(name);
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

std::optional<Var> Shell::saved(const std::string& given, int line) {
    const std::string name = resolve(given);
    const Var* v = find(name);
    if (v == nullptr) {
        return std::nullopt;
    }
    for (const auto& e : v->elems) {
        charge(e.text.size(), line);  // a copy, kept while the command's words are read
    }
    return *v;
}

void Shell::restore(const std::string& given, const std::optional<Var>& v) {
    const std::string name = resolve(given);
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
    for (const auto& piece : pieces) {
        if (piece.new_word) {
            if (split) {
                flush();
            } else {
                cur.append_char(' ', cur.lines.empty() ? line : cur.lines.back());
            }
        }
        // Where the words are made, each unknown part learns its quoting there (the job writes
        // it in the same context) and whether bash split it.
        Piece marked = piece;
        if (split) {
            for (auto* list : {&marked.value.unknowns, &marked.value.kept}) {
                for (auto& u : *list) {
                    u.quoted = !piece.split;
                    u.split = u.split || piece.split;
                }
            }
        }
        const Piece& p = marked;
        if (!split || !p.split) {
            cur.append(p.value);
            cur.held = true;
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
    const std::size_t word_start = pos_;
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
            out.back().value.append_unknown(src_.text.substr(pos_, end - pos_), line(), "a command substitution `...` is not run",
                                            "", "a command substitution `...`");
            pos_ = end;
        } else {
            literal(c, line(), stop == Stop::Brace && (is_blank(c) || c == '\n'));
            if (const char* what = stop == Stop::Meta ? expansion_not_read(word_start) : nullptr) {
                Unknown mark;
                mark.end = out.back().value.text.size();
                mark.begin = mark.end - 1;
                mark.refusal = what;
                mark.line = line();
                out.back().value.kept.push_back(std::move(mark));
            }
            advance();
        }
    }
    return out;
}

// An unquoted character at pos_ that bash expands and this reader leaves as written: `~` at a
// word's start or after `=` or `:` (tilde expansion), `{` of a brace expansion ({a,b}, {1..3}).
const char* Lexer::expansion_not_read(std::size_t word_start) const {
    const char c = peek();
    if (c == '~' && (pos_ == word_start || is_one_of_text(src_.text[pos_ - 1], "=:"))) {
        return "~ (tilde expansion, which plan-layout does not do)";
    }
    if (c != '{') {
        return nullptr;
    }
    bool comma = false;
    for (std::size_t i = pos_ + 1; i < src_.text.size(); ++i) {
        const char d = src_.text[i];
        if (is_blank(d) || is_meta(d) || d == '\'' || d == '"' || d == '{' || d == '$' || d == '\\') {
            return nullptr;
        }
        comma = comma || d == ',' || (d == '.' && i + 1 < src_.text.size() && src_.text[i + 1] == '.');
        if (d == '}') {
            return comma ? "{...} (brace expansion, which plan-layout does not do)" : nullptr;
        }
    }
    return nullptr;
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
            out.back().value.append_unknown(src_.text.substr(pos_, end - pos_), line(), "a command substitution `...` is not run",
                                            "", "a command substitution `...`");
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
    // bash's escapes in $'...' (ansicstr): a NUL byte ends the string (bash keeps what comes
    // before it); \u and \U past ASCII depend on the locale and are refused.
    static constexpr const char* kFrom = "abeEfnrtv\\'\"?";
    static constexpr const char* kTo = "\a\b\x1b\x1b\f\n\r\t\v\\'\"?";
    bool ended = false;  // a NUL came: the rest of the quote is dropped
    const auto put = [&](unsigned value, int at) {
        ended = ended || (value & 0xFFU) == 0;
        if (!ended) {
            out.back().value.append_char(static_cast<char>(value & 0xFFU), at);
        }
    };
    const auto digits = [&](std::size_t from, std::size_t most, int base, unsigned& value) {
        std::size_t n = 0;
        value = 0;
        while (n < most && from + n < src_.text.size()) {
            const char d = src_.text[from + n];
            int v = -1;
            if (d >= '0' && d <= '9') {
                v = d - '0';
            } else if (base == 16 && d >= 'a' && d <= 'f') {
                v = d - 'a' + 10;
            } else if (base == 16 && d >= 'A' && d <= 'F') {
                v = d - 'A' + 10;
            }
            if (v < 0 || v >= base) {
                break;
            }
            value = value * static_cast<unsigned>(base) + static_cast<unsigned>(v);
            ++n;
        }
        return n;
    };
    while (true) {
        if (at_end()) {
            unterminated(start, "$'...' quote", "close it with ' as the shell would need");
        }
        const char c = peek();
        const int at = line();
        if (c == '\'') {
            advance();
            return;
        }
        if (c != '\\' || pos_ + 1 >= src_.text.size()) {
            put(static_cast<unsigned char>(c), at);
            advance();
            continue;
        }
        const char e = peek(1);
        unsigned value = 0;
        if (const char* hit = e != '\0' ? std::strchr(kFrom, e) : nullptr) {
            put(static_cast<unsigned char>(kTo[hit - kFrom]), at);
            advance(2);
        } else if (e >= '0' && e <= '7') {
            const std::size_t n = digits(pos_ + 1, 3, 8, value);
            put(value, at);
            advance(1 + n);
        } else if (e == 'x') {
            const std::size_t n = digits(pos_ + 2, 2, 16, value);
            if (n == 0) {
                put('\\', at);
                put('x', at);
            } else {
                put(value, at);
            }
            advance(2 + n);
        } else if (e == 'u' || e == 'U') {
            const std::size_t n = digits(pos_ + 2, e == 'u' ? 4 : 8, 16, value);
            if (n == 0) {
                put('\\', at);
                put(static_cast<unsigned char>(e), at);
            } else if (value >= 0x80) {
                throw input_error(sh_.where(at),
                                  "$'\\" + std::string(1, e) + src_.text.substr(pos_ + 2, n) +
                                      "' names a character past ASCII, which bash writes in the locale's encoding",
                                  "write the character itself (UTF-8) in the script");
            } else {
                put(value, at);
            }
            advance(2 + n);
        } else if (e == 'c' && pos_ + 2 < src_.text.size() && peek(2) != '\'') {
            // \cX: control-X (toupper(X) & 0x1f; \c? is DEL; \c\\ is control-backslash)
            std::size_t used = 3;
            const char x = peek(2);
            if (x == '\\' && peek(3) == '\\') {
                used = 4;
            }
            put(x == '?' ? 0x7FU : static_cast<unsigned>(std::toupper(static_cast<unsigned char>(x))) & 0x1FU, at);
            advance(used);
        } else {
            put('\\', at);
            put(static_cast<unsigned char>(e), at);
            advance(2);
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
        out.back().value.append_unknown(src_.text.substr(start, end - start), at, "a command substitution $(...) is not run", "",
                                        "a command substitution $(...)");
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
