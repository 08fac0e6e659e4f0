// Ingest (private): bash's integer arithmetic for the launch-script reader ($((...)), let, ((...)),
// declare -i): every operator bash has, with its precedence, 64-bit wrap-around, constants in
// decimal, octal 0NN, hex 0xNN and BASE#DIGITS, variables holding integers or expressions, and
// assignments (= *= /= %= += -= <<= >>= &= ^= |=, ++ --) returned for the caller to apply.
// Over 500 lines on purpose: one precedence-climbing evaluator for bash's whole operator table,
// which reads best as one file.
#include <climits>
#include <cstdint>
#include <cstring>
#include <map>

#include "planlayout/limits.hpp"
#include "shell_words.hpp"

namespace planlayout::shell {
namespace {

using U = unsigned long long;

long long wrap(U v) {
    return static_cast<long long>(v);  // two's complement: bash's intmax_t arithmetic wraps
}

class ArithEval {
public:
    ArithEval(const std::string& s, const Shell& sh, int line, ArithResult& r, int depth)
        : s_(s), sh_(sh), line_(line), r_(r), depth_(depth) {}

    std::optional<long long> run() {
        blanks();
        if (i_ >= s_.size()) {
            return 0;  // an empty expression is 0
        }
        auto v = comma();
        blanks();
        if (v && i_ != s_.size()) {
            return fail("'" + s_.substr(i_) + "' is not an arithmetic operator or operand bash accepts here");
        }
        return v;
    }

private:
    std::optional<long long> fail(std::string why) {
        if (skip_ > 0) {
            return 0;  // in a branch bash does not evaluate (a ? b : c, a && b, a || b)
        }
        if (r_.why.empty()) {
            r_.why = std::move(why);
        }
        return std::nullopt;
    }

    void blanks() {
        while (i_ < s_.size() && std::strchr(" \t\r\n", s_[i_]) != nullptr) {
            ++i_;
        }
    }

    bool at(const char* op) const { return s_.compare(i_, std::strlen(op), op) == 0; }

    // The operator op here, not the start of a longer one (`<` of `<<`, `&` of `&&` or `&=`).
    bool take(const char* op, const char* not_followed_by = "=") {
        blanks();
        const std::size_t n = std::strlen(op);
        if (!at(op)) {
            return false;
        }
        const char next = i_ + n < s_.size() ? s_[i_ + n] : '\0';
        if (next != '\0' && std::strchr(not_followed_by, next) != nullptr) {
            return false;
        }
        i_ += n;
        return true;
    }

    std::optional<long long> comma() {
        auto v = assignment();
        while (v && take(",", "")) {
            v = assignment();
        }
        return v;
    }

    // NAME op= expr (right-associative), else a conditional expression.
    std::optional<long long> assignment() {
        blanks();
        const std::size_t start = i_;
        std::size_t p = i_;
        while (p < s_.size() && (is_name_char(s_[p]) && (p > i_ || is_name_start(s_[p])))) {
            ++p;
        }
        if (p > i_) {
            const std::string name = s_.substr(i_, p - i_);
            std::size_t q = p;
            while (q < s_.size() && (s_[q] == ' ' || s_[q] == '\t')) {
                ++q;
            }
            static const char* const kOps[] = {"<<=", ">>=", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "="};
            for (const char* op : kOps) {
                const std::size_t n = std::strlen(op);
                if (s_.compare(q, n, op) == 0 && !(n == 1 && q + 1 < s_.size() && s_[q + 1] == '=')) {
                    i_ = q + n;
                    auto rhs = assignment();
                    if (!rhs) {
                        return rhs;
                    }
                    long long v = *rhs;
                    if (n > 1) {
                        auto cur = variable(name);
                        if (!cur) {
                            return cur;
                        }
                        auto combined = binary(std::string(op, n - 1), *cur, *rhs);
                        if (!combined) {
                            return combined;
                        }
                        v = *combined;
                    }
                    store(name, v);
                    return v;
                }
            }
        }
        i_ = start;
        return conditional();
    }

    void store(const std::string& name, long long v) {
        if (skip_ > 0) {
            return;
        }
        local_[name] = v;
        r_.assigned.emplace_back(name, v);
    }

    std::optional<long long> conditional() {
        auto c = logical_or();
        if (!c || !take("?", "")) {
            return c;
        }
        const bool yes = *c != 0;
        skip_ += yes ? 0 : 1;
        auto a = comma();
        skip_ -= yes ? 0 : 1;
        if (!a || !take(":", "")) {
            return a ? fail("its ?: has no ':'") : a;
        }
        skip_ += yes ? 1 : 0;
        auto b = conditional();
        skip_ -= yes ? 1 : 0;
        if (!b) {
            return b;
        }
        return yes ? a : b;
    }

    std::optional<long long> logical_or() {
        auto a = logical_and();
        while (a && take("||", "")) {
            const bool done = *a != 0;
            skip_ += done ? 1 : 0;
            auto b = logical_and();
            skip_ -= done ? 1 : 0;
            if (!b) {
                return b;
            }
            a = done || *b != 0 ? 1 : 0;
        }
        return a;
    }

    std::optional<long long> logical_and() {
        auto a = level(0);
        while (a && take("&&", "")) {
            const bool done = *a == 0;
            skip_ += done ? 1 : 0;
            auto b = level(0);
            skip_ -= done ? 1 : 0;
            if (!b) {
                return b;
            }
            a = !done && *b != 0 ? 1 : 0;
        }
        return a;
    }

    // The binary levels from | down to * / %, loosest first; ** and the unary ones below.
    struct Level {
        const char* ops[4];
        const char* not_followed_by[4];
    };

    std::optional<long long> level(int n) {
        static const Level kLevels[] = {
            {{"|", nullptr, nullptr, nullptr}, {"|=", "", "", ""}},
            {{"^", nullptr, nullptr, nullptr}, {"=", "", "", ""}},
            {{"&", nullptr, nullptr, nullptr}, {"&=", "", "", ""}},
            {{"==", "!=", nullptr, nullptr}, {"", "", "", ""}},
            {{"<=", ">=", "<", ">"}, {"", "", "<=", ">="}},
            {{"<<", ">>", nullptr, nullptr}, {"=", "=", "", ""}},
            {{"+", "-", nullptr, nullptr}, {"+=", "-=", "", ""}},
            {{"*", "/", "%", nullptr}, {"*=", "=", "=", ""}},
        };
        constexpr int kCount = static_cast<int>(sizeof(kLevels) / sizeof(kLevels[0]));
        if (n == kCount) {
            return power();
        }
        auto a = level(n + 1);
        while (a) {
            const char* op = nullptr;
            for (int k = 0; k < 4 && kLevels[n].ops[k] != nullptr && op == nullptr; ++k) {
                if (take(kLevels[n].ops[k], kLevels[n].not_followed_by[k])) {
                    op = kLevels[n].ops[k];
                }
            }
            if (op == nullptr) {
                break;
            }
            auto b = level(n + 1);
            if (!b) {
                return b;
            }
            a = binary(op, *a, *b);
        }
        return a;
    }

    std::optional<long long> power() {
        auto a = unary();
        if (!a || !take("**", "=")) {
            return a;
        }
        auto b = power();  // right-associative
        if (!b) {
            return b;
        }
        return binary("**", *a, *b);
    }

    std::optional<long long> binary(const std::string& op, long long a, long long b) {
        const U ua = static_cast<U>(a);
        const U ub = static_cast<U>(b);
        if (op == "+") return wrap(ua + ub);
        if (op == "-") return wrap(ua - ub);
        if (op == "*") return wrap(ua * ub);
        if (op == "/" || op == "%") {
            if (b == 0) {
                return fail("it divides by zero (bash: division by 0)");
            }
            if (a == LLONG_MIN && b == -1) {
                return op == "/" ? LLONG_MIN : 0;  // as bash: no trap
            }
            return op == "/" ? a / b : a % b;
        }
        if (op == "<<" || op == ">>") {
            if (b < 0 || b > 63) {
                return fail("a shift by " + std::to_string(b) + " is not evaluated (plan-layout shifts by 0 to 63)");
            }
            return op == "<<" ? wrap(ua << static_cast<unsigned>(b)) : a >> b;
        }
        if (op == "**") {
            if (b < 0) {
                return fail("its exponent is less than 0 (bash: exponent less than 0)");
            }
            U r = 1;
            U base = ua;
            for (U e = ub; e > 0; e >>= 1U) {
                r = (e & 1U) != 0 ? r * base : r;
                base *= base;
            }
            return wrap(r);
        }
        if (op == "&") return a & b;
        if (op == "|") return a | b;
        if (op == "^") return a ^ b;
        if (op == "==") return a == b ? 1 : 0;
        if (op == "!=") return a != b ? 1 : 0;
        if (op == "<") return a < b ? 1 : 0;
        if (op == ">") return a > b ? 1 : 0;
        if (op == "<=") return a <= b ? 1 : 0;
        return a >= b ? 1 : 0;  // ">="
    }

    std::optional<long long> unary() {
        blanks();
        std::optional<long long> v;
        if (++nesting_ > kMaxLaunchNesting) {
            v = fail("it nests too deeply");
        } else if (at("++") || at("--")) {
            const bool inc = s_[i_] == '+';
            i_ += 2;
            blanks();
            const std::string name = name_here();
            if (name.empty()) {
                v = fail(std::string(inc ? "++" : "--") + " before something other than a variable name");
            } else if (auto cur = variable(name)) {
                v = wrap(static_cast<U>(*cur) + (inc ? 1ULL : ~0ULL));
                store(name, *v);
            }
        } else if (take("!", "=")) {
            v = unary();
            v = v ? std::optional<long long>(*v == 0 ? 1 : 0) : v;
        } else if (take("~", "")) {
            v = unary();
            v = v ? std::optional<long long>(~*v) : v;
        } else if (take("-", "") || take("+", "")) {
            const bool minus = s_[i_ - 1] == '-';
            v = unary();
            v = v && minus ? std::optional<long long>(wrap(0ULL - static_cast<U>(*v))) : v;
        } else {
            v = postfix();
        }
        --nesting_;
        return v;
    }

    std::string name_here() {
        const std::size_t b = i_;
        while (i_ < s_.size() && is_name_char(s_[i_]) && (i_ > b || is_name_start(s_[i_]))) {
            ++i_;
        }
        return s_.substr(b, i_ - b);
    }

    std::optional<long long> postfix() {
        blanks();
        const std::size_t b = i_;
        if (is_name_start(b < s_.size() ? s_[b] : '\0')) {
            const std::string name = name_here();
            std::size_t q = i_;
            while (q < s_.size() && (s_[q] == ' ' || s_[q] == '\t')) {
                ++q;
            }
            if (s_.compare(q, 2, "++") == 0 || s_.compare(q, 2, "--") == 0) {
                const bool inc = s_[q] == '+';
                i_ = q + 2;
                auto cur = variable(name);
                if (cur) {
                    store(name, wrap(static_cast<U>(*cur) + (inc ? 1ULL : ~0ULL)));
                }
                return cur;
            }
            if (i_ < s_.size() && s_[i_] == '[') {
                return fail("an array element " + name + "[...] is not evaluated in arithmetic");
            }
            return variable(name);
        }
        return primary();
    }

    std::optional<long long> primary() {
        const char c = i_ < s_.size() ? s_[i_] : '\0';
        if (c == '(') {
            ++i_;
            auto v = comma();
            blanks();
            if (v && (i_ >= s_.size() || s_[i_] != ')')) {
                return fail("its parentheses do not match");
            }
            ++i_;
            return v;
        }
        if (is_digit(c)) {
            const std::size_t b = i_;
            while (i_ < s_.size() && (is_name_char(s_[i_]) || s_[i_] == '#' || s_[i_] == '@')) {
                ++i_;
            }
            return constant(s_.substr(b, i_ - b), "'" + s_.substr(b, i_ - b) + "'");
        }
        if (c == '$') {
            std::string name;
            if (i_ + 1 < s_.size() && s_[i_ + 1] == '{') {
                const std::size_t close = s_.find('}', i_);
                name = close == std::string::npos ? "" : s_.substr(i_ + 2, close - i_ - 2);
                i_ = close == std::string::npos ? s_.size() : close + 1;
            } else {
                ++i_;
                const std::size_t b = i_;
                while (i_ < s_.size() && (is_name_char(s_[i_]) || (b == i_ && is_digit(s_[i_])))) {
                    ++i_;
                }
                name = s_.substr(b, i_ - b);
            }
            if (!name.empty() && (is_name_start(name[0]) || all_digits(name))) {
                return variable(name);
            }
        }
        return fail("'" + s_.substr(std::min(i_, s_.size())) + "' is not an operand bash's arithmetic takes");
    }

    // A constant as bash reads it: decimal, 0NN octal, 0xNN hex, BASE#DIGITS (base 2 to 64).
    std::optional<long long> constant(const std::string& t, const std::string& what) {
        unsigned base = 10;
        std::string digits = t;
        if (const auto hash = t.find('#'); hash != std::string::npos) {
            const std::string b = t.substr(0, hash);
            if (!all_digits(b) || b.size() > 2 || std::stoi(b) < 2 || std::stoi(b) > 64) {
                return fail(what + " has an invalid arithmetic base (bash takes 2 to 64)");
            }
            base = static_cast<unsigned>(std::stoi(b));
            digits = t.substr(hash + 1);
        } else if (t.size() > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
            base = 16;
            digits = t.substr(2);
        } else if (t.size() > 1 && t[0] == '0') {
            base = 8;
            digits = t.substr(1);
        }
        if (digits.empty() && base != 16) {
            return fail(what + " is not a number bash reads");
        }
        U v = 0;
        for (const char d : digits) {
            unsigned x = 99;
            if (d >= '0' && d <= '9') {
                x = static_cast<unsigned>(d - '0');
            } else if (d >= 'a' && d <= 'z') {
                x = static_cast<unsigned>(d - 'a') + 10;
            } else if (d >= 'A' && d <= 'Z') {
                x = static_cast<unsigned>(d - 'A') + (base <= 36 ? 10U : 36U);
            } else if (d == '@') {
                x = 62;
            } else if (d == '_') {
                x = 63;
            }
            if (x >= base) {
                return fail(what + " has a digit too great for its base " + std::to_string(base) +
                            " (bash: value too great for base)");
            }
            v = v * base + x;  // wraps, as bash's
        }
        return wrap(v);
    }

    // A variable's value: an integer, or an expression evaluated in turn (as bash does); an empty
    // or unset (by the script) variable is 0.
    std::optional<long long> variable(const std::string& name) {
        if (skip_ > 0) {
            return 0;
        }
        if (const auto it = local_.find(name); it != local_.end()) {
            return it->second;
        }
        std::string text;
        if (const std::string* e = sh_.env_value(name)) {
            text = *e;
        } else if (const Var* var = sh_.find(name)) {
            if (var->elems.empty()) {
                return 0;
            }
            const Value& v = var->elems.front();
            if (!v.unknowns.empty()) {
                const Unknown* u = v.whole_unknown();
                return fail(u != nullptr && v.text == "$" + name ? u->reason
                                                                 : "$" + name + " is set on line " + std::to_string(var->line) +
                                                                       " to " + v.text + ", and " + v.unknowns.front().reason);
            }
            if (!v.kept.empty() && r_.assumed.empty()) {
                r_.assumed = "$" + name + " (" + (v.kept.front().expr.empty() ? v.kept.front().refusal : v.kept.front().expr) + ")";
            }
            text = v.text;
        } else if (sh_.cleared(name)) {
            return 0;
        } else {
            return fail(unset_reason(name));
        }
        if (text.size() > 200) {
            return fail("$" + name + " is too long to be read as arithmetic");
        }
        if (depth_ >= kMaxLaunchNesting) {
            return fail("$" + name + " refers to itself through its value (bash: expression recursion level exceeded)");
        }
        ArithResult inner;
        ArithEval e(text, sh_, line_, inner, depth_ + 1);
        auto v = e.run();
        if (!v) {
            return fail("$" + name + " = '" + text + "': " + inner.why);
        }
        if (!inner.assigned.empty()) {
            return fail("$" + name + " = '" + text + "' assigns when read, which plan-layout does not follow");
        }
        r_.assumed = r_.assumed.empty() ? inner.assumed : r_.assumed;
        return v;
    }

    const std::string& s_;
    const Shell& sh_;
    int line_;
    ArithResult& r_;
    int depth_;
    std::size_t i_ = 0;
    int skip_ = 0;
    int nesting_ = 0;
    std::map<std::string, long long> local_;  // what this expression assigned so far
};

}  // namespace

ArithResult arithmetic_value(const std::string& expr, const Shell& sh, int line) {
    ArithResult r;
    ArithEval e(expr, sh, line, r, 0);
    r.value = e.run();
    if (!r.value) {
        r.assigned.clear();
    }
    return r;
}

std::optional<long long> evaluate_arithmetic(const std::string& expr, const Shell& sh, int line, std::string& why) {
    std::string assumed;
    return evaluate_arithmetic(expr, sh, line, why, assumed);
}

std::optional<long long> evaluate_arithmetic(const std::string& expr, const Shell& sh, int line, std::string& why,
                                             std::string& assumed) {
    ArithResult r = arithmetic_value(expr, sh, line);
    why = r.why;
    assumed = r.assumed;
    if (r.value && !r.assigned.empty()) {
        why = "it assigns " + r.assigned.front().first + ", which plan-layout does not follow here";
        return std::nullopt;
    }
    return r.value;
}

}  // namespace planlayout::shell
