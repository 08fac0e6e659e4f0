// Score: overlap windows, per-transport step time and the RDMA-benefit score (docs/cost-model.md §6).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/model/compute_model.hpp"
#include "planlayout/model/cost.hpp"
#include "planlayout/model/model_spec.hpp"
#include "planlayout/model/numbers/compute.hpp"
#include "planlayout/model/traffic.hpp"
#include "planlayout/text_format.hpp"  // human_bytes, used with scores

namespace planlayout {


/// A factor per Transport (index = the enumerator), as TransportSpec::anchor_factors.
using TransportFactors = decltype(TransportSpec::anchor_factors);

/// The seed's product form, factor by factor; any of them may be given in the layout's
/// "score" section instead of computed.
struct ScoreFactors {
    std::optional<double> cross_node_share;
    std::optional<double> eliminable;
    std::optional<double> non_overlapped;
};

/// The refusal of a benefit of 1 (factors whose product is 1: a candidate step that takes no
/// time, an unbounded throughput gain), worded once for the score and the "score" section's reader.
[[nodiscard]] Error unbounded_benefit(const std::string& where, double share, double eliminable, double non_overlapped);

/// Everything the score needs. shapes: one PlacedGroup per group kind (the worst group of that
/// kind); a kind with traffic but no shape is left out with a warning. model/training absent:
/// only the given factors count (all three are then required).
struct ScoreInput {
    std::optional<ModelSpec> model;
    std::optional<TrainingSpec> training;
    TransportSpec transport;
    ParallelSizes sizes;
    std::map<std::string, PlacedGroup> placed;
    ScoreFactors given;
    std::optional<GpuChoice> gpu;  // the GPU compute runs on (pipeline: choose_gpu); absent: the default
};

/// One collective item of a kind and the window that hides it (model/overlap.hpp);
/// index 0 = baseline transport, 1 = candidate.
struct WindowDetail {
    std::string what;           // "grad reduce", "param gather", "dispatch+combine", ...
    std::string collective;     // "reduce_scatter", ...
    std::string window;         // in words: "last micro-batch's backward", "none", ...
    std::string bucket_source;  // data-parallel items: where the bucket size came from
    double calls = 0;           // calls per step (buckets for a bucketed item)
    double bytes_per_step = 0;  // nccl-tests sizes × calls, per rank (TrafficItem::bytes_per_step)
    double call_bytes = 0;      // its largest call (a bucket)
    double window_s = 0;        // compute the window offers per step
    double time_s[numbers::kScoreArms.count()] = {0, 0};
    double exposed_s[numbers::kScoreArms.count()] = {0, 0};
};

/// One group kind in the breakdown; index 0 = baseline transport, 1 = candidate.
struct KindBreakdown {
    std::string kind;
    std::string collective;     // "all_to_all", "reduce_scatter+all_gather", ...
    PathClass path_class = PathClass::Loc;  // worst class its collective crosses
    bool cross_node = false;
    bool socket_inside = false; // inside one node, but over sockets in the TCP arm (tcp.inside_node)
    bool shm_inside = false;    // p2p/shm arms: ranks of it share a node, over SHM in the shm arm
    double bytes_per_step = 0;  // nccl-tests sizes × calls, per rank
    double calls = 0;
    double time_s[numbers::kScoreArms.count()] = {0, 0};     // total per step
    double exposed_s[numbers::kScoreArms.count()] = {0, 0};  // not hidden by compute
    double busbw_gbyte_s[numbers::kScoreArms.count()] = {0, 0};  // of one call (the largest of the kind)
    double share = 0;           // exposed_s[0] / baseline step: its part of the step, 0..1
    double hidden_s = 0;        // time_s[0] − exposed_s[0]: hidden under compute, not in the share
    double phi = 0;             // 1 − time_s[1] / time_s[0]
    double u = 0;               // (exposed[0] − exposed[1]) / (time[0] − time[1])
    double contribution = 0;    // its part of the score: (exposed[0] − exposed[1]) / baseline step
    std::vector<WindowDetail> windows;  // its collectives, in traffic order
    std::vector<std::string> fits;  // the calibrated fits its collectives used in either arm
                                    // (CollectiveFit::label()); empty: the priors
};

/// The step on hardware the nodes lack (arms.hpp), against the baseline arm.
struct WhatIf {
    std::string hardware;  // in words: "one 400 Gbit/s RDMA NIC per GPU, rail-aligned, GPUDirect"
    Transport transport = Transport::Gdrdma;
    double step_time_s = 0;
    double rdma_benefit = 0;
};

/// The same layout without its multi-node NVLink domains (every node its own NVLink island, so
/// what was MNNVL goes over the network), on the same arms: what the domains are worth.
struct DomainWhatIf {
    double step_time_s[numbers::kScoreArms.count()] = {0, 0};  // baseline, candidate
};

struct Score {
    Transport baseline = Transport::Tcp;   // the arms compared (arms.hpp: what the hardware allows)
    Transport candidate = Transport::Gdrdma;
    Transport requested_baseline = Transport::Tcp;  // transport.compare, as the layout asks
    Transport requested_candidate = Transport::Gdrdma;
    bool single_arm = false;     // baseline == candidate: one step, no benefit claimed
    bool has_model = false;
    bool anchored = false;        // compute_scale fitted to training.measured_step_time_s
    std::vector<std::string> anchoring;  // what the measured steps anchored, and by how much, in words
    TransportFactors anchor_factors{1.0, 1.0, 1.0, 1.0, 1.0};  // per Transport: the fitted network factors
    bool given_share = false;
    bool given_eliminable = false;
    bool given_non_overlapped = false;
    bool calibrated = false;             // the transport holds calibrated fits (transport.fits)
    std::vector<std::string> arm_notes;  // why the arms differ from those requested, in words
    std::optional<WhatIf> what_if;       // the requested candidate on hardware that allows it
    std::optional<DomainWhatIf> domain_what_if;  // with NVLink domains: the step without them
    double rdma_benefit = 0;     // predicted step-time reduction, (T_base − T_cand) / T_base
    double throughput_gain = 0;  // 1 / (1 − rdma_benefit) − 1
    double step_time_s[numbers::kScoreArms.count()] = {0, 0};
    double compute_s = 0;
    double bubble_s = 0;
    // Compute (compute_model.hpp): the GPU, the breakdown, MFU per arm, the anchoring.
    std::string gpu_name;
    std::string gpu_source;
    GpuSpec gpu;                  // its spec (peaks, bandwidth, datasheet file)
    double gpu_peak_tflops = 0;   // the dense bf16 peak MFU is measured against
    ComputeBreakdown compute;
    double mfu[numbers::kScoreArms.count()] = {0, 0};       // model FLOPs / (step × peak × GPUs), per arm
    double compute_scale = 1;     // training.compute_scale, or fitted to the measured step
    double cross_node_share = 0;     // exposed transport-sensitive time / baseline step, 0..1
    double cross_node_hidden_s = 0;  // their baseline time hidden under compute (not in the share)
    double eliminable = 0;
    double non_overlapped = 0;
    double band_low = 0;
    double band_high = 0;
    std::vector<KindBreakdown> by_kind;  // largest contribution first, then baseline share
    std::vector<std::string> reasons;    // the dominant reasons, in words
    std::vector<std::string> warnings;
};

/// The score. Throws Error when neither a model nor all three factors are given.
[[nodiscard]] Score compute_score(const ScoreInput& in);

}  // namespace planlayout
