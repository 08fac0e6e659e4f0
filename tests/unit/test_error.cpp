// Tests: Error rendering and exit codes.
#include <doctest/doctest.h>

#include "planlayout/error.hpp"

using planlayout::Error;
using planlayout::ExitCode;

TEST_CASE("an error renders where, what and the fix, and keeps its exit code") {
    const Error e(ExitCode::BadInput, "x.json (/parallel/tp)", "tp must be positive", "set tp to 1 or more");
    CHECK(std::string(e.what()) == "x.json (/parallel/tp): tp must be positive; set tp to 1 or more");
    CHECK(e.code() == ExitCode::BadInput);
    CHECK(static_cast<int>(planlayout::io_error("f", "g").code()) == 3);
}

TEST_CASE("an error without a place or hint leaves those parts out") {
    const Error e(ExitCode::Internal, "", "boom");
    CHECK(std::string(e.what()) == "boom");
}
