// Ingest: a launch script (bash, as Megatron-LM's examples/ write them) read without running it:
// the words of the commands that start the training, with their lines.
//
// What is interpreted, in file order:
// - words: blanks, `#` comments, backslash-newline, '...', "...", $'...' (decoded as bash does:
//   \a \b \e \E \f \n \r \t \v \\ \' \" \?, octal \nnn, \xHH, \cX, \uHHHH/\UHHHHHHHH of ASCII; a NUL
//   ends the quote's text; past ASCII is refused, bash writes it in the locale's encoding),
//   backslash escapes;
// - assignments `X=v`, `X+=v`, `X=( ... )`, `X+=( ... )` (arrays over several lines, comments
//   inside), also after export/declare/typeset/local/readonly (their options skipped); `unset X`
//   (X is then unset whatever the environment holds); `NAME=v cmd ...` sets NAME for that command
//   only, so it is not kept;
// - expansions: $X, ${X}, ${X[@]}, ${X[*]}, ${X[N]}, ${#X}, ${#X[@]}, ${X:-w}, ${X-w}, ${X:=w},
//   ${X=w}, ${X:+w}, ${X+w}, ${X:?w}, ${X?w}; "${A[@]}" keeps one word per element, unquoted
//   expansions split at blanks (default IFS), as bash does; $((...)) of integers, + - * / % and
//   parentheses, over variables that hold integers. Values are expanded when assigned, as bash
//   does, so `X="$X --a"` appends (a variable used in its own assignment while unset is empty
//   there, the usual append idiom) and no expansion can recurse;
// - `bash -c STRING` / `sh -c STRING` (also after srun and other wrappers) and `eval WORDS` read
//   their text as script; a here-document fed to bash, sh, sbatch or srun is read as script
//   where it stands (other here-documents are skipped);
// - if/elif/else/fi and case/esac take the branch bash takes when the condition is known: `[ ]`,
//   `[[ ]]`, `test` with = == != -eq -ne -lt -le -gt -ge -z -n and `!`, `true`, `false`, joined
//   with && || (a case pattern: fnmatch, as bash). A branch bash does not run assigns and starts
//   nothing. A variable neither set nor given is read as unset (${X:-w} as w): the block is read
//   as bash runs it then, a note names what another branch would set differently, and those
//   values are refused in a job's words (ScriptWord::refusal). When a condition is not known at
//   all (a command like `[ -f x ]`, $(...)), every branch that may run is read from the state
//   before the block, and a variable they leave different is unknown afterwards.
//   A loop's body is read once (a for loop's variable is unknown and refused in a training
//   command); function bodies where they are defined; `exit` and `return` do not stop the
//   reading. No command is run, no file is read (`source` is skipped), no globbing (patterns stay
//   as written, as bash leaves a pattern that matches no file).
//
// Values that cannot be known stay as written and are marked unresolved: a variable neither
// assigned earlier in the file nor given in `env` ("$X is not set"), positional and special
// parameters ($1, $@, ...), command substitutions $(...) and `...` (never run), arithmetic over
// such values, and expansions not listed above. `${X:-default}` of an unknown X takes the
// default, as bash does when X is unset; a variable given in `env` is fixed to that value for
// the whole script (the script's own assignments to it are skipped), and may be a positional
// parameter (`1=/data`).
//
// Each counted word also carries its parts for a job that must pass the same argv (ScriptWord::
// parts): known text, and for each unknown value the expansion the job's shell does instead, in
// the quoting the word had ("${X-}" quoted, ${X-} bare and split as bash splits it; `${X:-w}` of
// an X the script does not set, with w plain text, is read as w and written back whole). What no
// expansion can stand for is ScriptWord::refusal (file:line and the construct): $(...), `...`,
// ${X#a} and the other forms not evaluated, ${X:?}, $$ $! $? $0 $-, ${#X} of an unknown X,
// arithmetic over unknown or assumed values, brace expansion {a,b}, `~`, $1 after `set --` or
// `shift`, a for loop's variable, an unknown value split into array elements and then used in
// double quotes, a variable an undecided if/case sets differently. Thrown at once (Error,
// BadInput, naming file:line): IFS set before a training command, a case that falls through
// (;& ;;&), $'\u...' past ASCII.
//
// The commands that count (their words are returned, every word, in order; the rule is applied
// to each simple command after expansion):
// - a command that runs a launcher or a Python script: one of its words (the program, or a later
//   word after wrappers such as srun, env, numactl, nsys) is named torchrun or deepspeed (any
//   folder), or ends in ".py" and is neither an option nor a pattern (python pretrain_gpt.py,
//   python -m torch.distributed.run ... pretrain_gpt.py; not --config=x.py, not *.py);
// - a command whose first word is a `--flag`: a launch line pasted without its program;
// - never: echo, printf, test, [ and [[ (they print or test words, they do not run them), nor a
//   command that carries a `bash -c` script (its script is read instead).
// Every counted command adds its words, in file order (a script that runs two trainings gives
// both; the flag mapper keeps the last value of a flag). Assignments before a command
// (`CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun ...`) and redirections are not words of it. A script
// saved with CRLF line ends reads as with LF.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace planlayout {

/// A piece of a word as a generated job writes it: known text, or an expansion the job's shell
/// does itself (a variable the script takes from its environment).
struct WordPart {
    std::string text;        // the known text, or the expansion: "${X-}", "${1-}", "$@", "${X:-w}"
    bool expansion = false;
    bool quoted = false;     // the expansion stood inside double quotes (unquoted: split, as bash does)
};

/// Why a word cannot be written so that a job's shell gives the words bash gives: the construct
/// and where it was written.
struct WordRefusal {
    std::string where;  // file:line
    std::string what;   // "a command substitution $(...)", "${X#a} (plan-layout does not ...)"
};

/// One word of a counted command.
struct ScriptWord {
    std::string text;  // the word's value; when unresolved, its unknown parts as written ("$X")
    int line = 0;      // line of the word's first character, where it was written (for a value
                       // that came from a variable: the line it was written on in the assignment;
                       // for a value given in env: the line of the reference)
    std::optional<std::string> unresolved;  // why the value is not known ("$X is not set")
    int command = 0;   // which counted command it belongs to (0, 1, ... in file order)
    std::vector<WordPart> parts{};          // the word for a job's shell, in order (empty: `text`)
    std::optional<WordRefusal> refusal{};   // set when no parts give bash's words
};

/// The Python training script a launch runs and every word after it in its command, as the
/// script gives them (values expanded, quoting removed): what a launcher must pass on unchanged.
struct TrainingCommand {
    ScriptWord script;             // "pretrain_gpt.py" (as written: a path stays a path)
    std::vector<ScriptWord> args;  // every later word of the same command, in order
};

/// The training command of read_launch_script's words: the last resolved word ending in ".py"
/// that is neither an option nor a pattern, and the words after it in the same command (a
/// launcher's own options come before it). nullopt when no word names a Python script (a line
/// pasted without its program, `python -m module`).
[[nodiscard]] std::optional<TrainingCommand> training_command(const std::vector<ScriptWord>& words);

/// The words of the training command(s) of a launch script (see the rules above). `file` names
/// the script in errors; `env` holds values given with --env NAME=VALUE (never the process's
/// environment). Throws Error (BadInput) naming file:LINE for an unterminated quote, `${`, `$(`,
/// array or here-document, and for text over kMaxLaunchScriptBytes, expansions past
/// kMaxLaunchExpansionBytes, more than kMaxLaunchWords words, or nesting deeper than
/// kMaxLaunchNesting (`bash -c` inside `eval` inside ..., `${` inside `${`, parentheses).
/// `notes` (when given) receives a line per if/case decided by what the reader assumes of the
/// environment (a variable neither set nor given read as unset), naming what another branch sets.
[[nodiscard]] std::vector<ScriptWord> read_launch_script(const std::string& text, const std::string& file,
                                                         const std::map<std::string, std::string>& env,
                                                         std::vector<std::string>* notes = nullptr);

/// read_launch_script for the commands that read --megatron-args: throws Error (BadInput) naming
/// the file when no command counts (nothing runs torchrun, deepspeed or a Python script and no
/// line starts with a --flag), so a script that starts no training is not read as one.
[[nodiscard]] std::vector<ScriptWord> read_launch_command(const std::string& text, const std::string& file,
                                                          const std::map<std::string, std::string>& env,
                                                          std::vector<std::string>* notes = nullptr);

/// Checks one --env entry "NAME=VALUE" (NAME a shell variable name or a positional number) and
/// splits it; throws Error (BadInput) naming `where` otherwise.
[[nodiscard]] std::pair<std::string, std::string> parse_env_assignment(const std::string& entry, const std::string& where);

}  // namespace planlayout
