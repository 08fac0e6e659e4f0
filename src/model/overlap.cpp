// Overlap: bucketed gradient reduce, prefetched parameter gathers, pipeline and per-layer windows
// (docs/cost-model.md §6).
#include "planlayout/model/overlap.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "planlayout/model/numbers/network.hpp"


namespace planlayout {
namespace {

// Beyond numbers::kMaxBuckets buckets a collective is split finer than any real bucketing does;
// the remainder is folded into the last bucket so that a tiny bucket setting cannot blow up the loop.

WindowResult all_exposed(const TrafficItem& item, const CallTime& call, std::string window) {
    WindowResult r;
    r.window = std::move(window);
    const double per_call = call(item.size_bytes);
    r.calls = item.calls;
    r.call_bytes = item.size_bytes;
    r.time_s = per_call * item.calls;
    r.exposed_s = r.time_s;
    return r;
}

/// Capacity windows: each hideable call under `window_per_call` of compute, exposed calls in full.
WindowResult per_call_window(const TrafficItem& item, const CallTime& call, double window_per_call,
                             std::string window) {
    WindowResult r;
    r.window = std::move(window);
    const double per_call = call(item.size_bytes);
    const double hideable = std::max(0.0, item.calls - item.exposed_calls);
    r.calls = item.calls;
    r.call_bytes = item.size_bytes;
    r.time_s = per_call * item.calls;
    r.window_s = window_per_call * hideable;
    r.exposed_s = item.exposed_calls * per_call + hideable * std::max(0.0, per_call - window_per_call);
    return r;
}

/// A TP collective split into `tp` chunks, each chunk's transfer under the GEMM of the chunk before
/// (Transformer Engine's ring-exchange / pipelined userbuffers overlap): the first (all-gather) or
/// last (reduce-scatter) chunk cannot hide, and what exceeds the paired GEMM (`window_per_call`)
/// stays exposed.
WindowResult tp_chunked(const TrafficItem& item, const CallTime& call, double window_per_call, int tp) {
    WindowResult r;
    r.window = "the paired GEMM, in " + std::to_string(tp) + " chunks (tp_comm_overlap); one chunk exposed";
    const double per_call = call(item.size_bytes);
    const double chunk = per_call / tp;
    r.calls = item.calls;
    r.call_bytes = item.size_bytes;
    r.time_s = per_call * item.calls;
    r.window_s = window_per_call * item.calls;
    r.exposed_s = item.calls * (chunk + std::max(0.0, per_call - chunk - window_per_call));
    return r;
}

bool is_gather(const TrafficItem& item) { return item.op == CollectiveOp::AllGather; }

/// The call time of the last size asked for, kept: buckets are one size but the remainder, so a
/// bucketed collective costs two cost-model calls, however many buckets it has.
class LastCall {
public:
    explicit LastCall(const CallTime& call) : call_(call) {}
    double operator()(double bytes) {
        if (bytes != bytes_) {
            bytes_ = bytes;
            time_ = call_(bytes);
        }
        return time_;
    }

private:
    const CallTime& call_;
    double bytes_ = -1;
    double time_ = 0;
};

}  // namespace

BucketSetting bucket_setting(const TrainingSpec& t, int dp, double element_bytes, bool overlapped) {
    if (!overlapped) {
        return {0, "one bucket: no overlap (Megatron's bucket_size None)"};
    }
    if (t.bucket_params > 0) {
        return {t.bucket_params, "overlap.bucket_params"};
    }
    if (t.bucket_bytes > 0 && element_bytes > 0) {
        return {t.bucket_bytes / element_bytes, "overlap.bucket_bytes"};
    }
    // Megatron-Core's default bucket, in parameters: max(40,000,000, 1,000,000 × dp)
    // (megatron/core/distributed/distributed_data_parallel.py; larger DP sizes get larger buckets).
    const double params = std::max(static_cast<double>(numbers::kMegatronBucketParamsMin),
                                   numbers::kMegatronBucketParamsPerDp * std::max(1, dp));
    return {params, "Megatron default max(4e7, 1e6 x dp)"};
}

std::vector<double> bucket_sizes(double total_bytes, double bucket_bytes) {
    if (!(total_bytes > 0)) {
        return {};
    }
    if (!(bucket_bytes > 0) || bucket_bytes >= total_bytes) {
        return {total_bytes};
    }
    const double b = std::max(bucket_bytes, total_bytes / numbers::kMaxBuckets);
    const auto full = static_cast<std::size_t>(std::floor(total_bytes / b));
    std::vector<double> out(full, b);
    const double rest = total_bytes - static_cast<double>(full) * b;
    if (rest > numbers::kBucketRestTolerance * total_bytes) {
        out.push_back(rest);
    }
    return out;
}

WindowResult bucketed_reduce(const std::vector<double>& sizes, double backward_s, const CallTime& call) {
    WindowResult r;
    const double total = std::accumulate(sizes.begin(), sizes.end(), 0.0);
    if (total <= 0) {
        return r;
    }
    LastCall time_of(call);
    double ready_bytes = 0;
    double end = 0;  // the communication stream: when the previous bucket's collective ends
    for (const double s : sizes) {
        ready_bytes += s;
        const double ready = backward_s * ready_bytes / total;
        const double t = time_of(s);
        end = std::max(ready, end) + t;
        r.time_s += t;
        r.call_bytes = std::max(r.call_bytes, s);
    }
    r.calls = static_cast<double>(sizes.size());
    r.window_s = backward_s;
    r.exposed_s = std::max(0.0, end - backward_s);
    r.tail_s = r.exposed_s;
    return r;
}

WindowResult prefetched_gather(const std::vector<double>& sizes, double compute_s, const CallTime& call) {
    WindowResult r;
    const double total = std::accumulate(sizes.begin(), sizes.end(), 0.0);
    if (total <= 0) {
        return r;
    }
    LastCall time_of(call);
    double previous_compute = 0;  // compute of the bucket before, under which this gather runs
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const double t = time_of(sizes[i]);
        r.time_s += t;
        r.exposed_s += i == 0 ? t : std::max(0.0, t - previous_compute);
        previous_compute = compute_s * sizes[i] / total;
        r.call_bytes = std::max(r.call_bytes, sizes[i]);
    }
    r.calls = static_cast<double>(sizes.size());
    r.window_s = compute_s;
    r.tail_s = r.exposed_s;
    return r;
}

namespace {

/// Data-parallel items: one logical collective over the whole local gradient (or parameters),
/// split into buckets. FSDP / ZeRO-3 items repeat it for every micro-batch (item.calls > 1), each
/// under that micro-batch's own forward or backward; the others run once a step.
WindowResult data_parallel_window(const TrafficItem& item, const ModelSpec& model, const TrainingSpec& t,
                                  const OverlapCompute& c, const CallTime& call) {
    const double micro = std::max(1.0, c.micro);
    const bool each = item.calls > 1;
    const bool gather = is_gather(item);
    const double element = gather ? model.param_bytes : model.grad_bytes;
    const BucketSetting bucket = bucket_setting(t, c.dp, element, t.overlap_dp);
    std::vector<double> sizes = bucket_sizes(item.size_bytes, bucket.params * element);
    WindowResult r;
    if (gather) {
        // Gathers run in forward order (Megatron: reverse bucket order), the remainder first;
        // ZeRO-3's backward gather runs in backward order.
        if (item.overlap == OverlapKind::Forward) {
            std::reverse(sizes.begin(), sizes.end());
        }
        const double compute = (item.overlap == OverlapKind::Forward ? c.fwd_s : c.bwd_s) / micro;
        if (!t.overlap_param_gather || !t.overlap_dp) {
            r = prefetched_gather(sizes, 0.0, call);
            r.window = each ? "none (overlap.param_gather off)" : "none (overlap.param_gather off): after the optimizer step";
        } else {
            r = prefetched_gather(sizes, compute, call);
            r.window = each ? (item.overlap == OverlapKind::Forward ? "each micro-batch's forward, one bucket ahead"
                                                                   : "each micro-batch's backward, one bucket ahead")
                            : (item.overlap == OverlapKind::Forward ? "the first micro-batch's forward, one bucket ahead"
                                                                   : "the last micro-batch's backward, one bucket ahead");
        }
    } else {
        // Gradient reduce once a step: only the last micro-batch's backward on this stage can hide
        // it (earlier micro-batches accumulate gradients locally). Stage 0 is the one that ends
        // last: Megatron buckets only stage 0, and a later stage's single bucket (t(G) ≤ the sum of
        // its buckets' times) starts one micro-batch's backward earlier, so it never outlasts stage
        // 0's tail. FSDP / ZeRO-3 reduce-scatter every micro-batch's gradients under its backward.
        const double bwd = c.bwd_s / micro;
        r = bucketed_reduce(sizes, t.overlap_dp ? bwd : 0.0, call);
        r.window = !t.overlap_dp ? "none (overlap.dp off): after the backward"
                   : each        ? "each micro-batch's backward"
                                 : "the last micro-batch's backward";
    }
    r.bucket_source = bucket.source;
    if (each) {
        r.time_s *= item.calls;
        r.exposed_s *= item.calls;
        r.calls *= item.calls;
        r.window_s *= item.calls;
        r.tail_s *= item.calls;
    }
    return r;
}

}  // namespace

WindowResult item_window(const TrafficItem& item, const ModelSpec& model, const TrainingSpec& t,
                         const OverlapCompute& c, const CallTime& call) {
    const double micro = std::max(1.0, c.micro);
    switch (item.overlap) {
        case OverlapKind::None:
            return all_exposed(item, call, "none");
        case OverlapKind::PipelineSteady:
            if (!t.overlap_pp) {
                return all_exposed(item, call, "none (overlap.pp off)");
            }
            return per_call_window(item, call, c.comp_s / (numbers::kPassesPerMicroBatch * micro * std::max(1, c.vpp)),
                                   "the other micro-batch's forward or backward, 1F1B steady state");
        case OverlapKind::PerLayer:
            // traffic.cpp marks ep and cp PerLayer only when their overlap is configured.
            return per_call_window(item, call, item.calls > 0 ? c.comp_s / item.calls : 0.0, "the same layer's compute");
        case OverlapKind::TpChunked:
            return tp_chunked(item, call, item.calls > 0 ? c.comp_s / item.calls : 0.0, std::max(1, c.tp));
        case OverlapKind::Forward:
        case OverlapKind::Backward:
            break;
    }
    return data_parallel_window(item, model, t, c, call);
}

}  // namespace planlayout
