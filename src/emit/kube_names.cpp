// Emit: names written into Kubernetes objects, valid and distinct (kube_names.hpp).
#include "kube_names.hpp"

#include <algorithm>
#include <set>

#include "planlayout/names.hpp"

namespace planlayout::emit_detail {

KubeNames kube_names(const std::vector<std::string>& originals, std::string (*fix)(std::string_view), std::size_t max_len) {
    KubeNames k;
    std::set<std::string> taken;
    for (const auto& o : originals) {
        if (k.of.count(o) == 0 && fix(o) == o && taken.insert(o).second) {
            k.of.emplace(o, o);
        }
    }
    for (const auto& o : originals) {
        if (k.of.count(o) != 0) {
            continue;
        }
        const std::string base = fix(o);
        std::string name = base;
        for (int n = 2; !taken.insert(name).second; ++n) {
            const std::string suffix = "-" + std::to_string(n);
            name = fix(base.substr(0, std::min(base.size(), max_len - suffix.size())) + suffix);
        }
        k.of.emplace(o, name);
        k.renamed.emplace_back(name, o);
    }
    return k;
}

std::string renamed_comment(const KubeNames& k, const std::string& what) {
    if (k.renamed.empty()) {
        return {};
    }
    std::string out = "# " + what + ":\n";
    for (const auto& [written, original] : k.renamed) {
        out += "#   " + printable(written) + ": " + printable(original) + "\n";
    }
    return out;
}

}  // namespace planlayout::emit_detail
