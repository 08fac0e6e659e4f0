// Parallel spec: the sizes and rank order of a Megatron-style job, validated as Megatron-Core does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "planlayout/limits.hpp"  // kMaxWorld (Megatron ranks are 32-bit)

namespace planlayout {

/// What the user asked for. Optional sizes are derived when absent (etp = tp, dp = W/(tp·pp·cp·gtp)).
struct ParallelSpec {
    std::int64_t world = 0;  // total ranks (nodes × GPUs per node)
    std::int64_t tp = 1;
    std::int64_t pp = 1;
    std::int64_t cp = 1;
    std::int64_t ep = 1;
    std::optional<std::int64_t> etp;               // expert tensor parallel; defaults to tp
    std::optional<std::int64_t> dp;                // if given it must agree with the derived one
    std::optional<std::int64_t> vpp;               // virtual pipeline stages (no effect on groups)
    std::optional<std::int64_t> local_world_size;  // grid size; defaults to world
    std::string order = "tp-cp-ep-dp-pp";
    std::int64_t rank_offset = 0;
    std::int64_t dist_opt_instances = 1;           // --num-distributed-optimizer-instances
    std::vector<std::int64_t> hierarchical_cp;     // --hierarchical-context-parallel-sizes
    bool hybrid_cp = false;
    std::int64_t gtp = 1;   // GTP weight-remat size (dense)
    std::int64_t egtp = 1;  // GTP weight-remat size (expert)
};

/// Where the spec came from, so errors name the flag ("--tp 3") or the JSON place
/// ("x.json (/parallel/tp)").
struct SpecSource {
    std::string file;                   // empty: command-line flags
    std::string pointer = "/parallel";  // JSON pointer of the spec object in file
};

/// One axis of a rank generator, most local first: rank = Σ coord·stride (+ offset).
struct Axis {
    std::string name;  // "tp", "cp", "ep", "dp", "pp", "gtp_remat"
    std::int64_t size = 1;
    std::int64_t stride = 1;
};

/// The validated spec: every size resolved, both generators' axes laid out.
struct ResolvedSpec {
    std::int64_t world = 0;        // total ranks
    std::int64_t grid_world = 0;   // W = local_world_size or world
    std::int64_t rank_offset = 0;
    std::int64_t tp = 1, pp = 1, cp = 1, ep = 1, etp = 1, dp = 1, expert_dp = 1;
    std::int64_t gtp = 1, egtp = 1, dist_opt_instances = 1;
    std::optional<std::int64_t> vpp;
    std::vector<std::int64_t> hierarchical_cp;
    bool hybrid_cp = false;
    std::string order;         // as given, lower-cased
    std::vector<Axis> dense;   // dense generator (tp, cp, dp, pp, gtp_remat; ep size 1)
    std::vector<Axis> expert;  // expert generator (etp as tp, ep, expert_dp as dp, pp, cp size 1)
};

/// Validates spec by docs/commands/groups.md. Throws Error (BadInput) naming the flag(s) or JSON pointer,
/// showing the arithmetic and offering a fix.
[[nodiscard]] ResolvedSpec resolve_spec(const ParallelSpec& spec, const SpecSource& source = {});

/// The sizes in words, "tp1 pp2 cp1 ep8 etp1 dp8" (no order), for reports and calibration files.
[[nodiscard]] std::string sizes_text(const ResolvedSpec& s);

/// The sizes that shape the job, "tp8 pp2 ep8 dp2": tp, pp and dp always, cp, ep and etp when
/// above 1 (diagram titles).
[[nodiscard]] std::string compact_sizes_text(const ResolvedSpec& s);

/// The resolved spec as JSON (sizes, orders, world) for reports.
[[nodiscard]] nlohmann::json to_json(const ResolvedSpec& s);

/// Dense and expert order strings after GTP injection, e.g. "tp-gtp_remat-cp-ep-dp-pp".
[[nodiscard]] std::string axes_order(const std::vector<Axis>& axes);

}  // namespace planlayout
