// Emit: the RDMA-benefit score as JSON and text.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "planlayout/model/score.hpp"

namespace planlayout {

/// {"rdma_benefit","throughput_gain","step_time_s":{<baseline>,<candidate>},"factors":{...},
///  "given":[...],"band":{"low","high"},"by_kind":{kind:{...}},"reasons":[...],...}
[[nodiscard]] nlohmann::json to_json(const Score& s);

/// A short report: the score, its band, the factors (given vs computed), the dominant reasons
/// and the per-kind table.
[[nodiscard]] std::string render_text(const Score& s);

}  // namespace planlayout
