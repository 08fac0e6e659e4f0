// Bad inputs: every folder under tests/bad-inputs/ is one broken input driven through run_cli
// in-process; the run must end with the expected exit code and message, never a crash.
//   args          CLI arguments after "plan-layout", one per line; ${SRC} = repo root,
//                 ${CASE} = the case folder, ${TMP} = a fresh scratch folder for this case,
//                 ${EMPTY} = nothing (a line of just ${EMPTY} is an empty argument)
//   exit          expected exit code
//   err.contains  every non-empty line must occur in standard error (after ${...} folding)
//   expected.err  optional: the exact standard error
//   stdin         optional: standard input
//   setup         optional: builds inputs in ${TMP} before the run (big files are made here,
//                 never committed). One directive a line:
//                   write FILE TEXT          append TEXT (\n, \t, \xHH escapes) to FILE
//                   repeat FILE COUNT TEXT   append TEXT COUNT times
//                   size FILE BYTES          a sparse file of that size (limits without the disk)
//                   mkdir DIR                make a folder
//                   copy FILE PATH           copy PATH (${SRC} expands) to FILE
//                   replace FILE FROM TO     replace every FROM by TO in FILE (no spaces in either)
//                   chmod PATH OCTAL         change permissions
//                   symlink LINK TARGET      a symbolic link LINK pointing at TARGET (as written)
//   check         optional: after the run, one directive a line:
//                   same FILE                FILE is byte-identical to before the run
//                   absent FILE              FILE does not exist
//                   no-temp-files            nothing named *.tmp.* anywhere under ${TMP}
//   PLANLAYOUT_UPDATE_BAD_INPUTS=1 writes err.contains for cases that have none (review them).
//   exit.root, err.root.contains
//                 optional: what happens instead when the tests run as root (CI does), where
//                 permission bits do not stop reads or writes; the case then checks that honestly.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "planlayout/cli/run.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using planlayout::testing::slurp;
using planlayout::testing::replace_all;
using planlayout::testing::lines_of;

namespace {



struct Vars {
    fs::path src;
    fs::path case_dir;
    fs::path tmp;

    [[nodiscard]] std::string expand(std::string s) const {
        s = replace_all(s, "${SRC}", src.string());
        s = replace_all(s, "${CASE}", case_dir.string());
        s = replace_all(s, "${EMPTY}", "");
        return replace_all(s, "${TMP}", tmp.string());
    }

    // Longest first: ${TMP} and ${CASE} may lie inside ${SRC}.
    [[nodiscard]] std::string fold(std::string s) const {
        std::vector<std::pair<std::string, std::string>> v{
            {tmp.string(), "${TMP}"}, {case_dir.string(), "${CASE}"}, {src.string(), "${SRC}"}};
        std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
        for (const auto& [k, name] : v) {
            s = replace_all(s, k, name);
        }
        return s;
    }
};


// \n, \t, \\ and \xHH; everything else as written.
std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 >= s.size()) {
            out += s[i];
            continue;
        }
        const char c = s[++i];
        if (c == 'n') {
            out += '\n';
        } else if (c == 't') {
            out += '\t';
        } else if (c == 'x' && i + 2 < s.size()) {
            out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += c;
        }
    }
    return out;
}

void run_setup(const std::string& text, const Vars& vars) {
    for (const auto& line : lines_of(text)) {
        std::istringstream words(line);
        std::string op;
        std::string name;
        words >> op >> name;
        const fs::path p = vars.tmp / name;
        if (op == "mkdir") {
            fs::create_directories(p);
        } else if (op == "size") {
            std::uintmax_t bytes = 0;
            words >> bytes;
            std::ofstream(p, std::ios::binary | std::ios::app).close();
            fs::resize_file(p, bytes);
        } else if (op == "copy") {
            std::string from;
            words >> from;
            fs::copy_file(vars.expand(from), p, fs::copy_options::overwrite_existing);
        } else if (op == "replace") {
            std::string from;
            std::string to;
            words >> from >> to;
            const std::string content = slurp(p);
            REQUIRE_MESSAGE(content.find(from) != std::string::npos, "setup: '" << from << "' not in " << p);
            std::ofstream(p, std::ios::binary | std::ios::trunc) << replace_all(content, from, to);
        } else if (op == "symlink") {
            std::string target;
            words >> target;
            fs::create_symlink(target, p);
        } else if (op == "chmod") {
            std::string mode;
            words >> mode;
            fs::permissions(p, static_cast<fs::perms>(std::stoi(mode, nullptr, 8)), fs::perm_options::replace);
        } else if (op == "write" || op == "repeat") {
            long long count = 1;
            if (op == "repeat") {
                words >> count;
            }
            std::string rest;
            std::getline(words, rest);
            const std::string chunk = unescape(rest.empty() ? rest : rest.substr(1));
            std::ofstream out(p, std::ios::binary | std::ios::app);
            for (long long i = 0; i < count; ++i) {
                out << chunk;
            }
            REQUIRE_MESSAGE(out.good(), "setup could not write " << p);
        } else {
            FAIL("unknown setup directive: " << line);
        }
    }
}

std::map<std::string, std::string> snapshot(const Vars& vars, const std::string& check) {
    std::map<std::string, std::string> before;
    for (const auto& line : lines_of(check)) {
        if (line.rfind("same ", 0) == 0) {
            const auto name = line.substr(5);
            before[name] = slurp(vars.tmp / name);
        }
    }
    return before;
}

void run_checks(const Vars& vars, const std::string& check, const std::map<std::string, std::string>& before) {
    for (const auto& line : lines_of(check)) {
        if (line.rfind("same ", 0) == 0) {
            const auto name = line.substr(5);
            CHECK_MESSAGE(fs::exists(vars.tmp / name), name << " was removed");
            CHECK_MESSAGE(slurp(vars.tmp / name) == before.at(name), name << " was changed");
        } else if (line.rfind("absent ", 0) == 0) {
            CHECK_MESSAGE(!fs::exists(vars.tmp / line.substr(7)), line.substr(7) << " exists");
        } else if (line == "no-temp-files") {
            for (const auto& e : fs::recursive_directory_iterator(vars.tmp)) {
                CHECK_MESSAGE(e.path().filename().string().find(".tmp.") == std::string::npos,
                              "temporary file left behind: " << e.path());
            }
        } else {
            FAIL("unknown check directive: " << line);
        }
    }
}

}  // namespace

TEST_CASE("every bad input ends with its documented exit code and message, never a crash") {
    const fs::path root = fs::path(PLANLAYOUT_SOURCE_DIR) / "tests" / "bad-inputs";
    const bool as_root = ::geteuid() == 0;
    const bool update = std::getenv("PLANLAYOUT_UPDATE_BAD_INPUTS") != nullptr;
    std::vector<fs::path> cases;
    for (const auto& e : fs::directory_iterator(root)) {
        if (e.is_directory() && fs::exists(e.path() / "args")) {
            cases.push_back(e.path());
        }
    }
    std::sort(cases.begin(), cases.end());
    REQUIRE(cases.size() >= 30);
    const fs::path scratch = fs::temp_directory_path() / ("planlayout_bad_inputs_" + std::to_string(::getpid()));
    for (const auto& dir : cases) {
        const std::string name = dir.filename().string();
        CAPTURE(name);
        Vars vars{PLANLAYOUT_SOURCE_DIR, dir, scratch / name};
        fs::remove_all(vars.tmp);
        fs::create_directories(vars.tmp);
        if (fs::exists(dir / "setup")) {
            run_setup(slurp(dir / "setup"), vars);
        }
        const std::string check = fs::exists(dir / "check") ? slurp(dir / "check") : std::string();
        const auto before = snapshot(vars, check);

        std::vector<std::string> args{"plan-layout"};
        for (const auto& line : lines_of(slurp(dir / "args"))) {
            args.push_back(vars.expand(line));
        }
        std::istringstream in(fs::exists(dir / "stdin") ? slurp(dir / "stdin") : std::string());
        std::ostringstream out;
        std::ostringstream err;
        const int code = planlayout::run_cli(args, out, err, in);
        const std::string got_err = vars.fold(err.str());
        CAPTURE(got_err);

        const bool root_variant = as_root && fs::exists(dir / "exit.root");
        if (root_variant) {
            MESSAGE(name << ": running as root, where permission bits do not apply; checking what root gets instead");
        }
        const int expected = std::stoi(slurp(dir / (root_variant ? "exit.root" : "exit")));
        CHECK(code == expected);
        const fs::path contains = dir / (root_variant ? "err.root.contains" : "err.contains");
        if (fs::exists(contains)) {
            for (const auto& want : lines_of(slurp(contains))) {
                CHECK_MESSAGE(got_err.find(want) != std::string::npos, "stderr lacks: " << want);
            }
        }
        if (!root_variant && fs::exists(dir / "expected.err")) {
            CHECK(got_err == slurp(dir / "expected.err"));
        }
        if (update && !root_variant && !fs::exists(contains) && !got_err.empty()) {
            // PLANLAYOUT_UPDATE_BAD_INPUTS=1 pins a new case's message: its first line, cut short.
            std::string line = got_err.substr(0, got_err.find('\n'));
            std::ofstream(contains) << line.substr(0, 200) << "\n";
        }
        if (code >= 2) {
            // Every message the user sees says what is wrong and where, in one line.
            CHECK(got_err.rfind("plan-layout: ", 0) == 0);
            CHECK(got_err.find("internal error") == std::string::npos);
        }
        run_checks(vars, check, before);
        std::error_code ec;
        for (const auto& e : fs::recursive_directory_iterator(vars.tmp, ec)) {
            fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add, ec);
        }
        fs::remove_all(vars.tmp, ec);
    }
    fs::remove_all(scratch);
}
