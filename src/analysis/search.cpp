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
#include "planlayout/parallel/framework.hpp"
#include "planlayout/parallel/groups.hpp"
#include "planlayout/parallel/placement.hpp"

namespace planlayout {
namespace {

std::vector<int> divisors(std::int64_t n) {
    std::vector<int> out;
    for (std::int64_t d = 1; d <= n && d <= (std::int64_t{1} << 30); ++d) {
        if (n % d == 0) {
            out.push_back(static_cast<int>(d));
        }
    }
    return out;
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

// A candidate that passed the checks, with its groups.
struct Pending {
    ParallelSizes sizes;
    std::string order;
    Groups groups;
};

// Every size combination and order of the world, checked (cheap): the survivors with their
// groups; result's candidates, rejections and their reasons counted.
std::vector<Pending> enumerate_candidates(std::int64_t world, const SearchModel& model, const SearchOptions& options,
                                          SearchResult& result) {
    const ModelSpec& m = model.model;
    const TrainingSpec& t = model.training;
    auto reject = [&](const std::string& why) {
        ++result.rejected;
        ++result.reasons[why];
    };
    const bool megatron = options.framework == "megatron";
    std::vector<Pending> pending;
    // One (sizes, order): counted, checked, its groups built.
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
        try {
            pending.push_back({sizes, order, candidate_groups(options.framework, world, sizes, order)});
        } catch (const Error&) {
            reject(megatron ? "Megatron rejects the spec (its parallel sizes do not fit Megatron-Core's rules)"
                            : options.framework + " rejects the spec (its degrees do not fit its rules)");
        }
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
    return pending;
}

// The layouts in rank order by `sort`; ties (within 1e-9 relative) fall back to the other step
// time, then the name: deterministic.
std::vector<SearchLayout> sorted_layouts(std::vector<SearchLayout> layouts, SearchSort sort) {
    std::vector<std::string> names;
    names.reserve(layouts.size());
    std::vector<std::size_t> index(layouts.size());
    for (std::size_t i = 0; i < index.size(); ++i) {
        index[i] = i;
        names.push_back(layouts[i].name());
    }
    auto rounded = [](double v) { return std::round(v * 1e9) / 1e9; };
    std::sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) {
        const auto& la = layouts[a];
        const auto& lb = layouts[b];
        return std::make_tuple(rounded(sort_key(la, sort)), rounded(la.score.step_time_s[1]), names[a]) <
               std::make_tuple(rounded(sort_key(lb, sort)), rounded(lb.score.step_time_s[1]), names[b]);
    });
    std::vector<SearchLayout> sorted;
    sorted.reserve(index.size());
    for (const auto i : index) {
        sorted.push_back(std::move(layouts[i]));
    }
    return sorted;
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

    // 1. Enumerate the size combinations and check them (cheap), collecting the survivors.
    const std::vector<Pending> pending = enumerate_candidates(world, model, options, result);

    // 2. Memory, then the evaluation of what fits.
    Evaluator ev = make_evaluator(cluster, model, world);
    ev.owner = framework_owner(options.framework, model);
    result.budget = memory_budget(cluster, ev.placement, options.memory_limits);
    const auto total = static_cast<std::int64_t>(pending.size());
    std::int64_t done = 0;
    for (const auto& p : pending) {
        ++done;
        if (options.progress && (done % 16 == 0 || done == total)) {
            options.progress(done, total);
        }
        const MemoryEstimate mem = ev.memory(p.groups, p.sizes);
        if (result.budget.known() && mem.total_bytes() > result.budget.budget_bytes()) {
            ++result.pruned_memory;
            ++result.reasons["needs more memory per GPU than the budget"];
            result.smallest_pruned_bytes = result.smallest_pruned_bytes == 0
                                               ? mem.total_bytes()
                                               : std::min(result.smallest_pruned_bytes, mem.total_bytes());
            continue;
        }
        result.layouts.push_back(ev.evaluate_one(p.groups, p.sizes));
        ++result.evaluated;
    }
    result.layouts = sorted_layouts(std::move(result.layouts), options.sort);
    return result;
}

}  // namespace planlayout
