// Emit: the analysis report as terminal text and as versioned JSON.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/report.hpp"

namespace planlayout {

struct ReportOptions {
    bool ranks = false;  // list every rank's node, GPU and NIC
};

/// Per kind: groups × size, max nodes spanned, pairs per class, worst class, bottleneck; then the
/// cross-node summary, the score, memory per GPU and warnings; then the ranks on request.
/// Deterministic. Written into `stream` as it is made (the ranks, one line each, never held whole).
void write_report_text(std::ostream& stream, const Report& report, const ReportOptions& options);

/// The same text as one string.
[[nodiscard]] std::string report_text(const Report& report, const ReportOptions& options);

/// {"schema_version":1,"cluster":{...},"spec":{...},"kinds":{...},"warnings":[...],
///  "score":{...},"memory":{...},"placement":[{"rank","node","gpu","nic","nic_class"}, ...]},
/// written into `out` as it is made: the placement, one entry per rank, is never held whole.
void write_report_json(std::ostream& out, const Report& report);

/// The same JSON as one string (for tests and small reports).
[[nodiscard]] std::string report_json(const Report& report);

/// What the plan used that no input gave, as the report's "assumed" block groups it: per label
/// ("derived parallel", "default model", "node h100-hgx-8gpu-8nic", "compute") its "key value"
/// items (a prior reads "key 0.9 (0.8..0.95)"); then each input file and how many values it gave.
struct AssumedValues {
    std::vector<std::pair<std::string, std::vector<std::string>>> labels;
    std::vector<std::pair<std::string, std::size_t>> given;
};
[[nodiscard]] AssumedValues assumed_values(const std::vector<Assumption>& assumptions);

/// The report's first lines on what its verdict assumes: the transport priors of the two arms
/// compared that no input gave ("assumed: the verdict rests on ... tcp/efficiency 0.4 (0.2..0.6),
/// ..."), each line before 100 columns; empty without a score or when every prior was given.
[[nodiscard]] std::string verdict_assumed_text(const Report& report);

/// The "memory per GPU" block of the text report: each term, the total against the budget.
[[nodiscard]] std::string memory_text(const MemoryReport& m);

/// {"params","grads","optimizer","activations","total","gpu_memory","headroom","budget"} in
/// bytes (integers; gpu_memory and budget 0 when unknown), "budget_source", "fits" (null when
/// the budget is unknown).
[[nodiscard]] nlohmann::json to_json(const MemoryReport& m);

/// The cluster summary object used by report_json (nodes, GPUs, templates, rails, fabric).
[[nodiscard]] nlohmann::json cluster_summary_json(const Cluster& cluster);

/// "nvlink domains: 2 of 18 node(s) (MNNVL between the nodes of one domain); SOURCE", empty when
/// the cluster has no multi-node NVLink domains.
[[nodiscard]] std::string nvlink_domains_text(const Cluster& cluster);

/// "RAIL 8, PXN 56" for the non-zero classes of counts (cross-node only when cross_only).
[[nodiscard]] std::string class_counts_text(const ClassCounts& counts, bool cross_only = false);

/// Stable names: "node3/gpu5" and the rank's NIC "node3/mlx5_5" ("" when it has none).
[[nodiscard]] std::string gpu_name(const Report& report, std::int64_t rank);
[[nodiscard]] std::string nic_name(const Report& report, std::int64_t rank);

}  // namespace planlayout
