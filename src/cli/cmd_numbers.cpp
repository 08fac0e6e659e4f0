// CLI: `plan-layout numbers` — the performance model's numbers from the registry, each with its
// value, unit, class, source and use.
#include <algorithm>
#include <string>
#include <vector>

#include "commands.hpp"
#include "planlayout/emit/numbers_emit.hpp"
#include "planlayout/error.hpp"
#include "planlayout/model/number.hpp"

namespace planlayout::cli {

namespace {

// Whether the id is one of the positionals or lies under one ("network" takes network.tcp.*).
bool named(const Number& n, const std::vector<std::string>& ids) {
    if (ids.empty()) {
        return true;
    }
    return std::any_of(ids.begin(), ids.end(), [&](const std::string& id) {
        return n.id == id || (n.id.size() > id.size() && n.id.compare(0, id.size(), id) == 0 && n.id[id.size()] == '.');
    });
}

}  // namespace

int run_numbers(const ParsedArgs& a, Context& ctx) {
    const std::string cls = a.get_or("--class", "all");
    std::vector<const Number*> chosen;
    for (const Number* n : all_numbers()) {
        if ((cls == "all" || to_string(n->cls) == cls) && named(*n, a.positionals())) {
            chosen.push_back(n);
        }
    }
    for (const std::string& id : a.positionals()) {
        const bool any = std::any_of(chosen.begin(), chosen.end(), [&](const Number* n) { return named(*n, {id}); });
        if (!any) {
            throw input_error("plan-layout numbers", "no number of the registry" +
                                  std::string(cls == "all" ? "" : " of class " + cls) + " is '" + id + "' or lies under it",
                              "plan-layout numbers lists every id; give one of them or a prefix such as 'network'");
        }
    }
    const std::string format = a.get_or("--format", "text");
    if (format == "json") {
        write_output(a, numbers_json(chosen).dump(2) + "\n", ctx);
    } else if (format == "markdown") {
        write_output(a, numbers_markdown(chosen), ctx);
    } else {
        write_output(a, numbers_text(chosen), ctx);
    }
    return 0;
}

}  // namespace planlayout::cli
