// Ingest: a launch script read without running it (the rules are in launch_script.hpp).
#include "planlayout/ingest/launch_script.hpp"

#include <algorithm>
#include <cstring>
#include <array>

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

class Reader {
public:
    Reader(const Value& src, Shell& sh, std::vector<ScriptWord>& out) : lx_(src, sh), sh_(sh), out_(out) {}

    void run() {
        while (true) {
            skip_separators();
            if (lx_.at_end()) {
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
                lx_.advance(lx_.peek(2) == '&' ? 3 : 2);  // ;; ;& ;;& end a case branch
                expect_pattern_ = case_depth_ > 0;
            } else if (is_one_of(c, ";&|()")) {
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
    bool assignment(std::vector<std::pair<std::string, std::optional<Var>>>* saved) {
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
        sh_.assign(name, std::move(var), append);
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

    // A case pattern up to its ')', or the `esac` that ends the case.
    void pattern() {
        const auto first = shell::fields_of(lx_.word(), true, lx_.line());
        if (first.size() == 1 && first[0].text == "esac") {
            --case_depth_;
            expect_pattern_ = false;
            return;
        }
        while (!lx_.at_end() && lx_.peek() != ')' && lx_.peek() != '\n') {
            word_or_skip();  // an alternative, the | between two, a leading (
            lx_.skip_blanks();
        }
        if (lx_.peek() == ')') {
            lx_.advance();
        }
        expect_pattern_ = false;
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
    bool keyword(const std::string& w) {
        if (one_of(w, kSkippedKeywords)) {
            return true;
        }
        if (w == "esac") {
            case_depth_ = std::max(0, case_depth_ - 1);
            return true;
        }
        if (w == "case") {
            while (true) {
                lx_.skip_blanks();
                if (lx_.at_end() || is_one_of(lx_.peek(), "\n;&|()")) {
                    return true;
                }
                const std::size_t before = lx_.pos();
                const auto word = shell::fields_of(lx_.word(), true, lx_.line());
                if (lx_.pos() == before) {
                    lx_.advance();
                }
                if (word.size() == 1 && word[0].text == "in") {
                    ++case_depth_;
                    expect_pattern_ = true;
                    return true;
                }
            }
        }
        if (w == "for" || w == "select" || w == "function") {
            drop_rest();
            return true;
        }
        return false;
    }

    void command() {
        const int start_line = lx_.line();
        std::vector<Value> words;
        std::vector<std::pair<std::string, std::optional<Var>>> prefix;
        const std::size_t heredocs_before = pending_.size();
        bool declaration = false;
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
            if (redirection() || ((words.empty() || declaration) && assignment(words.empty() ? &prefix : nullptr))) {
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
            if (words.empty() && fields.size() == 1 && fields[0].unknowns.empty() && keyword(fields[0].text)) {
                if (expect_pattern_) {
                    return;
                }
                continue;
            }
            for (auto& f : fields) {
                words.push_back(std::move(f));
            }
            declaration = declaration || (!words.empty() && one_of(words.front().text, kDeclarations));
        }
        if (words.empty()) {
            return;  // assignments only: they stay
        }
        for (std::size_t i = heredocs_before; i < pending_.size(); ++i) {
            pending_[i].run = std::any_of(words.begin(), words.end(), [](const Value& w) {
                return one_of(basename_of(w.text), kHeredocRunners);
            });
        }
        act(words, start_line);
    }

    void act(const std::vector<Value>& words, int line) {
        const std::string program = basename_of(words.front().text);
        if (program == "unset") {
            for (std::size_t i = 1; i < words.size(); ++i) {
                if (words[i].text.rfind('-', 0) != 0) {
                    sh_.unset(words[i].text);
                }
            }
            return;
        }
        if (program == "eval") {
            Value text;
            for (std::size_t i = 1; i < words.size(); ++i) {
                if (i > 1) {
                    text.append_char(' ', text.first_line(line));
                }
                text.append(words[i]);
            }
            nested(text, line);
            return;
        }
        if (const Value* script = shell_script(words)) {
            nested(*script, line);
            return;
        }
        if (counts(words, program)) {
            const int command = out_.empty() ? 0 : out_.back().command + 1;
            for (const auto& w : words) {
                if (out_.size() >= kMaxLaunchWords) {
                    throw input_error(sh_.where(line),
                                      "more than " + std::to_string(kMaxLaunchWords) +
                                          " words in the training commands, over the limit (kMaxLaunchWords)",
                                      "a launch line has a few hundred words; give the script that starts the training");
                }
                out_.push_back(ScriptWord{w.text, w.first_line(line),
                                          w.unknowns.empty() ? std::nullopt : std::optional<std::string>(w.unknowns[0].reason),
                                          command});
            }
        }
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

    void nested(const Value& text, int line) {
        sh_.enter(line);
        Reader inner(text, sh_, out_);
        inner.run();
        sh_.leave();
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
                nested(lx_.source().slice(begin, end), h.line);
            }
        }
        pending_.clear();
    }

    shell::Lexer lx_;
    Shell& sh_;
    std::vector<ScriptWord>& out_;
    std::vector<Heredoc> pending_;
    int case_depth_ = 0;
    bool expect_pattern_ = false;
};

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
                                           const std::map<std::string, std::string>& env) {
    if (text.size() > kMaxLaunchScriptBytes) {
        throw input_error(file,
                          "the launch script is " + std::to_string(text.size()) + " bytes, over the limit of " +
                              std::to_string(kMaxLaunchScriptBytes >> 20U) + " MiB (kMaxLaunchScriptBytes)",
                          "give the script that starts the training (a few kilobytes)");
    }
    require_8bit_text(text, file);
    Value src;
    src.text.reserve(text.size());
    src.lines.reserve(text.size());
    int line = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
            continue;  // CRLF reads as LF
        }
        src.text += text[i];
        src.lines.push_back(line);
        line += text[i] == '\n' ? 1 : 0;
    }
    Shell sh(file, env);
    std::vector<ScriptWord> out;
    Reader(src, sh, out).run();
    return out;
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
