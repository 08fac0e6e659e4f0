// Emit: what the groups view's two drawings share (private to emit/): group colours, class
// counts, and the full drawing's input (diagram_groups_grid.cpp).
#pragma once

#include <cstdint>
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
