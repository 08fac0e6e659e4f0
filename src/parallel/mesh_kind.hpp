// DeviceMesh arithmetic shared by the torchtitan and DeviceMesh builders (internal header):
// a row-major mesh over ranks 0..W-1 (last dim most local) and the groups of one dim or of a
// flattened run of dims, as a Grid (parallel/groups.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planlayout/parallel/framework.hpp"
#include "planlayout/parallel/groups.hpp"

namespace planlayout::detail {

/// The groups of `picked` (indices into `dims`, in mesh order) of the row-major mesh `dims`
/// (outermost first): members vary over the picked dims, row-major (the last picked dim fastest),
/// the other dims fixed. Pattern from `role` (ep: AllToAll, pp: PipelineP2p, else Ring).
[[nodiscard]] GroupKind mesh_kind(const std::vector<MeshDim>& dims, const std::vector<std::size_t>& picked,
                                  std::string name, std::string role, std::string generator, std::string desc);

}  // namespace planlayout::detail
