// Tests: atomic output writes leave either the whole new file or the old one.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "planlayout/emit/output_file.hpp"
#include "planlayout/error.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using planlayout::testing::slurp;

namespace {
}  // namespace

TEST_CASE("an atomic write replaces the file and leaves no temporary behind") {
    const fs::path dir = fs::temp_directory_path() / "planlayout_atomic_test";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path f = dir / "out.json";
    planlayout::write_file_atomically(f.string(), "first");
    planlayout::write_file_atomically(f.string(), "second");
    CHECK(slurp(f) == "second");
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}) == 1);
    fs::remove_all(dir);
}

TEST_CASE("a failed atomic write throws an I/O error naming the path") {
    CHECK_THROWS_AS(planlayout::write_file_atomically("/nonexistent-dir/x.json", "x"), planlayout::Error);
    try {
        planlayout::write_file_atomically("/nonexistent-dir/x.json", "x");
    } catch (const planlayout::Error& e) {
        CHECK(e.code() == planlayout::ExitCode::Io);
        CHECK(std::string(e.what()).find("/nonexistent-dir/x.json") == 0);
    }
}
