// The DeviceMesh spec as the command line writes it: "pp=2,dp=4,tp=2" and --flatten "dp,cp[:name]".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planlayout/parallel/framework.hpp"

namespace planlayout {

/// Parses `text` ("pp=2,dp=4,tp=2": name=size, outermost first, as init_device_mesh takes
/// them) and each `flatten` entry ("dp,cp" or "dp,cp:name"; default name: the dims joined by
/// '_'). Pure: checks the syntax and that sizes are whole numbers >= 1; build_mesh_groups checks
/// the rest (product = world, flatten dims known and in mesh order, names unique). Errors name
/// `where` (the flag).
[[nodiscard]] MeshSpec parse_mesh_spec(const std::string& text, const std::vector<std::string>& flatten,
                                       std::int64_t world, const std::string& where);

}  // namespace planlayout
