// Tests (issue #41 item 5): launch scripts whose variables bash sets another way than NAME=value:
// let, ((...)), printf -v, read, declare -n/-i, a quoted declare/export, && and ||, subshells,
// pipelines, loops, readonly, exit, a function's arguments, CRLF, NUL bytes, and bash's
// arithmetic operators. Each reproducer of the issue is pinned here: the reader gives bash's
// value, or the variable is not known (refused in a job's word), never an earlier value.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "planlayout/error.hpp"
#include "planlayout/ingest/launch_script.hpp"

using planlayout::read_launch_script;
using planlayout::ScriptWord;

namespace {

const std::string kRun = "torchrun pretrain_gpt.py --tensor-model-parallel-size $TP";

std::vector<ScriptWord> read_words(const std::string& text, std::vector<std::string>* notes = nullptr) {
    return read_launch_script(text, "t.sh", {}, notes);
}

// The last word of the training command: $TP as the reader reads it ("" when not known).
std::string tp_of(const std::string& text) {
    const auto words = read_words(text);
    REQUIRE(!words.empty());
    const ScriptWord& w = words.back();
    return w.unresolved || w.refusal ? std::string() : w.text;
}

// True when the last word is not known (an error for a flag the plan reads, a refusal for a job).
bool unknown_tp(const std::string& text) {
    const auto words = read_words(text);
    REQUIRE(!words.empty());
    return words.back().unresolved.has_value() || words.back().refusal.has_value();
}

using Words = std::vector<std::string>;

Words texts_of(const std::string& text) {
    Words out;
    for (const auto& w : read_words(text)) {
        out.push_back(w.text);
    }
    return out;
}

}  // namespace

TEST_CASE("let, ((...)), printf -v, declare/export \"NAME=v\" and declare -n assign as bash does") {
    CHECK(tp_of("TP=1\nlet TP*=8\n" + kRun) == "8");
    CHECK(tp_of("TP=1\n(( TP = 4 ))\n" + kRun) == "4");
    CHECK(tp_of("TP=1\nprintf -v TP %d 8\n" + kRun) == "8");
    CHECK(tp_of("TP=1\nprintf -v TP 'x%sy' 8\n" + kRun) == "x8y");
    CHECK(unknown_tp("TP=1\nprintf -v TP '%05d' 8\n" + kRun));  // a format not followed: not known
    CHECK(tp_of("TP=1\ndeclare -n R=TP\nR=8\n" + kRun) == "8");
    CHECK(tp_of("TP=1\ndeclare \"TP=8\"\n" + kRun) == "8");
    CHECK(tp_of("TP=1\nexport \"TP=8\"\n" + kRun) == "8");
    CHECK(tp_of("X=TP=8\nexport $X\n" + kRun) == "8");
}

TEST_CASE("read and mapfile: their variables are not known, never an earlier value or the environment") {
    CHECK(unknown_tp("TP=1\nread -r TP <<EOF\n8\nEOF\n" + kRun));
    const auto w = read_words("read -r -d '' MSG <<'EOF'\nhello\nEOF\ntorchrun pretrain_gpt.py --msg \"${MSG-}\"\n");
    REQUIRE(w.size() == 4);
    CHECK(w[3].refusal.has_value());  // before: the job wrote ${MSG-} (an environment lookup)
    CHECK(unknown_tp("TP=1\nwhile read -r TP; do :; done < f\n" + kRun));
    CHECK(unknown_tp("mapfile -t TP < f\n" + kRun));
}

TEST_CASE("&& and || are decided as if conditions, subshells and pipeline parts do not assign") {
    CHECK(tp_of("TP=8\ntrue || TP=1\n" + kRun) == "8");
    CHECK(tp_of("TP=8\n[ -n x ] || TP=1\n" + kRun) == "8");
    CHECK(tp_of("TP=8\ntrue && TP=2\n" + kRun) == "2");
    CHECK(tp_of("TP=8\nfalse && TP=2 || TP=4\n" + kRun) == "4");
    CHECK(tp_of("TP=8\nfalse || { TP=2; X=1; }\n" + kRun) == "2");
    CHECK(tp_of("TP=8\ntrue || { TP=2; X=1; }\n" + kRun) == "8");
    CHECK(unknown_tp("TP=8\n[ -f /x ] && TP=1\n" + kRun));  // not known: either value
    CHECK(tp_of("TP=8\n( TP=1 )\n" + kRun) == "8");
    CHECK(tp_of("TP=8\necho x | TP=1\n" + kRun) == "8");
    CHECK(tp_of("TP=8\nTP=1 | cat\n" + kRun) == "8");
    CHECK(tp_of("TP=8\necho x | let TP=1\n" + kRun) == "8");
    // A training command in a pipeline or subshell still counts.
    CHECK(texts_of("TP=8\n" + kRun + " | tee log\n") == Words{"torchrun", "pretrain_gpt.py", "--tensor-model-parallel-size", "8"});
    CHECK(texts_of("TP=8\n( " + kRun + " )\n") == Words{"torchrun", "pretrain_gpt.py", "--tensor-model-parallel-size", "8"});
}

TEST_CASE("loops: a body bash may not run, or runs many times, leaves its variables not known") {
    CHECK(tp_of("TP=8\nwhile false; do TP=1; done\n" + kRun) == "8");
    CHECK(tp_of("TP=8\nuntil true; do TP=1; done\n" + kRun) == "8");
    CHECK(unknown_tp("TP=8\nwhile [ -f /x ]; do TP=1; done\n" + kRun));
    CHECK(unknown_tp("TP=8\nfor i in 1 2; do TP=$i; done\n" + kRun));
    CHECK(unknown_tp("TP=8\nfor ((i = 0; i < 2; i++)); do TP=1; done\n" + kRun));
    CHECK(tp_of("TP=8\nfor i in 1 2; do X=1; done\n" + kRun) == "8");  // a variable the body leaves alone
}

TEST_CASE("readonly and exit stop as bash stops") {
    CHECK_THROWS_WITH_AS(read_words("readonly TP=8\nTP=2\n" + kRun),
                         doctest::Contains("$TP is readonly (since line 1): bash refuses this assignment"),
                         planlayout::Error);
    CHECK_THROWS_AS(read_words("declare -r TP=8\nTP=2\n" + kRun), planlayout::Error);
    std::vector<std::string> notes;
    CHECK(read_words("TP=8\nexit 0\n" + kRun, &notes).empty());  // bash runs no training at all
    REQUIRE(notes.size() == 1);
    CHECK(notes[0] == "t.sh:2: exit: bash stops the script here; nothing after it runs");
    CHECK(read_words("TP=8\nif true; then exit 0; fi\n" + kRun).empty());
    CHECK(tp_of("TP=8\nif [ -f /x ]; then TP=1; exit 1; fi\n" + kRun) == "8");  // where the branch ran, bash stopped
    CHECK(tp_of("TP=8\ncd /d || exit 1\n" + kRun) == "8");
    CHECK(tp_of("TP=8\n( exit 1 )\n" + kRun) == "8");  // exit leaves the subshell only
    CHECK(tp_of("TP=8\nbash -c 'TP=1'\n" + kRun) == "8");  // a child shell's variables do not come back
}

TEST_CASE("functions: read where called, with their own $1 $@ $#, local and return") {
    const std::string fn = "run() { torchrun pretrain_gpt.py \"$@\"; }\nrun --lr 1 \"a b\"\n";
    CHECK(texts_of(fn) == Words{"torchrun", "pretrain_gpt.py", "--lr", "1", "a b"});
    CHECK(texts_of("run() {\n  torchrun pretrain_gpt.py \"$1\" $# $*\n}\n") == Words{});  // never called
    CHECK(texts_of("function run {\n  local TP=2\n  torchrun pretrain_gpt.py --tp $TP \"$2\"\n  return\n  torchrun x.py\n}\n"
                   "TP=8\nrun a \"b c\"\ntorchrun pretrain_gpt.py --tp $TP\n") ==
          Words{"torchrun", "pretrain_gpt.py", "--tp", "2", "b c", "torchrun", "pretrain_gpt.py", "--tp", "8"});
    CHECK(texts_of("f() { shift; torchrun pretrain_gpt.py \"$@\" \"${3-none}\"; }\nf a b c\n") ==
          Words{"torchrun", "pretrain_gpt.py", "b", "c", "none"});
    CHECK(read_words("f() { exit 0; }\nf\n" + kRun).empty());
}

TEST_CASE("declare -i: assignments are arithmetic, += adds") {
    CHECK(tp_of("declare -i TP=4\nTP+=4\n" + kRun) == "8");  // was read as 44
    CHECK(tp_of("declare -i TP\nTP=2*4\n" + kRun) == "8");
    CHECK(tp_of("X=3\ndeclare -i TP=X+5\n" + kRun) == "8");
    CHECK(unknown_tp("declare -i TP=$1\n" + kRun));
}

TEST_CASE("arithmetic: bash's operators and constants are evaluated, what is not is named") {
    CHECK(tp_of("TP=$(( 1 << 3 ))\n" + kRun) == "8");
    CHECK(tp_of("TP=$(( 2 ** 3 ))\n" + kRun) == "8");
    CHECK(tp_of("TP=$(( 1 ? 8 : 2 ))\n" + kRun) == "8");
    CHECK(tp_of("TP=$(( 1, 8 ))\n" + kRun) == "8");
    CHECK(tp_of("TP=$(( 0x8 ))\n" + kRun) == "8");
    CHECK(tp_of("TP=$(( 010 ))\n" + kRun) == "8");
    CHECK(tp_of("TP=$(( 2#1000 ))\n" + kRun) == "8");
    CHECK(tp_of("TP=$(( 64#_ ))\n" + kRun) == "63");
    CHECK(tp_of("TP=$(( 256 >> 5 ))\n" + kRun) == "8");
    CHECK(tp_of("TP=$(( (3 & 6) | 8 ^ 2 ))\n" + kRun) == "10");
    CHECK(tp_of("TP=$(( !0 + ~-8 + (4 <= 4) + (2 != 2) + 5 ))\n" + kRun) == "14");
    CHECK(tp_of("TP=$(( 1 || 1 / 0 ))\n" + kRun) == "1");  // the right side is not evaluated
    CHECK(tp_of("TP=$(( 2 ** 63 ))\n" + kRun) == "-9223372036854775808");  // wraps, as bash's
    CHECK(tp_of("X=3\nTP=$(( X++ + X ))\n" + kRun + " $X") == "4");
    CHECK(tp_of("X=1+1\nTP=$(( X * 4 ))\n" + kRun) == "8");  // a value that is an expression
    const auto w = read_words("TP=$(( 09 ))\n" + kRun);
    REQUIRE(w.back().unresolved.has_value());
    CHECK(w.back().unresolved->find("'09' has a digit too great for its base 8") != std::string::npos);
    const auto u = read_words("torchrun pretrain_gpt.py --x $(( 1 << 70 ))\n");
    REQUIRE(u.back().refusal.has_value());
    CHECK(u.back().refusal->what.find("a shift by 70 is not evaluated") != std::string::npos);
    CHECK(u.back().refusal->what.find("values not known") == std::string::npos);
}

TEST_CASE("CR LF and NUL bytes: noted, a job's words are refused for CR LF, NUL bytes dropped as bash does") {
    std::vector<std::string> notes;
    const auto w = read_words("TP=8\r\n" + kRun + "\r\n", &notes);
    CHECK(w.back().text == "8");  // the plan reads it as LF
    REQUIRE(w.back().refusal.has_value());
    CHECK(w.back().refusal->what.find("CR LF line ends") != std::string::npos);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("t.sh:1: the script's lines end in CR LF") == 0);
    notes.clear();
    const auto n = read_words(std::string("#!/bin/bash\n\ntorchrun pretrain_gpt.py --x \"a\0b\"\n", 47), &notes);
    CHECK(n.back().text == "ab");
    REQUIRE(notes.size() == 1);
    CHECK(notes[0] == "t.sh:3: a NUL byte, which bash drops; read without it");
    CHECK_THROWS_WITH_AS(read_words(std::string("torchrun pretrain_gpt.py \"\0\"\n", 29)),
                         doctest::Contains("bash refuses to run it (cannot execute binary file)"), planlayout::Error);
}
