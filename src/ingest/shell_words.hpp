// Ingest (private): shell words and their expansions for the launch-script reader: values that
// keep the line of every byte and the parts that are not known, the variables, and the lexer of
// one word (quotes, $X, ${...}, $((...)), $(...)).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace planlayout::shell {

/// Bytes [begin, end) of a value that are written as in the script because their value is not
/// known ("$X"), and why; or (in Value::kept) bytes whose value is read under an assumption
/// (${X:-w} of an X the script does not set: w) while the job must still expand them.
struct Unknown {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::string reason;
    std::string expr;     // what the job's shell expands in its place ("${X-}", "$@", "${X:-w}");
                          // empty: no expansion gives the same words (refusal says what)
    std::string refusal;  // the construct, when expr is empty ("a command substitution $(...)")
    int line = 0;         // where the construct was written
    bool quoted = false;  // inside double quotes in the word it ended in (set by fields_of)
    bool split = false;   // split at blanks once already (an unquoted reference in an array literal)
};

/// Text with the line each byte was written on, and its unknown parts (sorted, disjoint).
struct Value {
    std::string text;
    std::vector<int> lines;
    std::vector<Unknown> unknowns;
    std::vector<Unknown> kept;  // known under an assumption, expanded by the job (sorted, disjoint)
    bool held = false;          // a word with a quoted or literal part: bash keeps it even when empty

    void append(const Value& v);
    void append_char(char c, int line);
    void append_text(const std::string& s, int line);
    void append_unknown(const std::string& raw, int line, std::string reason);
    /// An unknown part with what the job writes for it (expr), or the construct refused (refusal).
    void append_unknown(const std::string& raw, int line, std::string reason, std::string expr, std::string refusal);
    [[nodiscard]] Value slice(std::size_t begin, std::size_t end) const;
    [[nodiscard]] int first_line(int fallback) const { return lines.empty() ? fallback : lines.front(); }
    /// The reason when the whole value is one unknown part (a variable set from $1, $(cmd), ...).
    [[nodiscard]] const Unknown* whole_unknown() const;
};

/// A shell variable: a scalar is an array of one element.
struct Var {
    std::vector<Value> elems;
    bool array = false;
    int line = 0;  // where it was last assigned
};

/// The state of one reading: variables, the --env values, the expansion budget, the nesting.
class Shell {
public:
    Shell(std::string file, std::map<std::string, std::string> env)
        : file_(std::move(file)), env_(std::move(env)) {}

    [[nodiscard]] const std::string& file() const { return file_; }
    [[nodiscard]] std::string where(int line) const { return file_ + ":" + std::to_string(line); }

    /// The value given with --env for name, or nullptr (inside a function: never for $1 $2 ...).
    [[nodiscard]] const std::string* env_value(const std::string& name) const;
    /// The script's variable, or nullptr when it is unset (--env values are not in it). Inside a
    /// function, $1 $2 ... $@ $* $# are the call's arguments.
    [[nodiscard]] const Var* find(const std::string& name) const;
    [[nodiscard]] bool pinned(const std::string& name) const { return env_.count(resolve(name)) > 0; }
    /// Assigns (through a nameref; as arithmetic for a `declare -i` variable). Throws Error
    /// (BadInput) for a readonly variable: bash refuses and skips the rest of the command line.
    void assign(const std::string& given, Var v, bool append);
    /// `unset X`: X is unset from here on, whatever the environment holds.
    void unset(const std::string& given);
    /// True when the script unset X (and did not set it again): it expands to nothing.
    [[nodiscard]] bool cleared(const std::string& name) const;

    /// declare -n NAME=TARGET: NAME refers to TARGET from here on.
    void nameref(const std::string& name, const std::string& target);
    /// The variable a name stands for (through namerefs).
    [[nodiscard]] std::string resolve(const std::string& name) const;
    /// declare -i NAME: its assignments are arithmetic (`+=` adds).
    void integer(const std::string& name, bool on);
    /// readonly NAME / declare -r NAME (on `line`).
    void make_readonly(const std::string& name, int line);

    /// A function call's arguments (nullopt: the script's own, not known); returns the previous.
    std::optional<std::vector<Value>> set_args(std::optional<std::vector<Value>> args);
    [[nodiscard]] bool in_function() const { return args_.has_value(); }
    [[nodiscard]] const std::vector<Value>& args() const { return *args_; }
    /// `local X` inside a function: X is put back when the function returns.
    void make_local(const std::string& name, int line);
    void push_frame() { frames_.emplace_back(); }
    void pop_frame();
    /// A copy of the variable (charged to the expansion budget), to restore it later.
    [[nodiscard]] std::optional<Var> saved(const std::string& given, int line);
    void restore(const std::string& given, const std::optional<Var>& v);

    /// Counts bytes produced by an expansion; throws Error past kMaxLaunchExpansionBytes.
    void charge(std::size_t bytes, int line);

    /// Enters one nesting level (throws Error past kMaxLaunchNesting); leave() on the way out.
    void enter(int line);
    void leave() { --depth_; }

    /// The variables as they stand (an if/case reads each branch from the state before it).
    struct State {
        std::map<std::string, Var> vars;
        std::set<std::string> cleared;
    };
    [[nodiscard]] State state(int line);  // charged to the expansion budget
    void set_state(State s) {
        vars_ = std::move(s.vars);
        cleared_ = std::move(s.cleared);
    }
    /// After an if/case whose branch is not known: a variable the possible branches leave alike
    /// keeps that value; one they leave different becomes unknown, refused where a word uses it.
    void merge(const std::vector<State>& ends, const std::string& reason, const std::string& refusal, int line);
    /// After an if/case decided under an assumption about the environment: the state of branch
    /// `chosen`; a variable another possible branch leaves different keeps the chosen value,
    /// refused (`refusal`) where a job's word uses it. Returns those variables' names.
    std::vector<std::string> merge_assumed(const std::vector<State>& ends, std::size_t chosen, const std::string& refusal,
                                           int line);

    std::vector<std::string> notes;  // what the reading assumed (file:line: ...), for the user
    std::map<std::string, Value> functions;  // the functions the script defined: their bodies

    std::string assigning;  // the variable whose value is being read (`X="$X --a"` while X is unset)
    bool inactive = false;  // inside a branch bash does not take: nothing is assigned or run
    int ifs_line = 0;          // where the script set IFS (0: never): its splitting is not bash's default
    int positional_line = 0;   // where `set -- ...` or `shift` replaced the script's arguments
    int crlf_line = 0;         // the first line that ends in CR LF (0: none); bash keeps the CR

private:
    std::string file_;
    std::map<std::string, std::string> env_;
    std::map<std::string, Var> vars_;
    std::set<std::string> cleared_;
    std::map<std::string, std::string> namerefs_;
    std::set<std::string> integers_;
    std::map<std::string, int> readonly_;
    std::optional<std::vector<Value>> args_;
    std::map<std::string, Var> positional_;  // $1 ... $@ $* $# of args_
    std::vector<std::map<std::string, std::optional<Var>>> frames_;
    std::size_t spent_ = 0;
    int depth_ = 0;
};

/// A run of a word: `split` when it came from an unquoted expansion (split at blanks),
/// `new_word` when it starts a word of its own (the second and later elements of "${A[@]}").
struct Piece {
    Value value;
    bool split = false;
    bool new_word = false;
};

/// The words pieces make: split at blanks (command words, array elements) or joined into one
/// value (an assignment; array elements joined with a blank). `line` is where the word started.
[[nodiscard]] std::vector<Value> fields_of(const std::vector<Piece>& pieces, bool split, int line);

/// The lexer of words over a source value (the script, or a string read as script).
class Lexer {
public:
    Lexer(const Value& src, Shell& sh) : src_(src), sh_(sh) {}

    [[nodiscard]] bool at_end() const { return pos_ >= src_.text.size(); }
    [[nodiscard]] char peek(std::size_t ahead = 0) const {
        return pos_ + ahead < src_.text.size() ? src_.text[pos_ + ahead] : '\0';
    }
    [[nodiscard]] int line() const { return line_at(pos_); }
    [[nodiscard]] int line_at(std::size_t at) const;
    [[nodiscard]] std::size_t pos() const { return pos_; }
    void seek(std::size_t pos) { pos_ = pos; }
    void advance(std::size_t n = 1) { pos_ += n; }
    [[nodiscard]] const Value& source() const { return src_; }
    [[nodiscard]] Shell& shell() { return sh_; }

    /// Skips blanks and backslash-newlines (not newlines).
    void skip_blanks();

    /// One word from the current position to the next unquoted blank or metacharacter
    /// (; & | ( ) < > newline); empty when the position is at one.
    [[nodiscard]] std::vector<Piece> word();

    /// The literal text of a word as written (a here-document delimiter): quotes removed.
    [[nodiscard]] std::string literal_word(bool& quoted);

private:
    enum class Stop { Meta, Brace };
    // ${name[index]OP...} as written (raw) on `line`.
    struct Operation {
        std::string name;
        std::string index;
        std::string op;
        std::string raw;
        int line = 0;
    };
    std::vector<Piece> word_until(Stop stop);
    [[nodiscard]] const char* expansion_not_read(std::size_t word_start) const;
    void dollar(std::vector<Piece>& out, bool quoted);
    void double_quoted(std::vector<Piece>& out);
    void ansi_c_quoted(std::vector<Piece>& out);
    void braced(std::vector<Piece>& out, bool quoted, std::size_t start);
    void variable(std::vector<Piece>& out, const std::string& name, const std::string& index, bool quoted,
                  const std::string& raw, int line);
    void length(std::vector<Piece>& out, const std::string& name, const std::string& index, bool quoted,
                const std::string& raw, int line);
    void operation(std::vector<Piece>& out, const Operation& op, std::vector<Piece> word, bool quoted);
    [[nodiscard]] std::size_t matching_brace(std::size_t start) const;
    void arithmetic(std::vector<Piece>& out, bool quoted, std::size_t start);
    [[nodiscard]] std::size_t skip_substitution(std::size_t from, char close, const char* what) const;
    [[noreturn]] void unterminated(std::size_t at, const std::string& what, const std::string& fix) const;

    const Value& src_;
    Shell& sh_;
    std::size_t pos_ = 0;
    bool vanished_ = false;  // a quoted "${A[@]}" of no elements: the quotes make no word
};

/// What bash's arithmetic gives an expression: the value (nullopt: not evaluated, `why` says
/// precisely what), the variable read whose value is assumed (`assumed`), and the assignments
/// it makes in order (`X=4`, `X*=8`, `X++`), which the caller applies.
struct ArithResult {
    std::optional<long long> value;
    std::string why;
    std::string assumed;
    std::vector<std::pair<std::string, long long>> assigned;
};

/// Evaluates an expression as bash's arithmetic does (shell_arith.cpp): every operator
/// (, = op= ?: || && | ^ & == != < > <= >= << >> + - * / % ** ! ~ ++ --), 64-bit wrap-around,
/// constants 12, 012 (octal), 0x1f, BASE#DIGITS, variables holding integers or expressions
/// (an empty one, or one the script unset, is 0; one neither set nor given is not known).
[[nodiscard]] ArithResult arithmetic_value(const std::string& expr, const Shell& sh, int line);

/// arithmetic_value for an expression that must not assign: nullopt with `why` set when it
/// cannot be evaluated.
[[nodiscard]] std::optional<long long> evaluate_arithmetic(const std::string& expr, const Shell& sh, int line,
                                                           std::string& why);
/// The same; `assumed` names a variable read whose value is a default the environment may override.
[[nodiscard]] std::optional<long long> evaluate_arithmetic(const std::string& expr, const Shell& sh, int line,
                                                           std::string& why, std::string& assumed);

/// What a builtin that assigns did: handled (words[0] is one), and its exit status (0, 1; -1
/// when not known), which && || and if conditions read.
struct BuiltinRun {
    bool handled = false;
    int status = -1;
};

/// let, printf -v, read, mapfile/readarray (shell_builtins.cpp): assigns what bash assigns, or
/// makes the variables not known.
[[nodiscard]] BuiltinRun run_assigning_builtin(Shell& sh, const std::vector<Value>& words, int line);
/// ((EXPR)): evaluates it and assigns what it assigns; when it cannot, the variables it assigns
/// are not known (status -1).
void arithmetic_command(Shell& sh, const std::string& expr, int line, BuiltinRun& out);
/// The attribute letters a declaration's options set (-i -n -r -g ...) and remove (+i).
void declaration_options(const std::vector<Value>& words, std::string& set, std::string& removed);

/// "$X is not set", "$1 is an argument of the script", ...: why a reference has no known value.
[[nodiscard]] std::string unset_reason(const std::string& name);

[[nodiscard]] bool is_name_start(char c);
[[nodiscard]] bool is_name_char(char c);
/// '0'..'9'.
[[nodiscard]] bool is_digit(char c);
/// A non-empty run of '0'..'9' ("12"; not "", "+1" or "1a").
[[nodiscard]] bool all_digits(const std::string& s);

}  // namespace planlayout::shell
