// Golden CLI tests: every folder under tests/golden/ is one case.
//   args          CLI arguments after "plan-layout", one per line; ${SRC} = repo root,
//                 ${CASE} = the case folder
//   stdin         optional: standard input
//   expected.out  exact standard output
//   expected.err  optional: exact standard error
//   exit          optional: expected exit code (default 0)
// Each case runs twice: the output must also be byte-identical between runs (determinism). An
// output that starts with an XML declaration (SVG charts) must parse as XML.
// A case that scores layouts (analyze, compare, search) runs once more as JSON: it must exit 0,
// validate against its command's schema (schema/) and its shares must lie in [0, 1].
// PLANLAYOUT_UPDATE_GOLDEN=1 rewrites the expected files (and removes an `exit` file a case no
// longer needs); every other check still runs. Review the rewritten files in the diff like code.
// Under CI=true the switch is refused: CI compares, it never rewrites.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <nlohmann/json.hpp>

#include "json_schema.hpp"
#include "planlayout/cli/run.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using planlayout::testing::replace_all;
using planlayout::testing::SchemaValidator;
using planlayout::testing::slurp;

namespace {

void spit(const fs::path& p, const std::string& s) {
    std::ofstream out(p, std::ios::binary);
    out << s;
}

std::string expand(const std::string& s, const fs::path& case_dir) {
    return replace_all(replace_all(s, "${SRC}", PLANLAYOUT_SOURCE_DIR), "${CASE}", case_dir.string());
}

// The case folder lies inside the source folder: fold it first.
std::string unexpand(const std::string& s, const fs::path& case_dir) {
    return replace_all(replace_all(s, case_dir.string(), "${CASE}"), PLANLAYOUT_SOURCE_DIR, "${SRC}");
}

struct Outcome {
    int code = 0;
    std::string out;
    std::string err;
};

std::vector<std::string> case_args(const fs::path& dir) {
    std::vector<std::string> args{"plan-layout"};
    std::istringstream lines(slurp(dir / "args"));
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty()) {
            args.push_back(expand(line, dir));
        }
    }
    return args;
}

Outcome run_case(const fs::path& dir, const std::vector<std::string>& args) {
    std::istringstream in(fs::exists(dir / "stdin") ? slurp(dir / "stdin") : std::string());
    std::ostringstream out;
    std::ostringstream err;
    Outcome o;
    o.code = planlayout::run_cli(args, out, err, in);
    // Outputs name the checkout's folders: fold them back so the expected files are portable.
    o.out = unexpand(out.str(), dir);
    o.err = unexpand(err.str(), dir);
    return o;
}

Outcome run_case(const fs::path& dir) { return run_case(dir, case_args(dir)); }

// Shares are shares (docs/cost-model.md §6): every cross-node share, kind share and factor in a
// JSON report, comparison or search row lies in [0, 1].
void check_shares(const nlohmann::json& j, const std::string& at) {
    if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i) {
            check_shares(j[i], at + "/" + std::to_string(i));
        }
        return;
    }
    if (!j.is_object()) {
        return;
    }
    for (const auto& [key, value] : j.items()) {
        if (key == "cross_node_share" || key == "share" || key == "eliminable" || key == "non_overlapped") {
            const std::string where = at + "/" + key;  // clang 14 cannot capture a structured binding
            CAPTURE(where);
            REQUIRE(value.is_number());
            CHECK(value.get<double>() >= 0.0);
            CHECK(value.get<double>() <= 1.0);
        }
        check_shares(value, at + "/" + key);
    }
}

// The violations of a JSON report against schema/<command>.schema.json (analyze, compare, search).
std::vector<std::string> schema_errors(const std::string& command, const nlohmann::json& instance) {
    const fs::path p = fs::path(PLANLAYOUT_SOURCE_DIR) / "schema" / (command + ".schema.json");
    REQUIRE_MESSAGE(fs::exists(p), "no schema " << p.string());
    return SchemaValidator(nlohmann::json::parse(slurp(p))).validate(instance);
}

// The case as JSON, when it scores layouts (analyze, compare, search) as text or JSON: its
// --format replaced by json and, for search, every row (--top 0). Empty when it does not.
std::vector<std::string> as_json_case(const std::vector<std::string>& args) {
    if (args.size() < 2 || (args[1] != "analyze" && args[1] != "compare" && args[1] != "search")) {
        return {};
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const bool valued = args[i] == "--format" || args[i] == "--top";
        if (valued && args[i] == "--format" && i + 1 < args.size() && args[i + 1] != "json" && args[i + 1] != "text") {
            return {};  // hostfile, launch, scheduler, dot, svg: not a score
        }
        if (args[i] == "--help" || args[i] == "--view" || (args[1] == "search" && args[i] == "--save-layout")) {
            return {};  // search --save-layout writes a layout, not a report
        }
        if (valued) {
            ++i;
            continue;
        }
        out.push_back(args[i]);
    }
    out.insert(out.end(), {"--format", "json"});
    if (args[1] == "search") {
        out.insert(out.end(), {"--top", "0"});
    }
    return out;
}

// Invariants on any JSON group listing: within a kind no rank appears twice, and every kind
// but the embedding ones covers the grid exactly once.
void check_group_listing(const std::string& out) {
    if (out.empty() || out[0] != '{') {
        return;
    }
    const auto j = nlohmann::json::parse(out, nullptr, false);
    if (j.is_discarded() || !j.contains("groups") || !j["groups"].is_object() || !j.contains("spec")) {
        return;
    }
    const auto w = j["spec"]["grid_world"].get<std::int64_t>();
    for (const auto& [kind, groups] : j["groups"].items()) {
        const std::string kind_name = kind;  // clang 14 cannot capture a structured binding
        CAPTURE(kind_name);
        std::vector<int> seen(static_cast<std::size_t>(w), 0);
        for (const auto& g : groups) {
            for (const auto& r : g) {
                ++seen.at(static_cast<std::size_t>(r.get<std::int64_t>() - j["spec"]["rank_offset"].get<std::int64_t>()));
            }
        }
        const bool partial = kind == "embd" || kind == "pos_embd";
        for (const int c : seen) {
            CHECK((partial ? c <= 1 : c == 1));
        }
    }
}

}  // namespace

TEST_CASE("every golden CLI case matches its expected output, twice over") {
    // The case folders: tests/golden/, or a copy named by PLANLAYOUT_GOLDEN_DIR (the switch's own
    // test, tests/ctest/check_golden_switch.sh, runs it on a copy).
    const char* other_root = std::getenv("PLANLAYOUT_GOLDEN_DIR");
    const fs::path root = other_root != nullptr && *other_root != '\0' ? fs::path(other_root) : fs::path(PLANLAYOUT_GOLDEN_DIR);
    const bool update = std::getenv("PLANLAYOUT_UPDATE_GOLDEN") != nullptr;
    const char* ci = std::getenv("CI");
    REQUIRE_MESSAGE(!(update && ci != nullptr && std::string(ci) == "true"),
                    "PLANLAYOUT_UPDATE_GOLDEN is set under CI=true: CI compares the golden files, it never rewrites "
                    "them; unset PLANLAYOUT_UPDATE_GOLDEN");
    std::vector<fs::path> cases;
    for (const auto& e : fs::directory_iterator(root)) {
        if (e.is_directory() && fs::exists(e.path() / "args")) {
            cases.push_back(e.path());
        }
    }
    std::sort(cases.begin(), cases.end());
    REQUIRE(!cases.empty());
    for (const auto& dir : cases) {
        CAPTURE(dir.filename().string());
        const Outcome first = run_case(dir);
        const Outcome second = run_case(dir);
        CHECK(first.out == second.out);
        check_group_listing(first.out);
        if (first.out.rfind("<?xml", 0) == 0) {  // SVG charts: well-formed XML with one <svg> root
            std::istringstream xml(first.out);
            boost::property_tree::ptree tree;
            CHECK_NOTHROW(boost::property_tree::read_xml(xml, tree));
            CHECK(tree.count("svg") == 1);
        }
        CHECK(first.err == second.err);
        if (update) {
            spit(dir / "expected.out", first.out);
            if (!first.err.empty() || fs::exists(dir / "expected.err")) {
                spit(dir / "expected.err", first.err);
            }
            if (first.code != 0) {
                spit(dir / "exit", std::to_string(first.code) + "\n");
            } else {
                fs::remove(dir / "exit");  // a stale exit file would outlive the failure it recorded
            }
        }
        const int expected_code = fs::exists(dir / "exit") ? std::stoi(slurp(dir / "exit")) : 0;
        CHECK(first.code == expected_code);
        if (const auto json_args = as_json_case(case_args(dir)); expected_code == 0 && !json_args.empty()) {
            const Outcome scored = run_case(dir, json_args);
            CAPTURE(scored.err);
            REQUIRE(scored.code == 0);
            const auto report = nlohmann::json::parse(scored.out);
            check_shares(report, "");
            const auto errors = schema_errors(json_args[1], report);
            for (std::size_t i = 0; i < errors.size() && i < 10; ++i) {
                CAPTURE(errors[i]);
                CHECK(false);
            }
        }
        CHECK(first.out == slurp(dir / "expected.out"));
        if (fs::exists(dir / "expected.err")) {
            CHECK(first.err == slurp(dir / "expected.err"));
        }
    }
}
