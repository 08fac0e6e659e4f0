// Tests: the CLI option parser.
#include <doctest/doctest.h>

#include "args.hpp"
#include "planlayout/error.hpp"

using namespace planlayout::cli;  // NOLINT(google-build-using-namespace)

namespace {
CommandHelp demo_help() {
    return {"demo", "plan-layout demo", "Demo.", {{"--tp,--tensor-model-parallel-size", "N", "tp size"}, {"--verbose", "", "more"}, {"-o", "FILE", "output"}}, {}};
}
}  // namespace

TEST_CASE("options parse by any spelling, with = or a separate value") {
    const auto a = parse_args({"--tensor-model-parallel-size", "4", "pos", "--verbose", "-o", "x"}, demo_help());
    CHECK(a.get_int("--tp", 1, 8).value() == 4);
    CHECK(a.has("--verbose"));
    CHECK(a.positionals() == std::vector<std::string>{"pos"});
    CHECK(a.get("-o").value() == "x");
    const auto b = parse_args({"--tp=8", "--tensor_model_parallel_size", "2"}, demo_help());
    CHECK(b.get_int("--tp", 1, 8).value() == 2);
    CHECK(b.spelling("--tp") == "--tensor_model_parallel_size");
}

TEST_CASE("an unknown option names the nearest known one") {
    CHECK_THROWS_WITH_AS(parse_args({"--tpp", "2"}, demo_help()),
                         "plan-layout demo: unknown option '--tpp'; did you mean '--tp'? ('plan-layout demo --help' lists every option)",
                         planlayout::Error);
    const auto a = parse_args({"--foo", "3", "--tp", "2", "--bar"}, demo_help(), true);
    CHECK(a.get_int("--tp", 1, 8).value() == 2);
    CHECK(a.positionals().empty());
}

TEST_CASE("non-integers and out-of-range values are refused with the flag named") {
    const auto a = parse_args({"--tp", "x2"}, demo_help());
    CHECK_THROWS_WITH_AS((void)a.get_int("--tp", 1, 8), "--tp x2: 'x2' is not an integer; give a whole number, e.g. --tp 1", planlayout::Error);
    const auto b = parse_args({"--tp", "0"}, demo_help());
    CHECK_THROWS_WITH_AS((void)b.get_int("--tp", 1, 8), "--tp 0: value out of range [1, 8]; give a value from 1 to 8", planlayout::Error);
    CHECK_THROWS_AS(parse_args({"--tp"}, demo_help()), planlayout::Error);
}

TEST_CASE("shell words split like a launch script") {
    CHECK(split_shell_words("torchrun a.py \\\n  --tp 2 'x y' # comment\n--ep=4") ==
          std::vector<std::string>{"torchrun", "a.py", "--tp", "2", "x y", "--ep=4"});
}

TEST_CASE("an unterminated quote names the file and the line it opened on") {
    CHECK_THROWS_WITH_AS((void)split_shell_words("torchrun a.py \\\n  --tp \"2\n--ep 4\n", "launch.sh"),
                         "launch.sh:2: unterminated double quote opened on this line; close it with \" as the shell would need",
                         planlayout::Error);
    CHECK_THROWS_WITH_AS((void)split_shell_words("# it's a comment\n--tp 'x"),
                         "arguments:2: unterminated single quote opened on this line; close it with ' as the shell would need",
                         planlayout::Error);
}
