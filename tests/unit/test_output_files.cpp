// Output files: every golden case re-run with `-o FILE` twice writes byte-identical files (and,
// when nothing else goes to standard output, exactly the golden standard output); the group
// listing (and one rank's) refuses to materialize more than kMaxGroupEntries entries.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/cli/run.hpp"
#include "planlayout/emit/groups_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/parallel/groups.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using planlayout::testing::slurp;
using planlayout::testing::replace_all;

namespace {



struct Run {
    int code = 0;
    std::string out;
    std::string err;
    std::string file;
    bool file_exists = false;
};

Run run_with_output(const fs::path& case_dir, const fs::path& out_file) {
    std::vector<std::string> args{"plan-layout"};
    std::istringstream lines(slurp(case_dir / "args"));
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty()) {
            line = replace_all(line, "${SRC}", PLANLAYOUT_SOURCE_DIR);
            args.push_back(replace_all(line, "${CASE}", case_dir.string()));
        }
    }
    args.emplace_back("-o");
    args.push_back(out_file.string());
    std::istringstream in(fs::exists(case_dir / "stdin") ? slurp(case_dir / "stdin") : std::string());
    std::ostringstream out;
    std::ostringstream err;
    Run r;
    r.code = planlayout::run_cli(args, out, err, in);
    r.out = out.str();
    r.err = err.str();
    r.file_exists = fs::exists(out_file);
    r.file = r.file_exists ? slurp(out_file) : std::string();
    fs::remove(out_file);
    return r;
}

bool has_arg(const fs::path& case_dir, const std::string& arg) {
    std::istringstream lines(slurp(case_dir / "args"));
    for (std::string line; std::getline(lines, line);) {
        if (line == arg) {
            return true;
        }
    }
    return false;
}

}  // namespace

TEST_CASE("every golden case writes the same bytes with -o FILE on every run") {
    const fs::path golden = fs::path(PLANLAYOUT_SOURCE_DIR) / "tests" / "golden";
    const fs::path dir = fs::temp_directory_path() / ("planlayout_output_det_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::vector<fs::path> cases;
    for (const auto& e : fs::directory_iterator(golden)) {
        if (e.is_directory() && fs::exists(e.path() / "args")) {
            cases.push_back(e.path());
        }
    }
    std::sort(cases.begin(), cases.end());
    int compared = 0;
    for (const auto& c : cases) {
        const std::string name = c.filename().string();
        const int expected_exit = fs::exists(c / "exit") ? std::stoi(slurp(c / "exit")) : 0;
        // Cases that fail, print help, or already choose their output are covered by the golden run.
        if (expected_exit != 0 || has_arg(c, "--help") || has_arg(c, "-o") || has_arg(c, "--output") ||
            slurp(c / "args").find_first_not_of(" \n") == std::string::npos) {
            continue;
        }
        CAPTURE(name);
        const fs::path out_file = dir / (name + ".out");
        const Run first = run_with_output(c, out_file);
        if (first.code == 2 && first.err.find("-o") != std::string::npos && !first.file_exists) {
            continue;  // the command has no -o
        }
        const Run second = run_with_output(c, out_file);
        REQUIRE(first.code == 0);
        CHECK(second.code == 0);
        REQUIRE(first.file_exists);
        CHECK(second.file_exists);
        CHECK(first.file == second.file);
        CHECK(!first.file.empty());
        if (first.out.empty()) {
            // Everything went to the file: it is exactly what the golden case prints.
            const std::string expected_out = replace_all(slurp(c / "expected.out"), "${CASE}", c.string());
            CHECK(first.file == replace_all(expected_out, "${SRC}", PLANLAYOUT_SOURCE_DIR));
        }
        ++compared;
    }
    MESSAGE("golden cases compared with -o: " << compared);
    CHECK(compared >= 30);
    for (const auto& e : fs::directory_iterator(dir)) {
        CHECK_MESSAGE(e.path().filename().string().find(".tmp.") == std::string::npos,
                      "temporary file left behind: " << e.path());
    }
    fs::remove_all(dir);
}

TEST_CASE("a JSON group listing over kMaxGroupEntries is refused before anything is materialized") {
    planlayout::ParallelSpec spec;
    spec.world = std::int64_t{1} << 31;
    const auto groups = planlayout::build_groups(planlayout::resolve_spec(spec));
    CHECK(planlayout::group_entry_count(groups, {}) > planlayout::kMaxGroupEntries);
    CHECK(planlayout::group_entry_count(groups, {"tp"}) == spec.world);
    try {
        (void)planlayout::groups_json(groups, {"tp"});
        FAIL("expected the limit to refuse the listing");
    } catch (const planlayout::Error& e) {
        CHECK(e.code() == planlayout::ExitCode::BadInput);
        CHECK(std::string(e.what()).find("--kinds") != std::string::npos);
        CHECK(std::string(e.what()).find("--rank") != std::string::npos);
    }
    spec.world = 1024;
    const auto small = planlayout::build_groups(planlayout::resolve_spec(spec));
    CHECK(planlayout::group_entry_count(small, {"tp", "dp"}) == 2048);
    CHECK(planlayout::groups_json(small, {"tp"}).rfind("{\"schema_version\":", 0) == 0);
}

TEST_CASE("groups --rank R --format json counts the rank's groups against kMaxGroupEntries") {
    // 2^28 ranks, tp 8: the rank's dp-like groups hold 2^25 ranks each and the tp_dp-like ones
    // 2^28; the DOM this listing used to build grew past the machine's memory.
    planlayout::ParallelSpec spec;
    spec.world = std::int64_t{1} << 28;
    spec.tp = 8;
    const auto groups = planlayout::build_groups(planlayout::resolve_spec(spec));
    CHECK(planlayout::rank_entry_count(groups, 5, {}) > planlayout::kMaxGroupEntries);
    CHECK(planlayout::rank_entry_count(groups, 5, {"tp", "pp"}) == 9);
    try {
        (void)planlayout::rank_json(groups, 5, {});
        FAIL("expected the limit to refuse the rank's listing");
    } catch (const planlayout::Error& e) {
        CHECK(e.code() == planlayout::ExitCode::BadInput);
        CHECK(std::string(e.what()).find("--kinds") != std::string::npos);
    }
    // Streamed, the listing is the layout of nlohmann's dump(2) (tests/golden/groups-rank-json).
    const std::string text = planlayout::rank_json(groups, 5, {"tp", "pp"});
    CHECK(text == nlohmann::ordered_json::parse(text).dump(2) + "\n");
    CHECK(text.find("\"ranks\": [\n        0,\n        1,") != std::string::npos);
}

