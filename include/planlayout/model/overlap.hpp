// Overlap: the compute windows that hide each collective, as they happen (docs/cost-model.md §6).
//
// Pure functions over values. The time of one call at a given size comes from the caller
// (CallTime), so the cost model, and calibration over size, plug in unchanged.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "planlayout/model/model_spec.hpp"
#include "planlayout/model/traffic.hpp"

namespace planlayout {

/// The time of one call of a collective at a size in bytes (nccl-tests size), in seconds.
using CallTime = std::function<double(double bytes)>;

/// The compute one rank does per stable step, and its pipeline position; what windows are cut from.
struct OverlapCompute {
    double comp_s = 0;  // compute per GPU per step (every micro-batch, forward and backward)
    double fwd_s = 0;   // its forward part
    double bwd_s = 0;   // its backward part
    double micro = 1;   // m: micro-batches per pipeline per step
    int vpp = 1;        // virtual stages per rank
    int dp = 1;         // data-parallel size (Megatron's default bucket grows with it)
    int tp = 1;         // tensor-parallel size (the chunks of an overlapped TP collective)
};

/// Bucketing of one data-parallel collective: the bucket size it used and where it came from.
struct BucketSetting {
    double params = 0;       // parameters per bucket; 0 = one bucket (no overlap: Megatron's bucket_size None)
    std::string source;      // "given", "Megatron default max(4e7, 1e6·dp)", ...
};

/// What one window did to one collective item (per rank per step).
struct WindowResult {
    std::string window;      // in words: "last micro-batch's backward", "none", ...
    double time_s = 0;       // every call's time, summed
    double exposed_s = 0;    // not hidden by compute
    double calls = 0;        // calls per step (buckets for a bucketed item)
    double call_bytes = 0;   // the size of its largest call
    double window_s = 0;     // the compute the window offers, per step
    double tail_s = 0;       // bucketed reduce: end of the last bucket − end of the backward; gather: the stall
    std::string bucket_source;  // data-parallel items: where the bucket size came from
};

/// The bucket size a data-parallel item uses, from the training flags: overlap.bucket_params,
/// else overlap.bucket_bytes / element width, else Megatron's default; one bucket when the
/// item's overlap switch is off.
[[nodiscard]] BucketSetting bucket_setting(const TrainingSpec& t, int dp, double element_bytes, bool overlapped);

/// Bucket sizes in bytes, in the order their collectives run: full buckets, then the remainder
/// (reverse layer order for gradients: the remainder holds the first layers).
[[nodiscard]] std::vector<double> bucket_sizes(double total_bytes, double bucket_bytes);

/// Gradient reduce of buckets that become ready as a backward of length backward_s proceeds
/// (uniform over the bytes), sent one after another on one stream. exposed = end of the last
/// bucket − end of the backward; the last bucket is never hidden.
[[nodiscard]] WindowResult bucketed_reduce(const std::vector<double>& sizes, double backward_s, const CallTime& call);

/// Parameter all-gather prefetched one bucket ahead (Megatron's overlap_param_gather): bucket i's
/// compute waits for its gather; the gather of i+1 starts when bucket i's compute starts. The first
/// gather is exposed; each later one is hidden up to the compute of the bucket before it.
[[nodiscard]] WindowResult prefetched_gather(const std::vector<double>& sizes, double compute_s, const CallTime& call);

/// The window of one traffic item and its exposed time (docs/cost-model.md §6):
/// - grad reduce (Backward, reduce): bucketed under the last micro-batch's backward on this stage
///   (stage 0, which ends last);
/// - param gathers (Forward, or Backward with an all-gather): prefetched under the first (last)
///   micro-batch's forward (backward); all exposed without overlap.param_gather;
/// - pp send/recv: fill and drain calls exposed, steady-state calls each under one forward or
///   backward of the other micro-batch, T_comp / (2·m·v);
/// - ep and cp (PerLayer): each call under T_comp / calls when overlapped;
/// - None: exposed.
[[nodiscard]] WindowResult item_window(const TrafficItem& item, const ModelSpec& model, const TrainingSpec& t,
                                       const OverlapCompute& c, const CallTime& call);

}  // namespace planlayout
