// Topology: the measured dense bf16 GEMM sweep of a kernel table (its `gemm` section) as a grid the
// compute model reads per GEMM (docs/cost-model.md, "Compute: GEMMs"). Built once, when the table
// is read; a lookup allocates nothing. Pure values, no I/O.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace planlayout {

/// A GEMM's dimensions, as indices.
enum GemmDim : std::size_t { GemmM, GemmN, GemmK, GemmDims };

/// One measured GEMM shape, M×K by K×N: efficiency = achieved TFLOPS / the table's dense bf16 peak.
struct GemmPoint {
    double m = 0;
    double n = 0;
    double k = 0;
    double eff = 0;
};

/// The measured GEMMs of one GPU, and the grid built from them: one node per combination of the
/// measured M, N and K values, a measured shape's node its efficiency, every other node the
/// inverse-distance mean of the numbers::kGemmTableNeighbours nearest measured shapes in
/// (log2 M, log2 N, log2 K). A lookup is trilinear in log2 over the grid, each dimension clamped to
/// its measured range.
class GemmTable {
  public:
    GemmTable() = default;
    /// `points` by (m, n, k) ascending, no shape twice, every value positive (the reader checks).
    GemmTable(std::vector<GemmPoint> points, std::string source, std::string measured_on);

    [[nodiscard]] bool empty() const { return points_.empty(); }
    [[nodiscard]] const std::vector<GemmPoint>& points() const { return points_; }
    [[nodiscard]] const std::string& source() const { return source_; }
    /// The GPU the shapes were timed on (another than the table's own when carried).
    [[nodiscard]] const std::string& measured_on() const { return measured_on_; }
    /// The efficiency of an M×K by K×N product; nullopt without points or for a non-positive size.
    [[nodiscard]] std::optional<double> efficiency(double m, double n, double k) const;

  private:
    std::vector<GemmPoint> points_;
    std::string source_;
    std::string measured_on_;
    std::array<std::vector<double>, GemmDims> axes_;  // log2 of the measured M, N, K values, ascending
    std::vector<double> grid_;                 // node (i, j, l) at (i * |N| + j) * |K| + l
};

}  // namespace planlayout
