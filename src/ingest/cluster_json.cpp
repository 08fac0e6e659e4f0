// Ingest: cluster spec JSON → Cluster (templates resolved, nodes listed, fabric wired). Over 500
// lines: a cluster's sections (nodes, imported topology, unit sizes, wiring) are read and
// cross-checked in one place.
#include "planlayout/ingest/node_template_json.hpp"
#include "planlayout/ingest/cluster_json.hpp"
#include "planlayout/ingest/cluster_fabric.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/names.hpp"
#include "planlayout/ingest/detect_format.hpp"
#include "planlayout/ingest/hwloc_topology.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/ingest/nccl_topo_xml.hpp"
#include "planlayout/ingest/nvidia_smi_topo.hpp"
#include "planlayout/ingest/nvlink_domain.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout_embedded_nodes.hpp"

namespace planlayout {
namespace {

using nlohmann::json;

// A template reference that is a path rather than a built-in name.
bool names_a_file(const std::string& name) {
    return name.find('/') != std::string::npos || (name.size() > 5 && name.substr(name.size() - 5) == ".json");
}


// {"import": "captures/h100.xml", "format": "auto"}: a capture read by its format's reader, named
// as the document names it.
NodeTemplate imported_template(const JsonReader& o, const FileScope& scope, std::vector<std::string>& files) {
    o.check_keys({"import", "format"});
    const std::string rel = o.get_string("import").value_or("");
    const std::string path = resolve_named_file(scope, rel, o.where("import"));
    files.push_back(path);
    NodeTemplate t = read_node_capture(read_text_file(path, kMaxCaptureBytes), path,
                                       o.get_string("format").value_or("auto"), o.where("format"));
    t.source = rel;
    if (t.name.empty() || t.name == path) {
        t.name = rel;
    }
    return t;
}

// Resolves a template reference to a template; `cache` dedupes identical references.
class TemplateTable {
public:
    TemplateTable(std::string file, FileScope scope) : file_(std::move(file)), scope_(std::move(scope)) {}

    int resolve(const json& ref, const std::string& pointer) {
        const std::string key = ref.dump();
        if (const auto it = index_.find(key); it != index_.end()) {
            return it->second;
        }
        const std::string where = file_ + " (" + pointer + ")";
        NodeTemplate t;
        if (ref.is_string()) {
            const std::string name = ref.get<std::string>();
            if (!names_a_file(name)) {
                t = builtin_node_template(name, where);
            } else {
                const std::string path = resolve_named_file(scope_, name, where);
                files_.push_back(path);
                const std::string text = read_text_file(path, kMaxTemplateBytes);
                t = node_template_from_json(parse_json_text(text, path), path);
                t.source = name;
            }
        } else if (ref.is_object() && ref.contains("import")) {
            t = import_capture(JsonReader(ref, file_, pointer));
        } else if (ref.is_object()) {
            t = node_template_from_json(ref, file_, pointer);
        } else {
            throw input_error(where, std::string("a node template reference must be a name, a path or an object, got ") + ref.type_name(),
                              "write e.g. \"node\": \"h100-hgx-8gpu-8nic\"");
        }
        if (t.gpus.empty()) {
            throw input_error(where, "node template '" + t.name + "' has no GPUs", "use a template or capture of a GPU node");
        }
        templates_.push_back(std::move(t));
        const int idx = static_cast<int>(templates_.size()) - 1;
        index_[key] = idx;
        return idx;
    }

    std::vector<NodeTemplate> take() { return std::move(templates_); }

    std::vector<std::string> take_files() { return std::move(files_); }

    NodeTemplate import_capture(const JsonReader& o) { return imported_template(o, scope_, files_); }

    [[nodiscard]] const FileScope& scope() const { return scope_; }

    void add_file(const std::string& path) { files_.push_back(path); }

private:
    std::string file_;
    FileScope scope_;
    std::vector<NodeTemplate> templates_;
    std::vector<std::string> files_;
    std::map<std::string, int> index_;
};

// The first n hosts in fabric order: the units and pods they reach, the last of each cut short.
void truncate_units(ImportedFabric& m, std::int64_t n) {
    std::size_t units = 0;
    for (std::int64_t left = n; left > 0 && units < m.su_sizes.size(); ++units) {
        m.su_sizes[units] = std::min(m.su_sizes[units], left);
        left -= m.su_sizes[units];
    }
    m.su_sizes.resize(units);
    m.su_names.resize(std::min(m.su_names.size(), units));
    std::size_t pods = 0;
    for (auto left = static_cast<std::int64_t>(units); left > 0 && pods < m.pod_sizes.size(); ++pods) {
        m.pod_sizes[pods] = std::min(m.pod_sizes[pods], left);
        left -= m.pod_sizes[pods];
    }
    m.pod_sizes.resize(pods);
    m.pod_names.resize(std::min(m.pod_names.size(), pods));
}

// "topology": an imported fabric (a path to the fabric JSON of `import`, a topology.conf, a
// topology.yaml or a kubectl node list; or that fabric JSON inline) → every host in fabric order
// on the cluster's "node" template, and the names of its leaves, spines and core.
ImportedFabric read_topology_nodes(const JsonReader& c, TemplateTable& table, Cluster& out) {
    if (c.has("nodes") && !c.at("nodes").is_number_integer()) {
        throw input_error(c.where("nodes"), "the cluster lists hosts in \"nodes\" beside \"topology\"",
                          "drop the list: the topology lists the hosts (\"nodes\": N beside it takes its first N)");
    }
    if (!c.has("node")) {
        throw input_error(c.where("node"), "\"topology\" lists the hosts but no \"node\" template is given",
                          "add \"node\": \"h100-hgx-8gpu-8nic\" (or a path to a template, or a capture)");
    }
    const json& ref = c.at("topology");
    FabricTopology fabric;
    std::string where;
    if (ref.is_string()) {
        const std::string path = resolve_named_file(table.scope(), ref.get<std::string>(), c.where("topology"));
        table.add_file(path);
        where = path;
        fabric = read_fabric_text(read_text_file(path, kMaxCaptureBytes), path);
        out.topology_file = ref.get<std::string>();
    } else if (ref.is_object()) {
        where = c.where("topology");
        fabric = fabric_from_json(ref, c.file(), c.pointer() + "/topology");
        out.topology_file = fabric.source.empty() ? c.pointer() + "/topology" : fabric.source;
    } else {
        throw input_error(c.where("topology"), std::string("\"topology\" must be a path or a fabric object, got ") + ref.type_name(),
                          "write \"topology\": \"fabric.json\" (plan-layout import slurm topology.conf -o fabric.json) or "
                          "the path of the topology.conf itself");
    }
    ImportedFabric m = map_fabric(fabric, where);
    const int tmpl = table.resolve(c.at("node"), c.pointer() + "/node");
    if (const auto n = c.get_int("nodes", 1, kMaxNodes); n && *n != static_cast<std::int64_t>(m.hosts.size())) {
        if (*n > static_cast<std::int64_t>(m.hosts.size())) {
            throw input_error(c.where("nodes"), std::to_string(*n) + " nodes, but the topology has " +
                                                    std::to_string(m.hosts.size()) + " hosts",
                              "ask for at most " + std::to_string(m.hosts.size()) + " nodes, or import the whole fabric");
        }
        out.warnings.push_back("the cluster is the first " + std::to_string(*n) + " of the " +
                               std::to_string(m.hosts.size()) + " hosts of topology " + out.topology_file +
                               ", in fabric order (leaf after leaf)");
        m.hosts.resize(static_cast<std::size_t>(*n));
        truncate_units(m, *n);
    }
    for (const auto& host : m.hosts) {
        require_host_name(host, where);
        out.nodes.push_back({host, tmpl});
    }
    out.su_names = m.su_names;
    out.pod_names = m.pod_names;
    out.core_name = m.core_name;
    out.topology_blocks = m.blocks;
    if (fabric.tier_labels.size() >= 2 && !m.pod_names.empty()) {  // the nodes carry both levels' labels already
        out.node_labels = {fabric.tier_labels[0], fabric.tier_labels[1]};
    }
    for (std::string w : fabric.warnings) {  // the reader's own doubts, then what the model leaves out
        if (const auto at = w.find("read another with --topology NAME"); at != std::string::npos) {
            w.replace(at, std::string::npos, "read another with plan-layout import slurm-yaml FILE --topology NAME -o fabric.json");
        }
        out.warnings.push_back("topology " + out.topology_file + ": " + w);
    }
    for (const auto& note : m.notes) {
        out.warnings.push_back("topology " + out.topology_file + ": " + note);
    }
    return m;
}

void read_nodes(const JsonReader& c, TemplateTable& table, Cluster& out) {
    const json* default_ref = c.has("node") ? &c.at("node") : nullptr;
    if (!c.has("nodes")) {
        throw input_error(c.where("nodes"), "the cluster has no \"nodes\"", "write e.g. \"nodes\": 2, \"node\": \"h100-hgx-8gpu-8nic\"");
    }
    const json& nodes = c.at("nodes");
    auto add_run = [&](std::int64_t count, const std::string& prefix, int tmpl) {
        if (static_cast<std::int64_t>(out.nodes.size()) + count > kMaxNodes) {
            throw input_error(c.where("nodes"), "more than " + std::to_string(kMaxNodes) + " nodes",
                              "plan-layout models at most " + std::to_string(kMaxNodes) + " nodes; split the cluster");
        }
        const std::size_t start = out.nodes.size();
        for (std::int64_t i = 0; i < count; ++i) {
            out.nodes.push_back({prefix + std::to_string(start + static_cast<std::size_t>(i)), tmpl});
        }
    };
    if (nodes.is_number_integer()) {
        const auto count = c.get_int("nodes", 1, kMaxNodes).value();
        if (!default_ref) {
            throw input_error(c.where("node"), "\"nodes\" is a count but no \"node\" template is given",
                              "add \"node\": \"h100-hgx-8gpu-8nic\" (or a path to a template)");
        }
        add_run(count, "node", table.resolve(*default_ref, c.pointer() + "/node"));
        return;
    }
    if (!nodes.is_array() || nodes.empty()) {
        throw input_error(c.where("nodes"), "\"nodes\" must be a count or a non-empty list",
                          "write \"nodes\": 2, or a list of {\"host\": ..., \"node\": ...}");
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const JsonReader e(nodes[i], c.file(), c.pointer() + "/nodes/" + std::to_string(i));
        e.check_keys({"host", "node", "count", "host_prefix"});
        const json* ref = e.has("node") ? &e.at("node") : default_ref;
        if (!ref) {
            throw input_error(e.where("node"), "no node template for this entry",
                              "add \"node\" here or a cluster-wide \"node\"");
        }
        const int tmpl = table.resolve(*ref, e.has("node") ? e.pointer() + "/node" : c.pointer() + "/node");
        if (const auto count = e.get_int("count", 1, kMaxNodes)) {
            const std::string prefix = e.get_string("host_prefix").value_or("node");
            require_host_name(prefix + "0", e.where("host_prefix"));
            add_run(*count, prefix, tmpl);
        } else {
            const auto host = e.get_string("host");
            if (!host) {
                throw input_error(e.where("host"), "the entry has neither \"host\" nor \"count\"",
                                  "write {\"host\": \"gpu-a01\"} or {\"count\": 16, \"host_prefix\": \"gpu-a\"}");
            }
            require_host_name(*host, e.where("host"));
            add_run(1, "", tmpl);
            out.nodes.back().host = *host;
        }
    }
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < out.nodes.size(); ++i) {
        if (const auto [it, fresh] = seen.emplace(out.nodes[i].host, i); !fresh) {
            throw input_error(c.where("nodes"), "host name '" + out.nodes[i].host + "' appears twice",
                              "give every node a distinct host name");
        }
    }
}

// One of "nodes_per_su" / "sus_per_pod": a count (every unit that size, the last may be short) or
// a list of sizes in order (an irregular fabric), whose sum must be `total`.
std::vector<std::int64_t> unit_sizes(const JsonReader& f, const char* key, std::int64_t total, const char* what) {
    std::vector<std::int64_t> sizes;
    if (!f.has(key)) {
        return sizes;
    }
    if (!f.at(key).is_array()) {
        const std::int64_t each = f.get_int(key, 1, kMaxNodes).value_or(0);
        for (std::int64_t left = total; left > 0; left -= each) {
            sizes.push_back(std::min(each, left));
        }
        return sizes;
    }
    std::int64_t sum = 0;
    const nlohmann::json& list = f.at(key);
    for (std::size_t i = 0; i < list.size(); ++i) {
        const nlohmann::json& v = list[i];
        if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > kMaxNodes) {
            throw input_error(f.where(key) + "/" + std::to_string(i), std::string("not a number of ") + what,
                              "a whole number, 1.." + std::to_string(kMaxNodes));
        }
        sizes.push_back(v.get<std::int64_t>());
        sum += sizes.back();
    }
    if (sum != total) {
        throw input_error(f.where(key), "the sizes add up to " + std::to_string(sum) + " " + what + ", the cluster has " +
                                            std::to_string(total),
                          std::string("give one size per unit, in order, adding up to ") + std::to_string(total) + " " + what);
    }
    return sizes;
}

void read_unit_sizes(const JsonReader& f, Cluster& out) {
    const std::vector<std::int64_t> su = unit_sizes(f, "nodes_per_su", out.node_count(), "nodes");
    std::vector<std::int64_t> pods;
    if (su.empty()) {  // pods without units: every node in one unit, one pod
        set_unit_sizes(out, su, pods);
        out.fabric.sus_per_pod = f.get_int("sus_per_pod", 1, kMaxNodes).value_or(0);
        return;
    }
    if (f.has("sus_per_pod")) {
        pods = unit_sizes(f, "sus_per_pod", static_cast<std::int64_t>(su.empty() ? 1 : su.size()), "scalable units");
    }
    set_unit_sizes(out, su, pods);
}

void read_fabric(const JsonReader& c, Cluster& out, const ImportedFabric* imported) {
    if (imported != nullptr) {
        set_unit_sizes(out, imported->su_sizes, imported->pod_sizes);
    }
    const auto f = c.get_object("fabric");
    if (!f) {
        return;
    }
    if (imported != nullptr) {
        for (const char* key : {"nodes_per_su", "sus_per_pod", "wiring"}) {
            if (f->has(key)) {
                throw input_error(f->where(key), std::string("\"") + key + "\" is given beside \"topology\"",
                                  "drop it: the topology's leaf and spine switches set the scalable units and pods");
            }
        }
        if (f->get_string("rails").value_or("aligned") != "aligned") {
            throw input_error(f->where("rails"), "explicit rails beside \"topology\"",
                              "drop \"topology\" and list the hosts with their \"wiring\", or use aligned rails");
        }
    }
    f->check_keys({"rails", "wiring", "nodes_per_su", "sus_per_pod", "leaf_uplinks", "oversubscription", "pxn"});
    const std::string rails = f->get_string("rails").value_or("aligned");
    if (rails != "aligned" && rails != "explicit") {
        throw input_error(f->where("rails"), "rails must be \"aligned\" or \"explicit\", got \"" + rails + "\"",
                          "use \"aligned\" (NIC i on leaf i) or \"explicit\" with a \"wiring\" map");
    }
    out.fabric.aligned = rails == "aligned";
    if (imported == nullptr) {
        read_unit_sizes(*f, out);
    }
    out.fabric.leaf_uplinks = static_cast<int>(f->get_int("leaf_uplinks", 1, 4096).value_or(0));
    out.fabric.oversubscription = f->get_double("oversubscription", 1.0, 64.0).value_or(1.0);
    out.fabric.pxn = f->get_bool("pxn").value_or(true);
    if (out.fabric.aligned) {
        if (f->has("wiring")) {
            throw input_error(f->where("wiring"), "a wiring map is given but rails are \"aligned\"",
                              "set \"rails\": \"explicit\" to use the wiring map, or drop it");
        }
        return;
    }
    const auto wiring = f->get_object("wiring");
    if (!wiring) {
        throw input_error(f->where("wiring"), "explicit rails need a \"wiring\" map",
                          "write \"wiring\": {\"node0\": [\"leaf0\", \"leaf1\", ...], ...}: per host, the leaf of each rail NIC");
    }
    std::map<std::string, int> leaf_ids;
    out.wiring.assign(out.nodes.size(), {});
    for (std::size_t n = 0; n < out.nodes.size(); ++n) {
        const std::string& host = out.nodes[n].host;
        if (!wiring->has(host)) {
            throw input_error(wiring->where(host), "no wiring for host '" + host + "'",
                              "list the leaf of each of its rail NICs: \"" + host + "\": [\"leaf0\", ...]");
        }
        const json& leaves = wiring->at(host);
        const std::size_t rails_here = out.facts_of(static_cast<std::int64_t>(n)).rail_nics.size();
        if (!leaves.is_array() || leaves.size() != rails_here) {
            throw input_error(wiring->where(host),
                              "expected a list of " + std::to_string(rails_here) + " leaf names (one per rail NIC)",
                              "write one leaf name per compute NIC, in NIC order");
        }
        for (const auto& l : leaves) {
            if (!l.is_string()) {
                throw input_error(wiring->where(host), "leaf names must be strings", "write e.g. \"leaf3\"");
            }
            require_device_name(l.get<std::string>(), wiring->where(host), "leaf switch");  // a switch name of the outputs
            const auto [it, fresh] = leaf_ids.emplace(l.get<std::string>(), static_cast<int>(leaf_ids.size()));
            if (fresh) {
                out.leaf_names.push_back(it->first);
            }
            out.wiring[n].push_back(it->second);
        }
    }
    for (const auto& item : wiring->json().items()) {
        const std::string& host = item.key();  // named, not a structured binding: clang 14 cannot capture those
        if (std::none_of(out.nodes.begin(), out.nodes.end(), [&](const NodeInstance& x) { return x.host == host; })) {
            throw input_error(wiring->where(host), "wiring names unknown host '" + host + "'", "remove it or fix the host name");
        }
    }
}

}  // namespace

std::string join_path(const std::string& dir, const std::string& rel) {
    if (rel.empty() || rel[0] == '/' || dir.empty() || dir == ".") {
        return rel;
    }
    return dir + "/" + rel;
}

std::string parent_dir(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) {
        return ".";
    }
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::vector<std::string> builtin_node_template_names() {
    std::vector<std::string> names;
    for (const auto& e : kEmbeddedNodes) {
        names.emplace_back(e.name);
    }
    return names;
}

NodeTemplate builtin_node_template(const std::string& name, const std::string& where) {
    for (const auto& e : kEmbeddedNodes) {
        if (name == e.name) {
            const std::string src = std::string("layouts/nodes/") + e.name + ".json";
            NodeTemplate t = node_template_from_json(parse_json_text(e.text, src), src);
            t.source = src;
            return t;
        }
    }
    std::string list;
    for (const auto& n : builtin_node_template_names()) {
        list += (list.empty() ? "" : ", ") + n;
    }
    throw input_error(where, "unknown node template '" + name + "'",
                      "use a built-in template (" + list + ") or a path to a template JSON");
}

NodeTemplate read_node_capture(const std::string& text, const std::string& path, std::string format,
                               const std::string& where) {
    if (format == "auto") {
        format = std::string(to_string(detect_format(text)));
    }
    NodeTemplate t;
    if (format == "hwloc") {
        t = read_hwloc_xml(text, path);
    } else if (format == "nvidia-smi") {
        t = read_nvidia_smi_topo(text, path);
    } else if (format == "nccl-xml") {
        t = read_nccl_topo_xml(text, path);
    } else {
        throw input_error(where.empty() ? path : where, "cannot read '" + path + "' as a node (format " + format + ")",
                          "name a node capture: hwloc XML, nvidia-smi topo -m output or NCCL topology XML, "
                          "or a node template JSON");
    }
    t.source = path;
    if (t.name.empty()) {
        t.name = path;
    }
    return t;
}

namespace {

// A template reference with the files it names read in: paths become the template's JSON,
// imports the captured template; built-in names and inline objects stay as they are.
json inline_template_ref(const json& ref, const std::string& file, const std::string& pointer, const FileScope& scope,
                         std::vector<std::string>& files) {
    const std::string where = file + " (" + pointer + ")";
    if (ref.is_string() && names_a_file(ref.get<std::string>())) {
        const std::string path = resolve_named_file(scope, ref.get<std::string>(), where);
        files.push_back(path);
        return parse_json_text(read_text_file(path, kMaxTemplateBytes), path);
    }
    if (ref.is_object() && ref.contains("import")) {
        return to_json(imported_template(JsonReader(ref, file, pointer), scope, files));
    }
    return ref;
}

}  // namespace

nlohmann::json self_contained_cluster_json(const nlohmann::json& j, const std::string& file, const std::string& pointer,
                                           const FileScope& scope, std::vector<std::string>& files) {
    if (j.is_string()) {  // a layout's "cluster": "path": that file's cluster, its names against its folder
        const std::string path = resolve_named_file(scope, j.get<std::string>(), file + " (" + pointer + ")");
        files.push_back(path);
        const json c = parse_json_text(read_text_file(path, kMaxLayoutBytes), path);
        const bool wrapped = c.is_object() && c.contains("cluster");
        return self_contained_cluster_json(wrapped ? c.at("cluster") : c, path, wrapped ? "/cluster" : "",
                                           scope.for_file(path), files);
    }
    if (!j.is_object()) {
        throw input_error(file + " (" + pointer + ")", std::string("a cluster must be an object, got ") + j.type_name(),
                          "write {\"nodes\": 2, \"node\": \"h100-hgx-8gpu-8nic\"}");
    }
    json out = j;
    if (out.contains("topology") && out.at("topology").is_string()) {  // the fabric read in, as import writes it
        const std::string path = resolve_named_file(scope, out.at("topology").get<std::string>(), file + " (" + pointer + "/topology)");
        files.push_back(path);
        FabricTopology fabric = read_fabric_text(read_text_file(path, kMaxCaptureBytes), path);
        fabric.source = out.at("topology").get<std::string>();
        out["topology"] = to_json(fabric);
    }
    if (out.contains("node")) {
        out["node"] = inline_template_ref(out.at("node"), file, pointer + "/node", scope, files);
    }
    if (out.contains("nodes") && out.at("nodes").is_array()) {
        json& nodes = out["nodes"];
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            if (nodes[i].is_object() && nodes[i].contains("node")) {
                nodes[i]["node"] = inline_template_ref(nodes[i].at("node"), file,
                                                       pointer + "/nodes/" + std::to_string(i) + "/node", scope, files);
            }
        }
    }
    return out;
}

Cluster cluster_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer,
                          const std::string& base_dir) {
    return cluster_from_json(j, file, pointer, FileScope{base_dir, base_dir, false});
}

Cluster cluster_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer,
                          const FileScope& scope) {
    const JsonReader c(j, file, pointer);
    c.check_keys({"name", "node", "nodes", "topology", "fabric", "nvlink_domain"});
    Cluster out;
    out.source = file;
    TemplateTable table(file, scope);
    std::optional<ImportedFabric> imported;
    if (c.has("topology")) {
        imported = read_topology_nodes(c, table, out);
    } else {
        read_nodes(c, table, out);
    }
    out.templates = table.take();
    out.files = table.take_files();
    for (const auto& t : out.templates) {
        out.facts.push_back(template_facts(t));
        out.rails = std::max(out.rails, static_cast<int>(out.facts.back().rail_nics.size()));
        for (const auto& w : t.warnings) {
            out.warnings.push_back(t.name + ": " + w);
        }
        const auto& speeds = out.facts.back().rail_gbit_s;
        if (std::any_of(speeds.begin(), speeds.end(), [](double v) { return v <= 0; })) {
            out.warnings.push_back(t.name + ": the template does not give its NIC speeds (speed_gbit_s); the cost model assumes 400 Gbit/s");
        }
    }
    read_fabric(c, out, imported ? &*imported : nullptr);
    read_cluster_domains(c, scope, imported ? &*imported : nullptr, out);
    if (!out.homogeneous()) {
        out.warnings.emplace_back("the cluster mixes node templates; collectives run at the pace of the slowest node");
    }
    return out;
}

Cluster load_cluster_file(const std::string& path, bool anywhere) {
    const std::string dir = parent_dir(path);
    return load_cluster_file(path, FileScope{dir, dir, anywhere});
}

Cluster load_cluster_file(const std::string& path, const FileScope& scope) {
    const std::string text = read_text_file(path, kMaxLayoutBytes);
    const json j = parse_json_text(text, path);
    const bool wrapped = j.is_object() && j.contains("cluster");
    Cluster c = cluster_from_json(wrapped ? j.at("cluster") : j, path, wrapped ? "/cluster" : "", scope);
    c.files.insert(c.files.begin(), path);
    return c;
}

}  // namespace planlayout
