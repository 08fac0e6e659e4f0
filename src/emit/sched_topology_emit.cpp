// Emit: Slurm topology.conf / topology.yaml, Kueue Topology + PodSet annotations, Volcano
// HyperNodes + networkTopology, from a plan. Field names and structure, with their sources:
//   Slurm topology.conf(5) and topology.yaml(5): SchedMD/slurm doc/man/man5/topology.conf.5,
//     doc/man/man5/topology.yaml.5 (commit 0b755e6c30537af103c40e1d285b5872296a1b6f)
//   Kueue Topology and PodSet annotations: kubernetes-sigs/kueue apis/kueue/v1beta2/topology_types.go
//     (commit 046d2efa6fa34ff6f967530579f1883dddcc5407)
//   Volcano HyperNode: volcano-sh/apis pkg/apis/topology/v1alpha1/hypernode_types.go
//     (commit 778d043c33210f4c5be4cbf4e6915e66dfe7379a); Job networkTopology: volcano-sh/apis
//     pkg/apis/batch/v1alpha1 (mode hard|soft, highestTierAllowed); a task's partitionPolicy
//     (totalPartitions, partitionSize, networkTopology; TaskSpec, v1.14.0+, commit 536f121f)
//   Node labels: NVIDIA topograph fabric.topograph.run/tier-N, tier 0 nearest the nodes
//     (https://docs.nvidia.com/topograph/v1.0.0/reference/node-labels-and-annotations); the NVLink
//     domain: nvidia.com/gpu.clique, written by the GPU operator's GPU Feature Discovery as
//     <ClusterUUID>.<CliqueId> (topograph's DRA provider reads it; its own accelerator label is
//     omitted where that label is authoritative, same page)
//   Slurm --segment with topology/block: the topology guide's "User Options" (slurm.schedmd.com/
//     topology.html; SchedMD/slurm doc/html/topology.shtml): each segment of a job inside one block,
//     the node count a multiple of the segment size; blocks as NVLink domains (one per NVL72 rack),
//     as CoreWeave SUNK and topograph's DRA provider generate them
#include "planlayout/emit/sched_topology_emit.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "kube_names.hpp"
#include "planlayout/analysis/sched_levels.hpp"
#include "planlayout/error.hpp"
#include "planlayout/names.hpp"

namespace planlayout {
namespace {

constexpr const char* kTier0Label = "fabric.topograph.run/tier-0";  // leaf group
constexpr const char* kTier1Label = "fabric.topograph.run/tier-1";  // spine pod
constexpr const char* kHostLabel = "kubernetes.io/hostname";
constexpr const char* kCliqueLabel = "nvidia.com/gpu.clique";  // NVLink domain (GPU Feature Discovery)
constexpr const char* kKueueTopologyName = "plan-layout";

// Every YAML scalar of every format here goes through yaml_quote (names.hpp): one line of
// printable ASCII in double quotes, whatever the name holds. Comments go through printable().
std::string q(const std::string& s) { return yaml_quote(s); }

// A name written bare into topology.conf (which has no quoting): a switch or block name must be a
// device name, a host a host name (both checked where they enter: slurm_topology, k8s_nodes,
// cluster_fabric, cluster_json); anything else here is a bug, refused rather than written.
const std::string& conf_switch(const std::string& name) {
    if (const auto problem = device_name_problem(name); !problem.empty()) {
        throw Error(ExitCode::Internal, "topology.conf writer", "switch name '" + printable(name) + "' " + problem,
                    "names are checked where they enter; please report this with the command line");
    }
    return name;
}

std::string conf_switches(const std::vector<std::string>& names) {
    for (const auto& n : names) {
        conf_switch(n);
    }
    return slurm_hostlist(names);
}

std::string conf_hosts(const std::vector<std::string>& hosts) {
    for (const auto& h : hosts) {
        if (const auto problem = host_name_problem(h); !problem.empty()) {
            throw Error(ExitCode::Internal, "topology.conf writer", "host name '" + printable(h) + "' " + problem,
                        "names are checked where they enter; please report this with the command line");
        }
    }
    return slurm_hostlist(hosts);
}

// The cluster's switch tree: leaf groups with their hosts, pods with their leaf groups.
struct SwitchTree {
    std::vector<std::pair<std::string, std::vector<std::string>>> leaves;  // name → hosts (cluster order)
    std::vector<std::pair<std::string, std::vector<std::string>>> pods;    // name → leaf names
    std::vector<std::string> railless;                                     // hosts without a rail NIC
    // With NVLink domains nested in the leaf groups (domains_nest_in_leaves): each domain's hosts,
    // and each leaf group's domains (in the order of their first node).
    std::vector<std::pair<std::string, std::vector<std::string>>> domains;
    std::vector<std::vector<std::string>> leaf_domains;
};

SwitchTree tree_of(const Cluster& c) {
    const FabricDomains d = fabric_domains(c);
    SwitchTree t;
    for (const auto& name : d.leaf_group_names) {
        t.leaves.emplace_back(name, std::vector<std::string>{});
    }
    for (std::int64_t p = 0; p < d.pods; ++p) {
        t.pods.emplace_back(c.pod_name(p), std::vector<std::string>{});
    }
    for (std::size_t l = 0; l < d.leaf_group_names.size(); ++l) {
        t.pods[static_cast<std::size_t>(d.pod_of_leaf_group[l])].second.push_back(d.leaf_group_names[l]);
    }
    for (std::size_t n = 0; n < c.nodes.size(); ++n) {
        if (d.leaf_group[n] < 0) {
            t.railless.push_back(c.nodes[n].host);
        } else {
            t.leaves[static_cast<std::size_t>(d.leaf_group[n])].second.push_back(c.nodes[n].host);
        }
    }
    if (domains_nest_in_leaves(c)) {
        t.leaf_domains.resize(t.leaves.size());
        std::map<std::int32_t, std::size_t> seen;  // domain → its index in t.domains
        for (std::size_t n = 0; n < c.nodes.size(); ++n) {
            const std::int32_t dom = c.domain_of(static_cast<std::int64_t>(n));
            if (dom < 0) {
                continue;
            }
            const auto [it, fresh] = seen.emplace(dom, t.domains.size());
            if (fresh) {
                t.domains.emplace_back(c.nvlink.names[static_cast<std::size_t>(dom)], std::vector<std::string>{});
                t.leaf_domains[static_cast<std::size_t>(d.leaf_group[n])].push_back(t.domains.back().first);
            }
            t.domains[it->second].second.push_back(c.nodes[n].host);
        }
    }
    return t;
}

const char* where_text(SchedLevel l) {
    switch (l) {
        case SchedLevel::Node: return "one node";
        case SchedLevel::Domain: return "one NVLink domain";
        case SchedLevel::Leaf: return "one leaf group";
        case SchedLevel::Spine: return "one spine pod";
        case SchedLevel::Cluster: return "the cluster (crosses pods)";
    }
    return "the cluster";
}

// The comment block every format starts with: what is required, what is preferred, and why.
std::string comment_block(const Report& r, const SchedulerLevels& s, const std::string& what) {
    std::ostringstream o;
    o << "# plan-layout " << what << " for " << printable(r.layout_name) << ": " << r.placement.world() << " ranks on "
      << s.job_nodes.size() << " node(s)\n";
    o << "# placement: " << printable(r.placement.description) << "\n";
    if (s.domain_level) {
        o << "# Levels, innermost first: node (NVLink) < NVLink domain (nodes of one multi-node NVLink\n"
          << "# fabric: a GB200/GB300 NVL72 rack or its partition; MNNVL) < leaf group (nodes on one set of\n"
          << "# leaf switches) < spine pod (leaf groups under one spine tier) < cluster.\n"
          << "# Per kind, the level its groups stay inside in this plan. Required: collectives in every\n"
          << "# layer; preferred: once per step or at pipeline stage boundaries (docs/formats/schedulers.md).\n";
    } else {
        o << "# Levels, innermost first: node (NVLink) < leaf group (nodes on one set of leaf switches) <\n"
          << "# spine pod (leaf groups under one spine tier) < cluster. Per kind, the level its groups stay\n"
          << "# inside in this plan. Required: collectives in every layer; preferred: once per step or\n"
          << "# at pipeline stage boundaries (docs/formats/schedulers.md).\n";
    }
    for (const auto& k : s.kinds) {
        std::string level = where_text(k.span);
        if (k.span != SchedLevel::Node && k.slice_nodes > 1 && k.slice_nodes < static_cast<std::int64_t>(s.job_nodes.size())) {
            level += " (" + std::to_string(k.slice_nodes) + " consecutive nodes per group)";
        }
        o << "#   " << k.kind << std::string(k.kind.size() < 8 ? 8 - k.kind.size() : 1, ' ') << (k.required ? "required " : "preferred")
          << "  " << level << ": " << k.why << "\n";
    }
    o << "# The job spans " << where_text(s.job_span) << " (" << s.leaf_groups_used << " leaf group(s), " << s.pods_used
      << " pod(s)" << (s.domain_level ? ", " + std::to_string(s.domains_used) + " NVLink domain(s)" : std::string()) << ").\n# ";
    const std::string prefer = s.job_span == SchedLevel::Cluster ? std::string("As few pods as possible is preferred")
                                                                  : "Staying inside " + std::string(where_text(s.job_span)) + " is preferred";
    if (s.job_required) {
        o << "It must stay inside " << where_text(s.job_span) << ": its required kinds span it.\n";
    } else if (s.required == SchedLevel::Node) {
        o << "Its required kinds stay inside one node: any nodes keep them.\n# " << prefer << ".\n";
    } else {
        o << prefer << "; each slice of " << s.slice_nodes << " consecutive nodes\n# must stay inside "
          << where_text(s.required) << ".\n";
    }
    o << "# Ranks fill the nodes in the plan's order (node-major; --placement fabric sorts them leaf-major),\n"
      << "# so the launcher's node order must keep each slice's nodes together.\n";
    return o.str();
}

// What Slurm's topology/block plugin gets as blocks: the NVLink domains (one block per NVL72 rack or
// partition, when they nest in the leaf groups), else the scalable units, else nothing.
enum class BlockSource { None, Leaves, Domains };

std::string sbatch_advice(const SchedulerLevels& s, BlockSource blocks) {
    std::ostringstream o;
    o << "# sbatch advice for this job:\n#   #SBATCH --nodes=" << s.job_nodes.size() << "\n";
    const bool domains = blocks == BlockSource::Domains;
    if (s.job_span != SchedLevel::Node) {
        o << "#   " << (domains ? "(with topology/tree) " : "") << "#SBATCH --switches=" << s.leaf_groups_used
          << "@HH:MM:SS   # at most " << s.leaf_groups_used
          << " leaf switch(es), as planned; the wait is yours to choose\n#   (without @time, slurm.conf's max_switch_wait applies; "
          << (s.job_required ? "required: do not relax it" : "preferred: a longer wait is optional") << ")\n";
    }
    // --segment: each segment of the job inside one block; a block is the level the blocks stand for.
    const SchedLevel block_level = domains ? SchedLevel::Domain : SchedLevel::Leaf;
    if (blocks != BlockSource::None && s.required == block_level) {
        const std::int64_t seg = s.job_required ? static_cast<std::int64_t>(s.job_nodes.size()) : s.slice_nodes;
        o << "#   #SBATCH --segment=" << seg << "   # topology/block: each " << seg << " node(s) inside one block"
          << (domains ? " (one NVLink domain)" : "") << ", as the required kinds need\n";
    } else if (domains && s.required == SchedLevel::Node) {
        o << "#   (no --segment: the required kinds stay inside one node; the blocks still keep the job's\n"
          << "#   nodes in as few NVLink domains as they can)\n";
    }
    return o.str();
}

std::vector<std::string> names_of(const std::vector<std::pair<std::string, std::vector<std::string>>>& v) {
    std::vector<std::string> out;
    out.reserve(v.size());
    for (const auto& [name, members] : v) {
        out.push_back(name);
    }
    return out;
}

bool has_blocks(const Cluster& c) { return c.wiring.empty() && c.fabric.nodes_per_su > 0; }

BlockSource block_source(const Cluster& c, const SwitchTree& t) {
    return !t.domains.empty() ? BlockSource::Domains : has_blocks(c) ? BlockSource::Leaves : BlockSource::None;
}

// The smallest NVLink domain: Slurm's default base block (every block holds at least that many nodes).
std::int64_t smallest_domain(const SwitchTree& t) {
    std::size_t least = t.domains.front().second.size();
    for (const auto& [name, hosts] : t.domains) {
        least = std::min(least, hosts.size());
    }
    return static_cast<std::int64_t>(least);
}

std::vector<std::int64_t> block_sizes(const Cluster& c) {
    if (!c.regular_units()) {  // blocks of different sizes: Slurm's default base, the smallest block
        const std::vector<std::int64_t> su = c.su_sizes();
        return {*std::min_element(su.begin(), su.end())};
    }
    std::vector<std::int64_t> sizes{c.fabric.nodes_per_su};
    const std::int64_t pod = c.fabric.sus_per_pod;
    if (pod > 1 && (pod & (pod - 1)) == 0) {  // Slurm: each larger size is a power of two times the base
        sizes.push_back(c.fabric.nodes_per_su * pod);
    }
    return sizes;
}

std::string size_list(const std::vector<std::int64_t>& sizes) {
    std::string out;
    for (const auto v : sizes) {
        out += (out.empty() ? "" : ",") + std::to_string(v);
    }
    return out;
}

}  // namespace

namespace {

// The tree lines of topology.conf (SwitchName=), each line prefixed (a comment when the blocks lead).
void tree_conf(std::ostringstream& o, const Report& r, const SwitchTree& t, const char* prefix) {
    for (const auto& [name, hosts] : t.leaves) {
        o << prefix << "SwitchName=" << conf_switch(name) << " Nodes=" << conf_hosts(hosts) << "\n";
    }
    if (!t.railless.empty()) {
        o << prefix << "SwitchName=tcp Nodes=" << conf_hosts(t.railless) << "   # nodes without a rail NIC\n";
    }
    if (t.leaves.size() > 1) {
        for (const auto& [name, leaves] : t.pods) {
            o << prefix << "SwitchName=" << conf_switch(name) << " Switches=" << conf_switches(leaves) << "\n";
        }
    }
    std::vector<std::string> top = t.leaves.size() > 1 ? names_of(t.pods) : names_of(t.leaves);
    if (!t.railless.empty()) {
        top.emplace_back("tcp");
    }
    if (top.size() > 1 && (t.pods.size() > 1 || !t.railless.empty())) {
        o << prefix << "SwitchName=" << conf_switch(r.cluster.core()) << " Switches=" << conf_switches(top) << "\n";
    }
}

void tree_yaml(std::ostringstream& o, const Report& r, const SwitchTree& t, bool cluster_default) {
    o << "- topology: \"tree\"\n  cluster_default: " << (cluster_default ? "true" : "false") << "\n  tree:\n    switches:\n";
    for (const auto& [name, hosts] : t.leaves) {
        o << "      - switch: " << q(name) << "\n        nodes: " << q(slurm_hostlist(hosts)) << "\n";
    }
    if (!t.railless.empty()) {
        o << "      - switch: \"tcp\"\n        nodes: " << q(slurm_hostlist(t.railless)) << "\n";
    }
    if (t.leaves.size() > 1) {
        for (const auto& [name, leaves] : t.pods) {
            o << "      - switch: " << q(name) << "\n        children: " << q(slurm_hostlist(leaves)) << "\n";
        }
    }
    std::vector<std::string> top = t.leaves.size() > 1 ? names_of(t.pods) : names_of(t.leaves);
    if (!t.railless.empty()) {
        top.emplace_back("tcp");
    }
    if (top.size() > 1 && (t.pods.size() > 1 || !t.railless.empty())) {
        o << "      - switch: " << q(r.cluster.core()) << "\n        children: " << q(slurm_hostlist(top)) << "\n";
    }
}

}  // namespace

std::string slurm_topology_conf(const Report& r) {
    const SchedulerLevels s = scheduler_levels(r.cluster, r.placement, r.groups);
    const SwitchTree t = tree_of(r.cluster);
    const BlockSource blocks = block_source(r.cluster, t);
    std::ostringstream o;
    if (blocks == BlockSource::Domains) {
        // Multi-node NVLink domains: topology/block with one block per domain leads; the tree follows
        // as the commented alternative.
        o << comment_block(r, s, "topology.conf (TopologyPlugin=topology/block, one block per NVLink domain)")
          << sbatch_advice(s, blocks);
        for (const auto& [name, hosts] : t.domains) {
            o << "BlockName=" << conf_switch(name) << " Nodes=" << conf_hosts(hosts) << "\n";
        }
        o << "BlockSizes=" << smallest_domain(t) << "\n"
          << "# With TopologyPlugin=topology/tree instead, these lines replace the blocks above\n"
          << "# (the leaf and spine switches; NVLink domains are not a tree level there):\n";
        tree_conf(o, r, t, "# ");
        return o.str();
    }
    o << comment_block(r, s, "topology.conf (TopologyPlugin=topology/tree)") << sbatch_advice(s, blocks);
    tree_conf(o, r, t, "");
    if (blocks == BlockSource::Leaves) {
        o << "# With TopologyPlugin=topology/block instead, these lines replace the tree above\n"
          << "# (one block per scalable unit):\n";
        for (const auto& [name, hosts] : t.leaves) {
            o << "# BlockName=" << conf_switch(name) << " Nodes=" << conf_hosts(hosts) << "\n";
        }
        o << "# BlockSizes=" << size_list(block_sizes(r.cluster)) << "\n";
    }
    return o.str();
}

std::string slurm_topology_yaml(const Report& r) {
    const SchedulerLevels s = scheduler_levels(r.cluster, r.placement, r.groups);
    const SwitchTree t = tree_of(r.cluster);
    const BlockSource blocks = block_source(r.cluster, t);
    std::ostringstream o;
    o << comment_block(r, s, blocks == BlockSource::Domains ? "topology.yaml (Slurm 25.05+; the block topology, one block per NVLink domain, is the default)"
                                                            : "topology.yaml (Slurm 25.05+)")
      << sbatch_advice(s, blocks);
    if (blocks == BlockSource::Domains) {
        o << "- topology: \"block\"\n  cluster_default: true\n  block:\n    block_sizes:\n      - " << smallest_domain(t)
          << "\n    blocks:\n";
        for (const auto& [name, hosts] : t.domains) {
            o << "      - block: " << q(name) << "\n        nodes: " << q(slurm_hostlist(hosts)) << "\n";
        }
        tree_yaml(o, r, t, false);
        return o.str();
    }
    tree_yaml(o, r, t, true);
    if (blocks == BlockSource::Leaves) {
        o << "- topology: \"block\"\n  cluster_default: false\n  block:\n    block_sizes:\n";
        for (const auto v : block_sizes(r.cluster)) {
            o << "      - " << v << "\n";
        }
        o << "    blocks:\n";
        for (const auto& [name, hosts] : t.leaves) {
            o << "      - block: " << q(name) << "\n        nodes: " << q(slurm_hostlist(hosts)) << "\n";
        }
    }
    return o.str();
}

std::string kueue_yaml(const Report& r) {
    const SchedulerLevels s = scheduler_levels(r.cluster, r.placement, r.groups);
    const SwitchTree t = tree_of(r.cluster);
    // Labels the nodes already carry when the cluster came from their own labels (import k8s-nodes).
    const bool own = r.cluster.node_labels.size() == 2;
    const std::string tier0 = own ? r.cluster.node_labels[0] : kTier0Label;
    const std::string tier1 = own ? r.cluster.node_labels[1] : kTier1Label;
    // The NVLink domain level: the label the domains were read from, else GPU Feature Discovery's.
    const std::string clique = r.cluster.nvlink.label.empty() ? std::string(kCliqueLabel) : r.cluster.nvlink.label;
    auto label = [&](SchedLevel l) {
        return l == SchedLevel::Node     ? std::string(kHostLabel)
               : l == SchedLevel::Domain ? clique
               : l == SchedLevel::Leaf   ? tier0
                                         : tier1;
    };
    std::ostringstream o;
    o << comment_block(r, s, "Kueue Topology and PodSet annotations");
    if (own) {
        o << "# Node labels the levels read: the nodes carry them already (the cluster was read from them,\n"
          << "# " << printable(r.cluster.topology_file) << "):\n";
    } else {
        o << "# Node labels the levels read (topograph's Kubernetes engine writes them; by hand:\n"
          << "# kubectl label node HOST " << kTier0Label << "=LEAF " << kTier1Label << "=POD):\n";
    }
    const FabricDomains d = fabric_domains(r.cluster);
    // Label values (at most 63 of letters, digits, '-', '_', '.'): a name Kubernetes rejects is
    // written as a valid value, and the comment names the original.
    std::vector<std::string> originals = names_of(t.leaves);
    for (const auto& names : {names_of(t.pods), names_of(t.domains)}) {
        originals.insert(originals.end(), names.begin(), names.end());
    }
    const emit_detail::KubeNames value = emit_detail::kube_names(originals, kubernetes_label_value, 63);
    o << emit_detail::renamed_comment(value, "label values (63 of letters, digits, '-', '_', '.') written for the fabric's "
                                             "names Kubernetes rejects");
    for (std::size_t l = 0; l < t.leaves.size(); ++l) {
        o << "#   " << printable(tier0) << "=" << printable(value(t.leaves[l].first)) << ", " << printable(tier1) << "="
          << printable(value(t.pods[static_cast<std::size_t>(d.pod_of_leaf_group[l])].first))
          << ": " << printable(slurm_hostlist(t.leaves[l].second)) << "\n";
    }
    if (!t.railless.empty()) {
        o << "#   (no rail NIC, leave unlabelled: " << printable(slurm_hostlist(t.railless)) << ")\n";
    }
    if (s.domain_level) {
        o << "# The NVLink domain level reads " << printable(clique) << " (GPU Feature Discovery of the GPU\n"
          << "# operator writes it on every GB200/GB300 node as <ClusterUUID>.<CliqueId>); this plan's domains:\n";
        for (const auto& [name, hosts] : t.domains) {
            o << "#   " << printable(value(name)) << ": " << printable(slurm_hostlist(hosts)) << "\n";
        }
    }
    o << "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata:\n  name: " << q(kKueueTopologyName)
      << "\nspec:\n  levels:\n    - nodeLabel: " << q(tier1) << "\n    - nodeLabel: " << q(tier0) << "\n";
    if (s.domain_level) {  // nested in the leaf groups (domains_nest_in_leaves): between them and the hosts
        o << "    - nodeLabel: " << q(clique) << "\n";
    }
    o << "    - nodeLabel: " << q(kHostLabel) << "\n";
    o << "---\n# The job's PodSet annotations, one pod per node (torchrun with all its GPUs): merge into the\n"
      << "# pod template of the job (kubectl patch --type merge --patch-file, or copy them).\n";
    o << "spec:\n  template:\n    metadata:\n      annotations:\n";
    // Above one pod no level holds the job: prefer one pod (Kueue widens the domain as it must).
    const SchedLevel whole = std::min(s.job_span, SchedLevel::Spine);
    const bool hard = s.job_required && s.job_span != SchedLevel::Cluster;
    o << "        kueue.x-k8s.io/podset-" << (hard ? "required" : "preferred") << "-topology: " << q(label(whole)) << "\n";
    if (!s.job_required && s.required != SchedLevel::Node) {
        o << "        kueue.x-k8s.io/podset-slice-required-topology: " << q(label(s.required)) << "\n";
        o << "        kueue.x-k8s.io/podset-slice-size: " << q(std::to_string(s.slice_nodes)) << "\n";
    }
    return o.str();
}

std::string volcano_yaml(const Report& r) {
    const SchedulerLevels s = scheduler_levels(r.cluster, r.placement, r.groups);
    const SwitchTree t = tree_of(r.cluster);
    std::ostringstream o;
    o << comment_block(r, s, "Volcano HyperNodes and networkTopology");
    // HyperNode names are Kubernetes object names (RFC 1123 subdomains); a Node's name is its host
    // name in lower case, as the kubelet registers it.
    std::vector<std::string> originals = names_of(t.domains);
    for (const auto& names : {names_of(t.leaves), t.railless.empty() ? std::vector<std::string>{} : std::vector<std::string>{"tcp"},
                              names_of(t.pods), t.pods.size() > 1 ? std::vector<std::string>{r.cluster.core()} : std::vector<std::string>{}}) {
        originals.insert(originals.end(), names.begin(), names.end());
    }
    const emit_detail::KubeNames hn = emit_detail::kube_names(originals, kubernetes_object_name, 253);
    o << emit_detail::renamed_comment(hn, "HyperNode names (Kubernetes object names, RFC 1123: lower case, digits, '-', '.') "
                             "written for the fabric's names Kubernetes rejects");
    auto hypernode = [&](const std::string& name, int tier, const char* type, const std::vector<std::string>& members) {
        o << "---\napiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata:\n  name: " << q(hn(name))
          << "\nspec:\n  tier: " << tier << "\n  members:\n";
        for (const auto& m : members) {
            const std::string member = std::string(type) == "Node" ? kubernetes_object_name(m) : hn(m);
            o << "    - type: " << type << "\n      selector:\n        exactMatch:\n          name: " << q(member) << "\n";
        }
    };
    // With NVLink domains nested in the leaf groups, each domain is a tier-1 HyperNode of its nodes
    // and every tier above moves up one.
    const int up = s.domain_level ? 1 : 0;
    for (const auto& [name, hosts] : t.domains) {
        hypernode(name, 1, "Node", hosts);
    }
    for (std::size_t l = 0; l < t.leaves.size(); ++l) {
        if (s.domain_level && !t.leaf_domains[l].empty()) {
            hypernode(t.leaves[l].first, 2, "HyperNode", t.leaf_domains[l]);
        } else {
            hypernode(t.leaves[l].first, 1 + up, "Node", t.leaves[l].second);
        }
    }
    if (!t.railless.empty()) {
        hypernode("tcp", 1 + up, "Node", t.railless);  // nodes without a rail NIC: their own group
    }
    for (const auto& [name, leaves] : t.pods) {
        hypernode(name, 2 + up, "HyperNode", leaves);
    }
    if (t.pods.size() > 1) {
        hypernode(r.cluster.core(), 3 + up, "HyperNode", names_of(t.pods));
    }
    const auto tier_of = [up](SchedLevel l) {
        return l == SchedLevel::Cluster ? 3 + up : l == SchedLevel::Spine ? 2 + up : l == SchedLevel::Leaf ? 1 + up : 1;
    };
    o << "---\n# The Volcano Job's network topology (batch.volcano.sh/v1alpha1 Job spec.networkTopology): merge\n"
      << "# into the job. hard: every pod inside one HyperNode of at most this tier; soft: preferred.\n";
    const bool slices = !s.job_required && s.required != SchedLevel::Node;
    const auto pods = static_cast<std::int64_t>(s.job_nodes.size());
    if (slices) {
        // Volcano v1.14+ (volcano-sh/apis TaskSpec.partitionPolicy): totalPartitions x partitionSize
        // = replicas, each partition inside one HyperNode of at most its own tier.
        o << "# The required slices (" << s.slice_nodes << " consecutive nodes inside " << where_text(s.required)
          << "): the task's\n# partitionPolicy (Volcano v1.14+), one pod per node, numbered in the plan's rank order; the\n"
          << "# task's name is yours to keep (a merge patch replaces the whole tasks list: copy it into yours).\n";
    }
    o << "spec:\n  networkTopology:\n    mode: " << (s.job_required ? "hard" : "soft") << "\n    highestTierAllowed: "
      << tier_of(s.job_span) << "\n";
    if (slices) {
        o << "  tasks:\n    - name: \"worker\"\n      replicas: " << pods << "\n      partitionPolicy:\n        totalPartitions: "
          << pods / s.slice_nodes << "\n        partitionSize: " << s.slice_nodes
          << "\n        networkTopology:\n          mode: hard\n          highestTierAllowed: " << tier_of(s.required) << "\n";
    }
    return o.str();
}

}  // namespace planlayout
