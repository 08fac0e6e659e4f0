// Errors: the only exception family of the library, and the documented exit codes.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace planlayout {

/// Process exit codes; docs/hardening.md documents them. Stable: scripts depend on them.
enum class ExitCode : int {
    Ok = 0,           // success
    CheckFailed = 1,  // a check found error-severity problems (lint, verify)
    BadInput = 2,     // bad input or usage: nothing was written
    Io = 3,           // a file could not be read or written
    Internal = 4,     // a bug in plan-layout
};

/// An error the user can act on: where it happened, what is wrong, how to fix it.
/// what() renders "<where>: <what>; <hint>" (parts that are empty are left out).
class Error : public std::runtime_error {
public:
    Error(ExitCode code, std::string where, std::string what, std::string hint = {});

    [[nodiscard]] ExitCode code() const { return code_; }

    [[nodiscard]] const std::string& where() const { return where_; }

    [[nodiscard]] const std::string& problem() const { return problem_; }

    [[nodiscard]] const std::string& hint() const { return hint_; }

private:
    ExitCode code_;
    std::string where_;
    std::string problem_;
    std::string hint_;
};

/// Shorthand for the most common kind: bad input (exit 2).
[[nodiscard]] Error input_error(std::string where, std::string what, std::string hint = {});

/// Shorthand for an I/O failure (exit 3).
[[nodiscard]] Error io_error(std::string where, std::string what, std::string hint = {});

/// Levenshtein distance (insertions, deletions, substitutions of bytes).
[[nodiscard]] std::size_t edit_distance(const std::string& a, const std::string& b);

/// The candidate closest to `word` by edit distance, when close enough to be a likely typo
/// (distance at most a third of the word, and at least 1 allowed), else the first candidate the
/// word is a prefix of (3+ characters); empty otherwise. Ties: the first candidate in the given
/// order. For "did you mean ...?" hints.
[[nodiscard]] std::string nearest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace planlayout
