// Emit: the report page names files without their folders (docs/commands/report.md). The page's
// own writers name the layout and the logs by base name; an input's path can still arrive inside
// text the page quotes (an input reader's warning "/abs/cfg.json: ...", a node capture's name, a
// topology file), so the finished page has every input path cut to its base name.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "html_parts.hpp"

namespace planlayout::html_parts {
namespace {

bool html_path_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-' || c == '+' || c == '~' ||
           c == '/';
}

// Every occurrence of `needle` that is a whole path (no path character before it, none but a
// full stop after it) replaced by `by`.
std::string html_replace_path(const std::string& page, const std::string& needle, const std::string& by) {
    std::string out;
    std::size_t from = 0;
    for (auto at = page.find(needle); at != std::string::npos; at = page.find(needle, at + 1)) {
        const auto end = at + needle.size();
        const bool starts = at == 0 || !html_path_char(page[at - 1]);
        const bool ends = end == page.size() || !html_path_char(page[end]) ||
                          (page[end] == '.' && (end + 1 == page.size() || !html_path_char(page[end + 1])));
        if (starts && ends && at >= from) {
            out.append(page, from, at - from);
            out += by;
            from = end;
        }
    }
    return out.append(page, from, std::string::npos);
}

std::string graphviz_text(const std::string& escaped) {
    std::string out;
    for (const char c : escaped) {
        out += c == '-' ? std::string("&#45;") : std::string(1, c);
    }
    return out;
}

}  // namespace

std::string without_folders(std::string page, std::vector<std::string> paths) {
    // Longest first, so that "/a/b/c.json" is not cut by a shorter input "/a/b" before it is seen.
    std::sort(paths.begin(), paths.end(), [](const std::string& a, const std::string& b) {
        return a.size() != b.size() ? a.size() > b.size() : a < b;
    });
    for (const auto& path : paths) {
        const auto slash = path.find_last_of('/');
        if (slash == std::string::npos || slash + 1 == path.size()) {
            continue;  // no folder to drop (a folder itself is never an input)
        }
        page = html_replace_path(page, esc(path), esc(path.substr(slash + 1)));
        // The inline SVG as Graphviz writes text: '-' as &#45; too (its xml_string).
        page = html_replace_path(page, graphviz_text(esc(path)), graphviz_text(esc(path.substr(slash + 1))));
    }
    return page;
}

}  // namespace planlayout::html_parts
