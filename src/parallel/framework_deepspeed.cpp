// DeepSpeed groups (parallel/framework.hpp), as DeepSpeed builds them (docs/frameworks/deepspeed.md):
//   dense: runtime/pipe/topology.py — ProcessTopology row-major (last axis fastest), the
//          PipelineParallelGrid's groups "model" (pipe x model: get_model_parallel_group),
//          "data", "pipe" and "slice" (the model axis: Megatron-style tensor slicing); or AutoTP's
//          (data_parallel, tensor_parallel) mesh (utils/groups.py _init_tp_mesh_device); or the
//          (data_parallel, sequence_parallel) mesh of deepspeed.initialize(mesh_param=...).
//   MoE:   utils/groups.py _create_expert_and_data_parallel (legacy E + D, D + E, AutoEP) and
//          _create_expert_data_and_model_parallel / _get_expert_parallel_ranks (E + M + D), picked
//          as moe/layer.py MoE._create_process_groups and runtime/engine.py
//          _configure_expert_parallel pick them.
// Every group is a masked mixed-radix Grid (parallel/groups.hpp); nothing per rank is stored.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "planlayout/error.hpp"
#include "planlayout/parallel/framework.hpp"

namespace planlayout {
namespace {

// Flag spellings for messages about command-line specs (the DeepSpeedDims field they set).
const std::map<std::string, std::string>& ds_flag_names() {
    static const std::map<std::string, std::string> kFlags = {
        {"world", "--world"},
        {"pp", "--pp"},
        {"mp", "--tp"},
        {"dp", "--dp"},
        {"ep", "--ep"},
        {"moe_path", "--moe-path"},
        {"topology", "--ds-topology"},
        {"data_before_expert", "--data-before-expert"},
        {"zero_stage", "--zero-stage"},
    };
    return kFlags;
}

class DsNamer {
public:
    explicit DsNamer(const SpecSource& s) : source_(s) {}

    [[nodiscard]] std::string where(const std::string& field, const std::string& value) const {
        if (source_.file.empty()) {
            return ds_flag_names().at(field) + (value.empty() ? "" : " " + value);
        }
        // A layout spells DeepSpeed's model-parallel size "tp" (parallel/framework.cpp).
        return source_.file + " (" + source_.pointer + "/" + (field == "mp" ? std::string("tp") : field) + ")";
    }

    [[nodiscard]] std::string where(const std::string& field, std::int64_t value) const {
        return where(field, std::to_string(value));
    }

    [[nodiscard]] std::string name(const std::string& field) const {
        return source_.file.empty() ? ds_flag_names().at(field) : field;
    }

private:
    const SpecSource& source_;
};

Axis axis(const char* name, std::int64_t size, std::int64_t stride) { return Axis{name, size, stride}; }

GroupKind grid_kind(std::string name, std::string desc, std::string generator, std::string role, Pattern pattern,
                    std::vector<Axis> masked, std::vector<Axis> unmasked) {
    GroupKind k;
    k.name = std::move(name);
    k.group_desc = std::move(desc);
    k.generator = std::move(generator);
    k.role = std::move(role);
    k.token = k.name;
    k.derivation = KindDerivation::Grid;
    k.pattern = pattern;
    k.base.masked = std::move(masked);
    k.base.unmasked = std::move(unmasked);
    return k;
}

// The divisors of n, ascending, in O(sqrt n).
std::string divisors_text(std::int64_t n) {
    std::vector<std::int64_t> low;
    std::vector<std::int64_t> high;
    for (std::int64_t d = 1; d * d <= n; ++d) {
        if (n % d == 0) {
            low.push_back(d);
            if (d != n / d) {
                high.push_back(n / d);
            }
        }
    }
    low.insert(low.end(), high.rbegin(), high.rend());
    std::string s;
    for (const std::int64_t d : low) {
        s += (s.empty() ? "" : ", ") + std::to_string(d);
    }
    return s;
}

// PipelineParallelGrid(topology=None): the world's prime factors, dealt alternately to pipe
// (even positions) and data (odd positions), smallest first (topology.py _prime_factors).
std::pair<std::int64_t, std::int64_t> prime_deal(std::int64_t world) {
    std::int64_t pp = 1;
    std::int64_t dp = 1;
    std::int64_t idx = 0;
    std::int64_t n = world;
    for (std::int64_t p = 2; n > 1;) {
        if (p * p > n) {
            p = n;  // the rest is prime
        }
        if (n % p == 0) {
            (idx % 2 == 0 ? pp : dp) *= p;
            ++idx;
            n /= p;
        } else {
            ++p;
        }
    }
    return {pp, dp};
}

struct Sizes {
    std::int64_t world = 0, pp = 1, mp = 1, dp = 1, ep = 1;
    std::string path;      // resolved MoE path: "legacy", "emd", "autoep-tp", "autoep-sp" ("" without MoE)
    std::string topology;  // resolved dense source: "pipe-model-data", "pipe-data", "autotp", "sp-mesh"
    bool data_before_expert = false;
    std::int64_t zero_stage = 0;
};

Sizes resolve(const DeepSpeedDims& d, const DsNamer& n) {
    Sizes s;
    s.world = d.world;
    if (d.world < 1 || d.world > kMaxWorld) {
        throw input_error(n.where("world", d.world), "the world size must be in [1, " + std::to_string(kMaxWorld) + "]",
                          "give the number of ranks (nodes x GPUs per node)");
    }
    for (const auto& [field, v] : {std::pair<const char*, std::int64_t>{"pp", d.pp}, {"mp", d.mp}, {"ep", d.ep}}) {
        if (v < 1 || v > d.world) {
            throw input_error(n.where(field, v), std::string(field) + " must be in [1, world = " + std::to_string(d.world) + "]",
                              "give a divisor of the world size: " + divisors_text(d.world));
        }
    }
    if (d.dp != -1 && (d.dp < 1 || d.dp > d.world)) {
        throw input_error(n.where("dp", d.dp), "dp must be -1 (the rest of the world) or in [1, world]",
                          "leave dp out to let it be world / (pp x mp)");
    }
    static const std::vector<std::string> kPaths = {"auto", "legacy", "data-before-expert", "emd", "autoep-tp", "autoep-sp"};
    static const std::vector<std::string> kTopologies = {"pipe-model-data", "pipe-data", "none", "autotp", "sp-mesh"};
    if (std::find(kPaths.begin(), kPaths.end(), d.moe_path) == kPaths.end()) {
        throw input_error(n.where("moe_path", "'" + d.moe_path + "'"), "unknown DeepSpeed MoE path",
                          "use one of auto, legacy, data-before-expert, emd, autoep-tp, autoep-sp");
    }
    if (std::find(kTopologies.begin(), kTopologies.end(), d.topology) == kTopologies.end()) {
        throw input_error(n.where("topology", "'" + d.topology + "'"), "unknown DeepSpeed topology",
                          "use one of pipe-model-data, pipe-data, none, autotp, sp-mesh");
    }
    s.pp = d.pp;
    s.mp = d.mp;
    s.ep = d.ep;
    s.data_before_expert = d.data_before_expert || d.moe_path == "data-before-expert";
    // AutoEP with autotp_size 1 runs on whatever dense groups there are (pipeline grid or none).
    s.topology = d.moe_path == "autoep-tp" && d.mp > 1 ? "autotp" : d.moe_path == "autoep-sp" ? "sp-mesh" : d.topology;

    if (s.topology == "none") {
        if (d.pp != 1 || d.mp != 1 || d.dp != -1) {
            throw input_error(n.where("topology", "none"),
                              "PipelineParallelGrid without a topology derives pipe and data from the world's prime factors",
                              "leave pp, mp and dp out with topology none, or pick topology pipe-model-data");
        }
        const auto [pp, dp] = prime_deal(d.world);
        s.pp = pp;
        s.dp = dp;
        s.topology = "pipe-data";
    } else {
        if (s.topology == "pipe-data" && s.mp != 1) {
            throw input_error(n.where("mp", s.mp), "PipeDataParallelTopology has no model axis",
                              "use topology pipe-model-data for tensor (slice) parallelism");
        }
        if ((s.topology == "autotp" || s.topology == "sp-mesh") && s.pp != 1) {
            throw input_error(n.where("pp", s.pp),
                              d.moe_path == "autoep-tp"
                                  ? "AutoEP+AutoTP folding currently supports pp_size=1 only (DeepSpeed's refusal)"
                                  : "the " + std::string(s.topology == "autotp" ? "AutoTP (data_parallel, tensor_parallel)"
                                                                                : "(data_parallel, sequence_parallel)") +
                                        " mesh has no pipeline axis",
                              "use pp 1, or the pipeline engine's MoE paths (legacy, emd)");
        }
        const std::int64_t pm = s.pp * s.mp;
        if (d.world % pm != 0) {
            throw input_error(n.where(s.pp > 1 ? "pp" : "mp", s.pp > 1 ? s.pp : s.mp),
                              "pp x mp = " + std::to_string(pm) + " does not divide the world size " + std::to_string(d.world) +
                                  " (DeepSpeed: Invalid Grid)",
                              "pick pp and mp whose product divides " + std::to_string(d.world));
        }
        s.dp = d.dp == -1 ? d.world / pm : d.dp;
        if (s.pp * s.mp * s.dp != d.world) {
            throw input_error(n.where("dp", d.dp),
                              "pp x mp x dp = " + std::to_string(s.pp * s.mp * s.dp) + " is not the world size " +
                                  std::to_string(d.world) + " (DeepSpeed: Invalid Grid)",
                              "leave dp out (it is world / (pp x mp) = " + std::to_string(d.world / pm) + ")");
        }
    }
    if (d.moe_path == "autoep-tp" && s.mp > 1 && s.ep == 1) {
        throw input_error(n.where("ep", s.ep), "AutoEP+AutoTP folding requires expert_parallel.autoep_size > 1 (DeepSpeed's refusal)",
                          "give ep > 1");
    }
    s.zero_stage = d.zero_stage;
    if (d.zero_stage < 0 || d.zero_stage > 3) {
        throw input_error(n.where("zero_stage", d.zero_stage), "the ZeRO stage must be 0, 1, 2 or 3", "give zero_optimization.stage");
    }
    if (d.zero_stage >= 2 && s.pp > 1) {
        throw input_error(n.where("zero_stage", d.zero_stage),
                          "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism (DeepSpeed's refusal)",
                          "use ZeRO stage 0 or 1 with pp > 1");
    }
    if (d.zero_stage == 3 && d.moe_path == "autoep-tp" && s.mp > 1) {
        throw input_error(n.where("zero_stage", d.zero_stage),
                          "AutoEP+AutoTP with ZeRO stage 3 is not supported (DeepSpeed's refusal)", "use ZeRO stage 0, 1 or 2");
    }
    if (d.zero_stage == 3 && d.moe_path == "autoep-sp" && s.mp > 1) {
        throw input_error(n.where("zero_stage", d.zero_stage),
                          "AutoEP with ZeRO Stage 3 does not support sequence parallelism yet (DeepSpeed's refusal)",
                          "use ZeRO stage 0, 1 or 2");
    }
    if (s.ep == 1) {
        return s;
    }
    // The MoE path: a MoE layer (moe/layer.py) takes E + M + D when there is a tensor-parallel mpu
    // and enable_expert_tensor_parallelism, else legacy E + D; "auto" assumes the flag is set
    // whenever mp > 1 (both paths give the same groups when mp is 1).
    if (d.moe_path == "autoep-tp" || d.moe_path == "autoep-sp") {
        s.path = d.moe_path;
    } else if (d.moe_path == "legacy" || s.mp == 1 || s.topology != "pipe-model-data") {
        // E + M + D needs groups.mpu with tensor slicing: the pipeline grid's model axis. On
        // the AutoTP or sequence-parallel mesh groups.mpu is None and the layer takes legacy.
        s.path = "legacy";
    } else {
        s.path = "emd";
    }
    const std::int64_t stage = d.world / s.pp;
    if (s.path == "legacy" || s.path == "autoep-tp" || s.path == "autoep-sp") {
        if (stage % s.ep != 0) {
            throw input_error(n.where("ep", s.ep),
                              "ep " + std::to_string(s.ep) + " does not divide the pipeline stage world / pp = " +
                                  std::to_string(stage) + " (DeepSpeed: " + std::to_string(stage) + " is not divisible by " +
                                  std::to_string(s.ep) + ")",
                              "pick ep among " + divisors_text(stage));
        }
    }
    if (d.zero_stage == 3 && (s.path == "legacy" || s.path == "emd")) {
        throw input_error(n.where("zero_stage", d.zero_stage),
                          "Native DeepSpeed MoE is not supported with ZeRO Stage 3 (DeepSpeed's refusal)",
                          "use AutoEP (expert_parallel) or ZeRO stage 1 or 2");
    }
    if (s.path == "emd" && s.dp % s.ep != 0) {
        throw input_error(n.where("ep", s.ep),
                          "E + M + D needs ep to divide dp = " + std::to_string(s.dp) + " (DeepSpeed: " + std::to_string(s.dp) +
                              " is not divisible by " + std::to_string(s.ep) + ")",
                          "pick ep among " + divisors_text(s.dp) + ", or moe_path legacy");
    }
    if (s.path == "autoep-tp" && s.mp > 1 && s.data_before_expert) {
        throw input_error(n.where("data_before_expert", ""),
                          "use_data_before_expert_parallel_ is not supported with AutoEP+AutoTP folding (DeepSpeed's refusal)",
                          "drop use_data_before_expert_parallel_");
    }
    if (s.path == "autoep-sp" && s.data_before_expert) {
        throw input_error(n.where("data_before_expert", ""),
                          "use_data_before_expert_parallel_ is not supported with mp_size > 1 (DeepSpeed's refusal)",
                          "drop use_data_before_expert_parallel_");
    }
    return s;
}

void add_dense(Groups& out, const Sizes& s) {
    const Axis model = axis("model", s.mp, 1);
    const Axis data = axis("data", s.dp, s.mp);
    if (s.topology == "sp-mesh") {
        // deepspeed.initialize(mesh_param=(dp, sp)): init_device_mesh((data_parallel,
        // sequence_parallel)), sequence_parallel fastest; groups.mesh_device serves both.
        const Axis sp = axis("sp", s.mp, 1);
        out.kinds.push_back(grid_kind("data_parallel", "mesh_device data_parallel", "mesh", "dp", Pattern::Ring, {data}, {sp}));
        out.kinds.push_back(grid_kind("sequence_parallel", "mesh_device sequence_parallel", "mesh", "cp", Pattern::Ring, {sp},
                                      {data}));
        return;
    }
    const std::int64_t stage = s.mp * s.dp;
    if (s.topology == "autotp") {
        // init_device_mesh((data_parallel, tensor_parallel)): tensor_parallel fastest.
        out.kinds.push_back(grid_kind("data_parallel", "_DATA_PARALLEL_GROUP", "autotp", "dp", Pattern::Ring, {data}, {model}));
        out.kinds.push_back(grid_kind("tensor_parallel", "_TENSOR_MODEL_PARALLEL_GROUP", "autotp", "tp", Pattern::Ring, {model},
                                      {data}));
        return;
    }
    // ProcessTopology axes [pipe, data, model], row-major: model fastest, then data, then pipe.
    const Axis pipe = axis("pipe", s.pp, stage);
    const std::string gen = s.mp > 1 || s.topology == "pipe-model-data" ? "PipeModelDataParallelTopology"
                                                                         : "PipeDataParallelTopology";
    // Creation order of PipelineParallelGrid.__init__: model, data, pipe, slice. The p2p pairs
    // (_build_p2p_groups) are rank pairs, not process groups: the pipe kind carries that traffic.
    out.kinds.push_back(grid_kind("model", "ds_model_proc_group (get_model_parallel_group)", gen, "", Pattern::Ring,
                                  {model, pipe}, {data}));
    out.kinds.push_back(grid_kind("data", "dp_proc_group (get_data_parallel_group)", gen, "dp", Pattern::Ring, {data},
                                  {model, pipe}));
    out.kinds.push_back(grid_kind("pipe", "pp_proc_group (get_pipe_parallel_group)", gen, "pp", Pattern::PipelineP2p, {pipe},
                                  {model, data}));
    out.kinds.push_back(grid_kind("slice", "slice_proc_group (get_slice_parallel_group)", gen, "tp", Pattern::Ring, {model},
                                  {data, pipe}));
}

void add_expert(Groups& out, const Sizes& s) {
    const std::int64_t stage = s.world / s.pp;
    const Axis pipe = axis("pipe", s.pp, stage);
    const std::string key = "['ep_size_" + std::to_string(s.ep) + "']";
    const std::string ep_desc = "_EXPERT_PARALLEL_GROUP" + key;
    const std::string edp_desc = "_EXPERT_DATA_PARALLEL_GROUP" + key;
    std::vector<Axis> ep_m;
    std::vector<Axis> ep_u;
    std::vector<Axis> edp_m;
    std::vector<Axis> edp_u;
    if (s.path == "emd") {
        // _get_expert_parallel_ranks: per stage and tp lane t, the data-parallel list; ep groups
        // are runs of ep in it, expert-data groups zip the runs.
        const std::int64_t tp = s.mp;
        const std::int64_t runs = s.dp / s.ep;
        const Axis lane = axis("tp", tp, 1);
        if (!s.data_before_expert) {
            // list = stage + t + tp·j: ep = j mod ep, run = j / ep.
            const Axis e = axis("ep", s.ep, tp);
            const Axis x = axis("expert_dp", runs, tp * s.ep);
            ep_m = {e};
            ep_u = {lane, x, pipe};
            edp_m = {x};
            edp_u = {lane, e, pipe};
        } else {
            // list position ds·ep + k = stage + t + tp·(ds + runs·k).
            const Axis x = axis("expert_dp", runs, tp);
            const Axis e = axis("ep", s.ep, tp * runs);
            ep_m = {e};
            ep_u = {lane, x, pipe};
            edp_m = {x};
            edp_u = {lane, e, pipe};
        }
    } else {
        // legacy (and AutoEP, whose folding tables / consecutive "sp" ordering give the same
        // groups): per stage, E + D: ep runs of consecutive ranks, expert-data strided by ep;
        // D + E: expert-data runs of stage/ep consecutive ranks, ep strided by stage/ep.
        const std::int64_t runs = stage / s.ep;
        if (!s.data_before_expert) {
            const Axis e = axis("ep", s.ep, 1);
            const Axis x = axis("expert_dp", runs, s.ep);
            ep_m = {e};
            ep_u = {x, pipe};
            edp_m = {x};
            edp_u = {e, pipe};
        } else {
            const Axis x = axis("expert_dp", runs, 1);
            const Axis e = axis("ep", s.ep, runs);
            ep_m = {e};
            ep_u = {x, pipe};
            edp_m = {x};
            edp_u = {e, pipe};
        }
    }
    // Creation order: legacy builds expert-data first, the other paths expert first.
    GroupKind ep = grid_kind("expert", ep_desc, "expert", "ep", Pattern::AllToAll, ep_m, ep_u);
    GroupKind edp = grid_kind("expert_data", edp_desc, "expert", "expt_dp", Pattern::Ring, edp_m, edp_u);
    if (s.path == "legacy") {
        out.kinds.push_back(std::move(edp));
        out.kinds.push_back(std::move(ep));
    } else {
        out.kinds.push_back(std::move(ep));
        out.kinds.push_back(std::move(edp));
    }
}

// The equivalent Megatron sizes (Groups::spec): tp = mp, pp, dp; the expert generator with
// etp = mp for E + M + D, etp = 1 for legacy and AutoEP (their expert groups are consecutive
// runs, Megatron's etp-1 layout); D + E is Megatron's order tp-cp-dp-ep-pp. The sequence-parallel
// mesh maps sp to cp (its groups are Megatron's cp and dp groups with tp 1; the traffic differs:
// Ulysses all-to-all, not ring attention).
ResolvedSpec equivalent_spec(const Sizes& s) {
    ParallelSpec p;
    p.world = s.world;
    p.pp = s.pp;
    p.ep = s.ep;
    if (s.topology == "sp-mesh") {
        p.cp = s.mp;
    } else {
        p.tp = s.mp;
    }
    p.etp = s.path == "emd" ? s.mp : 1;
    p.order = s.data_before_expert && s.ep > 1 ? "tp-cp-dp-ep-pp" : "tp-cp-ep-dp-pp";
    return resolve_spec(p);
}

}  // namespace

Groups build_deepspeed_groups(const DeepSpeedDims& dims, const SpecSource& source) {
    const DsNamer n(source);
    const Sizes s = resolve(dims, n);
    Groups out;
    out.framework = "deepspeed";
    out.spec = equivalent_spec(s);
    add_dense(out, s);
    if (s.ep > 1) {
        add_expert(out, s);
    }
    if (s.zero_stage == 3) {
        // ZeRO-3 partitions replicated parameters over the (sequence-)data group and AutoEP
        // expert parameters over the expert-data group (engine.py _resolve_zero3_param_placement).
        for (auto& k : out.kinds) {
            if (k.role == "dp") {
                k.role = "fsdp";
            } else if (k.role == "expt_dp") {
                k.role = "efsdp";
            }
        }
    }
    return out;
}

}  // namespace planlayout
