// Ingest: the JSON cluster spec (node templates × nodes, rails and the leaf/spine fabric).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planlayout/ingest/read_file.hpp"
#include <nlohmann/json_fwd.hpp>

#include "planlayout/limits.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

// kMaxNodes (planlayout/limits.hpp): the most nodes a cluster may have.

/// Reads a cluster spec. `file` and `pointer` name it in errors ("x.json", "/cluster");
/// relative template paths and capture imports are resolved against base_dir. Template
/// references: a built-in name (builtin_node_template_names()), a path to a template JSON,
/// an inline template object, or {"import": "capture.xml", "format": "auto"}.
[[nodiscard]] Cluster cluster_from_json(const nlohmann::json& j,
                                        const std::string& file,
                                        const std::string& pointer,
                                        const FileScope& scope);

/// The same with the files it names confined to base_dir.
[[nodiscard]] Cluster cluster_from_json(const nlohmann::json& j,
                                        const std::string& file,
                                        const std::string& pointer,
                                        const std::string& base_dir);

/// Reads a cluster spec file (JSON with // comments) named on the command line: the files it
/// names must lie in its folder unless `anywhere` (--allow-outside-files).
[[nodiscard]] Cluster load_cluster_file(const std::string& path, bool anywhere = false);

/// Reads a cluster spec file that a layout names: its own names resolve against its folder,
/// within the layout's scope.
[[nodiscard]] Cluster load_cluster_file(const std::string& path, const FileScope& scope);

/// A node template from a capture's text: hwloc XML, `nvidia-smi topo -m` output or NCCL topology
/// XML (format "hwloc", "nvidia-smi", "nccl-xml", or "auto" to detect it). `path` names it in
/// errors and becomes the template's source; `where` names the format's origin in errors.
[[nodiscard]] NodeTemplate read_node_capture(const std::string& text, const std::string& path,
                                             std::string format = "auto", const std::string& where = "");

/// The cluster spec `j` (at `pointer` in `file`) with every file it names read in: template paths
/// become the template's JSON, `{"import": capture}` the captured template, a layout's
/// `"cluster": "path"` that file's cluster. The result names no file, so it can be written into
/// a layout anywhere (`--save-layout`). The files read are appended to `files`.
[[nodiscard]] nlohmann::json self_contained_cluster_json(const nlohmann::json& j, const std::string& file,
                                                         const std::string& pointer, const FileScope& scope,
                                                         std::vector<std::string>& files);

/// Names of the node templates compiled in from layouts/nodes/.
[[nodiscard]] std::vector<std::string> builtin_node_template_names();

/// A compiled-in template by name; throws Error listing the names when unknown.
[[nodiscard]] NodeTemplate builtin_node_template(const std::string& name, const std::string& where);

/// The folder part of a path ("a/b/c.json" → "a/b", "c.json" → ".").
[[nodiscard]] std::string parent_dir(const std::string& path);

/// A path a file names, resolved against that file's folder (absolute paths and "." unchanged).
[[nodiscard]] std::string join_path(const std::string& dir, const std::string& rel);

}  // namespace planlayout
