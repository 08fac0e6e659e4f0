// Emit: JSON with a comment beside each value (the layouts --save-layout writes).
#include "planlayout/emit/layout_emit.hpp"

#include <sstream>

#include "planlayout/names.hpp"

namespace planlayout {
namespace {

using nlohmann::json;

bool is_scalar_list(const json& v) {
    if (!v.is_array()) {
        return false;
    }
    for (const auto& e : v) {
        if (e.is_structured()) {
            return false;
        }
    }
    return true;
}

class LayoutWriter {
public:
    LayoutWriter(std::ostringstream& out, const std::function<std::string(const std::string&)>& comment)
        : out_(out), comment_(comment) {}

    // The value (after its key, if any) and, when `last` is false, its comma; then its comment.
    void value(const json& v, const std::string& pointer, int depth, bool last) {
        const std::string pad(static_cast<std::size_t>(2 * (depth + 1)), ' ');
        const std::string close_pad(static_cast<std::size_t>(2 * depth), ' ');
        const std::string note = comment_(pointer);
        const std::string tail = (last ? "" : ",") + (note.empty() ? "" : "  // " + terminal_safe(note));
        if (v.is_object() && !v.empty()) {
            out_ << "{" << (note.empty() ? "" : "  // " + terminal_safe(note)) << "\n";
            std::size_t i = 0;
            for (const auto& [key, member] : v.items()) {
                out_ << pad << json(key).dump() << ": ";
                value(member, (json::json_pointer(pointer) / key).to_string(), depth + 1, ++i == v.size());
            }
            out_ << close_pad << "}" << (last ? "" : ",") << "\n";
        } else if (v.is_array() && !v.empty() && !is_scalar_list(v)) {
            out_ << "[" << (note.empty() ? "" : "  // " + terminal_safe(note)) << "\n";
            for (std::size_t i = 0; i < v.size(); ++i) {
                out_ << pad;
                value(v[i], pointer + "/" + std::to_string(i), depth + 1, i + 1 == v.size());
            }
            out_ << close_pad << "]" << (last ? "" : ",") << "\n";
        } else {
            out_ << v.dump(-1, ' ', false, json::error_handler_t::replace);
            out_ << tail << "\n";
        }
    }

private:
    std::ostringstream& out_;
    const std::function<std::string(const std::string&)>& comment_;
};

}  // namespace

std::string commented_json(const json& layout, const std::function<std::string(const std::string&)>& comment) {
    std::ostringstream out;
    LayoutWriter(out, comment).value(layout, "", 0, true);
    return out.str();
}

}  // namespace planlayout
