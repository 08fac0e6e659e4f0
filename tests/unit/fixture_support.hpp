// Tests: reading fixtures and asking a template about named pairs.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "planlayout/ingest/read_file.hpp"
#include "planlayout/topology/node_template.hpp"

namespace fixture {

inline std::string text(const std::string& rel) {
    return planlayout::read_text_file(std::string(PLANLAYOUT_FIXTURES_DIR) + "/" + rel);
}

inline std::string cls(const planlayout::NodeTemplate& t, const std::string& a, const std::string& b) {
    const auto p = planlayout::find_path(t, a, b);
    return p ? std::string(planlayout::to_string(p->path_class)) : std::string("none");
}

inline bool has_warning(const planlayout::NodeTemplate& t, const std::string& part) {
    return std::any_of(t.warnings.begin(), t.warnings.end(),
                       [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

}  // namespace fixture
