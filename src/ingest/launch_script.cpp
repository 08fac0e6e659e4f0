// Ingest: a launch script read without running it (the rules are in launch_script.hpp).
// Over 500 lines: the reader of commands, assignments, here-documents, if/case (tests, patterns,
// the branch states and their merge) and the words a job writes are one class over one lexer.
#include "planlayout/ingest/launch_script.hpp"

#include <algorithm>
#include <cstring>
#include <array>
#include <fnmatch.h>

#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/limits.hpp"
#include "shell_words.hpp"

namespace planlayout {
namespace {

using shell::Piece;
using shell::Shell;
using shell::Value;
using shell::Var;
using State = shell::Shell::State;

std::string basename_of(const std::string& word) {
    const auto slash = word.rfind('/');
    return slash == std::string::npos ? word : word.substr(slash + 1);
}

bool ends_with(const std::string& s, const char* suffix) {
    const std::size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

constexpr std::array<const char*, 5> kDeclarations = {"export", "declare", "typeset", "local", "readonly"};
constexpr std::array<const char*, 5> kShells = {"bash", "sh", "zsh", "dash", "ksh"};
constexpr std::array<const char*, 7> kHeredocRunners = {"bash", "sh", "zsh", "dash", "ksh", "sbatch", "srun"};
constexpr std::array<const char*, 5> kNeverCount = {"echo", "printf", "test", "[", "[["};
constexpr std::array<const char*, 3> kReaders = {"read", "mapfile", "readarray"};
// Reserved words that only open or close a block: the command goes on after them.
constexpr std::array<const char*, 13> kSkippedKeywords = {"if", "then", "elif", "else", "fi", "do", "done",
                                                          "while", "until", "{", "}", "!", "time"};

template <std::size_t N>
bool one_of(const std::string& s, const std::array<const char*, N>& set) {
    return std::any_of(set.begin(), set.end(), [&s](const char* x) { return s == x; });
}

// c is one of the characters of set (never the NUL that ends it).
bool is_one_of(char c, const char* set) {
    return c != '\0' && std::strchr(set, c) != nullptr;
}

// A here-document waiting for the end of its line: its delimiter, and whether its body is script.
struct Heredoc {
    std::string delimiter;
    bool strip_tabs = false;
    bool run = false;
    int line = 0;
};

// What bash would decide: true, false, or not known from the script (why says).
enum class Tri { False, True, Unknown };

Tri tri_not(Tri t) {
    return t == Tri::Unknown ? t : (t == Tri::True ? Tri::False : Tri::True);
}

// A decimal integer as test(1) reads it (blanks around, a sign); nullopt otherwise.
std::optional<long long> test_integer(std::string t, bool double_bracket) {
    t.erase(0, t.find_first_not_of(" \t"));
    t.erase(t.find_last_not_of(" \t") + 1);
    const bool negative = !t.empty() && t[0] == '-';
    const std::string digits = t.substr(!t.empty() && (t[0] == '-' || t[0] == '+') ? 1 : 0);
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        (double_bracket && digits.size() > 1 && digits[0] == '0')) {  // [[ ]] reads 08 as octal
        return std::nullopt;
    }
    const long long v = std::stoll(digits);
    return negative ? -v : v;
}

// The text a test sees, assuming what the reader assumes of the environment: a variable the
// script neither sets nor is given is unset (so ${X:-w} is w, $X and ${X:+w} are empty). False
// (with why) when a part is not known at all ($(...), $#, ...). `assumed` names what was assumed;
// `vanishes`: the text is empty and came from unquoted expansions only (bash drops that word).
bool assumed_value_text(const Value& v, std::string& text, bool& vanishes, std::string& assumed, std::string& why) {
    text.clear();
    vanishes = !v.text.empty();
    std::size_t at = 0;
    for (const auto& u : v.unknowns) {
        if (u.expr.rfind("${", 0) != 0) {
            why = u.reason;
            return false;
        }
        text += v.text.substr(at, u.begin - at);
        vanishes = vanishes && u.begin == at && !u.quoted;
        at = u.end;
        if (assumed.empty()) {
            assumed = "$" + u.expr.substr(2, u.expr.find_first_of(":-+=?}", 2) - 2) + " unset";
        }
    }
    text += v.text.substr(at);
    vanishes = vanishes && at == v.text.size() && text.empty();
    if (!v.kept.empty() && assumed.empty()) {
        assumed = v.kept.front().expr.empty() ? v.kept.front().refusal : v.kept.front().expr + " read as its default";
    }
    return true;
}

// One test command ([ ... ], test ..., [[ ... ]], true, false, :) over the words' texts.
Tri test_command(const std::vector<Value>& words, std::string& why, std::string& assumed) {
    const std::string& program = words.front().text;
    std::vector<const Value*> given;
    bool double_bracket = false;
    if (program == "[" || program == "[[") {
        double_bracket = program == "[[";
        if (words.size() < 2 || words.back().text != (double_bracket ? "]]" : "]")) {
            why = "its test is not one plan-layout reads";
            return Tri::Unknown;
        }
        for (std::size_t i = 1; i + 1 < words.size(); ++i) {
            given.push_back(&words[i]);
        }
    } else if (program == "test") {
        for (std::size_t i = 1; i < words.size(); ++i) {
            given.push_back(&words[i]);
        }
    } else if ((program == "true" || program == ":") && words.size() == 1) {
        return Tri::True;
    } else if (program == "false" && words.size() == 1) {
        return Tri::False;
    } else {
        why = "it runs a command (" + program + ")";
        return Tri::Unknown;
    }
    if (!words.front().unknowns.empty() || !words.front().kept.empty()) {
        why = "its test is not one plan-layout reads";
        return Tri::Unknown;
    }
    std::vector<std::string> args;
    for (const Value* a : given) {
        std::string text;
        bool vanishes = false;
        if (!assumed_value_text(*a, text, vanishes, assumed, why)) {
            return Tri::Unknown;
        }
        if (!(vanishes && !double_bracket)) {  // [[ ]] does not split: an empty value stays a word
            args.push_back(std::move(text));
        }
    }
    bool negate = false;
    if (args.size() >= 2 && args.front() == "!") {
        negate = true;
        args.erase(args.begin());
    }
    const auto done = [negate](bool v) { return (v != negate) ? Tri::True : Tri::False; };
    if (args.empty()) {
        return done(false);
    }
    if (args.size() == 1) {
        return done(!args[0].empty());
    }
    if (args.size() == 2 && (args[0] == "-n" || args[0] == "-z")) {
        return done(args[0] == "-n" ? !args[1].empty() : args[1].empty());
    }
    if (args.size() == 3) {
        const std::string& op = args[1];
        const std::string& a = args[0];
        const std::string& b = args[2];
        if (op == "=" || op == "==" || op == "!=") {
            if (double_bracket && b.find_first_of("*?[\\") != std::string::npos) {
                why = "[[ ... " + op + " PATTERN ]] matches a pattern, which plan-layout does not";
                return Tri::Unknown;
            }
            return done((a == b) == (op != "!="));
        }
        static const std::array<const char*, 6> kNumeric = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge"};
        if (std::any_of(kNumeric.begin(), kNumeric.end(), [&op](const char* o) { return op == o; })) {
            const auto x = test_integer(a, double_bracket);
            const auto y = test_integer(b, double_bracket);
            if (!x || !y) {
                why = "'" + (x ? b : a) + "' is not an integer plan-layout compares";
                return Tri::Unknown;
            }
            const bool r = op == "-eq" ? *x == *y : op == "-ne" ? *x != *y : op == "-lt" ? *x < *y
                         : op == "-le" ? *x <= *y : op == "-gt" ? *x > *y : *x >= *y;
            return done(r);
        }
    }
    why = "its test is not one plan-layout reads (string = != ==, -eq ... -ge, -z, -n)";
    return Tri::Unknown;
}

// A case pattern against the subject: fnmatch as bash matches (extglob off).
Tri case_match(const Value& subject, const std::vector<Value>& alternatives, const std::string& raw, std::string& why,
               std::string& assumed) {
    std::string text;
    bool vanishes = false;
    if (!assumed_value_text(subject, text, vanishes, assumed, why)) {
        return Tri::Unknown;
    }
    Tri out = Tri::False;
    for (const auto& alt : alternatives) {
        std::string pattern_text;
        if (!assumed_value_text(alt, pattern_text, vanishes, assumed, why)) {
            out = Tri::Unknown;
            continue;
        }
        const bool pattern = pattern_text.find_first_of("*?[\\") != std::string::npos;
        if (pattern && raw.find_first_of("'\"\\$") != std::string::npos) {
            why = "the case pattern " + raw + " mixes quoting with pattern characters";
            out = Tri::Unknown;
            continue;
        }
        const bool hit = pattern ? fnmatch(pattern_text.c_str(), text.c_str(), 0) == 0 : pattern_text == text;
        if (hit) {
            return out == Tri::Unknown ? Tri::Unknown : Tri::True;
        }
    }
    return out;
}

// The word for the result: its parts as a job writes them, or why no writing gives bash's word.
ScriptWord word_of(const Value& w, int line, int command, const Shell& sh) {
    ScriptWord s{w.text, w.first_line(line),
                 w.unknowns.empty() ? std::nullopt : std::optional<std::string>(w.unknowns[0].reason), command, {}, {}};
    std::vector<const shell::Unknown*> marks;
    for (const auto& u : w.unknowns) {
        marks.push_back(&u);
    }
    for (const auto& u : w.kept) {
        marks.push_back(&u);
    }
    std::stable_sort(marks.begin(), marks.end(), [](const auto* a, const auto* b) { return a->begin < b->begin; });
    std::size_t at = 0;
    for (const auto* u : marks) {
        std::string refusal;
        if (u->expr.empty()) {
            refusal = u->refusal;
        } else if (u->quoted && u->split) {
            refusal = u->expr + " in double quotes after an unquoted use split it into an array's elements";
        } else if (u->begin < at) {
            refusal = w.text.substr(u->begin, u->end - u->begin) + " (a default holding a value not known)";
        }
        if (!refusal.empty()) {
            if (!s.refusal) {
                s.refusal = WordRefusal{sh.where(u->line > 0 ? u->line : s.line), refusal};
            }
            continue;
        }
        if (u->begin > at) {
            s.parts.push_back({w.text.substr(at, u->begin - at), false, false});
        }
        s.parts.push_back({u->expr, true, u->quoted});
        at = u->end;
    }
    const bool vanishing = std::all_of(s.parts.begin(), s.parts.end(), [](const WordPart& p) { return p.expansion && !p.quoted; });
    if (at < w.text.size() || s.parts.empty() || (vanishing && w.held)) {
        // the rest of the text; or '' that keeps a word bash keeps ($X"" of an empty X is one word)
        s.parts.push_back({w.text.substr(std::min(at, w.text.size())), false, false});
    }
    return s;
}

// A job cannot pass the words bash gives a script saved with CR LF line ends (bash keeps the CR).
WordRefusal shell_crlf_refusal(const Shell& sh) {
    return WordRefusal{sh.where(sh.crlf_line), "CR LF line ends (bash keeps each CR in the word before it; convert the "
                                               "script with dos2unix)"};
}

// An if or case being read: each branch from the state before the block; the states the
// branches that may run leave are merged at its end.
struct Block {
    Shell::State start;
    std::vector<std::vector<Value>> cond_reads;  // read commands of the condition: their variables
    std::vector<Shell::State> ends;
    std::string loop_var;     // a for loop's variable
    std::string why;          // why a condition or pattern could not be decided
    std::string cond_why;     // why the condition being read is not known
    std::string cond_assumed; // what the condition being read assumed of the environment
    std::string assumed;      // the first assumption a condition or pattern of the block made
    Value subject;            // a case's word
    std::size_t chosen = 0;   // the branch (index into ends) bash runs under the assumption
    std::size_t bytes = 0;    // the size of `start`, charged for each copy of it
    int marker = 0;           // a guard's brace or subshell depth, or its inner block's index
    int line = 0;
    Tri prior = Tri::True;    // a guard: the status of the list before its && or ||
    Tri guard_cond = Tri::True;
    Tri cond = Tri::True;
    char kind = 'i';          // 'i' if, 'c' case, 'l' loop (while, until, for, select), 'g' a command after && or ||
    char closes_at = 's';     // a guard ('g'): 's' its simple command ends, '{' its group's }, '(' its subshell's ),
                              // 'b' the block it opened closes
    char stop_kind = 0;       // 'x' exit or 'r' return ran in a branch that may run
    char op = ';';            // how the next condition command joins: & (&&), | (||), ; (sequence)
    bool is_case = false;
    bool negate_all = false;  // an until loop: its body runs while the condition fails
    bool outer_inactive = false;
    bool taken = false;       // a branch bash surely runs was read: the later ones never run
    bool in_branch = false;
    bool possible = false;    // the branch being read may run
    bool has_else = false;
    bool collecting = false;  // reading an if's condition
    bool negate = false;
    bool broken = false;      // a branch bash may run came before any choice: no choice stands
    bool chosen_done = false;
};

class ScriptReader {
public:
    // context: 's' the script, 'f' a function's body, 'e' eval's text, 'c' a child shell (bash -c, a here-document)
    ScriptReader(const Value& src, Shell& sh, std::vector<ScriptWord>& out, char context = 's')
        : lx_(src, sh), sh_(sh), out_(out), context_(context) {}

    [[nodiscard]] char stopped() const { return stopped_; }

    void run() {
        while (true) {
            skip_separators();
            if (lx_.at_end()) {
                while (!blocks_.empty()) {
                    close_block();  // an if or case left open (bash would refuse the script)
                }
                return;
            }
            if (expect_pattern_) {
                pattern();
            } else {
                command();
            }
        }
    }

private:
    void skip_comment() {
        while (!lx_.at_end() && lx_.peek() != '\n') {
            lx_.advance();
        }
    }

    void skip_separators() {
        while (true) {
            lx_.skip_blanks();
            const char c = lx_.peek();
            if (lx_.at_end()) {
                return;
            }
            if (c == '\n') {
                lx_.advance();
                read_heredocs();
            } else if (c == '#') {
                skip_comment();
            } else if (c == ';' && (lx_.peek(1) == ';' || lx_.peek(1) == '&')) {
                if (lx_.peek(1) == '&' || lx_.peek(2) == '&') {
                    throw input_error(sh_.where(lx_.line()),
                                      std::string(lx_.peek(1) == '&' ? ";&" : ";;&") +
                                          " (a case branch that falls through), which plan-layout does not follow",
                                      "end the branch with ;; and repeat the commands the next branch needs");
                }
                lx_.advance(2);  // ;; ends a case branch
                expect_pattern_ = case_depth_ > 0;
            } else if (c == '(' && lx_.peek(1) != '(') {  // ((...)) is an arithmetic command: returned below
                open_guard(lx_.line(), '(', static_cast<int>(subshells_.size()) + 1);
                subshells_.push_back({sh_.state(lx_.line()), sh_.inactive, stopped_});
                lx_.advance();
            } else if (c == ')' && !subshells_.empty()) {
                lx_.advance();
                close_subshell();
            } else if (is_one_of(c, ";&|)")) {
                lx_.advance();
            } else {
                return;
            }
        }
    }

    // At a word start: a redirection (read and dropped; a here-document is queued).
    bool redirection() {
        const std::string& t = lx_.source().text;
        std::size_t p = lx_.pos();
        while (p < t.size() && t[p] >= '0' && t[p] <= '9') {
            ++p;
        }
        const bool amp = p == lx_.pos() && p + 1 < t.size() && t[p] == '&' && t[p + 1] == '>';
        if (!amp && (p >= t.size() || (t[p] != '<' && t[p] != '>'))) {
            return false;
        }
        const int line = lx_.line();
        if (t.compare(p, 3, "<<<") != 0 && t.compare(p, 2, "<<") == 0) {
            const bool strip = p + 2 < t.size() && t[p + 2] == '-';
            lx_.seek(p + (strip ? 3 : 2));
            lx_.skip_blanks();
            bool quoted = false;
            std::string delimiter = lx_.literal_word(quoted);
            if (delimiter.empty()) {
                throw input_error(sh_.where(line), "a here-document (<<) without its delimiter word",
                                  "write the word that ends it, e.g. <<EOF");
            }
            pending_.push_back({std::move(delimiter), strip, false, line});
            return true;
        }
        while (p < t.size() && is_one_of(t[p], "<>&|")) {
            ++p;
        }
        lx_.seek(p);
        lx_.skip_blanks();
        (void)lx_.word();  // the target: a file name, or a descriptor (2>&1)
        return true;
    }

    // At a word start: NAME=value, NAME+=value, NAME=( ... ). `saved` (a prefix of a command)
    // receives the previous value, to be put back if a command follows.
    // `decl`: the words of the declaration (export/declare/... and its options) it is part of.
    bool assignment(std::vector<std::pair<std::string, std::optional<Var>>>* saved, const std::vector<Value>* decl) {
        const std::string& t = lx_.source().text;
        std::size_t p = lx_.pos();
        if (!shell::is_name_start(lx_.peek())) {
            return false;
        }
        while (p < t.size() && shell::is_name_char(t[p])) {
            ++p;
        }
        const bool append = p < t.size() && t[p] == '+';
        if (t.compare(p + (append ? 1 : 0), 1, "=") != 0) {
            return false;
        }
        const int line = lx_.line();
        const std::string name = t.substr(lx_.pos(), p - lx_.pos());
        lx_.seek(p + (append ? 2 : 1));
        if (saved != nullptr) {
            saved->emplace_back(name, sh_.saved(name, line));
        }
        sh_.assigning = name;
        Var var;
        var.line = line;
        if (lx_.peek() == '(') {
            var.array = true;
            var.elems = array_literal(line);
        } else {
            var.elems.push_back(shell::fields_of(lx_.word(), false, line).front());
        }
        sh_.assigning.clear();
        if (decl == nullptr) {
            sh_.assign(name, std::move(var), append);
            return true;
        }
        std::string set;
        std::string removed;
        shell::declaration_options(*decl, set, removed);
        const std::string program = basename_of(decl->front().text);
        set += program == "readonly" ? "r" : "";
        if (in_function_scope(program, set)) {
            sh_.make_local(name, line);
        }
        if (set.find('n') != std::string::npos) {
            sh_.nameref(name, var.elems.empty() ? "" : var.elems.front().text);  // declare -n R=TP
            return true;
        }
        attributes(name, set, removed, line, false);
        sh_.assign(name, std::move(var), append);
        attributes(name, set, removed, line, true);
        if (name == "IFS" && !sh_.inactive && !sh_.pinned(name)) {
            sh_.ifs_line = line;  // export IFS=..., declare IFS=...
        }
        return true;
    }

    std::vector<Value> array_literal(int line) {
        lx_.advance();  // (
        std::vector<Value> elems;
        while (true) {
            lx_.skip_blanks();
            const char c = lx_.peek();
            if (lx_.at_end()) {
                throw input_error(sh_.where(line), "unterminated array ( opened on this line",
                                  "close it with ) as the shell would need");
            }
            if (c == '\n') {
                lx_.advance();
            } else if (c == '#') {
                skip_comment();
            } else if (c == ')') {
                lx_.advance();
                return elems;
            } else if (is_one_of(c, ";&|<>(")) {
                throw input_error(sh_.where(lx_.line()), std::string("'") + c + "' inside the array opened on line " +
                                                             std::to_string(line),
                                  "quote it, or close the array with ) first");
            } else {
                const int at = lx_.line();
                const std::size_t before = lx_.pos();
                auto fields = shell::fields_of(lx_.word(), true, at);
                if (lx_.pos() == before) {
                    lx_.advance();
                }
                elems.insert(elems.end(), std::make_move_iterator(fields.begin()), std::make_move_iterator(fields.end()));
            }
        }
    }

    // A case pattern up to its ')', or the `esac` that ends the case; decides whether bash runs
    // the branch it opens.
    void pattern() {
        Block* b = top(true);
        if (b != nullptr) {
            close_branch();
            if (!b->outer_inactive) {
                sh_.charge(b->bytes, b->line);
                sh_.set_state(b->start);  // patterns expand in the state before the case
            }
        }
        const int line = lx_.line();
        const std::size_t raw_begin = lx_.pos();
        std::vector<Value> alternatives;
        while (true) {
            lx_.skip_blanks();
            if (lx_.at_end() || lx_.peek() == ')' || lx_.peek() == '\n') {
                break;
            }
            if (lx_.peek() == '|' || (lx_.peek() == '(' && alternatives.empty())) {
                lx_.advance();
                continue;
            }
            const std::size_t before = lx_.pos();
            auto pieces = lx_.word();
            if (lx_.pos() == before) {
                lx_.advance();
                continue;
            }
            Value v = shell::fields_of(pieces, false, line).front();
            if (alternatives.empty() && v.unknowns.empty() && v.text == "esac" &&
                lx_.source().text.compare(before, 4, "esac") == 0) {
                --case_depth_;
                expect_pattern_ = false;
                if (b != nullptr) {
                    close_block();
                }
                return;
            }
            alternatives.push_back(std::move(v));
        }
        const std::string raw = lx_.source().text.substr(raw_begin, lx_.pos() - raw_begin);
        if (lx_.peek() == ')') {
            lx_.advance();
        }
        expect_pattern_ = false;
        if (b != nullptr) {
            std::string why;
            std::string assumed;
            Tri t = Tri::Unknown;
            if (raw == "*" || raw == "(*") {
                t = Tri::True;
            } else {
                t = case_match(b->subject, alternatives, raw, why, assumed);
            }
            start_branch(t, why, assumed);
        }
    }

    // ---------------------------------------------------------------- if and case

    Block* top(bool is_case) {
        return top_kind(is_case ? 'c' : 'i');
    }

    Block* top_kind(char kind) {
        return !blocks_.empty() && blocks_.back().kind == kind ? &blocks_.back() : nullptr;
    }

    void open_block(bool is_case, int line, char kind = 0) {
        if (blocks_.size() >= static_cast<std::size_t>(kMaxLaunchNesting)) {
            sh_.enter(line);  // throws: nesting past the limit
        }
        Block b;
        b.is_case = is_case;
        b.kind = kind != 0 ? kind : (is_case ? 'c' : 'i');
        b.line = line;
        b.outer_inactive = sh_.inactive;
        b.start = sh_.state(line);
        for (const auto& [name, v] : b.start.vars) {
            for (const auto& e : v.elems) {
                b.bytes += e.text.size() + name.size();
            }
        }
        blocks_.push_back(std::move(b));
    }

    void begin_condition() {
        Block& b = blocks_.back();
        close_branch();
        if (!b.outer_inactive) {
            sh_.charge(b.bytes, b.line);
            sh_.set_state(b.start);
        }
        sh_.inactive = true;  // a condition's commands run nothing plan-layout reads
        b.collecting = true;
        b.cond = Tri::True;
        b.op = ';';
        b.negate = false;
        b.cond_why.clear();
        b.cond_assumed.clear();
        b.cond_reads.clear();
    }

    // One command of an if's condition, joined to the ones before it as bash's && || ; do.
    void add_condition(const std::vector<Value>& words, bool redirected) {
        Block& b = blocks_.back();
        std::string why;
        Tri t = redirected ? Tri::Unknown : test_command(words, why, b.cond_assumed);
        if (redirected) {
            why = "its test has a redirection or a < > comparison";
        }
        if (b.negate) {
            t = tri_not(t);
            b.negate = false;
        }
        if (t == Tri::Unknown && b.cond_why.empty()) {
            b.cond_why = why;
        }
        if (b.op == '&') {
            b.cond = b.cond == Tri::False ? Tri::False : (b.cond == Tri::True ? t : (t == Tri::False ? Tri::False : Tri::Unknown));
        } else if (b.op == '|') {
            b.cond = b.cond == Tri::True ? Tri::True : (b.cond == Tri::False ? t : (t == Tri::True ? Tri::True : Tri::Unknown));
        } else if (b.op == 'P') {
            b.cond = Tri::Unknown;
            b.cond_why = b.cond_why.empty() ? "its condition is a pipeline" : b.cond_why;
        } else {
            b.cond = t;
        }
        const char c = lx_.peek();
        const char d = lx_.peek(1);
        b.op = c == '&' && d == '&' ? '&' : c == '|' && d == '|' ? '|' : c == '|' ? 'P' : ';';
    }

    // `cond`: what bash decides when the environment is as the reader assumes (`assumed` says
    // what was assumed; empty: nothing, the decision is sure).
    void start_branch(Tri cond, const std::string& why, const std::string& assumed) {
        Block& b = blocks_.back();
        b.collecting = false;
        const bool assumes = !assumed.empty() && cond != Tri::Unknown;
        const Tri sure = assumes ? Tri::Unknown : cond;
        if (cond == Tri::Unknown && b.why.empty()) {
            b.why = why.empty() ? "its condition is not known" : why;
        }
        if (assumes && b.assumed.empty()) {
            b.assumed = assumed;
        }
        b.possible = !b.outer_inactive && !b.taken && sure != Tri::False;
        if (b.possible && !b.chosen_done && cond != Tri::False) {
            b.chosen_done = true;
            b.chosen = b.ends.size();
            b.broken = cond == Tri::Unknown;
        }
        b.taken = b.taken || (b.possible && sure == Tri::True);
        if (b.possible) {
            sh_.charge(b.bytes, b.line);
            sh_.set_state(b.start);
        }
        sh_.inactive = b.outer_inactive || !b.possible;
        b.in_branch = true;
        for (const auto& w : b.cond_reads) {
            (void)shell::run_assigning_builtin(sh_, w, b.line);  // `while read X`: X is not known in the body
        }
    }

    void close_branch() {
        Block& b = blocks_.back();
        if (b.in_branch && b.possible && stopped_ != 0) {
            // the branch ran exit (or return): the script goes on after the block only where it did not
            b.broken = b.broken || (b.chosen_done && b.chosen == b.ends.size());
            b.stop_kind = b.stop_kind == 0 ? stopped_ : b.stop_kind;
            stopped_ = 0;
        } else if (b.in_branch && b.possible) {
            b.ends.push_back(sh_.state(b.line));
        }
        b.in_branch = false;
    }

    void close_block() {
        close_block_inner();
        if (Block* g = top_kind('g');
            g != nullptr && g->closes_at == 'b' && g->marker == static_cast<int>(blocks_.size())) {
            close_guard(Tri::Unknown);  // `A && if ...; fi`: the guard ends with the block it opened
        }
    }

    void close_block_inner() {
        close_branch();
        Block b = std::move(blocks_.back());
        blocks_.pop_back();
        sh_.inactive = b.outer_inactive;
        if (b.outer_inactive) {
            sh_.set_state(std::move(b.start));
            return;
        }
        if (b.ends.empty() && b.taken) {
            stopped_ = b.stop_kind;  // every branch that may run stops the script (exit) or function (return)
            sh_.inactive = true;
            sh_.set_state(std::move(b.start));
            return;
        }
        if (!b.taken) {
            b.ends.push_back(std::move(b.start));  // no branch may run: the state before it stays
        }
        if (b.ends.size() == 1) {
            sh_.set_state(std::move(b.ends.front()));
            return;
        }
        const std::string block = std::string(b.kind == 'c' ? "the case" : b.kind == 'l' ? "the loop" : b.kind == 'g' ? "the && or || list" : "the if") +
                                  " on line " + std::to_string(b.line);
        if (!b.broken && !b.assumed.empty()) {
            // Read as bash runs it in the environment the reader assumes; what the other branches
            // would set differently is kept for the analysis and refused in a job's words.
            const std::size_t chosen = b.chosen_done ? b.chosen : b.ends.size() - 1;
            const auto names = sh_.merge_assumed(
                b.ends, chosen,
                "(" + block + " chose its branch with " + b.assumed +
                    "; the job's environment may choose another: give the variables it tests with --env NAME=VALUE)",
                b.line);
            std::string list;
            for (const auto& n : names) {
                list += (list.empty() ? "$" : ", $") + n;
            }
            sh_.notes.push_back(sh_.where(b.line) + ": the " + (b.is_case ? "case" : "if") + " here is read as bash runs it with " +
                                b.assumed +
                                "; another branch would set " + list +
                                " differently (give --env NAME=VALUE for what the job's environment sets)");
            return;
        }
        sh_.merge(b.ends, "is set differently by the branches of " + block + ", and which one bash runs is not known (" + b.why + ")",
                  "(set differently by the branches of " + block + ", whose choice plan-layout cannot make: " + b.why +
                      "; give the variables it tests with --env NAME=VALUE)",
                  b.line);
    }

    // Reads words to the end of the command, dropping them (for, select, case headers).
    void drop_rest() {
        while (true) {
            lx_.skip_blanks();
            if (lx_.at_end() || is_one_of(lx_.peek(), "\n;&|()")) {
                return;
            }
            if (lx_.peek() == '#') {
                skip_comment();
            } else if (!redirection()) {
                word_or_skip();
            }
        }
    }

    // A word, dropped; or the character no word takes (so every loop moves on).
    void word_or_skip() {
        const std::size_t before = lx_.pos();
        (void)lx_.word();
        if (lx_.pos() == before) {
            lx_.advance();
        }
    }

    // A reserved word at a command's start; true when it was handled.
    bool keyword(const std::string& w, int line, std::size_t at) {
        if (w == "if") {
            open_block(false, line);
            begin_condition();
            return true;
        }
        if (w == "elif" || w == "then" || w == "else" || w == "fi") {
            if (top(false) == nullptr) {
                return true;  // unbalanced: read on
            }
            if (w == "elif") {
                begin_condition();
            } else if (w == "then") {
                if (blocks_.back().collecting) {
                    start_branch(blocks_.back().cond, blocks_.back().cond_why, blocks_.back().cond_assumed);
                }
            } else if (w == "else") {
                close_branch();
                blocks_.back().has_else = true;
                start_branch(Tri::True, "", "");
            } else {
                close_block();
            }
            return true;
        }
        if (w == "!" && !blocks_.empty() && blocks_.back().collecting) {
            blocks_.back().negate = !blocks_.back().negate;
            return true;
        }
        if (loop_keyword(w, line)) {
            return true;
        }
        if (w == "{") {
            ++brace_depth_;
            if (Block* g = top_kind('g'); g != nullptr && g->closes_at == 's' && guard_fresh_) {
                g->closes_at = '{';
                g->marker = brace_depth_;
            }
            return true;
        }
        if (w == "}") {
            close_brace(at);
            return true;
        }
        if (w == "if" || w == "case") {
            if (Block* g = top_kind('g'); g != nullptr && g->closes_at == 's' && guard_fresh_) {
                g->closes_at = 'b';
                g->marker = static_cast<int>(blocks_.size());
            }
        }
        if (one_of(w, kSkippedKeywords)) {
            return true;
        }
        if (w == "esac") {
            case_depth_ = std::max(0, case_depth_ - 1);
            if (top(true) != nullptr) {
                close_block();
            }
            return true;
        }
        if (w == "case") {
            std::optional<Value> subject;
            while (true) {
                lx_.skip_blanks();
                if (lx_.at_end() || is_one_of(lx_.peek(), "\n;&|()")) {
                    return true;
                }
                const std::size_t before = lx_.pos();
                auto pieces = lx_.word();
                if (lx_.pos() == before) {
                    lx_.advance();
                    continue;
                }
                Value word = shell::fields_of(pieces, false, lx_.line()).front();
                if (subject && word.unknowns.empty() && word.text == "in") {
                    ++case_depth_;
                    expect_pattern_ = true;
                    open_block(true, line);
                    blocks_.back().subject = std::move(*subject);
                    return true;
                }
                subject = subject ? subject : std::optional<Value>(std::move(word));
            }
        }
        if (w == "for" || w == "select") {
            open_block(false, line, 'l');
            lx_.skip_blanks();
            if (lx_.peek() == '(' && lx_.peek(1) == '(') {
                lx_.seek(arithmetic_end(lx_.pos()));  // for ((...)): its variables are the body's
                return true;
            }
            const std::size_t before = lx_.pos();
            const auto name = shell::fields_of(lx_.word(), false, line).front();
            if (lx_.pos() > before && !name.text.empty() && shell::is_name_start(name.text[0]) &&
                std::all_of(name.text.begin(), name.text.end(), shell::is_name_char)) {
                blocks_.back().loop_var = name.text;
            }
            drop_rest();
            return true;
        }
        if (w == "function") {
            lx_.skip_blanks();
            const auto name = shell::fields_of(lx_.word(), false, line).front();
            lx_.skip_blanks();
            if (lx_.peek() == '(') {
                lx_.advance();
                lx_.skip_blanks();
                if (lx_.peek() == ')') {
                    lx_.advance();
                }
            }
            define_function(name.text, line);
            return true;
        }
        return false;
    }

    void command() {
        const int start_line = lx_.line();
        guard_fresh_ = open_guard(start_line, 's', 0);
        if (lx_.peek() == '(' && lx_.peek(1) == '(') {
            arithmetic_command(start_line);
            return;
        }
        std::vector<Value> words;
        std::vector<std::pair<std::string, std::optional<Var>>> prefix;
        std::vector<std::pair<std::string, std::optional<Var>>> declared;  // a declaration's, for a pipeline
        const std::size_t heredocs_before = pending_.size();
        bool declaration = false;
        bool redirected = false;
        bool closed_group = false;
        while (true) {
            lx_.skip_blanks();
            const char c = lx_.peek();
            if (lx_.at_end() || c == '\n' || c == ';' || c == '|' || c == '(' || c == ')' ||
                (c == '&' && lx_.peek(1) != '>')) {
                break;
            }
            if (c == '#') {
                skip_comment();
                break;
            }
            if (redirection()) {
                redirected = true;
                continue;
            }
            if ((words.empty() || declaration) &&
                assignment(words.empty() ? &prefix : &declared, declaration ? &words : nullptr)) {
                continue;
            }
            for (auto it = prefix.rbegin(); it != prefix.rend(); ++it) {
                sh_.restore(it->first, it->second);  // NAME=v cmd: NAME is set for cmd only, not its words
            }
            prefix.clear();
            const int at = lx_.line();
            const std::size_t before = lx_.pos();
            auto fields = shell::fields_of(lx_.word(), true, at);
            if (lx_.pos() == before) {
                lx_.advance();  // a character no word takes (a lone '{' in a pattern, ...): skip it
                continue;
            }
            if (words.empty() && fields.size() == 1 && fields[0].unknowns.empty() &&
                keyword(fields[0].text, at, before)) {
                closed_group = closed_group || fields[0].text == "}";
                guard_fresh_ = guard_fresh_ && fields[0].text == "!";
                if (expect_pattern_) {
                    return;
                }
                continue;
            }
            guard_fresh_ = false;
            for (auto& f : fields) {
                words.push_back(std::move(f));
            }
            declaration = declaration || (!words.empty() && one_of(words.front().text, kDeclarations));
        }
        guard_fresh_ = false;
        if (words.size() == 1 && prefix.empty() && lx_.peek() == '(' && function_parens()) {
            define_function(words.front().text, start_line);
            return;
        }
        if (!blocks_.empty() && blocks_.back().collecting) {
            if (!words.empty()) {
                if (one_of(words.front().text, kReaders)) {
                    blocks_.back().cond_reads.push_back(words);
                }
                add_condition(words, redirected);
            }
            return;
        }
        const bool pipe_next = lx_.peek() == '|' && lx_.peek(1) != '|';
        const bool piped = prev_piped_ || pipe_next;
        prev_piped_ = pipe_next;
        if (words.empty()) {
            for (const auto& [name, before] : prefix) {
                if (name == "IFS" && !sh_.inactive && !piped) {
                    sh_.ifs_line = start_line;  // assignments only: they stay
                }
            }
            if (piped) {
                for (auto it = prefix.rbegin(); it != prefix.rend(); ++it) {
                    sh_.restore(it->first, it->second);  // a part of a pipeline runs in a subshell
                }
            }
            finish_command(closed_group ? Tri::Unknown : Tri::True, "it is a { ... } group");
            return;  // assignments only: they stay
        }
        for (std::size_t i = heredocs_before; i < pending_.size(); ++i) {
            pending_[i].run = std::any_of(words.begin(), words.end(), [](const Value& w) {
                return one_of(basename_of(w.text), kHeredocRunners);
            });
        }
        if (!piped) {
            finish_command(act(words, start_line), status_why_);
            return;
        }
        // A part of a pipeline runs in a subshell: what it assigns does not stay.
        State before = sh_.state(start_line);
        for (auto it = declared.rbegin(); it != declared.rend(); ++it) {
            sh_.restore(it->first, it->second);
        }
        const bool inactive = sh_.inactive;
        const char stopped = stopped_;
        (void)act(words, start_line);
        sh_.inactive = inactive;
        stopped_ = stopped;
        sh_.set_state(std::move(before));
        finish_command(Tri::Unknown, "it is a pipeline");
    }

    // `NAME (` at a command's end: `NAME ( )` defines a function.
    bool function_parens() {
        const std::size_t at = lx_.pos();
        lx_.advance();
        lx_.skip_blanks();
        if (lx_.peek() == ')') {
            lx_.advance();
            return true;
        }
        lx_.seek(at);
        return false;
    }

    // A function's body `{ ... }`: read (running nothing) to find its end, kept for its calls.
    void define_function(const std::string& name, int line) {
        while (true) {
            lx_.skip_blanks();
            if (lx_.peek() == '\n') {
                lx_.advance();
            } else if (lx_.peek() == '#') {
                skip_comment();
            } else {
                break;
            }
        }
        const char after = lx_.peek(1);
        if (lx_.peek() != '{' || (after != ' ' && after != '\t' && after != '\n')) {
            throw input_error(sh_.where(line), "the function " + name + " has a body that is not { ... }, which plan-layout does not read",
                              "write its body as { commands; }");
        }
        lx_.advance();
        ++brace_depth_;
        captures_.push_back({name, lx_.pos(), brace_depth_, sh_.inactive, line});
        sh_.inactive = true;  // a function's body runs where it is called
    }

    // `}` at a command's start (`at`: where): ends a function's body, a { ... } group.
    void close_brace(std::size_t at) {
        if (!captures_.empty() && captures_.back().brace == brace_depth_) {
            const Capture c = captures_.back();
            captures_.pop_back();
            sh_.inactive = c.inactive;
            if (!c.inactive) {
                sh_.charge(at - c.begin, c.line);
                sh_.functions[c.name] = lx_.source().slice(c.begin, at);
            }
        }
        brace_depth_ = std::max(0, brace_depth_ - 1);
        if (Block* g = top_kind('g'); g != nullptr && g->closes_at == '{' && g->marker == brace_depth_ + 1) {
            close_guard(Tri::Unknown);
        }
    }

    void close_subshell() {
        Subshell sub = std::move(subshells_.back());
        subshells_.pop_back();
        if (!sub.inactive) {
            sh_.set_state(std::move(sub.state));  // ( ... ) runs in a subshell: its assignments do not stay
        }
        sh_.inactive = sub.inactive;
        stopped_ = sub.stopped;  // exit in ( ... ) leaves the subshell only
        if (Block* g = top_kind('g'); g != nullptr && g->closes_at == '(' &&
                                      g->marker == static_cast<int>(subshells_.size()) + 1) {
            close_guard(Tri::Unknown);
        }
    }

    // After a command before && or ||: the next one is a branch bash runs as the status says.
    bool open_guard(int line, char closes_at, int marker) {
        if (andor_op_ == 0 || (!blocks_.empty() && blocks_.back().collecting)) {
            andor_op_ = 0;
            return false;
        }
        const Tri cond = andor_op_ == '&' ? andor_status_ : tri_not(andor_status_);
        open_block(false, line, 'g');
        blocks_.back().closes_at = closes_at;
        blocks_.back().marker = marker;
        blocks_.back().prior = andor_status_;
        blocks_.back().guard_cond = cond;
        start_branch(cond, andor_why_, "");
        andor_op_ = 0;
        return true;
    }

    void close_guard(Tri inner) {
        const Tri cond = blocks_.back().guard_cond;
        const Tri prior = blocks_.back().prior;
        close_block();
        last_status_ = cond == Tri::True ? inner : cond == Tri::False ? prior : Tri::Unknown;
    }

    // The end of a command: a guard around it closes; && or || after it opens the next one's.
    void finish_command(Tri status, const std::string& why) {
        last_status_ = status;
        if (Block* g = top_kind('g'); g != nullptr && g->closes_at == 's') {
            close_guard(status);
        }
        const char c = lx_.peek();
        const char d = lx_.peek(1);
        if ((c == '&' && d == '&') || (c == '|' && d == '|')) {
            andor_op_ = c == '&' ? '&' : '|';
            andor_status_ = last_status_;
            andor_why_ = "the exit status before " + std::string(c == '&' ? "&&" : "||") + " is not known (" +
                         (why.empty() ? "it runs a command" : why) + ")";
        }
    }

    // The position after the )) of the (( at `start`.
    std::size_t arithmetic_end(std::size_t start) const {
        const std::string& t = lx_.source().text;
        int depth = 0;
        for (std::size_t i = start + 2; i < t.size(); ++i) {
            if (t[i] == '(') {
                ++depth;
            } else if (t[i] == ')' && depth > 0) {
                --depth;
            } else if (t[i] == ')' && i + 1 < t.size() && t[i + 1] == ')') {
                return i + 2;
            } else if (t[i] == ')') {
                break;
            }
        }
        throw input_error(sh_.where(lx_.line_at(start)), "unterminated (( opened on this line", "close it with ))");
    }

    // ((EXPR)) as a command: its assignments, and its status (EXPR not 0).
    void arithmetic_command(int line) {
        const std::size_t start = lx_.pos();
        const std::size_t end = arithmetic_end(start);
        const std::string expr = lx_.source().text.substr(start + 2, end - start - 4);
        lx_.seek(end);
        const bool pipe_next = lx_.peek() == '|' && lx_.peek(1) != '|';
        const bool piped = prev_piped_ || pipe_next;
        prev_piped_ = pipe_next;
        shell::BuiltinRun r;
        if (!blocks_.empty() && blocks_.back().collecting) {
            const auto v = shell::arithmetic_value(expr, sh_, line);
            std::vector<Value> words(1);
            words[0].append_text(v.value ? (*v.value != 0 ? "true" : "false") : "((", line);
            add_condition(words, false);
            return;
        }
        if (!sh_.inactive && !piped) {
            shell::arithmetic_command(sh_, expr, line, r);
        }
        finish_command(r.status == 0 ? Tri::True : r.status == 1 ? Tri::False : Tri::Unknown,
                       "its arithmetic is not evaluated");
    }

    // while/until/do/done: a loop's body is a branch bash runs any number of times.
    bool loop_keyword(const std::string& w, int line) {
        if (w == "while" || w == "until") {
            if (Block* g = top_kind('g'); g != nullptr && g->closes_at == 's' && guard_fresh_) {
                g->closes_at = 'b';
                g->marker = static_cast<int>(blocks_.size());
            }
            open_block(false, line, 'l');
            blocks_.back().negate_all = w == "until";
            begin_condition();
            return true;
        }
        if (w == "do" && top_kind('l') != nullptr) {
            Block& b = blocks_.back();
            Tri c = b.collecting ? b.cond : Tri::Unknown;
            c = b.negate_all ? tri_not(c) : c;
            const std::string why = "a loop's body runs any number of times" +
                                    (b.collecting && !b.cond_why.empty() ? " (" + b.cond_why + ")" : std::string());
            const std::string var = b.loop_var;
            start_branch(c == Tri::False ? Tri::False : Tri::Unknown, why, "");
            if (!var.empty()) {
                Var v;
                v.line = line;
                Value u;
                u.append_unknown("$" + var, line, "$" + var + " is the variable of the for loop on line " + std::to_string(b.line),
                                 "", "$" + var + " (the variable of the for loop on line " + std::to_string(b.line) +
                                         ", whose values plan-layout does not go through)");
                v.elems.push_back(std::move(u));
                sh_.assign(var, std::move(v), false);
            }
            return true;
        }
        if (w == "done" && top_kind('l') != nullptr) {
            close_block();
            return true;
        }
        return false;
    }

    // Runs one simple command as far as the reader follows it; returns its exit status (when
    // not known, status_why_ says why).
    Tri act(const std::vector<Value>& words, int line) {
        status_why_.clear();
        if (sh_.inactive) {
            return Tri::Unknown;  // a branch bash does not run
        }
        const std::string program = basename_of(words.front().text);
        if (const auto f = sh_.functions.find(words.front().text);
            f != sh_.functions.end() && words.front().unknowns.empty()) {
            const Value body = f->second;
            call_function(body, words, line);
            status_why_ = "it calls the function " + words.front().text;
            return Tri::Unknown;
        }
        if (program == "exit" || (program == "return" && (sh_.in_function() || context_ == 'f'))) {
            stopped_ = program == "exit" ? 'x' : 'r';
            sh_.inactive = true;
            if (blocks_.empty() && context_ == 's' && subshells_.empty() && program == "exit") {
                sh_.notes.push_back(sh_.where(line) + ": exit: bash stops the script here; nothing after it runs");
            }
            return Tri::Unknown;
        }
        if (one_of(program, kDeclarations)) {
            declare_words(words, line);
            return Tri::True;
        }
        if (const auto r = shell::run_assigning_builtin(sh_, words, line); r.handled) {
            status_why_ = "its exit status is not known";
            return r.status == 0 ? Tri::True : r.status == 1 ? Tri::False : Tri::Unknown;
        }
        if (program == "true" || program == "false" || program == ":" || program == "test" || program == "[" ||
            program == "[[") {
            std::string assumed;
            const Tri t = test_command(words, status_why_, assumed);
            return assumed.empty() ? t : Tri::Unknown;
        }
        if (program == "echo" || program == "printf") {
            return Tri::True;
        }
        status_why_ = "it runs a command (" + program + ")";
        if (program == "unset") {
            for (std::size_t i = 1; i < words.size(); ++i) {
                if (words[i].text.rfind('-', 0) != 0) {
                    sh_.unset(words[i].text);
                    sh_.ifs_line = words[i].text == "IFS" && !sh_.pinned("IFS") ? 0 : sh_.ifs_line;
                }
            }
            return Tri::True;
        }
        if (sh_.in_function() && (program == "shift" || (program == "set" && words.size() > 1 && words[1].text == "--"))) {
            std::vector<Value> args = sh_.args();  // a function's own arguments
            if (program == "set") {
                args.assign(words.begin() + 2, words.end());
            } else {
                const std::size_t n = words.size() > 1 && shell::all_digits(words[1].text) && words[1].text.size() < 9
                                          ? std::stoul(words[1].text) : 1;
                args.erase(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(std::min(n, args.size())));
            }
            (void)sh_.set_args(std::move(args));
            return Tri::True;
        }
        if (program == "shift" ||
            (program == "set" && std::any_of(words.begin() + 1, words.end(), [](const Value& w) {
                 return w.text == "--" || (w.text.rfind('-', 0) != 0 && w.text.rfind('+', 0) != 0);
             }))) {
            sh_.positional_line = line;
            return Tri::True;
        }
        if (program == "eval") {
            Value text;
            for (std::size_t i = 1; i < words.size(); ++i) {
                if (i > 1) {
                    text.append_char(' ', text.first_line(line));
                }
                text.append(words[i]);
            }
            nested(text, line, 'e');
            return Tri::Unknown;
        }
        if (const Value* script = shell_script(words)) {
            nested(*script, line, 'c');
            return Tri::Unknown;
        }
        if (counts(words, program)) {
            if (sh_.ifs_line > 0) {
                throw input_error(sh_.where(sh_.ifs_line),
                                  "IFS is set here, and bash splits the words of the training command on line " +
                                      std::to_string(line) + " with it; plan-layout splits at blanks only (bash's default)",
                                  "remove the IFS assignment (or unset IFS before the training command)");
            }
            const int command = out_.empty() ? 0 : out_.back().command + 1;
            for (const auto& w : words) {
                if (out_.size() >= kMaxLaunchWords) {
                    throw input_error(sh_.where(line),
                                      "more than " + std::to_string(kMaxLaunchWords) +
                                          " words in the training commands, over the limit (kMaxLaunchWords)",
                                      "a launch line has a few hundred words; give the script that starts the training");
                }
                out_.push_back(word_of(w, line, command, sh_));
                if (sh_.crlf_line > 0 && !out_.back().refusal) {
                    out_.back().refusal = shell_crlf_refusal(sh_);
                }
            }
        }
        return Tri::Unknown;
    }

    // A call of a function the script defined: its body read with $1 $2 ... $@ bound to the
    // call's words, `local` variables put back and `return` ending it.
    void call_function(const Value& body, const std::vector<Value>& words, int line) {
        sh_.enter(line);
        auto previous = sh_.set_args(std::vector<Value>(words.begin() + 1, words.end()));
        sh_.push_frame();
        ScriptReader inner(body, sh_, out_, 'f');
        inner.run();
        sh_.pop_frame();
        (void)sh_.set_args(std::move(previous));
        sh_.leave();
        sh_.inactive = false;
        if (inner.stopped() == 'x') {
            stopped_ = 'x';  // exit in a function ends the script
            sh_.inactive = true;
        }
    }

    // The words of export/declare/typeset/local/readonly after their NAME=value words (read by
    // assignment()): a quoted or expanded "NAME=value", and bare names given attributes.
    void declare_words(const std::vector<Value>& words, int line) {
        std::string set;
        std::string removed;
        shell::declaration_options(words, set, removed);
        const std::string program = basename_of(words.front().text);
        set += program == "readonly" ? "r" : "";
        const bool local = in_function_scope(program, set);
        for (std::size_t i = 1; i < words.size(); ++i) {
            const Value& w = words[i];
            if (w.text.rfind('-', 0) == 0 || w.text.rfind('+', 0) == 0) {
                continue;
            }
            const auto eq = w.text.find('=');
            std::size_t name_end = eq == std::string::npos ? w.text.size() : eq;
            const bool append = eq != std::string::npos && eq > 0 && w.text[eq - 1] == '+';
            name_end -= append ? 1 : 0;
            const std::string name = w.text.substr(0, name_end);
            const bool known_name = !name.empty() && shell::is_name_start(name[0]) &&
                                    std::all_of(name.begin(), name.end(), shell::is_name_char) &&
                                    (w.unknowns.empty() || w.unknowns.front().begin > name_end);
            if (!known_name) {
                continue;
            }
            if (local) {
                sh_.make_local(name, line);
            }
            if (eq == std::string::npos) {
                attributes(name, set, removed, line);
                if (local && set.find('n') == std::string::npos && sh_.find(name) != nullptr) {
                    sh_.unset(name);  // `local X`: X is unset inside the function
                }
                continue;
            }
            Var var;
            var.line = line;
            var.elems.push_back(w.slice(eq + 1, w.text.size()));
            if (set.find('n') != std::string::npos) {
                sh_.nameref(name, var.elems.front().text);
                continue;
            }
            attributes(name, set, removed, line, false);
            sh_.assign(name, std::move(var), append);
            attributes(name, set, removed, line, true);
        }
    }

    // -i (before the value is assigned), -r (after), +i.
    void attributes(const std::string& name, const std::string& set, const std::string& removed, int line,
                    std::optional<bool> after = std::nullopt) {
        if (!after || !*after) {
            if (set.find('i') != std::string::npos) {
                sh_.integer(name, true);
            }
            if (removed.find('i') != std::string::npos) {
                sh_.integer(name, false);
            }
        }
        if ((!after || *after) && set.find('r') != std::string::npos) {
            sh_.make_readonly(name, line);
        }
    }

    bool in_function_scope(const std::string& program, const std::string& set) const {
        return sh_.in_function() && (program == "local" || ((program == "declare" || program == "typeset") &&
                                                             set.find('g') == std::string::npos));
    }

    // The STRING of `bash -c STRING` (also after srun ... or another wrapper), or nullptr.
    static const Value* shell_script(const std::vector<Value>& words) {
        for (std::size_t i = 0; i < words.size(); ++i) {
            if (!one_of(basename_of(words[i].text), kShells)) {
                continue;
            }
            for (std::size_t j = i + 1; j < words.size() && words[j].text.rfind('-', 0) == 0; ++j) {
                const std::string& opt = words[j].text;
                if (opt.rfind("--", 0) != 0 && opt.find('c') != std::string::npos) {
                    return j + 1 < words.size() ? &words[j + 1] : nullptr;
                }
            }
            return nullptr;
        }
        return nullptr;
    }

    static bool counts(const std::vector<Value>& words, const std::string& program) {
        if (one_of(program, kNeverCount)) {
            return false;
        }
        if (words.front().text.rfind("--", 0) == 0) {
            return true;  // a launch line pasted without its program
        }
        return std::any_of(words.begin(), words.end(), [](const Value& w) {
            const std::string name = basename_of(w.text);
            const bool script = w.text.rfind('-', 0) != 0 && w.text.find_first_of("*?[") == std::string::npos &&
                                ends_with(w.text, ".py");
            return name == "torchrun" || name == "deepspeed" || script;
        });
    }

    // Text read as script: eval's ('e', where exit and return act on this script), a child
    // shell's ('c': bash -c, a here-document fed to bash; its variables do not come back).
    void nested(const Value& text, int line, char context) {
        sh_.enter(line);
        std::optional<State> before;
        if (context == 'c') {
            before = sh_.state(line);
        }
        ScriptReader inner(text, sh_, out_, context == 'e' ? context_ : context);
        inner.run();
        sh_.leave();
        if (before) {
            sh_.set_state(std::move(*before));
            sh_.inactive = false;
        } else if (inner.stopped() != 0) {
            stopped_ = inner.stopped();
            sh_.inactive = true;
        }
    }

    // The bodies of the here-documents of the line just ended.
    void read_heredocs() {
        const std::string& t = lx_.source().text;
        for (const auto& h : pending_) {
            const std::size_t begin = lx_.pos();
            std::size_t p = begin;
            std::size_t body_end = t.size();
            std::size_t next = t.size();
            while (p < t.size()) {
                const std::size_t eol = std::min(t.find('\n', p), t.size());
                std::string line = t.substr(p, eol - p);
                if (h.strip_tabs) {
                    line.erase(0, line.find_first_not_of('\t'));
                }
                if (!line.empty() && line.back() == '\r') {
                    line.pop_back();
                }
                if (line == h.delimiter) {
                    body_end = p;
                    next = std::min(eol + 1, t.size());
                    break;
                }
                p = eol + 1;
            }
            lx_.seek(next);
            if (h.run) {
                const std::size_t end = std::min(body_end, t.size());
                sh_.charge(end - begin, h.line);  // a copy of the body, read as script
                nested(lx_.source().slice(begin, end), h.line, 'c');
            }
        }
        pending_.clear();
    }

    shell::Lexer lx_;
    Shell& sh_;
    std::vector<ScriptWord>& out_;
    std::vector<Heredoc> pending_;
    std::vector<Block> blocks_;
    int case_depth_ = 0;
    bool expect_pattern_ = false;
    char context_ = 's';
    char stopped_ = 0;          // 'x' after exit, 'r' after return: nothing more runs (sh_.inactive)
    char andor_op_ = 0;         // '&' or '|' after a command that ended with && or ||
    Tri andor_status_ = Tri::True;
    std::string andor_why_;
    Tri last_status_ = Tri::True;
    std::string status_why_;
    bool guard_fresh_ = false;  // the command being read opened a guard and has no word yet
    bool prev_piped_ = false;   // the command before ended with | (this one is a pipeline's part)
    int brace_depth_ = 0;
    struct Subshell {
        State state;
        bool inactive = false;
        char stopped = 0;
    };
    std::vector<Subshell> subshells_;
    struct Capture {  // a function's body being read to its }
        std::string name;
        std::size_t begin = 0;
        int brace = 0;
        bool inactive = false;
        int line = 0;
    };
    std::vector<Capture> captures_;
};

// bash refuses to run a script whose first line (two when it starts with #!) holds a NUL byte
// within its first 80 bytes ("cannot execute binary file"); elsewhere it drops NUL bytes.
void refuse_binary_script(const std::string& text, const std::string& file) {
    int lines = text.compare(0, 2, "#!") == 0 ? 2 : 1;
    for (std::size_t i = 0; i < std::min<std::size_t>(text.size(), 80); ++i) {
        if (text[i] == '\n' && --lines == 0) {
            return;
        }
        if (text[i] == '\0') {
            throw input_error(file, std::string("a NUL byte within the first 80 bytes, in its first ") +
                                        (text.compare(0, 2, "#!") == 0 ? "two lines" : "line") +
                                        ": bash refuses to run it (cannot execute binary file)",
                              "give the launch script as text, without NUL bytes");
        }
    }
}

bool valid_env_name(const std::string& name) {
    if (name.empty()) {
        return false;
    }
    if (std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return name != "0" && name[0] != '0';
    }
    return shell::is_name_start(name[0]) && std::all_of(name.begin(), name.end(), shell::is_name_char);
}

}  // namespace

std::pair<std::string, std::string> parse_env_assignment(const std::string& entry, const std::string& where) {
    const auto eq = entry.find('=');
    const std::string name = entry.substr(0, eq);
    if (eq == std::string::npos || !valid_env_name(name)) {
        throw input_error(where, "'" + entry + "' is not NAME=VALUE with NAME a shell variable name (or 1, 2, ... for an argument)",
                          "write it as NAME=VALUE, e.g. --env NUM_NODES=4");
    }
    return {name, entry.substr(eq + 1)};
}

std::vector<ScriptWord> read_launch_script(const std::string& text, const std::string& file,
                                           const std::map<std::string, std::string>& env, std::vector<std::string>* notes) {
    if (text.size() > kMaxLaunchScriptBytes) {
        throw input_error(file,
                          "the launch script is " + std::to_string(text.size()) + " bytes, over the limit of " +
                              std::to_string(kMaxLaunchScriptBytes >> 20U) + " MiB (kMaxLaunchScriptBytes)",
                          "give the script that starts the training (a few kilobytes)");
    }
    require_8bit_text(text, file);
    refuse_binary_script(text, file);
    Shell sh(file, env);
    Value src;
    src.text.reserve(text.size());
    src.lines.reserve(text.size());
    int line = 1;
    int nul_line = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
            sh.crlf_line = sh.crlf_line > 0 ? sh.crlf_line : line;
            continue;  // CRLF reads as LF (noted; a job's words are refused: bash keeps the CR)
        }
        if (text[i] == '\0') {
            nul_line = nul_line > 0 ? nul_line : line;
            continue;  // bash drops a NUL byte of a script it runs
        }
        src.text += text[i];
        src.lines.push_back(line);
        line += text[i] == '\n' ? 1 : 0;
    }
    if (nul_line > 0) {
        sh.notes.push_back(sh.where(nul_line) + ": a NUL byte, which bash drops; read without it");
    }
    if (sh.crlf_line > 0) {
        sh.notes.push_back(sh.where(sh.crlf_line) +
                           ": the script's lines end in CR LF; read as LF, but bash keeps each CR (the last word of a "
                           "line ends in CR, `\\` CR does not continue a line, `then` CR is no keyword): convert it "
                           "with dos2unix before running it");
    }
    std::vector<ScriptWord> out;
    ScriptReader(src, sh, out).run();
    if (notes != nullptr) {
        notes->insert(notes->end(), sh.notes.begin(), sh.notes.end());
    }
    return out;
}

std::vector<ScriptWord> read_launch_command(const std::string& text, const std::string& file,
                                            const std::map<std::string, std::string>& env, std::vector<std::string>* notes) {
    auto words = read_launch_script(text, file, env, notes);
    if (words.empty()) {
        throw input_error(file,
                          "no command of the script runs torchrun, deepspeed or a Python script (a word ending in .py), "
                          "and no line starts with a --flag, so there is no training command to read",
                          "give the script whose torchrun/python line starts the training, or a file of its --flags "
                          "(with --env NAME=VALUE for a branch that depends on the environment)");
    }
    return words;
}

std::optional<TrainingCommand> training_command(const std::vector<ScriptWord>& words) {
    std::optional<std::size_t> script;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& t = words[i].text;
        if (!words[i].unresolved && t.rfind('-', 0) != 0 && t.find_first_of("*?[") == std::string::npos &&
            ends_with(t, ".py")) {
            script = i;  // the last one: the training a script that runs two of them starts last
        }
    }
    if (!script) {
        return std::nullopt;
    }
    TrainingCommand c;
    c.script = words[*script];
    for (std::size_t i = *script + 1; i < words.size() && words[i].command == c.script.command; ++i) {
        c.args.push_back(words[i]);
    }
    return c;
}

}  // namespace planlayout
