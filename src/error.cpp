// Errors: message rendering.
#include "planlayout/error.hpp"

#include <utility>

namespace planlayout {
namespace {

std::string render(const std::string& where, const std::string& what, const std::string& hint) {
    std::string s;
    if (!where.empty()) {
        s += where + ": ";
    }
    s += what;
    if (!hint.empty()) {
        s += "; " + hint;
    }
    return s;
}

}  // namespace

Error::Error(ExitCode code, std::string where, std::string what, std::string hint)
    : std::runtime_error(render(where, what, hint))
    , code_(code)
    , where_(std::move(where))
    , problem_(std::move(what))
    , hint_(std::move(hint)) {}

Error input_error(std::string where, std::string what, std::string hint) {
    return {ExitCode::BadInput, std::move(where), std::move(what), std::move(hint)};
}

Error io_error(std::string where, std::string what, std::string hint) {
    return {ExitCode::Io, std::move(where), std::move(what), std::move(hint)};
}

}  // namespace planlayout
