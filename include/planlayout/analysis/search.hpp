// Search: every valid (tp, pp, cp, ep, etp, dp, order) for a cluster and a model, evaluated with
// the structure and cost model and ranked by predicted step time (or RDMA benefit).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/model/memory.hpp"
#include "planlayout/model/step_model.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// How search ranks layouts: by one transport's predicted step time (fastest first), or by the
/// RDMA benefit (most sensitive to the transport first).
enum class SearchSort { Baseline, Candidate, Benefit };

struct SearchOptions {
    std::int64_t world = 0;         // 0: every GPU of the cluster
    int max_tp = 8;
    int max_cp = 8;
    std::vector<int> ep;            // only these ep sizes (empty: every divisor of the experts)
    std::vector<int> vpp{1};        // virtual pipeline sizes tried with pp > 1 (Megatron's rule: they
                                    // divide the layers per stage, pp divides the layers); more sizes
                                    // multiply the candidates with pp > 1 (docs/performance.md)
    std::vector<std::string> orders{"tp-cp-ep-dp-pp", "tp-cp-ep-pp-dp"};
    bool even_pp = false;           // true: pp must divide the layers; false: stages may differ by one layer
    MemoryLimits memory_limits;     // GPU memory (default: the node templates') and headroom
    SearchSort sort = SearchSort::Candidate;
    /// Whose groups the candidates get: "megatron" (every etp and order asked), "torchtitan"
    /// (etp 1, its fixed order, dp_shard the rest), "deepspeed" (etp as its MoE layer picks:
    /// tp; no cp; its fixed order).
    std::string framework = "megatron";
    std::function<void(std::int64_t, std::int64_t)> progress;  // (done, total) now and then
    /// The best layouts kept in SearchResult::layouts (0: every evaluated one): a bounded heap
    /// while the candidates are evaluated, the rest only counted (SearchResult::evaluated), so
    /// memory does not grow with the candidates. `search --top N` keeps N.
    std::size_t keep = 0;
};

/// The model side of a search: the layout's model/training/transport sections.
struct SearchModel {
    ModelSpec model;
    TrainingSpec training;
    TransportSpec transport;
    std::vector<Calibration> calibrations;  // the files transport.calibrations names, read
    std::vector<GpuSpec> gpus;              // the GPU specs known (layouts/gpus), read by the caller
};

/// One heavy kind of one layout: how far its worst group reaches.
struct KindReach {
    std::string kind;                // ep, dp, tp, pp, cp (dp_cp stands in for dp when cp > 1)
    std::int64_t size = 1;
    int max_nodes = 1;
    PathClass worst = PathClass::Loc;
};

struct SearchLayout {
    ParallelSizes sizes;
    std::string order;
    MemoryEstimate memory;
    Score score;
    std::vector<KindReach> kinds;    // ep, dp, tp, pp, cp

    /// "tp1-pp2-cp1-ep8-etp1-dp8 tp-cp-ep-dp-pp" ("-vp4" after pp when vpp > 1): a stable name, also
    /// the last tie-break.
    [[nodiscard]] std::string name() const;
};

struct SearchResult {
    std::int64_t world = 0;
    std::string framework = "megatron";  // whose groups the candidates got (SearchOptions::framework)
    std::int64_t candidates = 0;     // size combinations whose product divides the world
    std::int64_t rejected = 0;       // failed a model or Megatron constraint
    std::int64_t pruned_memory = 0;  // valid but over the memory budget
    std::int64_t evaluated = 0;
    std::map<std::string, std::int64_t> reasons;  // reason → count, rejections and memory
    double smallest_pruned_bytes = 0;             // least memory any pruned layout needed
    MemoryBudget budget;                          // what memory prunes with (nothing when unknown)
    std::vector<SearchLayout> layouts;            // the best SearchOptions::keep evaluated, in rank order
};

/// Why search's #1 beats a layout the user names (`search --explain`): the named layout's rank and
/// each part of the ranked arm's step, named minus #1, largest first.
struct ExplainPart {
    std::string what;  // "compute", "pipeline bubble", "ep exposed communication", ...
    double named_s = 0;
    double best_s = 0;
};

struct SearchExplanation {
    std::string named;             // its name (SearchLayout::name)
    std::int64_t rank = 0;         // 1-based among the evaluated; 0: not ranked (see `why`)
    std::string why;               // not ranked: the rejection or the memory it needs
    int arm = 1;                   // the step compared: 0 baseline, 1 candidate
    double named_step_s = 0;
    double best_step_s = 0;
    double named_memory_gib = 0;
    double best_memory_gib = 0;
    std::vector<ExplainPart> parts;  // by |named − best|, largest first
};

/// Sizes as search names them: "tp4-pp8-vp5-cp1-ep1-etp4-dp2" (any order of the parts, '-' or ','
/// between them; parts left out: cp, ep, vpp 1, etp = tp, dp the rest) and an optional order after a
/// space. Throws Error naming `where` on anything else.
struct NamedLayout {
    ParallelSizes sizes;
    std::optional<std::string> order;
    bool etp_given = false;
    bool dp_given = false;
};
[[nodiscard]] NamedLayout parse_layout_name(const std::string& text, const std::string& where);

/// The explanation of `named` against the result's #1 (ranked by `sort`); `named` evaluated apart
/// when the search did not rank it (`why` says why).
[[nodiscard]] SearchExplanation explain_layout(const SearchResult& result, const SearchLayout& named, SearchSort sort,
                                               std::int64_t rank, const std::string& why);

/// Enumerates, validates (resolve_spec and the model's constraints), prunes by memory (the budget
/// analyze uses, over the nodes a node-major placement of the world fills), evaluates and keeps
/// the best options.keep in rank order. Throws Error when the cluster has no GPUs, the world
/// exceeds them, or the candidates are over kMaxSearchCandidates (counted before any is evaluated).
[[nodiscard]] SearchResult search_layouts(const Cluster& cluster, const SearchModel& model,
                                          const SearchOptions& options);

/// The sampled evaluation of one layout (what search does per candidate), for tests, compare and
/// `search --explain`: its groups and memory as `framework` ("megatron", "torchtitan",
/// "deepspeed") builds and allocates them. Throws Error when that framework cannot build the sizes.
[[nodiscard]] SearchLayout evaluate_layout(const Cluster& cluster, const SearchModel& model,
                                           const ParallelSizes& sizes, const std::string& order,
                                           const std::string& framework = "megatron");

}  // namespace planlayout
