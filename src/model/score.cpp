// Score: windows that hide collectives, per-transport step times, the three factors, the band.
// Over 500 lines: one score, from each traffic item's time through the compute fit to measured
// steps to the three factors, their reasons and the per-kind breakdown, over the file-local
// ItemTime, ComputeFit and Sensitive.
// to split: the anchoring to measured steps (ComputeFit, Anchoring, pin_compute, fit_arm_transport,
// anchor_on_arm, fit_compute; docs/cost-model.md, "Anchoring to a measured step") could be a source
// of its own behind a private header.
#include "planlayout/model/score.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <sstream>

#include "planlayout/error.hpp"
#include "planlayout/json_reader.hpp"  // number_text
#include "planlayout/model/numbers/compute.hpp"
#include "planlayout/model/overlap.hpp"
#include "planlayout/text_format.hpp"

namespace planlayout {
namespace {

// ---------------------------------------------------------------------------- per-item timing

struct ItemTime {
    double time_s = 0;
    double exposed_s = 0;
    CollectiveCost call;  // one call of the item's largest size (a bucket for bucketed items)
    WindowResult window;
};

const PlacedGroup* find_cost_shape(const ScoreInput& in, const std::string& kind) {
    auto it = in.placed.find(kind);
    if (it == in.placed.end() && kind == "dp_cp") {
        it = in.placed.find("dp");
    }
    return it == in.placed.end() ? nullptr : &it->second;
}

/// The compute windows of one rank (overlap.hpp) from the step's compute.
OverlapCompute overlap_compute(const ComputeBreakdown& c, const ScoreInput& in, double micro) {
    OverlapCompute o;
    o.comp_s = c.comp_s;
    o.fwd_s = c.fwd_s;
    o.bwd_s = c.bwd_s;
    o.micro = micro;
    o.vpp = std::max({1, in.training->vpp, in.sizes.vpp});
    o.dp = in.sizes.dp;
    o.tp = in.sizes.tp;
    return o;
}

ItemTime time_item(const TrafficItem& item, PlacedGroup shape, const ScoreInput& in, const TransportModel& x,
                   const OverlapCompute& compute) {
    // The transport section describes the TCP interface; it wins over the cluster's default.
    shape.tcp_gbit_s = in.transport.tcp.interface_gbit_s;
    shape.tcp_interfaces_per_node = in.transport.tcp.interfaces_per_node;
    if (item.kind == "ep" && item.op == CollectiveOp::AllToAll) {
        shape.net_dedup = flex_dedup(*in.model, shape.nodes);
    }
    const CallTime call = [&](double bytes) { return collective_cost(item.op, shape, bytes, x).time_s; };
    ItemTime r;
    r.window = item_window(item, *in.model, *in.training, compute, call);
    r.call = collective_cost(item.op, shape, r.window.call_bytes, x);
    r.time_s = r.window.time_s;
    r.exposed_s = r.window.exposed_s;
    return r;
}

struct TransportEvaluation {
    double step_s[numbers::kScoreArms.count()] = {0, 0};
    std::vector<ItemTime> items[numbers::kScoreArms.count()];
};

TransportEvaluation evaluate(const ScoreInput& in, const std::vector<TrafficItem>& traffic,
                    const std::vector<const PlacedGroup*>& shapes, const ComputeBreakdown& c, double micro,
                    PriorEnd base_end, PriorEnd cand_end) {
    TransportEvaluation e;
    const Transport ts[numbers::kScoreArms.count()] = {in.transport.baseline, in.transport.candidate};
    const PriorEnd ends[numbers::kScoreArms.count()] = {base_end, cand_end};
    const OverlapCompute windows = overlap_compute(c, in, micro);
    for (std::size_t k = 0; k < std::size(ts); ++k) {
        if (k == 1 && ts[1] == ts[0] && ends[1] == ends[0]) {  // one arm (the anchoring probe): no second pass
            e.step_s[1] = e.step_s[0];
            e.items[1] = e.items[0];
            break;
        }
        const TransportModel x = transport_model(in.transport, ts[k], ends[k]);
        e.step_s[k] = c.comp_s + c.bubble_s;
        for (std::size_t i = 0; i < traffic.size(); ++i) {
            ItemTime it;
            if (shapes[i] != nullptr) {
                it = time_item(traffic[i], *shapes[i], in, x, windows);
            }
            e.step_s[k] += it.exposed_s;
            e.items[k].push_back(it);
        }
    }
    return e;
}

/// The compute model at one compute_scale: the flat model when compute_time_s or mfu is given.
ComputeBreakdown breakdown_at(const ScoreInput& in, const GpuSpec& gpu, double scale) {
    const TrainingSpec& t = *in.training;
    if (t.compute_time_s || t.mfu) {
        return flat_compute(*in.model, t, in.sizes, t.gpu_peak_tflops.value_or(gpu.bf16_tflops), scale);
    }
    return compute_breakdown(*in.model, t, in.sizes, gpu, scale);
}

/// compute_scale as given, or fitted to what was measured: one arm's step, two arms' steps, a
/// compute-only step (docs/cost-model.md, "Anchoring to a measured step").
struct ComputeFit {
    ComputeBreakdown breakdown;
    double scale = 1;
    bool anchored = false;
    TransportFactors factors{1.0, 1.0, 1.0, 1.0, 1.0};  // per measured arm: its network efficiencies' factor
    std::vector<std::string> notes;                          // what was anchored, to what, by how much
    std::vector<std::string> warnings;

    [[nodiscard]] bool moves_transport() const {
        return std::any_of(factors.begin(), factors.end(), [](double x) { return x != 1.0; });
    }
};

/// g's argument in [lo, hi] at which g (decreasing) equals target, bisected in log scale; the
/// nearer end when target lies outside.
template <class G>
double solve_decreasing(const G& g, double target, double lo, double hi) {
    double a = std::log(lo);
    double b = std::log(hi);
    if (g(lo) <= target) {
        return lo;
    }
    if (g(hi) >= target) {
        return hi;
    }
    for (int i = 0; i < numbers::kSolveSteps.count() && b - a > numbers::kSolveTolerance; ++i) {
        const double mid = numbers::kBisectionMidpoint * (a + b);
        (g(std::exp(mid)) > target ? a : b) = mid;
    }
    return std::exp(numbers::kBisectionMidpoint * (a + b));
}

/// One measured arm's stable step.
struct MeasuredArm {
    Transport arm = Transport::Tcp;
    double step_s = 0;
};

/// The measured arms, the faster first (it anchors compute when no compute-only step is given).
std::vector<MeasuredArm> measured_arms(const TrainingSpec& t) {
    std::vector<MeasuredArm> arms;
    if (t.measured_step_time_s) {
        arms.push_back({parse_transport(t.measured_transport).value_or(Transport::Tcp), *t.measured_step_time_s});
    }
    if (t.second_measured_step_time_s) {
        arms.push_back({parse_transport(t.second_measured_transport).value_or(Transport::Rdma), *t.second_measured_step_time_s});
    }
    std::stable_sort(arms.begin(), arms.end(), [](const MeasuredArm& a, const MeasuredArm& b) { return a.step_s < b.step_s; });
    return arms;
}

/// The anchoring's solves over one layout: the predicted step of one arm at a compute scale or
/// with a breakdown and the factors found so far.
class Anchoring {
public:
    Anchoring(const ScoreInput& in, const GpuSpec& gpu, const std::vector<TrafficItem>& traffic,
              const std::vector<const PlacedGroup*>& shapes, double micro)
        : in_(in), probe_(in), gpu_(gpu), traffic_(traffic), shapes_(shapes), micro_(micro) {}

    [[nodiscard]] ComputeBreakdown at(double scale) const { return breakdown_at(in_, gpu_, scale); }

    [[nodiscard]] double step(Transport arm, const ComputeBreakdown& c, const TransportFactors& factors) const {
        // One copy of the input for every probe of the bisections: only the arm and factors move.
        probe_.transport.baseline = arm;
        probe_.transport.candidate = arm;
        probe_.transport.anchor_factors = factors;
        return evaluate(probe_, traffic_, shapes_, c, micro_, PriorEnd::Point, PriorEnd::Point).step_s[0];
    }

    /// The factor on `arm`'s network efficiencies in [lo, hi] that makes its step `target`.
    [[nodiscard]] double transport_factor(const MeasuredArm& m, const ComputeBreakdown& c, TransportFactors factors,
                                          double lo, double hi) const {
        const auto step_with = [&](double f) {
            factors.at(static_cast<std::size_t>(m.arm)) = f;
            return step(m.arm, c, factors);
        };
        return solve_decreasing(step_with, m.step_s, lo, hi);
    }

private:
    const ScoreInput& in_;
    mutable ScoreInput probe_;
    const GpuSpec& gpu_;
    const std::vector<TrafficItem>& traffic_;
    const std::vector<const PlacedGroup*>& shapes_;
    double micro_;
};

std::string arm_text(const MeasuredArm& m) {
    return "the measured " + std::string(to_string(m.arm)) + " step of " + seconds_text(m.step_s) + " s";
}

/// compute_scale so that compute alone (the schedule's busy time and bubble, no communication)
/// equals the measured compute-only step.
void pin_compute(ComputeFit& f, const Anchoring& a, double measured_compute_s) {
    const ScaleFit r = fit_compute_scale([&](double x) {
        const ComputeBreakdown c = a.at(x);
        return c.comp_s + c.bubble_s;
    }, measured_compute_s);
    f.scale = r.scale;
    f.anchored = true;
    f.notes.push_back("compute: compute_scale " + number_text(r.scale) + " from the measured compute-only step of " +
                      seconds_text(measured_compute_s) + " s");
    if (r.clamped) {
        f.warnings.push_back("the measured compute-only step of " + seconds_text(measured_compute_s) +
                             " s lies outside what compute_scale " + number_text(numbers::kMinComputeScale) + ".." +
                             number_text(numbers::kMaxComputeScale) + " predicts (memory-bound work alone " +
                             (r.scale == numbers::kMaxComputeScale ? "exceeds" : "falls short of") + " it)");
    }
}

/// Fits `m`'s transport with compute held: the factor on its network efficiencies that makes its
/// step the measurement; a warning when no factor reaches it.
void fit_arm_transport(ComputeFit& f, const Anchoring& a, const MeasuredArm& m, const std::string& why) {
    const ComputeBreakdown c = a.at(f.scale);
    const double factor = a.transport_factor(m, c, f.factors, numbers::kMinTransportFactor, numbers::kMaxTransportFactor);
    TransportFactors with = f.factors;
    with.at(static_cast<std::size_t>(m.arm)) = factor;
    const double got = a.step(m.arm, c, with);
    if (std::abs(got - m.step_s) > numbers::kAnchorReachTolerance * m.step_s) {
        f.warnings.push_back(arm_text(m) + " cannot be reached through its transport with compute held (" + why +
                             "): the closest is " + seconds_text(got) + " s at " + number_text(factor) +
                             "x its network efficiency; the compute or a cost the transport does not carry is off");
    }
    f.factors.at(static_cast<std::size_t>(m.arm)) = factor;
    f.notes.push_back(std::string(to_string(m.arm)) + ": network efficiencies x" + number_text(factor) + " the prior, from " +
                      arm_text(m) + " (" + why + ")");
}

/// One arm anchors compute: compute_scale so that its step is the measurement.
void anchor_on_arm(ComputeFit& f, const Anchoring& a, const MeasuredArm& m) {
    const ScaleFit r = fit_compute_scale([&](double x) { return a.step(m.arm, a.at(x), f.factors); }, m.step_s);
    f.scale = r.scale;
    f.anchored = true;
    f.notes.push_back("compute: compute_scale " + number_text(r.scale) + " from " + arm_text(m));
    if (r.clamped) {
        f.warnings.push_back(arm_text(m) + " lies outside what compute_scale " + number_text(numbers::kMinComputeScale) + ".." +
                             number_text(numbers::kMaxComputeScale) + " predicts: compute_scale " + number_text(r.scale) +
                             " gives " + seconds_text(r.step_s) + " s (communication or memory-bound work alone " +
                             (r.scale == numbers::kMaxComputeScale ? "exceeds" : "falls short of") + " the measurement)");
    }
}

ComputeFit fit_compute(const ScoreInput& in, const GpuSpec& gpu, const std::vector<TrafficItem>& traffic,
                       const std::vector<const PlacedGroup*>& shapes, double micro) {
    const TrainingSpec& t = *in.training;
    ComputeFit f;
    f.scale = t.compute_scale;
    const std::vector<MeasuredArm> arms = t.compute_time_s ? std::vector<MeasuredArm>{} : measured_arms(t);
    const Anchoring a(in, gpu, traffic, shapes, micro);
    if (t.measured_compute_s && !t.compute_time_s) {
        pin_compute(f, a, *t.measured_compute_s);
        for (const MeasuredArm& m : arms) {
            fit_arm_transport(f, a, m, "compute pinned by the compute-only step");
        }
    } else if (!arms.empty()) {
        anchor_on_arm(f, a, arms.front());
        for (std::size_t i = 1; i < arms.size(); ++i) {
            fit_arm_transport(f, a, arms[i], "compute from the faster arm");
        }
    }
    f.breakdown = a.at(f.scale);
    return f;
}

double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

/// Sums over the transport-sensitive kinds: time and exposed time of each arm.
struct Sensitive {
    double t0 = 0, t1 = 0, e0 = 0, e1 = 0;

    void add(double time0, double time1, double exposed0, double exposed1) {
        t0 += time0;
        t1 += time1;
        e0 += exposed0;
        e1 += exposed1;
    }
};

/// The three factors (docs/cost-model.md §6), each in 0..1 when the candidate is no slower, and
/// their product (E0 − E1) / T: share = E0 / T (the exposed part of the step); eliminable =
/// min(t0 − t1, E0) / E0 (the part of that the candidate's saving can reach); non_overlapped =
/// (E0 − E1) / min(t0 − t1, E0) (the part of that saving the step sees). With nothing hidden they
/// are the seed's t0/T, 1 − t1/t0 and 1.
struct Factors {
    double share = 0, eliminable = 0, non_overlapped = 0;
};

Factors factors_of(const Sensitive& x, double step_s) {
    const double reach = std::min(x.t0 - x.t1, x.e0);
    if (reach <= 0) {  // the candidate saves nothing (shm against p2p): no part of the step to eliminate
        return {ratio(x.e0, step_s), 0.0, 0.0};
    }
    return {ratio(x.e0, step_s), ratio(reach, x.e0), ratio(x.e0 - x.e1, reach)};
}

/// The decimals a kind's share of the step is printed with: more below 1 %.
int share_digits(double share) { return share < numbers::kReasonsFineShare ? numbers::kReasonsFineDigits.count() : 0; }

/// Reasons of a p2p/shm comparison: the kinds whose ranks share a node, and what SHM does to them.
void intra_arm_reasons(Score& s) {
    const std::string base(to_string(s.baseline));
    const std::string cand(to_string(s.candidate));
    const std::string p2p(to_string(Transport::P2p));
    int named = 0;
    for (const auto& k : s.by_kind) {
        if (!k.shm_inside || named >= numbers::kReasonsMaxKinds.count()) {
            continue;
        }
        if (named > 0 && std::abs(k.contribution) < numbers::kReasonsMinShare && k.share < numbers::kReasonsMinShare) {
            break;
        }
        const std::string cls(to_string(k.path_class));
        std::string line = k.kind + " " + k.collective + " over SHM" +
                           (k.cross_node ? " inside nodes (" + cls + " between them, the same in both arms)"
                                         : " (" + cls + " over P2P in the " + p2p + " arm)") +
                           ": " + percent_text(k.share, share_digits(k.share)) + " of the " + base + " step";
        if (!s.single_arm && k.phi != 0) {
            line += k.phi > 0 ? "; " + cand + " removes " + percent_text(k.phi, 0) + " of its time"
                              : "; " + cand + " takes " + fixed_text(1.0 - k.phi, 1) + "x its time";
            line += " -> step " + signed_percent_text(-k.contribution);
        }
        s.reasons.push_back(line);
        ++named;
    }
    std::vector<std::string> alone;
    for (const auto& k : s.by_kind) {
        if (!k.shm_inside && k.time_s[0] > 0) {
            alone.push_back(k.kind + " (" + std::string(to_string(k.path_class)) + ")");
        }
    }
    if (!alone.empty()) {
        std::string line = "one rank per node, unchanged by the intra-node path:";
        for (const auto& l : alone) {
            line += " " + l;
        }
        s.reasons.push_back(line);
    }
    if (named == 0 && s.has_model) {
        s.reasons.emplace_back("no group has two ranks on one node: p2p and shm cannot differ");
    }
}

void reasons_for(Score& s) {
    if (is_intra_arm(s.baseline)) {
        intra_arm_reasons(s);
        return;
    }
    const std::string base(to_string(s.baseline));
    const std::string cand(to_string(s.candidate));
    const std::string other(to_string(s.single_arm ? s.requested_candidate : s.candidate));
    int named = 0;
    for (const auto& k : s.by_kind) {
        if ((!k.cross_node && !k.socket_inside) || named >= numbers::kReasonsMaxKinds.count()) {
            continue;
        }
        if (named > 0 && (s.single_arm ? k.share : k.contribution) < numbers::kReasonsMinShare) {
            break;
        }
        const std::string path = k.socket_inside ? "sockets inside the node (" + std::string(to_string(k.path_class)) +
                                                       " in the " + (s.baseline == Transport::Tcp ? other : base) + " arm)"
                                                 : std::string(to_string(k.path_class));
        std::string line = k.kind + " " + k.collective + " over " + path +
                           ": " + percent_text(k.share, share_digits(k.share)) + " of the " + base + " step";
        if (k.hidden_s > 0) {
            line += " (" + fixed_text(k.hidden_s, numbers::kReasonsHiddenDigits.count()) + " s more hidden under compute)";
        }
        if (s.single_arm) {
            s.reasons.push_back(line);
            ++named;
            continue;
        }
        if (k.phi > 0) {
            line += "; " + cand + " removes " + percent_text(k.phi, 0) + " of its time";
        }
        if (k.time_s[0] > k.time_s[1]) {
            line += k.u >= numbers::kReasonsNoneHidden ? ", none of that hidden" : ", " + percent_text(1.0 - k.u, 0) + " of that hidden by compute";
        }
        line += " -> " + percent_text(k.contribution, 1) + " of the step";
        s.reasons.push_back(line);
        ++named;
    }
    std::vector<std::string> local;
    bool mnnvl = false;  // some kind stays inside an NVLink domain, across its nodes
    for (const auto& k : s.by_kind) {
        if (!k.cross_node && !k.socket_inside && k.time_s[0] > 0) {
            local.push_back(k.kind + " (" + std::string(to_string(k.path_class)) + ")");
            mnnvl = mnnvl || k.path_class == PathClass::Mnnvl;
        }
    }
    if (!local.empty()) {
        std::string line = mnnvl ? "inside a node or an NVLink domain, unchanged by the transport:"
                                 : "inside a node, unchanged by the transport:";
        for (const auto& l : local) {
            line += " " + l;
        }
        s.reasons.push_back(line);
    }
    if (named == 0 && s.has_model) {
        s.reasons.emplace_back("no group crosses nodes: the transport cannot matter");
    }
}

/// The benefit and its throughput gain, 1 / (1 − benefit) − 1: one formula for the model path and
/// the factors-only path (given factors are the model path's factors, given). A benefit of 1 (the
/// candidate's step would take no time) has no finite gain and is refused: it is reached only
/// when factors are given (all three 1, or the given ones with computed 1s), since a model's
/// candidate step includes its compute.
void set_benefit(Score& s, double benefit) {
    if (benefit >= 1.0) {
        throw unbounded_benefit("score", s.cross_node_share, s.eliminable, s.non_overlapped);
    }
    s.rdma_benefit = benefit;
    s.throughput_gain = 1.0 / (1.0 - benefit) - 1.0;
}

}  // namespace

Error unbounded_benefit(const std::string& where, double share, double eliminable, double non_overlapped) {
    return input_error(where,
                       "cross_node_share x eliminable x non_overlapped = " + number_text(share) + " x " +
                           number_text(eliminable) + " x " + number_text(non_overlapped) +
                           " = 1 predicts a step that takes no time (an unbounded throughput gain)",
                       "give factors whose product is below 1 (1, 1 and 1 say the whole step is cross-node "
                       "communication that the candidate removes)");
}

namespace {

// Which kinds the transport changes: those that cross nodes, and with sockets inside the node
// (tcp.inside_node, TCP in the comparison) every group of two or more ranks. With the p2p/shm
// arms: every kind with two or more ranks on one node.
struct Reach {
    bool socketed = false;
    bool intra_arms = false;

    explicit Reach(const TransportSpec& t)
        : socketed(t.tcp.inside_node && (t.baseline == Transport::Tcp || t.candidate == Transport::Tcp)),
          intra_arms(is_intra_arm(t.baseline)) {}

    [[nodiscard]] bool via_transport(const PlacedGroup& g) const {
        return g.n > 1 && (intra_arms ? g.max_per_node > 1 : g.nodes > 1 || socketed);
    }
};

// The score when no model is given: the three given factors, multiplied.
Score score_from_factors(const ScoreInput& in, Score s) {
    if (!(s.given_share && s.given_eliminable && s.given_non_overlapped)) {
        throw input_error("score", "without a model and training section the score needs all three factors",
                          "give \"score\": {\"cross_node_share\", \"eliminable\", \"non_overlapped\"}, "
                          "or add the \"model\" and \"training\" sections");
    }
    s.cross_node_share = *in.given.cross_node_share;
    s.eliminable = *in.given.eliminable;
    s.non_overlapped = *in.given.non_overlapped;
    set_benefit(s, s.single_arm ? 0.0 : s.cross_node_share * s.eliminable * s.non_overlapped);
    s.band_low = s.band_high = s.rdma_benefit;
    return s;
}

// The breakdown entry of traffic item i's kind, added on first sight.
KindBreakdown& kind_entry(Score& s, const TrafficItem& item, const PlacedGroup& shape, const Reach& reach) {
    auto it = std::find_if(s.by_kind.begin(), s.by_kind.end(), [&](const KindBreakdown& k) { return k.kind == item.kind; });
    if (it != s.by_kind.end()) {
        return *it;
    }
    KindBreakdown k;
    k.kind = item.kind;
    k.cross_node = shape.nodes > 1 && shape.n > 1;
    k.socket_inside = !reach.intra_arms && !k.cross_node && reach.via_transport(shape);
    k.shm_inside = reach.intra_arms && reach.via_transport(shape);
    k.path_class = k.cross_node ? shape.worst_cross : shape.worst_intra;
    s.by_kind.push_back(k);
    return s.by_kind.back();
}

// Per kind, in first-seen order: collectives, fits used, bytes, calls, time and exposed time per
// arm, and each item's window.
void add_kinds(Score& s, const ScoreInput& in, const std::vector<TrafficItem>& traffic,
               const std::vector<const PlacedGroup*>& shapes, const TransportEvaluation& e, const Reach& reach) {
    s.calibrated = in.transport.fits != nullptr && !in.transport.fits->fits.empty();
    const TransportModel arm_models[numbers::kScoreArms.count()] = {transport_model(in.transport, in.transport.baseline),
                                          transport_model(in.transport, in.transport.candidate)};
    for (std::size_t i = 0; i < traffic.size(); ++i) {
        if (shapes[i] == nullptr) {
            continue;
        }
        KindBreakdown& k = kind_entry(s, traffic[i], *shapes[i], reach);
        const std::string op(to_string(traffic[i].op));
        if (k.collective.find(op) == std::string::npos) {
            k.collective += (k.collective.empty() ? "" : "+") + op;
        }
        if (s.calibrated) {
            for (const auto& x : arm_models) {
                const FitsUsed used = fits_used(traffic[i].op, *shapes[i], x);
                for (const CollectiveFit* f : {used.network, used.intra, used.shm}) {
                    if (f != nullptr && std::find(k.fits.begin(), k.fits.end(), f->label()) == k.fits.end()) {
                        k.fits.push_back(f->label());
                    }
                }
            }
        }
        k.bytes_per_step += traffic[i].bytes_per_step();
        const WindowResult& w = e.items[0][i].window;
        k.calls += w.calls;
        WindowDetail d{traffic[i].what, op, w.window, w.bucket_source, w.calls, traffic[i].bytes_per_step(), w.call_bytes,
                       w.window_s, {}, {}};
        for (int a = 0; a < numbers::kScoreArms.count(); ++a) {
            k.time_s[a] += e.items[a][i].time_s;
            k.exposed_s[a] += e.items[a][i].exposed_s;
            k.busbw_gbyte_s[a] = std::max(k.busbw_gbyte_s[a], e.items[a][i].call.busbw_gbyte_s);
            d.time_s[a] = e.items[a][i].time_s;
            d.exposed_s[a] = e.items[a][i].exposed_s;
        }
        k.windows.push_back(std::move(d));
    }
}

// Each kind's share, hidden time, phi, u and contribution; the kinds the transport changes summed
// into the factors' terms; the kinds sorted by contribution.
Sensitive finish_kinds(Score& s, const Reach& reach) {
    Sensitive cross;
    for (auto& k : s.by_kind) {
        k.share = ratio(k.exposed_s[0], s.step_time_s[0]);
        k.hidden_s = std::max(0.0, k.time_s[0] - k.exposed_s[0]);
        k.phi = k.time_s[0] > 0 ? 1.0 - k.time_s[1] / k.time_s[0] : 0.0;
        k.u = ratio(k.exposed_s[0] - k.exposed_s[1], k.time_s[0] - k.time_s[1]);
        k.contribution = ratio(k.exposed_s[0] - k.exposed_s[1], s.step_time_s[0]);
        if (reach.intra_arms ? k.shm_inside : k.cross_node || k.socket_inside) {
            cross.add(k.time_s[0], k.time_s[1], k.exposed_s[0], k.exposed_s[1]);
        }
    }
    const bool intra_arms = reach.intra_arms;
    std::stable_sort(s.by_kind.begin(), s.by_kind.end(), [intra_arms](const KindBreakdown& a, const KindBreakdown& b) {
        // p2p/shm: the largest change first, a slowdown as much as a gain
        const double ca = intra_arms ? std::abs(a.contribution) : a.contribution;
        const double cb = intra_arms ? std::abs(b.contribution) : b.contribution;
        if (ca != cb) {
            return ca > cb;
        }
        return a.share > b.share;
    });
    return cross;
}

}  // namespace

Score compute_score(const ScoreInput& in_given) {
    const Reach reach(in_given.transport);
    Score s;
    s.baseline = s.requested_baseline = in_given.transport.baseline;
    s.candidate = s.requested_candidate = in_given.transport.candidate;
    s.single_arm = s.baseline == s.candidate;
    s.has_model = in_given.model.has_value() && in_given.training.has_value();
    s.given_share = in_given.given.cross_node_share.has_value();
    s.given_eliminable = in_given.given.eliminable.has_value();
    s.given_non_overlapped = in_given.given.non_overlapped.has_value();
    if (!s.has_model) {
        return score_from_factors(in_given, std::move(s));
    }

    const std::vector<TrafficItem> traffic = traffic_per_step(in_given.sizes, *in_given.model, *in_given.training);
    std::vector<const PlacedGroup*> shapes;
    for (const auto& item : traffic) {
        shapes.push_back(find_cost_shape(in_given, item.kind));
        if (shapes.back() == nullptr) {
            s.warnings.push_back("no placement for group kind '" + item.kind + "': its " +
                                 std::string(to_string(item.op)) + " traffic is left out");
        }
    }
    const double micro = in_given.training->micro_batches(in_given.sizes.dp);
    const GpuChoice gpu = in_given.gpu ? *in_given.gpu : choose_gpu({}, in_given.training->gpu, {});
    const ComputeFit fit = fit_compute(in_given, gpu.spec, traffic, shapes, micro);
    ScoreInput anchored_copy;
    if (fit.moves_transport()) {  // the anchoring put part of a measured step on that arm's transport
        anchored_copy = in_given;
        anchored_copy.transport.anchor_factors = fit.factors;
    }
    const ScoreInput& in = fit.moves_transport() ? anchored_copy : in_given;
    const ComputeBreakdown& c = fit.breakdown;
    s.compute_s = c.comp_s;
    s.bubble_s = c.bubble_s;
    s.gpu_name = gpu.spec.name;
    s.gpu_source = gpu.source;
    s.gpu = gpu.spec;
    s.gpu_peak_tflops = fit.breakdown.peak_tflops;
    s.compute = fit.breakdown;
    s.compute_scale = fit.scale;
    s.anchored = fit.anchored;
    s.anchoring = fit.notes;
    s.anchor_factors = fit.factors;
    s.warnings.insert(s.warnings.end(), fit.warnings.begin(), fit.warnings.end());

    const TransportEvaluation e = evaluate(in, traffic, shapes, c, micro, PriorEnd::Point, PriorEnd::Point);
    s.step_time_s[0] = e.step_s[0];
    s.step_time_s[1] = e.step_s[1];
    s.mfu[0] = mfu_of(fit.breakdown, e.step_s[0]);
    s.mfu[1] = mfu_of(fit.breakdown, e.step_s[1]);
    add_kinds(s, in, traffic, shapes, e, reach);
    const Sensitive cross = finish_kinds(s, reach);

    const Factors f = factors_of(cross, s.step_time_s[0]);
    s.cross_node_share = in.given.cross_node_share.value_or(f.share);
    s.cross_node_hidden_s = std::max(0.0, cross.t0 - cross.e0);
    s.eliminable = in.given.eliminable.value_or(f.eliminable);
    s.non_overlapped = in.given.non_overlapped.value_or(f.non_overlapped);
    const bool any_given = s.given_share || s.given_eliminable || s.given_non_overlapped;
    set_benefit(s, s.single_arm ? 0.0
                   : any_given  ? s.cross_node_share * s.eliminable * s.non_overlapped
                                : ratio(s.step_time_s[0] - s.step_time_s[1], s.step_time_s[0]));

    // Band: the baseline at its best and the candidate at its worst, and the other way round.
    const auto score_at = [&](PriorEnd base, PriorEnd cand) {
        const TransportEvaluation b = evaluate(in, traffic, shapes, c, micro, base, cand);
        if (!any_given) {
            return ratio(b.step_s[0] - b.step_s[1], b.step_s[0]);
        }
        Sensitive x;
        for (std::size_t i = 0; i < traffic.size(); ++i) {
            if (shapes[i] != nullptr && reach.via_transport(*shapes[i])) {
                x.add(b.items[0][i].time_s, b.items[1][i].time_s, b.items[0][i].exposed_s, b.items[1][i].exposed_s);
            }
        }
        const Factors g = factors_of(x, b.step_s[0]);
        return in.given.cross_node_share.value_or(g.share) * in.given.eliminable.value_or(g.eliminable) *
               in.given.non_overlapped.value_or(g.non_overlapped);
    };
    const double lo = s.single_arm ? 0.0 : score_at(PriorEnd::High, PriorEnd::Low);
    const double hi = s.single_arm ? 0.0 : score_at(PriorEnd::Low, PriorEnd::High);
    s.band_low = std::min(lo, hi);
    s.band_high = std::max(lo, hi);
    reasons_for(s);
    return s;
}

}  // namespace planlayout
