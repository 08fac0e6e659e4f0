// Ingest (private): parameter expansion (${...}, $X) and arithmetic ($((...))) for the
// launch-script reader.
// Over 500 lines: every ${...} form, with what a job writes for each unknown one, and arithmetic.
#include <cctype>
#include <climits>
#include <cstring>

#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"
#include "shell_words.hpp"

namespace planlayout::shell {
namespace {

// The variable as a reference on `line` sees it: an --env value (its bytes on that line), the
// script's variable, or nullptr when unset.
const Var* lookup(const Shell& sh, const std::string& name, int line, Var& storage) {
    if (const std::string* e = sh.env_value(name)) {
        storage = Var{};
        Value v;
        v.append_text(*e, line);
        storage.elems.push_back(std::move(v));
        storage.line = line;
        return &storage;
    }
    return sh.find(name);
}

// Element `index` ("" = the first) of a variable; empty past its end.
const Value& element(const Var& var, const std::string& index) {
    static const Value kEmpty;
    std::size_t n = 0;
    if (!index.empty()) {
        if (index.size() > 9) {
            return kEmpty;
        }
        n = static_cast<std::size_t>(std::stoul(index));
    }
    return n < var.elems.size() ? var.elems[n] : kEmpty;
}

std::string via(const std::string& name, const Var& var, const Value& v) {
    const Unknown* u = v.whole_unknown();
    if (u != nullptr && v.text == "$" + name) {
        return u->reason;  // the variable itself is what is not known (an if's branches differ)
    }
    return "$" + name + " is set on line " + std::to_string(var.line) + " to " + v.text + ", and " +
           (u != nullptr ? u->reason : v.unknowns.front().reason);
}

// An unknown part: `expr` is what the job writes for it; when empty, `refusal` names the
// construct no expansion of the job can stand for.
void push_unknown(std::vector<Piece>& out, Shell& sh, const std::string& raw, int line, const std::string& reason,
                  bool quoted, const std::string& expr, const std::string& refusal) {
    sh.charge(raw.size() + reason.size(), line);
    out.push_back(Piece{Value{}, !quoted, false});
    out.back().value.append_unknown(raw, line, reason, expr, expr.empty() && refusal.empty() ? raw : refusal);
}

// What the job writes for a reference to a parameter no value is known for: the same
// parameter, unset expanding to nothing as in bash without `set -u` (the job runs with it);
// "" with `refusal` set when the job's value would differ.
std::string job_expr(const std::string& name, const std::string& index, const std::string& raw, std::string& refusal) {
    if (!index.empty()) {
        refusal = raw + " (an element of an array the script does not set)";
        return "";
    }
    if (is_name_start(name[0]) || (all_digits(name) && name != "0")) {
        return "${" + name + "-}";
    }
    if (name == "@" || name == "*" || name == "#") {
        return "$" + name;
    }
    refusal = raw + " (" + unset_reason(name) + ")";
    return "";
}

// Text a default word may hold to be written back unchanged inside ${X:-...} in either quoting.
bool plain_default(const Value& w) {
    if (!w.unknowns.empty() || !w.kept.empty()) {
        return false;
    }
    for (const char c : w.text) {
        if (std::isalnum(static_cast<unsigned char>(c)) == 0 && std::strchr("/._,:=@+%-", c) == nullptr) {
            return false;
        }
    }
    return true;
}

// Non-empty when the elements of an array up to `index` ("": all when `all`, else none) hold an
// unknown value the array literal split: bash made as many elements as its value has words.
std::string split_before(const Var& var, const std::string& index, bool all = false) {
    if (!var.array || (index.empty() && !all)) {
        return "";
    }
    std::size_t last = var.elems.size();
    if (!index.empty()) {
        last = index.size() > 9 ? var.elems.size() : std::min(var.elems.size(), static_cast<std::size_t>(std::stoul(index)) + 1);
    }
    for (std::size_t i = 0; i < last; ++i) {
        for (const auto& u : var.elems[i].unknowns) {
            if (u.split) {
                return "the array's elements depend on how " + var.elems[i].text.substr(u.begin, u.end - u.begin) +
                       " splits, which is not known";
            }
        }
    }
    return "";
}

// A scalar's value, or, when the whole value is unknown (X=$1), the reference as written.
void push_scalar(std::vector<Piece>& out, Shell& sh, const std::string& name, const Var& var, Value v, bool quoted,
                 const std::string& raw, int line) {
    if (const Unknown* u = v.whole_unknown()) {
        const Unknown inner = *u;
        push_unknown(out, sh, raw, line, via(name, var, v), quoted, inner.expr, inner.refusal);
        out.back().value.unknowns.back().split = inner.split;
        return;
    }
    sh.charge(v.text.size(), line);
    out.push_back(Piece{std::move(v), !quoted, false});
}

}  // namespace

// ---------------------------------------------------------------------------- the lexer's expansions

void Lexer::variable(std::vector<Piece>& out, const std::string& name, const std::string& index, bool quoted,
                     const std::string& raw, int line) {
    if ((name == "@" || name == "*") && index.empty() && sh_.in_function()) {
        variable(out, name, name, quoted, raw, line);  // a function's "$@": one word per argument, as "${A[@]}"
        return;
    }
    Var storage;
    const Var* var = lookup(sh_, name, line, storage);
    const bool all = index == "@" || index == "*";
    if (var == nullptr && sh_.cleared(name)) {
        if (quoted && index != "@") {
            out.push_back(Piece{});  // "$X" or "${X[*]}" of an unset X: one empty word
        }
        vanished_ = vanished_ || (index == "@" && quoted);
        return;
    }
    if (var == nullptr) {
        if (name == sh_.assigning && quoted && index != "@") {
            out.push_back(Piece{});  // X=("${X[*]}" ...) while X is unset: one empty word
        }
        if (name != sh_.assigning) {
            std::string refusal;
            std::string expr = job_expr(name, index, raw, refusal);
            if (sh_.positional_line > 0 && !expr.empty() && !is_name_start(name[0])) {
                expr.clear();
                refusal = raw + " (the script replaced its arguments with set or shift on line " +
                          std::to_string(sh_.positional_line) + ")";
            }
            push_unknown(out, sh_, raw, line, unset_reason(name), quoted, expr, refusal);
        }
        vanished_ = vanished_ || (index == "@" && quoted && name == sh_.assigning);
        return;
    }
    vanished_ = vanished_ || (index == "@" && quoted && var->elems.empty());
    if (!all) {
        if (const std::string why = split_before(*var, index); !why.empty()) {
            push_unknown(out, sh_, raw, line, why, quoted, "", raw + " (" + why + ")");
            return;
        }
        push_scalar(out, sh_, name, *var, element(*var, index), quoted, raw, line);
        return;
    }
    std::size_t bytes = 0;
    for (const auto& e : var->elems) {
        bytes += e.text.size() + 1;
    }
    sh_.charge(bytes, line);
    if (quoted && index == "*") {
        out.push_back(Piece{});
        for (std::size_t i = 0; i < var->elems.size(); ++i) {
            if (i > 0) {
                out.back().value.append_char(' ', line);
            }
            out.back().value.append(var->elems[i]);
        }
        return;
    }
    for (std::size_t i = 0; i < var->elems.size(); ++i) {
        out.push_back(Piece{var->elems[i], !quoted, i > 0});
    }
}

void Lexer::length(std::vector<Piece>& out, const std::string& name, const std::string& index, bool quoted,
                   const std::string& raw, int line) {
    Var storage;
    const Var* var = lookup(sh_, name, line, storage);
    if (var == nullptr && !sh_.cleared(name)) {
        push_unknown(out, sh_, raw, line, unset_reason(name), quoted, "", raw + " (the length of a value not known)");
        return;
    }
    const Var none;
    var = var != nullptr ? var : &none;
    std::size_t n = var->elems.size();
    if (const std::string why = split_before(*var, index == "@" || index == "*" ? "" : index, true); !why.empty()) {
        push_unknown(out, sh_, raw, line, why, quoted, "", raw + " (" + why + ")");
        return;
    }
    if (index != "@" && index != "*") {
        const Value& v = element(*var, index);
        if (!v.unknowns.empty() || !v.kept.empty()) {
            push_unknown(out, sh_, raw, line, v.unknowns.empty() ? "its value depends on the environment" : via(name, *var, v),
                         quoted, "", raw + " (the length of a value not known)");
            return;
        }
        n = v.text.size();
    }
    out.push_back(Piece{Value{}, !quoted, false});
    out.back().value.append_text(std::to_string(n), line);
}

void Lexer::operation(std::vector<Piece>& out, const Operation& op, std::vector<Piece> word, bool quoted) {
    Var storage;
    const Var* var = lookup(sh_, op.name, op.line, storage);
    const Value* val = var != nullptr ? &element(*var, op.index) : nullptr;
    const bool colon = op.op.size() == 2;
    const char kind = op.op.back();
    if (val != nullptr && colon && !val->unknowns.empty()) {
        push_unknown(out, sh_, op.raw, op.line, via(op.name, *var, *val), quoted, "",
                     op.raw + " (a test of a value not known)");
        return;
    }
    const auto use_word = [&] {
        for (auto& p : word) {
            p.split = p.split && !quoted;
            sh_.charge(p.value.text.size(), op.line);
            out.push_back(std::move(p));
        }
    };
    if (val == nullptr && !sh_.cleared(op.name)) {
        // A variable the script does not set: its value is the environment's. The value read
        // is the default (as when it is unset); the job writes the expansion itself, so its
        // environment decides as the user's script's would.
        const Value w = fields_of(word, false, op.line).front();
        const bool plain = plain_default(w) && op.index.empty();
        const std::string expr = plain ? "${" + op.name + (colon ? ":" : "") + (kind == '=' ? '-' : kind) + w.text + "}" : "";
        const std::string refusal =
            op.raw + (kind == '?' ? " (it stops the script when $" + op.name + " is unset)"
                                  : " (of $" + op.name + ", which the script does not set, with a word plan-layout cannot write back)");
        if (kind == '+' || kind == '?' || w.text.empty() || !plain) {
            if (kind == '+' && plain && w.text.empty()) {
                return;  // ${X:+} is nothing
            }
            if ((kind == '-' || kind == '=') && !plain) {
                // the default is read as before; the job cannot write it back
                std::size_t from = out.size();
                use_word();
                for (std::size_t i = from; i < out.size(); ++i) {
                    Value& v = out[i].value;
                    if (!v.text.empty() && v.kept.empty()) {
                        Unknown k;
                        k.end = v.text.size();
                        k.refusal = refusal;
                        k.line = op.line;
                        v.kept.push_back(std::move(k));
                    }
                }
                if (kind == '=' && op.index.empty() && is_name_start(op.name[0])) {
                    sh_.assign(op.name, Var{{w}, false, op.line}, false);
                }
                return;
            }
            push_unknown(out, sh_, op.raw, op.line, unset_reason(op.name), quoted, kind == '?' ? "" : expr, refusal);
            if (kind == '=' && op.index.empty() && is_name_start(op.name[0])) {
                sh_.assign(op.name, Var{{out.back().value}, false, op.line}, false);
            }
            return;
        }
        Value v = w;
        Unknown k;
        k.end = v.text.size();
        k.expr = expr;
        k.line = op.line;
        v.kept.push_back(std::move(k));
        sh_.charge(v.text.size(), op.line);
        if (kind == '=' && is_name_start(op.name[0])) {
            sh_.assign(op.name, Var{{v}, false, op.line}, false);
        }
        out.push_back(Piece{std::move(v), !quoted, false});
        return;
    }
    const bool use_value = val != nullptr && !(colon && val->text.empty());
    if (kind == '+') {
        if (use_value) {
            use_word();
        }
    } else if (use_value) {
        push_scalar(out, sh_, op.name, *var, *val, quoted, op.raw, op.line);
    } else if (kind == '?') {
        push_unknown(out, sh_, op.raw, op.line, val != nullptr ? "$" + op.name + " is empty" : unset_reason(op.name), quoted,
                     "", op.raw + " (it stops the script)");
    } else {
        if (kind == '=' && op.index.empty() && is_name_start(op.name[0])) {
            sh_.assign(op.name, Var{{fields_of(word, false, op.line).front()}, false, op.line}, false);
        }
        use_word();
    }
}

std::size_t Lexer::matching_brace(std::size_t start) const {
    int depth = 1;
    std::size_t i = start + 2;
    while (i < src_.text.size()) {
        const char c = src_.text[i];
        if (c == '\\') {
            i += 2;
        } else if (c == '\'' || c == '"') {
            const std::size_t close = src_.text.find(c, i + 1);
            i = close == std::string::npos ? src_.text.size() : close + 1;
        } else if (c == '$' && i + 1 < src_.text.size() && src_.text[i + 1] == '{') {
            ++depth;
            i += 2;
        } else if (c == '}' && --depth == 0) {
            return i + 1;
        } else {
            ++i;
        }
    }
    unterminated(start, "${", "close it with } as the shell would need");
}

void Lexer::braced(std::vector<Piece>& out, bool quoted, std::size_t start) {
    const int at = line_at(start);
    sh_.enter(at);
    struct Leave {
        Shell& sh;
        ~Leave() { sh.leave(); }
    } leave{sh_};
    const auto unsupported = [&] {
        const std::size_t end = matching_brace(start);
        const std::string raw = src_.text.substr(start, end - start);
        push_unknown(out, sh_, raw, at, "plan-layout does not evaluate this form of ${...}", quoted, "",
                     raw + " (plan-layout does not evaluate this form of ${...})");
        pos_ = end;
    };
    pos_ = start + 2;
    const bool is_length = peek() == '#' && peek(1) != '}';
    pos_ += is_length ? 1 : 0;
    Operation op;
    op.line = at;
    if (is_name_start(peek())) {
        while (is_name_char(peek())) {
            op.name += peek();
            advance();
        }
    } else if (is_digit(peek())) {
        while (is_digit(peek())) {
            op.name += peek();
            advance();
        }
    } else if (peek() != '\0' && std::strchr("@*#?$!-", peek()) != nullptr) {
        op.name = std::string(1, peek());
        advance();
    } else {
        unsupported();
        return;
    }
    if (peek() == '[') {
        const std::size_t close = src_.text.find(']', pos_);
        op.index = close == std::string::npos ? "?" : src_.text.substr(pos_ + 1, close - pos_ - 1);
        if (op.index != "@" && op.index != "*" && !all_digits(op.index)) {
            unsupported();
            return;
        }
        pos_ = close + 1;
    }
    if (peek() == '}') {
        advance();
        const std::string raw = src_.text.substr(start, pos_ - start);
        if (is_length) {
            length(out, op.name, op.index, quoted, raw, at);
        } else {
            variable(out, op.name, op.index, quoted, raw, at);
        }
        return;
    }
    if (peek() == ':' && peek(1) != '\0' && std::strchr("-=+?", peek(1)) != nullptr) {
        op.op = std::string{':', peek(1)};
    } else if (peek() != '\0' && std::strchr("-=+?", peek()) != nullptr) {
        op.op = std::string(1, peek());
    }
    if (op.op.empty() || is_length || op.index == "@" || op.index == "*") {
        unsupported();
        return;
    }
    advance(op.op.size());
    auto word = word_until(Stop::Brace);
    if (at_end()) {
        unterminated(start, "${", "close it with } as the shell would need");
    }
    advance();
    op.raw = src_.text.substr(start, pos_ - start);
    operation(out, op, std::move(word), quoted);
}

void Lexer::arithmetic(std::vector<Piece>& out, bool quoted, std::size_t start) {
    const int at = line_at(start);
    int depth = 0;
    std::size_t end = std::string::npos;
    std::size_t i = start + 3;
    for (; i < src_.text.size(); ++i) {
        const char c = src_.text[i];
        if (c == '(') {
            ++depth;
        } else if (c == ')' && depth > 0) {
            --depth;
        } else if (c == ')') {
            end = i + 1 < src_.text.size() && src_.text[i + 1] == ')' ? i + 2 : std::string::npos;
            break;
        }
    }
    if (end == std::string::npos) {
        if (i >= src_.text.size()) {
            unterminated(start, "$((", "close it with )) as the shell would need");
        }
        end = skip_substitution(start + 2, ')', "$(");  // $( (cmd) ... ): a command substitution
        push_unknown(out, sh_, src_.text.substr(start, end - start), at, "a command substitution $(...) is not run", quoted,
                     "", "a command substitution $(...)");
        pos_ = end;
        return;
    }
    const std::string raw = src_.text.substr(start, end - start);
    const ArithResult r = arithmetic_value(src_.text.substr(start + 3, end - start - 5), sh_, at);
    const std::string assumed = r.assumed;
    const auto v = r.value;
    pos_ = end;
    if (!v) {
        push_unknown(out, sh_, raw, at, "$((...)) is not evaluated: " + r.why, quoted, "", raw + " (" + r.why + ")");
        return;
    }
    for (const auto& [name, value] : r.assigned) {
        Var var;  // $((X=4)) assigns X, as bash does
        var.line = at;
        var.elems.emplace_back();
        var.elems.back().append_text(std::to_string(value), at);
        sh_.assign(name, std::move(var), false);
    }
    out.push_back(Piece{Value{}, !quoted, false});
    out.back().value.append_text(std::to_string(*v), at);
    if (!assumed.empty()) {
        Unknown k;  // read with the default; the job cannot redo the arithmetic over its environment
        k.end = out.back().value.text.size();
        k.refusal = raw + " (arithmetic over " + assumed + ", which the environment may set)";
        k.line = at;
        out.back().value.kept.push_back(std::move(k));
    }
}

}  // namespace planlayout::shell
