// Emit: what the groups view's two drawings share (private to emit/): group colours, class
// counts, and the full drawing's input (diagram_groups_grid.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "diagram_canvas.hpp"
#include "planlayout/analysis/pair_traffic.hpp"

namespace planlayout::diagram {

struct GroupColour {
    std::string fill;
    std::string style;
};

/// Group g's fill and node style: the palette cycled, its style changing every round; g < 0: idle.
[[nodiscard]] GroupColour group_colour(const DiagramStyle& st, std::int64_t g);

/// The worst class with a count, Loc when none.
[[nodiscard]] PathClass worst_of(const ClassCounts& counts);

[[nodiscard]] std::int64_t count_of(const ClassCounts& counts);

/// A kind's groups and used pairs, counted: by GPU when drawn in full, by unit when aggregated.
struct KindPairs {
    std::vector<std::int64_t> group_of;  // rank → its group, -1: none
    ClassCounts totals{};
    std::map<std::pair<std::int64_t, std::int64_t>, ClassCounts> unit_pairs;  // (ua, ub), ua < ub
    std::map<std::int64_t, ClassCounts> inside_unit;
    std::map<std::int64_t, std::set<std::int64_t>> unit_groups;
    std::vector<std::tuple<std::int64_t, std::int64_t, PathClass>> gpu_pairs;  // full view only
};

/// Every group of the kind and the pairs its collective uses, classified.
[[nodiscard]] KindPairs kind_pairs(const GroupKind& kind, const PairClassifier& classifier, const Placement& pl,
                                   const Units& units);

/// The legend's first notes on the kind: its groups and collective, the used and cross-node
/// pairs, and one cross-node pair's bytes per step when the score has them.
[[nodiscard]] std::vector<std::string> kind_notes(const Report& report, const GroupKind& kind, const ClassCounts& totals);

/// The aggregated groups view drawn with our SVG writer: one box per unit in a grid (in cluster
/// order, one row per pod where the units divide evenly), the lines between units that talk,
/// each group's span as a band under the grid, and a compact legend; within 2,000 x 2,000 px.
[[nodiscard]] std::string groups_units_svg(const Report& report, const DiagramOptions& options,
                                           const DiagramStyle& style, const Units& units);

/// One kind, ready to draw in full.
struct GroupsGrid {
    std::vector<std::int64_t> group_of;                                    // rank → group, -1: none
    std::vector<std::tuple<std::int64_t, std::int64_t, PathClass>> pairs;  // used pairs, classified
    std::optional<PairLoad> load;                                          // per pair, from the score
    std::string arms[2];                                                   // the score's transports
    bool single_arm = false;
    std::int64_t cross = 0;                                                // cross-node pairs
};

/// Draws every node and GPU with the pairs; adds its notes to the legend's.
void groups_grid(Canvas& c, const Report& report, const GroupsGrid& grid, std::vector<std::string>& notes);

}  // namespace planlayout::diagram
