// Emit: a layout JSON written for people — two-space indent, scalar lists on one line, and the
// source of each value as a `//` comment beside it (layouts accept // comments).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace planlayout {

/// The layout as JSON text with comments. comment(pointer) gives the comment for the value at
/// that JSON pointer ("" for none); it is asked for every object member and array element.
/// Comments pass through terminal_safe (control bytes as \xHH: no newline can end them early).
[[nodiscard]] std::string commented_json(const nlohmann::json& layout,
                                         const std::function<std::string(const std::string&)>& comment);

}  // namespace planlayout
