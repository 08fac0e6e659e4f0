// Ingest: `nvidia-smi topo -m` matrices → NodeTemplate.
#pragma once

#include <string>

#include "planlayout/topology/node_template.hpp"

namespace planlayout {

/// Parses the text of `nvidia-smi topo -m` (tab-separated, space-aligned or with glued cells,
/// ANSI escapes, legacy mlx5_k headers, NIC Legend). Every matrix cell becomes a DevicePath;
/// asymmetric cells are kept as printed (the row's value) and reported in warnings.
/// `where` names the input in messages. Throws Error (BadInput) naming where:line.
[[nodiscard]] NodeTemplate read_nvidia_smi_topo(const std::string& input, const std::string& where);

}  // namespace planlayout
