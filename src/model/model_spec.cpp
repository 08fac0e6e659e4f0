// Model inputs: the model, training and transport values and what derives from them (the
// sections are read from a layout in ingest/layout_model.cpp).
#include "planlayout/model/model_spec.hpp"

#include <algorithm>
#include <array>

namespace planlayout {

namespace {

using namespace std::string_view_literals;

constexpr std::array kTransportNames{"tcp"sv, "rdma"sv, "gdrdma"sv, "p2p"sv, "shm"sv};
constexpr std::array kPrecisionNames{"bf16"sv, "fp16"sv, "fp32"sv};
constexpr std::array kOffloadNames{"none"sv, "cpu"sv, "nvme"sv};
constexpr std::array kShardingNames{"off"sv, "no_shard"sv, "optim"sv, "optim_grads"sv, "optim_grads_params"sv};

}  // namespace

// ---------------------------------------------------------------------------- TrainingSpec

int TrainingSpec::micro_batches(int dp) const {
    const int per = micro_batch * (dp > 0 ? dp : 1);
    return per > 0 ? std::max(1, global_batch / per) : 1;
}

std::string_view to_string(Transport t) { return kTransportNames.at(static_cast<std::size_t>(t)); }
std::string_view to_string(StatePrecision p) { return kPrecisionNames.at(static_cast<std::size_t>(p)); }
std::string_view to_string(Offload o) { return kOffloadNames.at(static_cast<std::size_t>(o)); }
std::string_view to_string(ShardingStrategy s) { return kShardingNames.at(static_cast<std::size_t>(s)); }

int zero_stage_of(ShardingStrategy s) {
    switch (s) {
        case ShardingStrategy::Off:
        case ShardingStrategy::NoShard:
            return 0;
        case ShardingStrategy::Optim:
            return 1;
        case ShardingStrategy::OptimGrads:
            return numbers::kZeroGradsStage.count();
        case ShardingStrategy::OptimGradsParams:
            return numbers::kZeroParamsStage.count();
    }
    return 0;
}

std::optional<Transport> parse_transport(std::string_view s) {
    for (std::size_t i = 0; i < kTransportNames.size(); ++i) {
        if (s == kTransportNames[i]) {
            return static_cast<Transport>(i);
        }
    }
    if (s == "socket" || s == "NET/Socket") {
        return Transport::Tcp;
    }
    if (s == "ib" || s == "roce" || s == "NET/IB") {
        return Transport::Rdma;
    }
    if (s == "gdr" || s == "GDRDMA") {
        return Transport::Gdrdma;
    }
    return std::nullopt;
}

bool is_intra_arm(Transport t) { return t == Transport::P2p || t == Transport::Shm; }

double pick(const Prior& p, PriorEnd end) {
    switch (end) {
        case PriorEnd::Low:
            return p.low;
        case PriorEnd::High:
            return p.high;
        case PriorEnd::Point:
            break;
    }
    return p.value;
}

const TransportParams& TransportSpec::params(Transport t) const {
    switch (t) {
        case Transport::Tcp:
            return tcp_params;
        case Transport::Rdma:
            return rdma_params;
        case Transport::Shm:
            return shm_params;
        case Transport::P2p:
            return network == Transport::P2p ? gdrdma_params : params(network);
        case Transport::Gdrdma:
            break;
    }
    return gdrdma_params;
}

TransportParams& TransportSpec::params(Transport t) {
    return const_cast<TransportParams&>(static_cast<const TransportSpec&>(*this).params(t));
}

}  // namespace planlayout
