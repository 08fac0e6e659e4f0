// Topology: matching a GPU name to its spec.
#include "planlayout/topology/gpu_spec.hpp"

#include <algorithm>

#include "planlayout/text_format.hpp"

namespace planlayout {

const GpuSpec* match_gpu(const std::vector<GpuSpec>& specs, std::string_view model) {
    const std::string m = ascii_lower(model);
    if (m.empty()) {
        return nullptr;
    }
    for (const auto& s : specs) {
        if (ascii_lower(s.name) == m) {
            return &s;
        }
    }
    const GpuSpec* best = nullptr;
    std::size_t best_len = 0;
    for (const auto& s : specs) {
        for (const auto& id : s.ids) {
            if (id.size() > best_len && m.find(ascii_lower(id)) != std::string::npos) {
                best = &s;
                best_len = id.size();
            }
        }
    }
    return best;
}

}  // namespace planlayout
