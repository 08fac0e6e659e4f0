// Tests: every JSON golden output validates against its published schema in schema/.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "json_schema.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using planlayout::testing::slurp;
using planlayout::testing::lines_of;
using planlayout::testing::SchemaValidator;

namespace {



// The schema a case's output follows: the command, refined by analyze's --format.
std::string schema_name(const std::vector<std::string>& args, const nlohmann::json& instance) {
    const std::string& command = args.front();
    if (command == "import" && instance.is_object() && instance.contains("plugin")) {
        return "fabric";  // Slurm topology.conf / topology.yaml, Kubernetes node lists
    }
    if (command == "import" || command == "discover") {
        return "node-template";
    }
    if (command == "groups" && instance.is_object() && instance.contains("same_as")) {
        return "groups-compare";
    }
    if (command == "analyze") {
        for (std::size_t i = 0; i + 1 < args.size(); ++i) {
            if (args[i] == "--format" && args[i + 1] == "scheduler") {
                return "scheduler";
            }
        }
    }
    return command;
}

nlohmann::json load_schema(const std::string& name) {
    const fs::path p = fs::path(PLANLAYOUT_SOURCE_DIR) / "schema" / (name + ".schema.json");
    REQUIRE_MESSAGE(fs::exists(p), "no schema for '" << name << "' (" << p.string() << "): every JSON output needs one");
    return nlohmann::json::parse(slurp(p));
}

}  // namespace

TEST_CASE("the schema validator rejects what its keywords forbid") {
    const SchemaValidator v(nlohmann::json::parse(R"({
        "$defs": {"kind": {"type": "string", "enum": ["tp", "ep"]}},
        "type": "object", "required": ["n", "kinds"], "additionalProperties": false,
        "properties": {"n": {"type": "integer", "minimum": 1},
                       "kinds": {"type": "array", "items": {"$ref": "#/$defs/kind"}},
                       "x": {"anyOf": [{"type": "null"}, {"type": "string"}]}}})"));
    CHECK(v.validate(nlohmann::json::parse(R"({"n": 2, "kinds": ["tp"], "x": null})")).empty());
    CHECK(v.validate(nlohmann::json::parse(R"({"n": 0, "kinds": ["tp"]})")).size() == 1);
    CHECK(v.validate(nlohmann::json::parse(R"({"n": 1, "kinds": ["dp"]})")).size() == 1);
    CHECK(v.validate(nlohmann::json::parse(R"({"kinds": [], "y": 1})")).size() == 2);
    CHECK(v.validate(nlohmann::json::parse(R"({"n": 1, "kinds": [], "x": 3})")).size() == 1);
    CHECK(v.validate(nlohmann::json::parse(R"({"n": 1.5, "kinds": []})")).size() == 1);
    const SchemaValidator share(nlohmann::json::parse(R"({"type": "number", "minimum": 0, "maximum": 1})"));
    CHECK(share.validate(nlohmann::json(1.0)).empty());
    CHECK(share.validate(nlohmann::json(1.001)).size() == 1);
}

TEST_CASE("every JSON golden output validates against the schema of its command") {
    const fs::path golden = fs::path(PLANLAYOUT_SOURCE_DIR) / "tests" / "golden";
    std::vector<fs::path> cases;
    for (const auto& e : fs::directory_iterator(golden)) {
        if (e.is_directory() && fs::exists(e.path() / "args") && fs::exists(e.path() / "expected.out")) {
            cases.push_back(e.path());
        }
    }
    std::sort(cases.begin(), cases.end());
    std::map<std::string, SchemaValidator> validators;
    int validated = 0;
    for (const auto& dir : cases) {
        const std::string out = slurp(dir / "expected.out");
        if (out.empty() || (out[0] != '{' && out[0] != '[')) {
            continue;
        }
        const auto instance = nlohmann::json::parse(out, nullptr, false);
        if (instance.is_discarded()) {
            continue;
        }
        const std::string name = schema_name(lines_of(slurp(dir / "args")), instance);
        CAPTURE(dir.filename().string());
        CAPTURE(name);
        auto it = validators.find(name);
        if (it == validators.end()) {
            it = validators.emplace(name, SchemaValidator(load_schema(name))).first;
        }
        const auto errors = it->second.validate(instance);
        for (std::size_t i = 0; i < errors.size() && i < 10; ++i) {
            CAPTURE(errors[i]);
            CHECK(false);
        }
        ++validated;
    }
    CHECK(validated >= 20);
    // Every command with a JSON output has a schema, even without a golden case.
    for (const char* name : {"groups", "analyze", "scheduler", "search", "compare", "node-template", "lint", "verify", "ab",
                             "collective", "calibrate", "fabric"}) {
        CAPTURE(name);
        CHECK(fs::exists(fs::path(PLANLAYOUT_SOURCE_DIR) / "schema" / (std::string(name) + ".schema.json")));
    }
}
