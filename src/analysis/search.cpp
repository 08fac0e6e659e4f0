// Search: enumerate, validate, prune by memory, evaluate on sampled group footprints, rank.
#include "planlayout/analysis/search.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "planlayout/analysis/pipeline.hpp"
#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/parallel/framework.hpp"
#include "planlayout/parallel/groups.hpp"
#include "planlayout/parallel/placement.hpp"

namespace planlayout {
namespace {

// Every divisor of n up to 2^30, ascending: trial division to sqrt(n), not a loop to n (the
// enumeration asks for the divisors of world/pp for every pp: at 1,441,440 ranks a loop to n was
// billions of steps).
std::vector<int> divisors(std::int64_t n) {
    std::vector<int> low;
    std::vector<int> high;
    for (std::int64_t d = 1; d * d <= n; ++d) {
        if (n % d == 0) {
            if (d <= (std::int64_t{1} << 30)) {
                low.push_back(static_cast<int>(d));
            }
            if (d * d != n && n / d <= (std::int64_t{1} << 30)) {
                high.push_back(static_cast<int>(n / d));
            }
        }
    }
    low.insert(low.end(), high.rbegin(), high.rend());
    return low;
}

// The kinds whose reach search shows, and the kind that carries the dense DP traffic.
const char* const kShownKinds[] = {"ep", "dp", "tp", "pp", "cp"};

// Evaluates one candidate through the pipeline, on sampled group footprints.
struct Evaluator {
    const Cluster& cluster;
    ScoreSetup setup;
    Placement placement;
    std::optional<StateOwner> owner;  // whose model-state accounting; nullopt: Megatron's, on the sizes

    // The candidate's memory as its framework allocates it (torchtitan FSDP shards over its
    // fsdp group, DeepSpeed by the ZeRO stage), Megatron's on the searched sizes.
    MemoryEstimate memory(const Groups& groups, const ParallelSizes& sizes) const {
        return owner ? estimate_memory(parallel_sizes(groups), *setup.model, *setup.training, *owner)
                     : estimate_memory(sizes, *setup.model, *setup.training);
    }

    SearchLayout evaluate_one(Groups groups, const ParallelSizes& sizes) const {
        SearchLayout out;
        out.sizes = sizes;
        out.order = groups.spec.order;
        const ParallelSizes traffic_sizes = parallel_sizes(groups);
        out.memory = memory(groups, sizes);
        // Only the kinds that carry traffic, plus the shown ones (by role: a framework names its own).
        std::set<std::string> roles(std::begin(kShownKinds), std::end(kShownKinds));
        roles.insert("dp_cp");
        roles.insert("fsdp");
        for (const auto& item : traffic_per_step(traffic_sizes, *setup.model, *setup.training)) {
            roles.insert(item.kind);
        }
        PipelineOptions options;
        for (const auto& k : groups.kinds) {
            if (roles.count(k.role) > 0) {
                options.kinds.push_back(k.name);
            }
        }
        options.coverage = Coverage::Sampled;
        Evaluation ev = evaluate(cluster, placement, std::move(groups), options, setup);
        out.score = std::move(*ev.score);
        for (const char* name : kShownKinds) {
            // dp: the kind that carries the dense gradient traffic (dp_cp with cp, fsdp under FSDP).
            const std::string role = std::string(name) != "dp" ? name : traffic_sizes.fsdp > 0 ? "fsdp" : sizes.cp > 1 ? "dp_cp" : "dp";
            KindReach reach;
            reach.kind = name;
            for (const auto& k : ev.kinds) {
                if (k.role == role) {
                    reach.size = k.size;
                    reach.max_nodes = k.max_nodes;
                    reach.worst = k.worst;
                }
            }
            out.kinds.push_back(reach);
        }
        return out;
    }
};

Evaluator make_evaluator(const Cluster& cluster, const SearchModel& model, std::int64_t world) {
    ScoreSetup setup;
    setup.model = model.model;
    setup.training = model.training;
    setup.transport = model.transport;
    setup.calibrations = model.calibrations;
    Placement placement = node_major_placement(cluster, world);
    setup.arms = choose_arms(cluster, placement, model.transport);  // one placement: decided once
    setup.gpus = model.gpus;
    setup.gpu = gpu_of_layout(cluster, placement, setup);
    // A measured step belongs to the layout it was measured on, not to every candidate: search
    // ranks with compute_scale (fit it on the measured layout first: plan-layout score).
    setup.training->measured_step_time_s.reset();
    setup.training->vpp = 1;  // each candidate's own (ParallelSizes::vpp)
    setup.training->second_measured_step_time_s.reset();
    setup.training->measured_compute_s.reset();
    return Evaluator{cluster, std::move(setup), std::move(placement), std::nullopt};
}

ParallelSpec to_spec(std::int64_t world, const ParallelSizes& s, const std::string& order) {
    ParallelSpec spec;
    spec.world = world;
    spec.tp = s.tp;
    spec.pp = s.pp;
    spec.cp = s.cp;
    spec.ep = s.ep;
    spec.etp = s.etp;
    if (s.vpp > 1) {
        spec.vpp = s.vpp;
    }
    spec.order = order;
    return spec;
}

// One candidate's groups in the framework asked for.
Groups candidate_groups(const std::string& framework, std::int64_t world, const ParallelSizes& s, const std::string& order) {
    FrameworkSpec f;
    if (framework == "torchtitan") {
        f.framework = Framework::Torchtitan;
        f.torchtitan.world = world;
        f.torchtitan.cp = s.cp;
        f.torchtitan.tp = s.tp;
        f.torchtitan.pp = s.pp;
        f.torchtitan.ep = s.ep;  // dp_replicate 1, dp_shard the rest
    } else if (framework == "deepspeed") {
        f.framework = Framework::DeepSpeed;
        f.deepspeed.world = world;
        f.deepspeed.pp = s.pp;
        f.deepspeed.mp = s.tp;
        f.deepspeed.ep = s.ep;
    } else {
        f.megatron = to_spec(world, s, order);
    }
    return build_framework_groups(f);
}

double sort_key(const SearchLayout& l, SearchSort sort) {
    switch (sort) {
        case SearchSort::Baseline:
            return l.score.step_time_s[0];
        case SearchSort::Candidate:
            return l.score.step_time_s[1];
        case SearchSort::Benefit:
            return -l.score.rdma_benefit;
    }
    return 0;
}


// Why the model or training rejects the sizes (heads, experts, layers, sequence, batch and
// micro-batches); none when they fit.
std::optional<std::string> model_rejection(const ParallelSizes& s, const ModelSpec& m, const TrainingSpec& t, bool even_pp) {
    if (m.heads > 0 && m.heads % s.tp != 0) {
        return "tp does not divide the heads";
    }
    if (m.experts > 0 && m.experts % s.ep != 0) {
        return "ep does not divide the experts";
    }
    if (s.pp > m.layers || (even_pp && m.layers % s.pp != 0)) {
        return even_pp ? "pp does not divide the layers" : "pp exceeds the layers";
    }
    if (s.cp > 1 && t.seq_len % (2 * s.cp) != 0) {
        return "seq_len is not a multiple of 2·cp";
    }
    if (t.global_batch % (t.micro_batch * s.dp) != 0) {
        return "global_batch is not a multiple of micro_batch·dp";
    }
    if (t.micro_batches(s.dp) < s.pp) {
        return "fewer micro-batches than pipeline stages";
    }
    return std::nullopt;
}

// Why Megatron cannot interleave `vpp` chunks per stage: pp must divide the layers and vpp the
// layers per stage (megatron/training/arguments.py), the layers counted with the embedding and
// the loss when --account-for-embedding/loss-in-pipeline-split add them (as the Llama 3.1 405B
// and Qwen3-235B recipes do: 126 + 2 and 94 + 2 layers); none when it can.
std::optional<std::string> vpp_rejection(const ParallelSizes& s, const ModelSpec& m) {
    if (s.vpp <= 1) {
        return std::nullopt;
    }
    for (int accounted = 0; accounted <= 2; ++accounted) {
        const int layers = m.layers + accounted;
        if (layers % s.pp == 0 && (layers / s.pp) % s.vpp == 0) {
            return std::nullopt;
        }
    }
    return "vpp does not divide the layers per pipeline stage";
}

// Whose model-state accounting a framework's candidates get (nullopt: Megatron's, on the sizes).
std::optional<StateOwner> framework_owner(const std::string& framework, const SearchModel& model) {
    if (framework == "torchtitan") {
        return StateOwner{Framework::Torchtitan, 0};
    }
    if (framework == "deepspeed") {
        return StateOwner{Framework::DeepSpeed, model.training.zero_stage};
    }
    return std::nullopt;
}

// Why the framework cannot build the sizes (torchtitan: etp 1; DeepSpeed: etp = tp, no cp); none
// when it can.
std::optional<std::string> framework_rejection(const std::string& framework, const ParallelSizes& s) {
    if (framework == "torchtitan" && s.etp != 1) {
        return "torchtitan does not shard experts by tensor parallelism (etp is 1)";
    }
    if (framework == "deepspeed" && (s.etp != s.tp || s.cp > 1)) {
        return s.cp > 1 ? "DeepSpeed's pipeline grid has no context-parallel axis"
                        : "DeepSpeed's MoE layer shards experts over all of tp (etp = tp)";
    }
    return std::nullopt;
}

// Every size combination and order of the world, checked (cheap): `visit(sizes, order)` for each
// survivor, nothing kept; result's candidates, rejections and their reasons counted.
template <typename Visit>
void for_each_candidate(std::int64_t world, const SearchModel& model, const SearchOptions& options, SearchResult& result,
                        const Visit& visit) {
    const ModelSpec& m = model.model;
    const TrainingSpec& t = model.training;
    auto reject = [&](const std::string& why) {
        ++result.rejected;
        ++result.reasons[why];
    };
    const bool megatron = options.framework == "megatron";
    // One (sizes, order): counted, checked, visited.
    const auto consider = [&](const ParallelSizes& sizes, const std::string& order) {
        if (sizes.vpp > 1 && (sizes.pp == 1 || !megatron || vpp_rejection(sizes, m))) {
            return;  // interleaving needs stages that split evenly into chunks (and is Megatron's schedule)
        }
        ++result.candidates;
        if (const auto why = model_rejection(sizes, m, t, options.even_pp)) {
            reject(*why);
            return;
        }
        if (!megatron && order != ParallelSpec{}.order) {
            return;  // the framework fixes its rank order: one candidate per sizes
        }
        if (const auto why = framework_rejection(options.framework, sizes)) {
            reject(*why);
            return;
        }
        visit(sizes, order);
    };
    for (const int tp : divisors(world)) {
        if (tp > options.max_tp) {
            continue;
        }
        for (const int cp : divisors(world / tp)) {
            if (cp > options.max_cp) {
                continue;
            }
            for (const int pp : divisors(world / (static_cast<std::int64_t>(tp) * cp))) {
                const auto dp = static_cast<int>(world / (static_cast<std::int64_t>(tp) * cp * pp));
                // etp shards experts: a dense model has one candidate per sizes.
                const std::set<int> etps = m.experts > 0 ? std::set<int>{1, tp} : std::set<int>{1};
                const std::vector<int> eps = m.experts > 0 ? divisors(world / pp) : std::vector<int>{1};
                for (const int ep : eps) {
                    if (!options.ep.empty() && std::find(options.ep.begin(), options.ep.end(), ep) == options.ep.end()) {
                        continue;
                    }
                    for (const int etp : etps) {
                        if ((world / pp) % (static_cast<std::int64_t>(ep) * etp) != 0) {
                            continue;
                        }
                        for (const auto& order : options.orders) {
                            // pp-dp orders only differ from dp-pp ones when both are > 1.
                            const bool pp_last = order.size() >= 2 && order.substr(order.size() - 2) == "pp";
                            if (!pp_last && (pp == 1 || dp == 1) && options.orders.size() > 1) {
                                continue;
                            }
                            for (const int vpp : options.vpp) {
                                consider({tp, pp, cp, dp, ep, etp,
                                          static_cast<int>(world / (static_cast<std::int64_t>(ep) * etp * pp)), vpp},
                                         order);
                            }
                        }
                    }
                }
            }
        }
    }
}

// A layout's place in the ranking: `sort`'s key, then the other step time (both within 1e-9
// relative), then the name: a strict total order, deterministic.
struct RankKey {
    double key = 0;
    double candidate = 0;
    std::string name;

    bool operator<(const RankKey& o) const { return std::tie(key, candidate, name) < std::tie(o.key, o.candidate, o.name); }
};

RankKey rank_key(const SearchLayout& l, SearchSort sort) {
    auto rounded = [](double v) { return std::round(v * 1e9) / 1e9; };
    return {rounded(sort_key(l, sort)), rounded(l.score.step_time_s[1]), l.name()};
}

// The best `keep` layouts seen (0: all), as a max-heap on RankKey: the worst kept is on top and
// leaves when a better one comes, so memory is `keep` layouts whatever the candidates.
class BestLayouts {
public:
    BestLayouts(std::size_t keep, SearchSort sort) : keep_(keep), sort_(sort) {}

    void offer(SearchLayout layout) {
        RankKey key = rank_key(layout, sort_);
        if (keep_ > 0 && heap_.size() == keep_) {
            if (!(key < heap_.front().first)) {
                return;  // worse than every kept layout
            }
            std::pop_heap(heap_.begin(), heap_.end(), by_key);
            heap_.pop_back();
        }
        heap_.emplace_back(std::move(key), std::move(layout));
        std::push_heap(heap_.begin(), heap_.end(), by_key);
    }

    // The kept layouts, best first.
    std::vector<SearchLayout> take_sorted() {
        std::sort_heap(heap_.begin(), heap_.end(), by_key);
        std::vector<SearchLayout> out;
        out.reserve(heap_.size());
        for (auto& entry : heap_) {
            out.push_back(std::move(entry.second));
        }
        heap_.clear();
        return out;
    }

private:
    static bool by_key(const std::pair<RankKey, SearchLayout>& a, const std::pair<RankKey, SearchLayout>& b) {
        return a.first < b.first;
    }

    std::size_t keep_;
    SearchSort sort_;
    std::vector<std::pair<RankKey, SearchLayout>> heap_;
};

// Refuses a search whose candidates are past kMaxSearchCandidates, before any is evaluated.
void check_candidate_count(std::int64_t candidates, std::int64_t world) {
    if (candidates > kMaxSearchCandidates) {
        throw input_error("search", "a world of " + std::to_string(world) + " ranks has " + std::to_string(candidates) +
                                        " candidate layouts (sizes x orders x vpp), over the limit of " +
                                        std::to_string(kMaxSearchCandidates),
                          "narrow the search: --ep (e.g. --ep 8,16), a smaller --max-tp or --max-cp, fewer --vpp sizes or "
                          "--orders, or a --world with fewer divisors");
    }
}

}  // namespace

std::string SearchLayout::name() const {
    return "tp" + std::to_string(sizes.tp) + "-pp" + std::to_string(sizes.pp) +
           (sizes.vpp > 1 ? "-vp" + std::to_string(sizes.vpp) : std::string()) + "-cp" + std::to_string(sizes.cp) + "-ep" +
           std::to_string(sizes.ep) + "-etp" + std::to_string(sizes.etp) + "-dp" + std::to_string(sizes.dp) + " " + order;
}

SearchLayout evaluate_layout(const Cluster& cluster, const SearchModel& model, const ParallelSizes& sizes,
                             const std::string& order, const std::string& framework) {
    const std::int64_t world = static_cast<std::int64_t>(sizes.tp) * sizes.pp * sizes.cp * sizes.dp;
    Evaluator ev = make_evaluator(cluster, model, world);
    ev.owner = framework_owner(framework, model);
    if (const auto why = framework_rejection(framework, sizes)) {
        throw input_error("layout tp" + std::to_string(sizes.tp) + "-pp" + std::to_string(sizes.pp) + "-cp" +
                              std::to_string(sizes.cp) + "-ep" + std::to_string(sizes.ep) + "-etp" + std::to_string(sizes.etp),
                          *why, "these sizes can be searched with --framework megatron");
    }
    return ev.evaluate_one(candidate_groups(framework, world, sizes, order), sizes);
}

SearchResult search_layouts(const Cluster& cluster, const SearchModel& model, const SearchOptions& options) {
    const std::int64_t gpus = cluster.total_gpus();
    SearchResult result;
    result.world = options.world > 0 ? options.world : gpus;
    result.framework = options.framework;
    if (gpus <= 0) {
        throw input_error("search", "the cluster has no GPUs", "check the cluster file");
    }
    if (result.world > gpus) {
        throw input_error("--world " + std::to_string(result.world), "exceeds the cluster's " + std::to_string(gpus) + " GPUs",
                          "drop --world to use every GPU, or add nodes");
    }
    const std::int64_t world = result.world;

    // 1. Count the size combinations (cheap, nothing kept): past the limit, refuse before any work.
    SearchResult counted;
    std::int64_t total = 0;
    for_each_candidate(world, model, options, counted, [&total](const ParallelSizes&, const std::string&) { ++total; });
    check_candidate_count(counted.candidates, world);

    // 2. Enumerate again, each survivor's groups built, its memory checked and what fits evaluated
    // at once: only the best options.keep layouts are kept, the rest counted.
    Evaluator ev = make_evaluator(cluster, model, world);
    ev.owner = framework_owner(options.framework, model);
    result.budget = memory_budget(cluster, ev.placement, options.memory_limits);
    BestLayouts best(options.keep, options.sort);
    std::int64_t done = 0;
    const bool megatron = options.framework == "megatron";
    for_each_candidate(world, model, options, result, [&](const ParallelSizes& sizes, const std::string& order) {
        ++done;
        if (options.progress && (done % 16 == 0 || done == total)) {
            options.progress(done, total);
        }
        std::optional<Groups> groups;
        try {
            groups = candidate_groups(options.framework, world, sizes, order);
        } catch (const Error&) {
            ++result.rejected;
            ++result.reasons[megatron ? "Megatron rejects the spec (its parallel sizes do not fit Megatron-Core's rules)"
                                      : options.framework + " rejects the spec (its degrees do not fit its rules)"];
            return;
        }
        const MemoryEstimate mem = ev.memory(*groups, sizes);
        if (result.budget.known() && mem.total_bytes() > result.budget.budget_bytes()) {
            ++result.pruned_memory;
            ++result.reasons["needs more memory per GPU than the budget"];
            result.smallest_pruned_bytes = result.smallest_pruned_bytes == 0
                                               ? mem.total_bytes()
                                               : std::min(result.smallest_pruned_bytes, mem.total_bytes());
            return;
        }
        best.offer(ev.evaluate_one(std::move(*groups), sizes));
        ++result.evaluated;
    });
    result.layouts = best.take_sorted();
    return result;
}

}  // namespace planlayout
