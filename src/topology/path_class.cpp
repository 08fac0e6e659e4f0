// Path classes: names and parsing.
#include "planlayout/topology/path_class.hpp"

#include <array>

namespace planlayout {
namespace {

constexpr std::array<std::string_view, kPathClassCount> kNames = {
    "LOC", "NV", "MNNVL", "PIX", "PXB", "PHB", "NODE", "SYS", "RAIL", "PXN", "XRAIL", "XPOD"};

}  // namespace

std::string_view to_string(PathClass c) { return kNames.at(static_cast<std::size_t>(c)); }

std::optional<PathClass> parse_path_class(std::string_view s) {
    for (std::size_t i = 0; i < kNames.size(); ++i) {
        if (s == kNames[i]) {
            return static_cast<PathClass>(i);
        }
    }
    if (s == "X") {
        return PathClass::Loc;
    }
    if (constexpr std::string_view kNv = "NV"; s == "NVB" || (s.size() > kNv.size() && s.substr(0, kNv.size()) == kNv)) {
        return PathClass::Nv;
    }
    return std::nullopt;
}

}  // namespace planlayout
