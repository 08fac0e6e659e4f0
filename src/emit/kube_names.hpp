// Emit: names written into Kubernetes objects (Volcano HyperNode names, node label values in
// Kueue's advice), valid and distinct, with a comment naming the originals. Private to emit/.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace planlayout::emit_detail {

/// One written name for each original, all distinct. `renamed` lists (written, original) in order.
struct KubeNames {
    std::map<std::string, std::string> of;
    std::vector<std::pair<std::string, std::string>> renamed;
    [[nodiscard]] const std::string& operator()(const std::string& original) const { return of.at(original); }
};

/// A valid name keeps itself (the first of equal ones); the others are mapped by `fix`
/// (kubernetes_object_name, kubernetes_label_value) and take "-2", "-3", ... on a clash, within
/// max_len characters.
[[nodiscard]] KubeNames kube_names(const std::vector<std::string>& originals, std::string (*fix)(std::string_view),
                                   std::size_t max_len);

/// "# <what>:\n#   written: original\n..." for the names kube_names changed; empty when none.
[[nodiscard]] std::string renamed_comment(const KubeNames& k, const std::string& what);

}  // namespace planlayout::emit_detail
