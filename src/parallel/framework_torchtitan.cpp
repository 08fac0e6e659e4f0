// torchtitan groups (parallel/framework.hpp, docs/frameworks/torchtitan.md): ParallelDims of
// torchtitan/distributed/parallel_dims.py, two constructions:
//  - current (pytorch/torchtitan b5bcd76c, 2026-08-21): the world mesh unflattened into
//    [pp, batch, cp, tp] (+ loss = flatten(batch, cp)), the dense storage mesh
//    [pp, dp_replicate, dp_shard, cp, tp] and [pp, dp, cp, tp] (spmd_types) or
//    [pp, dp_replicate, fsdp, tp] (partial_dtensor), the sparse mesh [pp, dp_replicate, efsdp, ep];
//  - mesh_2025 (64dc922fc, 2025-12-12, the last commit before #1660 rewrote it with unflatten):
//    one init_device_mesh over [pp, dp_replicate, dp_shard, cp, tp] (EP: dp_shard split into
//    dp_shard_mod_ep, dp_shard_in_ep) with size-1 dims dropped, and _flatten dp, dp_shard_cp,
//    dp_cp (and ep).
// Every mesh is row-major over ranks 0..W-1, so every group is a Grid (mesh_kind.hpp).
#include <string>
#include <utility>
#include <vector>

#include "mesh_kind.hpp"
#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/parallel/framework.hpp"

namespace planlayout {
namespace {

class TitanNamer {
public:
    explicit TitanNamer(SpecSource s) : source_(std::move(s)) {}

    // "--dp-shard 3" for flags; "x.json (/parallel/dp_shard)" for files.
    [[nodiscard]] std::string where(const std::string& field, std::int64_t value) const {
        if (source_.file.empty()) {
            std::string flag = field;
            for (char& c : flag) {
                c = c == '_' ? '-' : c;
            }
            return "--" + flag + " " + std::to_string(value);
        }
        return source_.file + " (" + source_.pointer + "/" + field + ")";
    }

private:
    SpecSource source_;
};

std::string s(std::int64_t v) { return std::to_string(v); }

// Checks the degrees as ParallelDims._validate does (same conditions) and resolves dp_shard -1.
TorchtitanDims validate(TorchtitanDims d, const SpecSource& source) {
    const TitanNamer n(source);
    if (d.world < 1 || d.world > kMaxWorld) {
        throw input_error(n.where("world", d.world), "the world size must be between 1 and 2^31", "give the number of ranks");
    }
    const std::vector<std::pair<const char*, std::int64_t>> degrees = {
        {"dp_replicate", d.dp_replicate}, {"cp", d.cp}, {"tp", d.tp}, {"pp", d.pp}, {"ep", d.ep}, {"etp", d.etp}};
    for (const auto& [name, v] : degrees) {
        if (v < 1 || v > d.world) {
            throw input_error(n.where(name, v), std::string(name) + " must be between 1 and the world size " + s(d.world) +
                                                    " (ParallelDims: degrees are >= 1, except dp_shard)",
                              v < 1 ? std::string("give a degree of at least 1")
                                    : "give a degree of at most " + s(d.world) + ", or run on more GPUs (--nodes)");
        }
    }
    if (!(d.dp_shard == -1 || (d.dp_shard >= 1 && d.dp_shard <= d.world))) {
        throw input_error(n.where("dp_shard", d.dp_shard), "dp_shard must be -1 or >= 1 (ParallelDims)",
                          "give -1 (the rest of the world) or a degree");
    }
    if (!d.mesh_2025 && d.ep > 1 && d.etp != 1) {
        throw input_error(n.where("etp", d.etp),
                          "torchtitan has no expert tensor parallel degree since 2026-04 (#3167): experts are split by ep only",
                          "drop etp, or use --framework torchtitan:2025");
    }
    if (!d.mesh_2025 && d.spmd_backend != "spmd_types" && d.spmd_backend != "partial_dtensor") {
        throw input_error(source.file.empty() ? "--spmd-backend " + d.spmd_backend : source.file + " (" + source.pointer + "/spmd_backend)",
                          "parallelism.spmd_backend must be either 'partial_dtensor' or 'spmd_types'", "give one of the two");
    }
    // Products of degrees each <= world fit in int64 when formed step by step below the world.
    const std::int64_t others = d.dp_replicate * d.cp;
    const std::int64_t rest = others > d.world ? d.world + 1 : others * d.tp;
    const std::int64_t non_shard = rest > d.world ? d.world + 1 : rest * d.pp;
    if (d.dp_shard < 0) {
        d.dp_shard = non_shard > d.world ? 0 : d.world / non_shard;
        if (d.dp_shard < 1) {
            throw input_error(n.where("dp_shard", -1),
                              "dp_shard -1 leaves no ranks: dp_replicate*cp*tp*pp = " + s(d.dp_replicate) + "*" + s(d.cp) + "*" +
                                  s(d.tp) + "*" + s(d.pp) + " is more than the world size " + s(d.world),
                              "lower the degrees or raise the world size");
        }
    }
    if (non_shard > d.world || non_shard * d.dp_shard != d.world) {
        throw input_error(n.where("dp_shard", d.dp_shard),
                          "invalid parallel dims: dp_replicate(" + s(d.dp_replicate) + ") * dp_shard(" + s(d.dp_shard) + ") * cp(" +
                              s(d.cp) + ") * tp(" + s(d.tp) + ") * pp(" + s(d.pp) + ") != WORLD_SIZE(" + s(d.world) + ")",
                          "make the product equal the world size (dp_shard -1 takes the rest when it divides)");
    }
    if (!d.mesh_2025) {
        const std::int64_t sparse = d.dp_shard * d.cp * d.tp;
        if (sparse % d.ep != 0) {
            throw input_error(n.where("ep", d.ep),
                              "expert_parallel_degree (" + s(d.ep) + ") must divide dp_shard * cp * tp (" + s(sparse) + ")",
                              "pick an ep that divides " + s(sparse));
        }
    } else if (d.ep > 1) {
        if (d.etp != d.tp && d.etp != 1) {
            throw input_error(n.where("etp", d.etp), "torchtitan (2025) supports only ETP=TP or ETP=1, got etp " + s(d.etp) + " with tp " + s(d.tp),
                              "give etp " + s(d.tp) + " or 1");
        }
        if (d.etp == d.tp && !(d.ep % d.cp == 0 && (d.dp_shard * d.cp) % d.ep == 0)) {
            throw input_error(n.where("ep", d.ep),
                              "with etp = tp, EP borrows all of cp and part of dp_shard: cp(" + s(d.cp) + ") must divide ep(" + s(d.ep) +
                                  ") and ep must divide dp_shard*cp (" + s(d.dp_shard * d.cp) + ")",
                              "pick an ep that is a multiple of cp and divides dp_shard*cp");
        }
        if (d.etp == 1 && d.etp != d.tp &&
            !(d.ep % (d.cp * d.tp) == 0 && (d.dp_shard * d.cp * d.tp) % d.ep == 0)) {
            throw input_error(n.where("ep", d.ep),
                              "with etp = 1, EP borrows all of cp and tp and part of dp_shard: cp*tp (" + s(d.cp * d.tp) +
                                  ") must divide ep(" + s(d.ep) + ") and ep must divide dp_shard*cp*tp (" + s(d.dp_shard * d.cp * d.tp) + ")",
                              "pick an ep that is a multiple of cp*tp and divides dp_shard*cp*tp");
        }
    }
    return d;
}

std::vector<MeshDim> mesh_dims_of(const std::vector<std::pair<std::string, std::int64_t>>& v) {
    std::vector<MeshDim> out;
    out.reserve(v.size());
    for (const auto& [name, size] : v) {
        out.push_back(MeshDim{name, size});
    }
    return out;
}

std::size_t index_of(const std::vector<MeshDim>& dims, const std::string& name) {
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i].name == name) {
            return i;
        }
    }
    return dims.size();
}

// The groups of `names` (in mesh order) of `dims`.
GroupKind kind(const std::vector<MeshDim>& dims, const std::vector<std::string>& names, const std::string& kind_name,
               const std::string& role, const std::string& generator, const std::string& desc) {
    std::vector<std::size_t> picked;
    picked.reserve(names.size());
    for (const auto& nm : names) {
        picked.push_back(index_of(dims, nm));
    }
    return detail::mesh_kind(dims, picked, kind_name, role, generator, desc);
}

// Current ParallelDims.build_mesh (b5bcd76c). A kind is listed when ParallelDims creates it
// with a real backend: degree > 1, or _mesh_exist keeps it at size 1 (dp_shard under
// spmd_types, fsdp under partial_dtensor, efsdp when ep > 1).
void current_kinds(const TorchtitanDims& d, Groups& out) {
    const bool spmd = d.spmd_backend == "spmd_types";
    const std::int64_t batch = d.dp_replicate * d.dp_shard;
    const std::int64_t fsdp = d.dp_shard * d.cp;
    const std::int64_t efsdp = fsdp * d.tp / d.ep;
    const auto data = mesh_dims_of({{"pp", d.pp}, {"batch", batch}, {"cp", d.cp}, {"tp", d.tp}});
    const auto storage = spmd ? mesh_dims_of({{"pp", d.pp}, {"dp_replicate", d.dp_replicate}, {"dp_shard", d.dp_shard}, {"cp", d.cp}, {"tp", d.tp}})
                              : mesh_dims_of({{"pp", d.pp}, {"dp_replicate", d.dp_replicate}, {"fsdp", fsdp}, {"tp", d.tp}});
    const auto fwdbwd = mesh_dims_of({{"pp", d.pp}, {"dp", batch}, {"cp", d.cp}, {"tp", d.tp}});
    const auto sparse = mesh_dims_of({{"pp", d.pp}, {"dp_replicate", d.dp_replicate}, {"efsdp", efsdp}, {"ep", d.ep}});
    auto& k = out.kinds;
    const std::string dl = "dataloading mesh [pp, batch, cp, tp]";
    if (d.pp > 1) k.push_back(kind(data, {"pp"}, "pp", "pp", "dense", dl));
    if (batch > 1) k.push_back(kind(data, {"batch"}, "batch", "", "dense", dl + " (data loading, no collectives)"));
    if (d.cp > 1) k.push_back(kind(data, {"cp"}, "cp", "cp", "dense", dl));
    if (d.tp > 1) k.push_back(kind(data, {"tp"}, "tp", "tp", "dense", dl));
    if (batch * d.cp > 1) k.push_back(kind(data, {"batch", "cp"}, "loss", "", "dense", "loss_mesh = flatten(batch, cp): loss all-reduce"));
    const std::string st = spmd ? "dense storage mesh [pp, dp_replicate, dp_shard, cp, tp]" : "dense mesh [pp, dp_replicate, fsdp, tp]";
    if (d.dp_replicate > 1) k.push_back(kind(storage, {"dp_replicate"}, "dp_replicate", "dp_replicate", "dense", st + " (HSDP/DDP replicas)"));
    if (spmd) {
        // FSDP shards over (dp_shard, cp) when cp > 1 (distributed/fsdp.py resolve_fsdp_mesh):
        // that group is the dp_shard_cp kind below, and dp_shard alone then carries no FSDP traffic.
        k.push_back(kind(storage, {"dp_shard"}, "dp_shard", d.cp > 1 ? "" : "fsdp", "dense", st + " (kept at size 1)"));
        if (batch > 1) k.push_back(kind(fwdbwd, {"dp"}, "dp", "", "dense", "spmd dense mesh [pp, dp, cp, tp] (type checking)"));
    } else {
        k.push_back(kind(storage, {"fsdp"}, "fsdp", "fsdp", "dense", st + " (kept at size 1)"));
    }
    const std::string sp = "sparse mesh [pp, dp_replicate, efsdp, ep]";
    if (d.ep > 1) k.push_back(kind(sparse, {"efsdp"}, "efsdp", "efsdp", "expert", sp + " (kept at size 1 with ep > 1)"));
    if (d.ep > 1) k.push_back(kind(sparse, {"ep"}, "ep", "ep", "expert", sp));
    if (spmd && d.cp > 1) {
        k.push_back(kind(storage, {"dp_shard", "cp"}, "dp_shard_cp", "fsdp", "dense",
                         "FSDP's shard group (dp_shard, cp): fsdp.py resolve_fsdp_mesh, not a ParallelDims mesh"));
    }
}

// ParallelDims at 64dc922fc (2025-12-12): one init_device_mesh, size-1 dims dropped
// (dp_shard_mod_ep kept), then _flatten dp, dp_shard_cp, dp_cp (and ep).
void kinds_2025(const TorchtitanDims& d, Groups& out) {
    std::vector<std::pair<std::string, std::int64_t>> all;
    std::vector<std::string> dp, dp_shard_cp, dp_cp, ep;
    if (d.ep > 1) {
        const std::int64_t borrowed = d.etp == d.tp ? d.cp : d.cp * d.tp;
        const std::int64_t mod_ep = d.dp_shard * borrowed / d.ep;
        const std::int64_t in_ep = d.ep / borrowed;
        all = {{"pp", d.pp}, {"dp_replicate", d.dp_replicate}, {"dp_shard_mod_ep", mod_ep}, {"dp_shard_in_ep", in_ep}, {"cp", d.cp}, {"tp", d.tp}};
    } else {
        all = {{"pp", d.pp}, {"dp_replicate", d.dp_replicate}, {"dp_shard", d.dp_shard}, {"cp", d.cp}, {"tp", d.tp}};
    }
    std::vector<std::pair<std::string, std::int64_t>> kept;
    for (const auto& p : all) {
        if (p.second > 1 || p.first == "dp_shard_mod_ep") {
            kept.push_back(p);
        }
    }
    const auto mesh = mesh_dims_of(kept);
    const auto has = [&](const std::string& nm) { return index_of(mesh, nm) < mesh.size(); };
    if (d.dp_replicate > 1) {
        dp.emplace_back("dp_replicate");
        dp_cp.emplace_back("dp_replicate");
    }
    for (const std::string nm : {"dp_shard", "dp_shard_mod_ep", "dp_shard_in_ep"}) {
        if (has(nm)) {
            dp.push_back(nm);
            dp_shard_cp.push_back(nm);
            dp_cp.push_back(nm);
            if (nm == "dp_shard_in_ep") ep.push_back(nm);
        }
    }
    if (d.cp > 1) {
        dp_shard_cp.emplace_back("cp");
        dp_cp.emplace_back("cp");
        ep.emplace_back("cp");
    }
    if (d.ep > 1 && d.etp == 1 && d.tp > 1) ep.emplace_back("tp");

    const std::string m = "init_device_mesh dim";
    for (const auto& dim : mesh) {
        std::string role;
        if (dim.name == "pp" || dim.name == "cp" || dim.name == "tp" || dim.name == "dp_replicate") role = dim.name;
        if (dim.name == "dp_shard_mod_ep") role = "efsdp";  // experts are FSDP-sharded over it
        out.kinds.push_back(kind(mesh, {dim.name}, dim.name, role, dim.name == "dp_shard_mod_ep" ? "expert" : "dense", m));
    }
    if (!dp.empty()) out.kinds.push_back(kind(mesh, dp, "dp", "", "dense", "_flatten: data loading"));
    if (!dp_shard_cp.empty()) out.kinds.push_back(kind(mesh, dp_shard_cp, "dp_shard_cp", "fsdp", "dense", "_flatten: FSDP param sharding"));
    if (!dp_cp.empty()) out.kinds.push_back(kind(mesh, dp_cp, "dp_cp", "", "dense", "_flatten: loss all-reduce"));
    if (d.ep > 1) out.kinds.push_back(kind(mesh, ep, "ep", "ep", "expert", "_flatten: expert parallel"));
}

}  // namespace

Groups build_torchtitan_groups(const TorchtitanDims& dims, const SpecSource& source) {
    const TorchtitanDims d = validate(dims, source);
    Groups out;
    if (d.mesh_2025) {
        kinds_2025(d, out);
    } else {
        current_kinds(d, out);
    }
    // The equivalent Megatron sizes: dp = dp_replicate*dp_shard, order tp-cp-ep-dp-pp; experts
    // with etp 1 (current torchtitan: the sparse mesh has no tp) or the 2025 etp when ep > 1.
    ParallelSpec spec;
    spec.world = d.world;
    spec.tp = d.tp;
    spec.cp = d.cp;
    spec.pp = d.pp;
    spec.ep = d.ep;
    spec.etp = d.mesh_2025 && d.ep > 1 ? d.etp : 1;
    spec.dp = d.dp_replicate * d.dp_shard;
    out.spec = resolve_spec(spec, source);
    return out;
}

}  // namespace planlayout
