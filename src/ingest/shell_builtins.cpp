// Ingest (private): the builtins that set variables for the launch-script reader: let, ((...)),
// printf -v, read, and what declare/typeset/local/export/readonly do beyond NAME=value words
// (a quoted "NAME=value", -i, -n, -r). Each does what bash does or leaves its variables "not
// known" (refused where a job's word uses them, an error for a flag the plan reads).
#include <algorithm>
#include <cstring>

#include "planlayout/error.hpp"
#include "shell_words.hpp"

namespace planlayout::shell {
namespace {

Var builtin_unknown_var(const std::string& name, int line, const std::string& why) {
    Var v;
    v.line = line;
    Value u;
    u.append_unknown("$" + name, line, "$" + name + " " + why, "", "$" + name + " (" + why + ")");
    v.elems.push_back(std::move(u));
    return v;
}

Var builtin_int_var(long long value, int line) {
    Var v;
    v.line = line;
    v.elems.emplace_back();
    v.elems.back().append_text(std::to_string(value), line);
    return v;
}

bool builtin_is_name(const std::string& s) {
    return !s.empty() && is_name_start(s[0]) && std::all_of(s.begin(), s.end(), is_name_char);
}

// The variables an arithmetic expression assigns (NAME op=, ++NAME, NAME++), as written.
std::vector<std::string> assigned_names(const std::string& e) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < e.size();) {
        if (!is_name_start(e[i]) || (i > 0 && (is_name_char(e[i - 1]) || e[i - 1] == '#'))) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < e.size() && is_name_char(e[j])) {
            ++j;
        }
        const std::string name = e.substr(i, j - i);
        std::size_t k = j;
        while (k < e.size() && (e[k] == ' ' || e[k] == '\t')) {
            ++k;
        }
        std::size_t b = i;
        while (b > 0 && (e[b - 1] == ' ' || e[b - 1] == '\t')) {
            --b;
        }
        const bool pre = b >= 2 && (e.compare(b - 2, 2, "++") == 0 || e.compare(b - 2, 2, "--") == 0);
        const bool post = e.compare(k, 2, "++") == 0 || e.compare(k, 2, "--") == 0;
        const bool op = k < e.size() && ((e[k] == '=' && (k + 1 >= e.size() || e[k + 1] != '=')) ||
                                         (k + 1 < e.size() && e[k + 1] == '=' && std::strchr("*/%+-&^|", e[k]) != nullptr) ||
                                         e.compare(k, 3, "<<=") == 0 || e.compare(k, 3, ">>=") == 0);
        if (pre || post || op) {
            out.push_back(name);
        }
        i = j;
    }
    return out;
}

BuiltinRun arith_status(const ArithResult& r) {
    BuiltinRun b;
    b.handled = true;
    b.status = r.value ? (*r.value != 0 ? 0 : 1) : -1;
    return b;
}

// printf -v NAME FORMAT ARGS: formats of plain text, %s %d %i %% with as many arguments as
// conversions; anything else leaves NAME not known.
std::optional<Value> printf_value(const std::vector<Value>& w, std::size_t fmt, std::string& why) {
    Value out;
    std::size_t arg = fmt + 1;
    const Value& f = w[fmt];
    if (!f.unknowns.empty() || !f.kept.empty()) {
        why = "its format is not known";
        return std::nullopt;
    }
    for (std::size_t i = 0; i < f.text.size(); ++i) {
        const char c = f.text[i];
        if (c == '\\') {
            why = "its format has a backslash escape, which plan-layout does not decode";
            return std::nullopt;
        }
        if (c != '%') {
            out.append_char(c, f.lines.empty() ? 0 : f.lines[i]);
            continue;
        }
        const char conv = i + 1 < f.text.size() ? f.text[i + 1] : '\0';
        ++i;
        if (conv == '%') {
            out.append_char('%', f.lines.empty() ? 0 : f.lines[i]);
            continue;
        }
        if (conv != 's' && conv != 'd' && conv != 'i') {
            why = std::string("its format has %") + conv + ", which plan-layout does not format";
            return std::nullopt;
        }
        if (arg >= w.size()) {
            why = "its format has more conversions than arguments";
            return std::nullopt;
        }
        const Value& a = w[arg++];
        if (conv != 's' && (!a.unknowns.empty() || !a.kept.empty() || !all_digits(a.text))) {
            why = "%" + std::string(1, conv) + " of a value that is not a plain decimal integer";
            return std::nullopt;
        }
        if (conv != 's' && a.text.size() > 1 && a.text[0] == '0') {
            why = "%" + std::string(1, conv) + " of " + a.text + ", which printf reads as octal";
            return std::nullopt;
        }
        out.append(a);
    }
    if (arg < w.size()) {
        why = "it has more arguments than its format has conversions (printf reuses the format)";
        return std::nullopt;
    }
    return out;
}

BuiltinRun run_printf(Shell& sh, const std::vector<Value>& w, int line) {
    BuiltinRun b;
    if (w.size() < 3 || w[1].text != "-v") {
        return b;  // printf without -v prints: nothing to assign
    }
    b.handled = true;
    const std::string name = w[2].text;
    if (!builtin_is_name(name)) {
        return b;
    }
    std::string why;
    std::optional<Value> v = w.size() > 3 ? printf_value(w, 3, why) : std::nullopt;
    if (w.size() <= 3) {
        why = "it has no format";
    }
    if (!v) {
        sh.assign(name, builtin_unknown_var(name, line, "is set by printf -v on line " + std::to_string(line) +
                                                            ", which plan-layout does not follow: " + why),
                  false);
        return b;
    }
    Var var;
    var.line = line;
    var.elems.push_back(std::move(*v));
    sh.assign(name, std::move(var), false);
    b.status = 0;
    return b;
}

BuiltinRun run_read(Shell& sh, const std::vector<Value>& w, int line) {
    BuiltinRun b;
    b.handled = true;
    std::vector<std::string> names;
    for (std::size_t i = 1; i < w.size(); ++i) {
        const std::string& t = w[i].text;
        if (t.size() > 1 && t[0] == '-' && names.empty()) {
            const char last = t.back();
            if (t.find('a') != std::string::npos && i + 1 < w.size() && t.back() == 'a') {
                names.push_back(w[++i].text);  // -a ARRAY
                continue;
            }
            if (std::strchr("dinNptu", last) != nullptr) {
                ++i;  // its argument
            }
            continue;
        }
        names.push_back(t);
    }
    if (names.empty()) {
        names.emplace_back("REPLY");
    }
    for (const auto& n : names) {
        if (builtin_is_name(n)) {
            sh.assign(n, builtin_unknown_var(n, line, "is set by read on line " + std::to_string(line) +
                                                          " from input plan-layout does not read"),
                      false);
        }
    }
    return b;
}

}  // namespace

void arithmetic_command(Shell& sh, const std::string& expr, int line, BuiltinRun& out) {
    const ArithResult r = arithmetic_value(expr, sh, line);
    out = arith_status(r);
    if (r.value) {
        for (const auto& [name, value] : r.assigned) {
            sh.assign(name, builtin_int_var(value, line), false);
        }
        return;
    }
    for (const auto& name : assigned_names(expr)) {
        sh.assign(name, builtin_unknown_var(name, line, "is assigned by arithmetic on line " + std::to_string(line) +
                                                            " that is not evaluated: " + r.why),
                  false);
    }
}

BuiltinRun run_assigning_builtin(Shell& sh, const std::vector<Value>& w, int line) {
    BuiltinRun none;
    if (w.empty() || !w.front().unknowns.empty()) {
        return none;
    }
    const std::string& program = w.front().text;
    if (program == "let") {
        BuiltinRun b;
        b.handled = true;
        for (std::size_t i = 1; i < w.size(); ++i) {
            if (!w[i].unknowns.empty()) {
                for (const auto& name : assigned_names(w[i].text)) {
                    sh.assign(name, builtin_unknown_var(name, line, "is assigned by let on line " + std::to_string(line) +
                                                                        " over a value not known"),
                              false);
                }
                b.status = -1;
                continue;
            }
            arithmetic_command(sh, w[i].text, line, b);
        }
        return b;
    }
    if (program == "printf") {
        return run_printf(sh, w, line);
    }
    if (program == "read" || program == "mapfile" || program == "readarray") {
        if (program != "read") {
            std::vector<Value> as_read{w.front()};
            std::string last = "MAPFILE";
            for (std::size_t i = 1; i < w.size(); ++i) {
                last = w[i].text.rfind('-', 0) == 0 ? last : w[i].text;
            }
            Value v;
            v.append_text(last, line);
            as_read.push_back(std::move(v));
            return run_read(sh, as_read, line);
        }
        return run_read(sh, w, line);
    }
    return none;
}

// A declaration's options: the attributes it sets (-i -n -r -g ...) or removes (+i).
void declaration_options(const std::vector<Value>& w, std::string& set, std::string& removed) {
    for (std::size_t i = 1; i < w.size(); ++i) {
        const std::string& t = w[i].text;
        if (t == "--") {
            return;
        }
        if (t.size() > 1 && (t[0] == '-' || t[0] == '+') && builtin_is_name(t.substr(1))) {
            (t[0] == '-' ? set : removed) += t.substr(1);
        }
    }
}

}  // namespace planlayout::shell
