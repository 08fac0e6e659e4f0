// Tests: the CLI's option parsing on CLI11 (spellings, errors, validators), help and man page.
#include <doctest/doctest.h>

#include <CLI/CLI.hpp>

#include <sstream>

#include "args.hpp"
#include "command_spec.hpp"
#include "commands.hpp"
#include "parallel_flags.hpp"
#include "planlayout/cli/run.hpp"
#include "planlayout/error.hpp"

using namespace planlayout::cli;  // NOLINT(google-build-using-namespace)

namespace {

// A small command on its own App, like the ones run_cli builds.
struct Demo {
    CLI::App app{"demo"};
    CommandSpec spec = standalone_command(app, "demo");

    Demo() {
        spec.usage = "plan-layout demo";
        spec.description = "Demo.";
        spec.positionals = {0, 1, "at most one FILE", "give one file"};
        add_options(spec, {{"--tp,--tensor-model-parallel-size", "N", "tp size"},
                           {"--verbose", "", "more"},
                           {"-o", "FILE", "output"},
                           {"--format", "text|json", "output format"},
                           {"--layout", "FILE", "a layout"},
                           {"--kind", "K", "a kind"},
                           {"--help,-h", "", "show this help"}});
        check_choice(spec, "--format", "format", {"text", "json"});
        needs(spec, "--kind", "--layout");
        excludes(spec, "--layout", "-o");
        spec.examples = {"plan-layout demo --tp 2"};
    }

    ParsedArgs parse(const std::vector<std::string>& words) { return parse_command(app, spec, words); }
};

std::string message_of(const std::vector<std::string>& words) {
    Demo d;
    try {
        (void)d.parse(words);
    } catch (const planlayout::Error& e) {
        CHECK(e.code() == planlayout::ExitCode::BadInput);
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("options parse by any spelling, with = or a separate value - the last value wins") {
    Demo d;
    const auto a = d.parse({"--tensor-model-parallel-size", "4", "pos", "--verbose", "-o", "x"});
    CHECK(a.get_int("--tp", 1, 8).value() == 4);
    CHECK(a.has("--verbose"));
    CHECK(a.positionals() == std::vector<std::string>{"pos"});
    CHECK(a.get("-o").value() == "x");
    Demo e;
    const auto b = e.parse({"--tp=8", "--tensor_model_parallel_size", "2"});
    CHECK(b.get_int("--tp", 1, 8).value() == 2);
    CHECK(b.spelling("--tp") == "--tensor_model_parallel_size");
    CHECK(Demo().parse({"--help"}).has("--help"));
}

TEST_CASE("CLI11 parse errors become one-line usage errors") {
    CHECK(message_of({"--tpp", "2"}) ==
          "plan-layout demo: unknown option '--tpp'; did you mean '--tp'? ('plan-layout demo --help' lists every option)");
    CHECK(message_of({"--zzzzzzzzzzzz"}) ==
          "plan-layout demo: unknown option '--zzzzzzzzzzzz'; run 'plan-layout demo --help' for the options");
    CHECK(message_of({"--tensor_model_parallel_size"}) ==
          "plan-layout demo: option '--tensor_model_parallel_size' needs a value; write "
          "--tensor_model_parallel_size followed by its value");
    CHECK(message_of({"--verbose=3"}) == "plan-layout demo: option '--verbose' takes no value; write it alone: --verbose");
    CHECK(message_of({"--format", "yaml"}) == "--format yaml: unknown format 'yaml'; use text or json");
    CHECK(message_of({"--kind", "ep"}) == "plan-layout demo: --kind needs --layout; give both, or drop --kind");
    CHECK(message_of({"--layout", "a.json", "-o", "x"}) ==
          "plan-layout demo: -o conflicts with --layout; give one of the two");
    CHECK(message_of({"a", "b"}) == "plan-layout demo: expected at most one FILE, got 2; give one file");
}

TEST_CASE("non-integers and out-of-range values are refused with the flag named") {
    const auto a = Demo().parse({"--tp", "x2"});
    CHECK_THROWS_WITH_AS((void)a.get_int("--tp", 1, 8), "--tp x2: 'x2' is not an integer; give a whole number, e.g. --tp 1",
                         planlayout::Error);
    const auto b = Demo().parse({"--tp", "0"});
    CHECK_THROWS_WITH_AS((void)b.get_int("--tp", 1, 8), "--tp 0: 0 is smaller than 1; give a value of at least 1",
                         planlayout::Error);
    // Beyond int64: shown as given, never wrapped to -1.
    const auto c = Demo().parse({"--tp", "18446744073709551615"});
    CHECK_THROWS_WITH_AS((void)c.get_int("--tp", 1, 8),
                         "--tp 18446744073709551615: 18446744073709551615 is larger than 8; give a value of at most 8",
                         planlayout::Error);
}

TEST_CASE("a launch line's spec flags are read - its other flags and words are ignored") {
    const auto m = planlayout::megatron_args_from_words(
        planlayout::read_launch_script("torchrun --nnodes=2 --nproc_per_node 8 pretrain_gpt.py --lr 1e-4 "
                                       "--tensor-model-parallel-size 2 --use-flash-attn "
                                       "--hierarchical-context-parallel-sizes 2 4\n",
                                       "launch.sh", {}),
        "launch.sh");
    const auto a = parallel_args_from(m);
    CHECK(a.get("--nodes").value() == "2");
    CHECK(a.get("--gpus-per-node").value() == "8");
    CHECK(a.spelling("--gpus-per-node") == "--nproc_per_node");
    CHECK(a.get("--tp").value() == "2");
    CHECK(a.get_all("--hierarchical-context-parallel-sizes") == std::vector<std::string>{"2", "4"});
    CHECK_FALSE(a.has("--pp"));
    const auto spec = parallel_spec_from_args(a, /*require_world=*/true);
    CHECK(spec.world == 16);
    CHECK(spec.hierarchical_cp == std::vector<std::int64_t>{2, 4});
    CHECK(m.ignored.size() == 1);  // --lr 1e-4 (--use-flash-attn is read: the attention backend)
    CHECK(m.layout.at("training").at("attention_backend") == "flash");
}

TEST_CASE("--use-tp-pp-dp-mapping and --order from a launch line become the same flags again") {
    const auto read = [](const std::string& line) {
        return parallel_args_from(planlayout::megatron_args_from_words(planlayout::read_launch_script(line, "l", {}), "l"));
    };
    const auto a = read("--use_tp_pp_dp_mapping --hybrid-context-parallel");
    CHECK(a.has("--use-tp-pp-dp-mapping"));
    CHECK_FALSE(a.has("--order"));
    CHECK(a.has("--hybrid-context-parallel"));
    CHECK(parallel_spec_from_args(a, false).order == "tp-cp-ep-pp-dp");
    const auto b = read("--order tp-cp-ep-pp-dp --world 8 --gtp 2");
    CHECK(b.get("--order").value() == "tp-cp-ep-pp-dp");
    CHECK_FALSE(b.has("--use-tp-pp-dp-mapping"));
    CHECK(b.get("--world").value() == "8");
    CHECK(b.get("--gtp").value() == "2");
}

TEST_CASE("--help renders the definitions: usage, options with metavars, examples") {
    const Demo d;
    CHECK(render_help(d.spec) ==
          "Usage: plan-layout demo\n\nDemo.\n\nOptions:\n"
          "  --tp, --tensor-model-parallel-size N\n      tp size\n"
          "  --verbose\n      more\n"
          "  -o FILE\n      output\n"
          "  --format text|json\n      output format\n"
          "  --layout FILE\n      a layout\n"
          "  --kind K\n      a kind\n"
          "  --help, -h\n      show this help\n"
          "\nExamples:\n  plan-layout demo --tp 2\n");
}

TEST_CASE("the man page names every command and every option of each") {
    std::ostringstream out;
    std::ostringstream err;
    REQUIRE(planlayout::run_cli({"plan-layout", "help", "--man"}, out, err) == 0);
    const std::string man = out.str();
    CHECK(man.rfind(".TH PLAN-LAYOUT 1", 0) == 0);
    CLI::App app("plan-layout");
    for (const auto& spec : define_commands(app)) {
        CAPTURE(spec.name);
        CHECK(man.find(".SS " + spec.name + "\n") != std::string::npos);
        for (const auto& row : spec.options) {
            std::string name = row.names.substr(0, row.names.find(','));
            std::string roff;
            for (const char c : name) {
                roff += c == '-' ? std::string("\\-") : std::string(1, c);
            }
            CAPTURE(name);
            CHECK(man.find(roff) != std::string::npos);
        }
    }
    CHECK(man.find("\\[u2192]") != std::string::npos);  // "→" as a groff glyph, not raw UTF-8
}
