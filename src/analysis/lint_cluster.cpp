// Analysis: cluster-level lint (rails, heterogeneity, fabric) on top of the node checks.
#include "planlayout/analysis/lint_cluster.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace planlayout {

std::vector<Finding> lint_cluster(const Cluster& cluster) {
    std::vector<Finding> out;
    for (const auto& t : cluster.templates) {
        for (Finding f : lint_node(t)) {
            f.message = t.name + ": " + f.message;
            out.push_back(std::move(f));
        }
    }
    if (!cluster.homogeneous()) {
        std::string names;
        for (const auto& t : cluster.templates) {
            names += (names.empty() ? "" : ", ") + t.name;
        }
        out.push_back({Severity::Warning, "nodes-heterogeneous",
                       "the cluster mixes " + std::to_string(cluster.templates.size()) + " node templates (" + names +
                           "); a job spanning them runs at the slowest node's pace",
                       "schedule a job onto one kind of node, or check that the slowest node's NICs and GPUs suffice"});
    }
    if (!cluster.wiring.empty()) {
        // Rail-aligned means: within one scalable unit, rail r of every node reaches one leaf, and
        // no leaf serves two rails.
        std::map<std::pair<std::int64_t, int>, std::set<std::int64_t>> leaves_of_rail;
        std::map<std::int64_t, std::set<int>> rails_of_leaf;
        for (std::int64_t n = 0; n < cluster.node_count(); ++n) {
            const auto& f = cluster.facts_of(n);
            for (std::size_t r = 0; r < f.rail_nics.size(); ++r) {
                const std::int64_t leaf = cluster.leaf_of(n, static_cast<int>(r));
                leaves_of_rail[{cluster.su_of(n), static_cast<int>(r)}].insert(leaf);
                rails_of_leaf[leaf].insert(static_cast<int>(r));
            }
        }
        std::string examples;
        int bad = 0;
        for (const auto& [leaf, rails] : rails_of_leaf) {
            if (rails.size() > 1) {
                ++bad;
                if (bad <= 3) {
                    std::string list;
                    for (int r : rails) {
                        list += (list.empty() ? "" : ",") + std::to_string(r);
                    }
                    examples += (examples.empty() ? "" : "; ") + cluster.leaf_name(leaf) + " serves rails " + list;
                }
            }
        }
        for (const auto& [key, leaves] : leaves_of_rail) {
            if (leaves.size() > 1) {
                ++bad;
            }
        }
        if (bad > 0) {
            const bool pxn = cluster.fabric.pxn;
            out.push_back({pxn ? Severity::Warning : Severity::Error, "rails-not-aligned",
                           "the wiring is not rail-aligned (" + (examples.empty() ? std::string("rail NICs of one scalable unit reach different leaves") : examples) +
                               "): same-rail traffic between nodes " + (pxn ? "needs a PXN hop over NVLink" : "crosses the spine"),
                           "cable NIC i of every node to leaf i of its scalable unit" +
                               std::string(pxn ? "" : ", or enable PXN (NCCL_PXN_DISABLE=0)")});
        }
    }
    for (std::size_t i = 0; i < cluster.templates.size(); ++i) {
        const auto& speeds = cluster.facts[i].rail_gbit_s;
        if (std::any_of(speeds.begin(), speeds.end(), [](double v) { return v <= 0; })) {
            out.push_back({Severity::Info, "nic-speed-unknown",
                           cluster.templates[i].name + ": the template does not give its rail NICs' speeds",
                           "add \"speed_gbit_s\" to its NICs (ibstat shows the rate) so the cost model uses it"});
        }
    }
    if (cluster.fabric.oversubscription > 1.0) {
        out.push_back({Severity::Info, "spine-oversubscribed",
                       "leaf uplinks are oversubscribed " + std::to_string(cluster.fabric.oversubscription).substr(0, 4) +
                           ":1; cross-rail and cross-unit traffic shares them",
                       "keep heavy groups (ep, dp) inside a scalable unit, or rail-aligned"});
    }
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
        return std::tie(a.severity, a.code) < std::tie(b.severity, b.code);
    });
    return out;
}

}  // namespace planlayout
