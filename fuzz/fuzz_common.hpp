// Fuzzing: what every target shares. A reader may reject any input with planlayout::Error (that is
// the documented way to say "bad input"); anything else escaping it (std::out_of_range,
// std::invalid_argument, a crash, a sanitizer report) is a bug and stops the fuzzer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "planlayout/error.hpp"

namespace planlayout::fuzz {

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
    return std::string(reinterpret_cast<const char*>(data), size);  // NOLINT: libFuzzer's bytes
}

/// Runs fn; swallows the library's own Error (a clean rejection). Exit codes other than 2 (bad
/// input) mean the reader misclassified a content problem: treat them as bugs too, except I/O
/// errors (3) where the input names other files (a layout's template or capture paths).
template <typename Fn>
void expect_clean(Fn&& fn, bool input_names_files = false) {
    try {
        fn();
    } catch (const planlayout::Error& e) {
        const bool io_ok = input_names_files && e.code() == planlayout::ExitCode::Io;
        if (e.code() != planlayout::ExitCode::BadInput && !io_ok) {
            __builtin_trap();
        }
    }
}

}  // namespace planlayout::fuzz
