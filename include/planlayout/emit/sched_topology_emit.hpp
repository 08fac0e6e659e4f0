// Emit: the cluster's topology and the job's locality request in each scheduler's own format:
// Slurm topology.conf and topology.yaml (with --switches / --segment advice), Kueue Topology and
// PodSet annotations, Volcano HyperNodes and the job's networkTopology. YAML is written by hand
// (strings double-quoted as JSON writes them, a valid YAML scalar), in a fixed order.
#pragma once

#include <string>
#include <vector>

#include "planlayout/report.hpp"

namespace planlayout {

/// A Slurm hostlist expression in the given order: runs of names with one prefix and
/// consecutive numbers of one width fold into "node[0-7]"; "node0,node2" stays a list.
[[nodiscard]] std::string slurm_hostlist(const std::vector<std::string>& hosts);

/// topology.conf (topology/tree: SwitchName= Nodes= / Switches=), the topology/block lines
/// (BlockName= Nodes=, BlockSizes=) as a commented alternative when the cluster has scalable
/// units, and the job's sbatch advice (--switches, --segment) in the leading comment block.
[[nodiscard]] std::string slurm_topology_conf(const Report& report);

/// topology.yaml (Slurm 25.05+): a tree topology (cluster_default) and, with scalable units,
/// a block topology; the same comment block.
[[nodiscard]] std::string slurm_topology_yaml(const Report& report);

/// Kueue: a Topology (kueue.x-k8s.io/v1beta2; levels: fabric.topograph.run/tier-1, tier-0,
/// kubernetes.io/hostname) and a patch of the job's pod template with the PodSet annotations.
[[nodiscard]] std::string kueue_yaml(const Report& report);

/// Volcano: HyperNodes (topology.volcano.sh/v1alpha1; tier 1 per leaf group with Node members,
/// tier 2 per pod, tier 3 above pods) and a patch of the Volcano Job with its networkTopology.
[[nodiscard]] std::string volcano_yaml(const Report& report);

}  // namespace planlayout
