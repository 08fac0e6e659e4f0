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
//     (https://docs.nvidia.com/topograph/v1.0.0/reference/node-labels-and-annotations)
#include "planlayout/emit/sched_topology_emit.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "planlayout/analysis/sched_levels.hpp"
#include "planlayout/error.hpp"
#include "planlayout/names.hpp"

namespace planlayout {
namespace {

constexpr const char* kTier0Label = "fabric.topograph.run/tier-0";  // leaf group
constexpr const char* kTier1Label = "fabric.topograph.run/tier-1";  // spine pod
constexpr const char* kHostLabel = "kubernetes.io/hostname";
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
struct Tree {
    std::vector<std::pair<std::string, std::vector<std::string>>> leaves;  // name → hosts (cluster order)
    std::vector<std::pair<std::string, std::vector<std::string>>> pods;    // name → leaf names
    std::vector<std::string> railless;                                     // hosts without a rail NIC
};

Tree tree_of(const Cluster& c) {
    const FabricDomains d = fabric_domains(c);
    Tree t;
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
    return t;
}

const char* where_text(SchedLevel l) {
    switch (l) {
        case SchedLevel::Node: return "one node";
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
    o << "# Levels, innermost first: node (NVLink) < leaf group (nodes on one set of leaf switches) <\n"
      << "# spine pod (leaf groups under one spine tier) < cluster. Per kind, the level its groups stay\n"
      << "# inside in this plan. Required: collectives in every layer; preferred: once per step or\n"
      << "# at pipeline stage boundaries (docs/formats/schedulers.md).\n";
    for (const auto& k : s.kinds) {
        std::string level = where_text(k.span);
        if (k.span != SchedLevel::Node && k.slice_nodes > 1 && k.slice_nodes < static_cast<std::int64_t>(s.job_nodes.size())) {
            level += " (" + std::to_string(k.slice_nodes) + " consecutive nodes per group)";
        }
        o << "#   " << k.kind << std::string(k.kind.size() < 8 ? 8 - k.kind.size() : 1, ' ') << (k.required ? "required " : "preferred")
          << "  " << level << ": " << k.why << "\n";
    }
    o << "# The job spans " << where_text(s.job_span) << " (" << s.leaf_groups_used << " leaf group(s), " << s.pods_used
      << " pod(s)).\n# ";
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

std::string sbatch_advice(const SchedulerLevels& s, bool has_blocks) {
    std::ostringstream o;
    o << "# sbatch advice for this job:\n#   #SBATCH --nodes=" << s.job_nodes.size() << "\n";
    if (s.job_span != SchedLevel::Node) {
        o << "#   #SBATCH --switches=" << s.leaf_groups_used << "@HH:MM:SS   # at most " << s.leaf_groups_used
          << " leaf switch(es), as planned; the wait is yours to choose\n#   (without @time, slurm.conf's max_switch_wait applies; "
          << (s.job_required ? "required: do not relax it" : "preferred: a longer wait is optional") << ")\n";
    }
    const bool segment = s.required == SchedLevel::Leaf;
    if (has_blocks && segment) {
        const std::int64_t seg = s.job_required ? static_cast<std::int64_t>(s.job_nodes.size()) : s.slice_nodes;
        o << "#   #SBATCH --segment=" << seg << "   # topology/block: each " << seg
          << " node(s) inside one block, as the required kinds need\n";
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

std::string slurm_hostlist(const std::vector<std::string>& hosts) {
    struct Run {
        std::string prefix;
        std::size_t width = 0;  // digits, 0: no number
        std::vector<std::pair<long long, long long>> ranges;
    };
    std::vector<Run> runs;
    for (const auto& h : hosts) {
        std::size_t i = h.size();
        while (i > 0 && std::isdigit(static_cast<unsigned char>(h[i - 1])) != 0) {
            --i;
        }
        const std::size_t digits = h.size() - i;
        if (digits == 0 || digits > 18) {
            runs.push_back({h, 0, {}});
            continue;
        }
        const std::string prefix = h.substr(0, i);
        const long long v = std::stoll(h.substr(i));
        // Zero-padded numbers keep their width; unpadded ones are of any width.
        const std::size_t width = h[i] == '0' && digits > 1 ? digits : 0;
        // A padded run takes unpadded numbers of its width too ("gpu09", "gpu10").
        const bool joins = !runs.empty() && runs.back().prefix == prefix && !runs.back().ranges.empty() &&
                           (runs.back().width == width || (width == 0 && digits == runs.back().width));
        if (joins && runs.back().ranges.back().second + 1 == v) {
            runs.back().ranges.back().second = v;
        } else if (joins) {
            runs.back().ranges.emplace_back(v, v);
        } else {
            runs.push_back({prefix, width, {{v, v}}});
        }
    }
    auto num = [](long long v, std::size_t width) {
        std::string s = std::to_string(v);
        return s.size() < width ? std::string(width - s.size(), '0') + s : s;
    };
    std::string out;
    for (const auto& run : runs) {
        out += out.empty() ? "" : ",";
        if (run.ranges.empty()) {
            out += run.prefix;
            continue;
        }
        if (run.ranges.size() == 1 && run.ranges[0].first == run.ranges[0].second) {
            out += run.prefix + num(run.ranges[0].first, run.width);
            continue;
        }
        out += run.prefix + "[";
        for (std::size_t i = 0; i < run.ranges.size(); ++i) {
            const auto [a, b] = run.ranges[i];
            out += (i ? "," : "") + num(a, run.width) + (a == b ? "" : "-" + num(b, run.width));
        }
        out += "]";
    }
    return out;
}

std::string slurm_topology_conf(const Report& r) {
    const SchedulerLevels s = scheduler_levels(r.cluster, r.placement, r.groups);
    const Tree t = tree_of(r.cluster);
    std::ostringstream o;
    o << comment_block(r, s, "topology.conf (TopologyPlugin=topology/tree)") << sbatch_advice(s, has_blocks(r.cluster));
    for (const auto& [name, hosts] : t.leaves) {
        o << "SwitchName=" << conf_switch(name) << " Nodes=" << conf_hosts(hosts) << "\n";
    }
    if (!t.railless.empty()) {
        o << "SwitchName=tcp Nodes=" << conf_hosts(t.railless) << "   # nodes without a rail NIC\n";
    }
    if (t.leaves.size() > 1) {
        for (const auto& [name, leaves] : t.pods) {
            o << "SwitchName=" << conf_switch(name) << " Switches=" << conf_switches(leaves) << "\n";
        }
    }
    std::vector<std::string> top = t.leaves.size() > 1 ? names_of(t.pods) : names_of(t.leaves);
    if (!t.railless.empty()) {
        top.emplace_back("tcp");
    }
    if (top.size() > 1 && (t.pods.size() > 1 || !t.railless.empty())) {
        o << "SwitchName=" << conf_switch(r.cluster.core()) << " Switches=" << conf_switches(top) << "\n";
    }
    if (has_blocks(r.cluster)) {
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
    const Tree t = tree_of(r.cluster);
    std::ostringstream o;
    o << comment_block(r, s, "topology.yaml (Slurm 25.05+)") << sbatch_advice(s, has_blocks(r.cluster));
    o << "- topology: \"tree\"\n  cluster_default: true\n  tree:\n    switches:\n";
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
    if (has_blocks(r.cluster)) {
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
    const Tree t = tree_of(r.cluster);
    // Labels the nodes already carry when the cluster came from their own labels (import k8s-nodes).
    const bool own = r.cluster.node_labels.size() == 2;
    const std::string tier0 = own ? r.cluster.node_labels[0] : kTier0Label;
    const std::string tier1 = own ? r.cluster.node_labels[1] : kTier1Label;
    auto label = [&](SchedLevel l) {
        return l == SchedLevel::Node ? std::string(kHostLabel) : l == SchedLevel::Leaf ? tier0 : tier1;
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
    for (std::size_t l = 0; l < t.leaves.size(); ++l) {
        o << "#   " << printable(tier0) << "=" << printable(t.leaves[l].first) << ", " << printable(tier1) << "="
          << printable(t.pods[static_cast<std::size_t>(d.pod_of_leaf_group[l])].first)
          << ": " << printable(slurm_hostlist(t.leaves[l].second)) << "\n";
    }
    if (!t.railless.empty()) {
        o << "#   (no rail NIC, leave unlabelled: " << printable(slurm_hostlist(t.railless)) << ")\n";
    }
    o << "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata:\n  name: " << q(kKueueTopologyName)
      << "\nspec:\n  levels:\n    - nodeLabel: " << q(tier1) << "\n    - nodeLabel: " << q(tier0)
      << "\n    - nodeLabel: " << q(kHostLabel) << "\n";
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
    const Tree t = tree_of(r.cluster);
    std::ostringstream o;
    o << comment_block(r, s, "Volcano HyperNodes and networkTopology");
    auto hypernode = [&](const std::string& name, int tier, const char* type, const std::vector<std::string>& members) {
        o << "---\napiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata:\n  name: " << q(name)
          << "\nspec:\n  tier: " << tier << "\n  members:\n";
        for (const auto& m : members) {
            o << "    - type: " << type << "\n      selector:\n        exactMatch:\n          name: " << q(m) << "\n";
        }
    };
    for (const auto& [name, hosts] : t.leaves) {
        hypernode(name, 1, "Node", hosts);
    }
    if (!t.railless.empty()) {
        hypernode("tcp", 1, "Node", t.railless);  // nodes without a rail NIC: their own group
    }
    for (const auto& [name, leaves] : t.pods) {
        hypernode(name, 2, "HyperNode", leaves);
    }
    if (t.pods.size() > 1) {
        hypernode(r.cluster.core(), 3, "HyperNode", names_of(t.pods));
    }
    const auto tier_of = [](SchedLevel l) { return l == SchedLevel::Cluster ? 3 : l == SchedLevel::Spine ? 2 : 1; };
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
