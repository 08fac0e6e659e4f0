// Groups: every communication group kind Megatron-Core creates, as mixed-radix arithmetic.
// A kind's groups are never stored: member(g, k) and find(rank) compute them in O(axes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/parallel/parallel_spec.hpp"

namespace planlayout {

/// The masked mixed-radix enumeration of one generator token (docs/commands/groups.md).
struct Grid {
    std::vector<Axis> masked;    // member order: first (most local) axis fastest
    std::vector<Axis> unmasked;  // group order: first axis fastest
    std::int64_t offset = 0;     // rank_offset

    [[nodiscard]] std::int64_t group_count() const;
    [[nodiscard]] std::int64_t group_size() const;
    [[nodiscard]] std::int64_t member(std::int64_t group, std::int64_t k) const;
    /// (group, position) of a rank of the grid.
    [[nodiscard]] std::pair<std::int64_t, std::int64_t> locate(std::int64_t rank) const;
};

/// How a kind derives from its base grid.
enum class KindDerivation {
    Grid,    // the grid's groups as they are
    Split,   // each base group cut into sub-groups: position p = b·(u·h) + o + m·u
    Select,  // chosen positions of each base group (embedding groups)
    Concat,  // runs of `concat` consecutive base groups joined (intra_dist_opt_instance)
};

/// Which collective pattern a kind's traffic uses.
enum class Pattern { Ring, AllToAll, PipelineP2p, Embedding };

struct GroupKind {
    std::string name;        // "dp_cp" (docs/commands/groups.md "kind" column)
    std::string group_desc;  // "DATA_PARALLEL_GROUP_WITH_CP"
    std::string generator;   // "dense" or "expert" (other frameworks: the mesh or topology it comes from)
    /// The Megatron kind whose traffic this kind carries (model/traffic names: tp, cp, pp, dp,
    /// dp_cp, ep, expt_tp, expt_dp, embd), or a framework role the cost model maps itself
    /// ("fsdp": ZeRO-3 shard group, "dp_replicate": HSDP replica all-reduce, "efsdp": expert shard
    /// group); empty when the kind carries no modelled traffic. Megatron kinds: their own name.
    std::string role;
    std::string token;       // generator token, e.g. "dp-cp"
    KindDerivation derivation = KindDerivation::Grid;
    Pattern pattern = Pattern::Ring;
    Grid base;
    std::int64_t split_stride = 1;  // u
    std::int64_t split_size = 1;    // h
    std::vector<std::int64_t> select;  // positions for Select
    std::int64_t concat = 1;

    [[nodiscard]] std::int64_t group_count() const;
    [[nodiscard]] std::int64_t group_size() const;
    /// Rank at position k of group g.
    [[nodiscard]] std::int64_t member(std::int64_t g, std::int64_t k) const;
    /// The group of a rank and its position, or nullopt when the rank is in no group of the kind
    /// (embedding groups skip middle stages; ranks outside [offset, offset+W)).
    [[nodiscard]] std::optional<std::pair<std::int64_t, std::int64_t>> find(std::int64_t rank) const;
    [[nodiscard]] std::vector<std::int64_t> group(std::int64_t g) const;
};

struct Groups {
    /// Megatron's sizes for the job (for another framework: the equivalent Megatron sizes the
    /// traffic and compute model use).
    ResolvedSpec spec;
    std::string framework = "megatron";  // "megatron", "torchtitan", "torchtitan:2025", "deepspeed", "mesh"
    std::string framework_degrees;        // another framework's degrees in its words, "dp_replicate=1 dp_shard=4 ..."
    std::vector<GroupKind> kinds;  // Megatron's creation order

    /// The kind by name, or nullptr.
    [[nodiscard]] const GroupKind* find(const std::string& name) const;
    /// The first kind carrying `role` (GroupKind::role), or nullptr.
    [[nodiscard]] const GroupKind* find_role(const std::string& role) const;
};

/// Every kind the spec creates (docs/commands/groups.md), in creation order.
[[nodiscard]] Groups build_groups(const ResolvedSpec& spec);

/// Names of every kind plan-layout knows, for messages ("--kinds" validation).
[[nodiscard]] std::vector<std::string> all_kind_names(const Groups& groups);

}  // namespace planlayout
