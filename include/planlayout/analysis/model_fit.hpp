// Analysis: Megatron-LM's checks between the model and the parallel sizes
// (megatron/training/arguments.py validate_args): what would stop the job before its first step.
#pragma once

#include <string>
#include <vector>

#include "planlayout/model/model_spec.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

namespace planlayout {

/// Throws Error (BadInput) naming `file (/model/KEY)` when tp does not divide the attention heads
/// or the query groups, or ep the routed experts; appends a warning when pp does not divide the
/// layers (Megatron-LM then needs --decoder-first/last-pipeline-num-layers).
void check_model_fits(const ModelSpec& model, const ResolvedSpec& spec, const std::string& file,
                      std::vector<std::string>& warnings);

}  // namespace planlayout
