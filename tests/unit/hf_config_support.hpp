// Tests: a Hugging Face config.json fixture (tests/data/hf-configs) read, and the model section it
// makes read back as the layout reader would; shared by the family tests.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "planlayout/ingest/hf_config.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/model/model_spec.hpp"

namespace hf_fixture {

struct Read {
    planlayout::HfModel hf;
    planlayout::ModelSpec model;
};

inline Read read_fixture(const std::string& name) {
    const std::string path = std::string(PLANLAYOUT_TEST_DATA_DIR) + "/hf-configs/" + name;
    Read r{planlayout::read_hf_config(planlayout::read_text_file(path), name), {}};
    r.model = planlayout::model_spec_from_json(r.hf.model, name);
    return r;
}

inline double total(const planlayout::ModelSpec& m) { return m.derived_dense_params() + m.derived_expert_params(); }

inline double embedding(const planlayout::ModelSpec& m) { return static_cast<double>(m.vocab) * m.hidden; }

inline bool any_contains(const std::vector<std::string>& lines, const std::string& part) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

}  // namespace hf_fixture
