// Ingest: an imported fabric (switch tree or blocks) → the hosts, scalable units and pods of a cluster.
#include "planlayout/ingest/cluster_fabric.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "ingest_util.hpp"
#include "planlayout/error.hpp"
#include "planlayout/ingest/detect_format.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/ingest/k8s_nodes.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/names.hpp"

namespace planlayout {
namespace {

using nlohmann::json;

constexpr const char* kShapeFix =
    "the cluster model needs every host under exactly one leaf switch (or block) and every leaf at "
    "the same depth (leaves and spines may differ in size): import that part (e.g. kubectl get nodes "
    "-l ... / one topology.yaml entry), or list the hosts with \"nodes\" and \"fabric\" instead of "
    "\"topology\"";

// A note when the units differ in size: "leaf switches of 18 to 8 hosts (a partly populated fabric)".
std::string size_note(const std::vector<std::int64_t>& sizes, const char* what, const char* unit) {
    if (sizes.empty() || std::all_of(sizes.begin(), sizes.end(), [&](std::int64_t v) { return v == sizes.front(); })) {
        return {};
    }
    const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
    return std::string("irregular: ") + what + " of " + std::to_string(*lo) + " to " + std::to_string(*hi) + " " +
           unit + ", each classified by its own leaf and spine";
}

void add_hosts(ImportedFabric& out, std::map<std::string, std::string>& owner, const std::string& unit,
               const std::vector<std::string>& nodes, const std::string& where) {
    for (const auto& host : nodes) {
        const auto [it, fresh] = owner.emplace(host, unit);
        if (!fresh) {
            throw input_error(where, "host '" + host + "' is under two leaf switches or blocks (" + it->second + " and " + unit + ")",
                              "list every host under one leaf; " + std::string(kShapeFix));
        }
        out.hosts.push_back(host);
    }
}

ImportedFabric map_blocks(const FabricTopology& f, const std::string& where) {
    ImportedFabric out;
    std::map<std::string, std::string> owner;
    for (const auto& b : f.blocks) {
        if (b.nodes.empty()) {
            continue;  // an empty block holds no host of the cluster
        }
        add_hosts(out, owner, b.name, b.nodes, where);
        out.su_names.push_back(b.name);
        out.su_sizes.push_back(static_cast<std::int64_t>(b.nodes.size()));
    }
    if (const std::string note = size_note(out.su_sizes, "blocks", "nodes"); !note.empty()) {
        out.notes.push_back(note);
    }
    if (f.block_sizes.size() > 1) {
        out.notes.emplace_back("the aggregated block sizes (BlockSizes) above the base block are not modelled: the "
                               "blocks are scalable units under one spine tier");
    }
    return out;
}

// A switch below itself (its own parent, or a ring of switches each listing the next): no root
// reaches it, and the tree reader would say "no switch lists nodes". Names the chain instead.
void require_no_cycle(const FabricTopology& f, const std::vector<int>& parent, const std::string& where) {
    std::vector<int> state(parent.size(), 0);  // 0 unvisited, 1 on the current walk, 2 leads to a root
    for (std::size_t start = 0; start < parent.size(); ++start) {
        std::vector<std::size_t> walk;
        int at = static_cast<int>(start);
        while (at >= 0 && state[static_cast<std::size_t>(at)] == 0) {
            state[static_cast<std::size_t>(at)] = 1;
            walk.push_back(static_cast<std::size_t>(at));
            at = parent[static_cast<std::size_t>(at)];
        }
        if (at >= 0 && state[static_cast<std::size_t>(at)] == 1) {  // back on this walk: a cycle from `at`
            const auto from = std::find(walk.begin(), walk.end(), static_cast<std::size_t>(at));
            std::string chain = f.switches[static_cast<std::size_t>(at)].name;
            for (auto it = walk.end(); it != from;) {  // listing order: each switch lists the next
                --it;
                chain += " > " + f.switches[*it].name;
            }
            throw input_error(where,
                              walk.end() - from == 1 ? "switch " + f.switches[*from].name + " lists itself among its switches"
                                                     : "the switches form a cycle: " + chain + " (each lists the next below it)",
                              "a tree has no cycles: drop the switch that closes the cycle from the list of the one above it");
        }
        for (const std::size_t s : walk) {
            state[s] = 2;
        }
    }
}

ImportedFabric map_tree(const FabricTopology& f, const std::string& where) {
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < f.switches.size(); ++i) {
        index.emplace(f.switches[i].name, i);
    }
    std::vector<int> parent(f.switches.size(), -1);
    for (std::size_t i = 0; i < f.switches.size(); ++i) {
        for (const auto& child : f.switches[i].children) {
            const auto it = index.find(child);
            if (it != index.end() && parent[it->second] < 0) {
                parent[it->second] = static_cast<int>(i);
            }
        }
    }
    require_no_cycle(f, parent, where);
    // Depth first from the roots (file order), children in their listed order: the fabric order.
    std::vector<std::size_t> leaves;
    std::vector<bool> seen(f.switches.size(), false);
    auto visit = [&](std::size_t s, auto&& self) -> void {
        if (seen[s]) {
            return;
        }
        seen[s] = true;
        const FabricSwitch& sw = f.switches[s];
        if (!sw.nodes.empty() && !sw.children.empty()) {
            throw input_error(where,
                              "switch " + sw.name + " holds both nodes and switches" +
                                  (f.label_scheme.empty() ? std::string()
                                                          : " (nodes without the tier-0 label " + sw.nodes.front() +
                                                                ", ... hang from the tier above)"),
                              kShapeFix);
        }
        if (!sw.nodes.empty()) {
            leaves.push_back(s);
        }
        for (const auto& child : sw.children) {
            if (const auto it = index.find(child); it != index.end()) {
                self(it->second, self);
            }
        }
    };
    for (std::size_t i = 0; i < f.switches.size(); ++i) {
        if (parent[i] < 0) {
            visit(i, visit);
        }
    }
    if (leaves.empty()) {
        throw input_error(where, "no switch lists nodes", "import a topology whose leaf switches name their hosts");
    }
    ImportedFabric out;
    std::map<std::string, std::string> owner;
    for (const std::size_t l : leaves) {
        const FabricSwitch& sw = f.switches[l];
        if (sw.tier != 0) {
            throw input_error(where, "switch " + sw.name + " (tier " + std::to_string(sw.tier) +
                                         ") holds nodes beside switches of lower tiers", kShapeFix);
        }
        add_hosts(out, owner, sw.name, sw.nodes, where);
        out.su_names.push_back(sw.name);
        out.su_sizes.push_back(static_cast<std::int64_t>(sw.nodes.size()));
    }
    if (const std::string note = size_note(out.su_sizes, "leaf switches", "hosts"); !note.empty()) {
        out.notes.push_back(note);
    }
    for (const auto& n : f.nodes) {  // a Kubernetes node without a leaf label
        if (owner.count(n.name) == 0) {
            throw input_error(where, "node " + n.name + " is under no leaf switch (it has no tier-0 label)", kShapeFix);
        }
    }
    // Pods: the switch above each leaf, in fabric order; leaves of one pod are consecutive (depth first).
    std::vector<int> pods;
    for (const std::size_t l : leaves) {
        const int p = parent[l];
        if ((p < 0) != (parent[leaves.front()] < 0)) {
            throw input_error(where, "leaf " + f.switches[l].name + (p < 0 ? " has no" : " has a") +
                                         " parent switch, leaf " + f.switches[leaves.front()].name +
                                         (p < 0 ? " has one" : " has none"), kShapeFix);
        }
        if (p < 0) {
            continue;
        }
        if (pods.empty() || pods.back() != p) {
            pods.push_back(p);
            out.pod_sizes.push_back(0);
        }
        ++out.pod_sizes.back();
    }
    if (pods.empty()) {
        if (leaves.size() > 1) {
            out.notes.emplace_back("the " + std::to_string(leaves.size()) +
                                   " leaf switches have no common parent switch: modelled as one spine tier");
        }
        return out;
    }
    if (const std::string note = size_note(out.pod_sizes, "spine switches", "leaves"); !note.empty()) {
        out.notes.push_back(note);
    }
    for (const int p : pods) {
        const FabricSwitch& sw = f.switches[static_cast<std::size_t>(p)];
        const auto leaf_children = static_cast<std::size_t>(std::count_if(
            sw.children.begin(), sw.children.end(), [&](const std::string& c) {
                const auto it = index.find(c);
                return it != index.end() && !f.switches[it->second].nodes.empty();
            }));
        if (leaf_children != sw.children.size()) {
            throw input_error(where, "switch " + sw.name + " has both leaf switches and other switches below it",
                              kShapeFix);
        }
        out.pod_names.push_back(sw.name);
    }
    // Above the pods: one core switch keeps its name; more tiers are one core in the model.
    std::set<int> above;
    bool top = false;
    for (const int p : pods) {
        above.insert(parent[static_cast<std::size_t>(p)]);
        top = top || parent[static_cast<std::size_t>(p)] < 0;
    }
    if (above.size() == 1 && !top) {
        const auto core = static_cast<std::size_t>(*above.begin());
        if (parent[core] < 0) {
            out.core_name = f.switches[core].name;
        } else {
            out.notes.emplace_back("the tiers above " + f.switches[core].name + " are not modelled (the model's "
                                   "top tier is one core above the spines)");
        }
    } else if (above.size() > 1) {
        out.notes.emplace_back("the " + std::to_string(above.size()) + " switches above the spines are modelled as "
                               "one core tier");
    } else if (pods.size() > 1) {
        out.notes.emplace_back("the " + std::to_string(pods.size()) + " spine switches have no common parent "
                               "switch: modelled as joined by one core tier");
    }
    return out;
}

}  // namespace

FabricTopology fabric_from_json(const nlohmann::json& j, const std::string& where, const std::string& pointer) {
    const JsonReader r(j, where, pointer);
    r.check_keys({"schema_version", "source", "plugin", "topology", "switches", "blocks", "block_sizes", "node_entries",
                  "warnings", "label_scheme", "tier_labels", "domain_label", "nodes"});
    FabricTopology f;
    f.source = r.get_string("source").value_or(where);
    f.plugin = r.get_string("plugin").value_or("tree");
    if (f.plugin != "tree" && f.plugin != "block" && f.plugin != "flat") {
        throw input_error(r.where("plugin"), "plugin must be \"tree\", \"block\" or \"flat\", got \"" + f.plugin + "\"",
                          "write the output of plan-layout import slurm|slurm-yaml|k8s-nodes unchanged");
    }
    std::set<std::string> switch_names;
    if (const json* sw = r.get_array("switches")) {
        for (std::size_t i = 0; i < sw->size(); ++i) {
            const JsonReader s = r.element("switches", i);
            s.check_keys({"name", "label", "tier", "switches", "nodes", "link_speed"});
            FabricSwitch out;
            const auto name = s.get_string("name");
            if (!name || name->empty()) {
                throw input_error(s.where("name"), "a switch needs a \"name\"", "write \"name\": \"leaf1\"");
            }
            out.name = *name;
            out.label = s.get_string("label").value_or("");
            out.tier = static_cast<int>(s.get_int("tier", 0, 64).value_or(0));
            out.children = s.get_strings("switches").value_or(std::vector<std::string>{});
            out.nodes = s.get_strings("nodes").value_or(std::vector<std::string>{});
            // Switch and host names are written into topology.conf, YAML and DOT: checked here, as
            // every topology reader checks them, so no writer meets a newline or a quote.
            require_device_name(out.name, s.where("name"), "switch");
            for (const auto& c : out.children) {
                require_device_name(c, s.where("switches"), "switch");
            }
            ingest_detail::require_distinct_switches(out.children, out.name, s.where("switches"));
            if (!switch_names.insert(out.name).second) {
                throw input_error(s.where("name"), "switch '" + out.name + "' is defined twice",
                                  "merge the two entries, or rename one switch (its name becomes a topology.conf "
                                  "SwitchName and a Volcano HyperNode)");
            }
            for (const auto& n : out.nodes) {
                require_host_name(n, s.where("nodes"));
            }
            out.link_speed = s.get_string("link_speed").value_or("");
            f.switches.push_back(std::move(out));
        }
    }
    std::set<std::string> block_names;
    if (const json* bl = r.get_array("blocks")) {
        for (std::size_t i = 0; i < bl->size(); ++i) {
            const JsonReader b = r.element("blocks", i);
            b.check_keys({"name", "label", "nodes"});
            FabricBlock out;
            out.name = b.get_string("name").value_or("block" + std::to_string(i));
            out.label = b.get_string("label").value_or("");
            out.nodes = b.get_strings("nodes").value_or(std::vector<std::string>{});
            require_device_name(out.name, b.where("name"), "block");
            if (!block_names.insert(out.name).second) {
                throw input_error(b.where("name"), "block '" + out.name + "' is defined twice",
                                  "merge the two entries, or rename one block (its name becomes a topology.conf BlockName)");
            }
            for (const auto& n : out.nodes) {
                require_host_name(n, b.where("nodes"));
            }
            f.blocks.push_back(std::move(out));
        }
    }
    if (const json* nodes = r.get_array("nodes")) {
        for (std::size_t i = 0; i < nodes->size(); ++i) {
            const JsonReader n = r.element("nodes", i);
            FabricNode out;  // the name and its NVLink clique; the GPU facts come from the node template
            out.name = n.get_string("name").value_or("");
            require_host_name(out.name, n.where("name"));
            out.nvlink_domain = n.get_string("nvlink_domain").value_or("");
            if (!out.nvlink_domain.empty()) {
                require_device_name(out.nvlink_domain, n.where("nvlink_domain"), "clique");
            }
            f.nodes.push_back(std::move(out));
        }
    }
    f.warnings = r.get_strings("warnings").value_or(std::vector<std::string>{});
    f.label_scheme = r.get_string("label_scheme").value_or("");
    f.tier_labels = r.get_strings("tier_labels").value_or(std::vector<std::string>{});
    f.domain_label = r.get_string("domain_label").value_or("");
    for (const auto& key : f.tier_labels) {  // written into Kueue's Topology as nodeLabel
        require_label_key(key, r.where("tier_labels"));
    }
    if (!f.domain_label.empty()) {
        require_label_key(f.domain_label, r.where("domain_label"));
    }
    f.topology = r.get_string("topology").value_or("");
    const json* sizes = r.get_array("block_sizes");
    for (std::size_t i = 0; sizes != nullptr && i < sizes->size(); ++i) {
        const json& v = (*sizes)[i];
        if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > kMaxNodes) {
            throw input_error(r.where("block_sizes") + "/" + std::to_string(i), "not a block size",
                              "a whole number of nodes, 1.." + std::to_string(kMaxNodes));
        }
        f.block_sizes.push_back(v.get<int>());
    }
    return f;
}

FabricTopology read_fabric_text(const std::string& text, const std::string& where) {
    const CaptureFormat format = detect_format(text);
    switch (format) {
        case CaptureFormat::Slurm: return read_slurm_topology(text, where);
        case CaptureFormat::SlurmYaml: return read_slurm_topology_yaml(text, where);
        case CaptureFormat::K8sNodes:
            try {
                return read_k8s_nodes(parse_json_text(text, where), where);
            } catch (const Error& e) {  // --tier-label is import's flag: say how to use it from here
                if (e.hint().find("--tier-label") == std::string::npos) {
                    throw;
                }
                throw Error(e.code(), e.where(), e.problem(),
                            "import it naming the label of each tier, lowest first: plan-layout import k8s-nodes FILE "
                            "--tier-label KEY [--tier-label KEY ...] -o fabric.json, and give fabric.json");
            }
        default: break;
    }
    const json j = parse_json_text(text, where);
    if (!j.is_object() || !j.contains("switches") || !j.contains("blocks")) {
        throw input_error(where, "not a cluster topology (" + std::string(to_string(format)) + ")",
                          "give the fabric JSON of plan-layout import slurm|slurm-yaml|k8s-nodes, a topology.conf, "
                          "a topology.yaml or kubectl get nodes -o json");
    }
    return fabric_from_json(j, where, "");
}

ImportedFabric map_fabric(const FabricTopology& f, const std::string& where) {
    const bool tree = std::any_of(f.switches.begin(), f.switches.end(),
                                  [](const FabricSwitch& s) { return !s.nodes.empty(); });
    if (!tree && f.blocks.empty()) {
        throw input_error(where, "the topology names no hosts (a " + (f.plugin.empty() ? std::string("flat") : f.plugin) +
                                     " topology without leaf switches or blocks)",
                          "give the hosts as \"nodes\" (a flat fabric is one scalable unit) instead of \"topology\"");
    }
    ImportedFabric out = tree ? map_tree(f, where) : map_blocks(f, where);
    out.blocks = !tree;
    std::map<std::string, std::string> clique_of;  // the nodes' clique labels (k8s), by host
    for (const auto& n : f.nodes) {
        if (!n.nvlink_domain.empty()) {
            clique_of.emplace(n.name, n.nvlink_domain);
        }
    }
    if (!clique_of.empty()) {
        out.domain_label = f.domain_label;
        for (const auto& host : out.hosts) {
            const auto it = clique_of.find(host);
            out.host_domains.push_back(it == clique_of.end() ? std::string() : it->second);
        }
    }
    if (tree && !f.blocks.empty() && clique_of.empty()) {
        out.notes.emplace_back("the " + std::to_string(f.blocks.size()) + " blocks are not modelled: the leaf switches "
                               "define the scalable units (blocks as NVLink domains: give the cluster \"nvlink_domain\")");
    }
    if (static_cast<std::int64_t>(out.hosts.size()) > kMaxNodes) {
        throw input_error(where, "more than " + std::to_string(kMaxNodes) + " hosts",
                          "plan-layout models at most " + std::to_string(kMaxNodes) + " nodes; import a part");
    }
    return out;
}

}  // namespace planlayout
