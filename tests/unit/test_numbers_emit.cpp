// The registry as `plan-layout numbers` prints it (emit/numbers_emit): every entry listed with
// its class, the counts adding up, values printed as they read back, Markdown cells escaped.
#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "planlayout/emit/numbers_emit.hpp"
#include "planlayout/model/numbers.hpp"
#include "planlayout/text_format.hpp"

using planlayout::Number;
using planlayout::NumberClass;

TEST_CASE("numbers: the counts add up to the registry, and each entry has a class and a source") {
    const auto all = planlayout::all_numbers();
    const auto c = planlayout::count_by_class(all);
    CHECK(c.measured + c.spec + c.derived + c.assumed == static_cast<int>(all.size()));
    for (const Number* n : all) {
        CAPTURE(n->id);
        CHECK(!n->source.empty());
        CHECK((n->cls != NumberClass::Assumed || n->low < n->high));
        CHECK(planlayout::find_number(n->id) == n);
    }
}

TEST_CASE("numbers: text lists every id once, lines before 100 columns") {
    const auto all = planlayout::all_numbers();
    const std::string text = planlayout::numbers_text(all);
    for (const Number* n : all) {
        CAPTURE(n->id);
        const std::string head = "\n" + std::string(n->id) + "  [";
        const auto at = text.find(head);
        REQUIRE(at != std::string::npos);
        CHECK(text.find(head, at + 1) == std::string::npos);
    }
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        CAPTURE(line);
        if (line.size() > 100) {  // only one word wider than a line (a long path) may overrun
            const auto word = line.find_first_not_of(' ', line.find(": ") == std::string::npos ? 0 : line.find(": ") + 2);
            CHECK(line.find(' ', word) == std::string::npos);
        }
    }
}

TEST_CASE("numbers: a value prints as the shortest text that reads back, the range only when there is one") {
    const Number n{"x.y", 14.0, "us", NumberClass::Assumed, "why", "where", 5.0, 30.0};
    CHECK(planlayout::number_value_text(n) == "14 us (5..30)");
    const Number d{"x.z", 0.45, "fraction", NumberClass::Derived, "file", "where", 0.45, 0.45};
    CHECK(planlayout::number_value_text(d) == "0.45 fraction");
    const Number tiny{"x.t", 1.0 / 3.0, "s", NumberClass::Spec, "doc", "where", 1.0 / 3.0, 1.0 / 3.0};
    const std::string t = planlayout::number_value_text(tiny);
    CHECK(std::strtod(t.c_str(), nullptr) == 1.0 / 3.0);
}

TEST_CASE("numbers: JSON carries every field, Markdown escapes a pipe and has one table per class present") {
    const Number a{"a.pipe", 2.0, "x | y", NumberClass::Assumed, "one | two", "use", 1.0, 3.0};
    const Number s{"b.spec", 2.0, "bytes", NumberClass::Spec, "IEEE 754", "use", 2.0, 2.0};
    const std::vector<const Number*> both{&a, &s};
    const nlohmann::json j = planlayout::numbers_json(both);
    CHECK(j.at("counts").at("assumed") == 1);
    CHECK(j.at("counts").at("spec") == 1);
    CHECK(j.at("numbers").at(0).at("class") == "assumed");
    CHECK(j.at("numbers").at(0).at("low") == 1.0);
    const std::string md = planlayout::numbers_markdown(both);
    CHECK(md.find("one \\| two") != std::string::npos);
    CHECK(md.find("x \\| y") != std::string::npos);
    CHECK(md.find("**spec**") < md.find("**assumed**"));  // classes in order measured, spec, derived, assumed
    CHECK(md.find("**measured**") == std::string::npos);
}

TEST_CASE("wrapped_text: items joined by the separator, a new line before the width with the separator's spaces dropped") {
    using planlayout::wrapped_text;
    CHECK(wrapped_text({}, "x: ", "   ", ", ") == "x: ");
    CHECK(wrapped_text({"a", "b"}, "x: ", "   ", ", ") == "x: a, b");
    // "x: aaaa, bbbb" is 13 columns: at width 13 it fits, at 12 "bbbb" goes to the next line.
    CHECK(wrapped_text({"aaaa", "bbbb"}, "x: ", "   ", ", ", 13) == "x: aaaa, bbbb");
    CHECK(wrapped_text({"aaaa", "bbbb", "cc"}, "x: ", "   ", ", ", 12) == "x: aaaa,\n   bbbb, cc");
    // A space separator leaves nothing at the break; an item wider than the width still prints whole.
    CHECK(wrapped_text({"one", "two", "three"}, "", "  ", " ", 7) == "one two\n  three");
    CHECK(wrapped_text({"toolongword"}, "> ", "  ", " ", 4) == "> toolongword");
}
