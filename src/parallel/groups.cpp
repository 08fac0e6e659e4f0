// Groups: Megatron-Core's group kinds (docs/commands/groups.md) as arithmetic over the two rank generators.
#include "planlayout/parallel/groups.hpp"

#include <algorithm>
#include <cassert>
#include <set>
#include <sstream>

namespace planlayout {
namespace {

// Splits a generator token ("tp-ep-pp") into the masked/unmasked axes of a Grid. Only the set
// of names matters; the axes keep the generator's order (docs/commands/groups.md).
Grid make_grid(const std::vector<Axis>& axes, const std::string& token, std::int64_t offset) {
    std::set<std::string> names;
    std::stringstream ss(token);
    for (std::string t; std::getline(ss, t, '-');) {
        names.insert(t);
    }
    // "gtp_remat" holds a '-'-free name, so the split above keeps it whole.
    Grid g;
    g.offset = offset;
    for (const auto& a : axes) {
        (names.count(a.name) ? g.masked : g.unmasked).push_back(a);
    }
    return g;
}

std::int64_t product(const std::vector<Axis>& axes) {
    std::int64_t p = 1;
    for (const auto& a : axes) {
        p *= a.size;
    }
    return p;
}

std::int64_t compose(const std::vector<Axis>& axes, std::int64_t index) {
    std::int64_t rank = 0;
    for (const auto& a : axes) {
        rank += (index % a.size) * a.stride;
        index /= a.size;
    }
    return rank;
}

std::int64_t decompose(const std::vector<Axis>& axes, std::int64_t rel) {
    std::int64_t index = 0;
    std::int64_t scale = 1;
    for (const auto& a : axes) {
        index += ((rel / a.stride) % a.size) * scale;
        scale *= a.size;
    }
    return index;
}

}  // namespace

std::int64_t Grid::group_count() const { return product(unmasked); }

std::int64_t Grid::group_size() const { return product(masked); }

std::int64_t Grid::member(std::int64_t group, std::int64_t k) const {
    return offset + compose(unmasked, group) + compose(masked, k);
}

std::pair<std::int64_t, std::int64_t> Grid::locate(std::int64_t rank) const {
    const std::int64_t rel = rank - offset;
    return {decompose(unmasked, rel), decompose(masked, rel)};
}

std::int64_t GroupKind::group_count() const {
    switch (derivation) {
        case KindDerivation::Split:
            return base.group_count() * (base.group_size() / split_size);
        case KindDerivation::Concat:
            return base.group_count() / concat;
        default:
            return base.group_count();
    }
}

std::int64_t GroupKind::group_size() const {
    switch (derivation) {
        case KindDerivation::Split:
            return split_size;
        case KindDerivation::Select:
            return static_cast<std::int64_t>(select.size());
        case KindDerivation::Concat:
            return base.group_size() * concat;
        default:
            return base.group_size();
    }
}

std::int64_t GroupKind::member(std::int64_t g, std::int64_t k) const {
    switch (derivation) {
        case KindDerivation::Split: {
            const std::int64_t per_base = base.group_size() / split_size;
            const std::int64_t sub = g % per_base;
            const std::int64_t b = sub / split_stride;
            const std::int64_t o = sub % split_stride;
            return base.member(g / per_base, b * split_stride * split_size + o + k * split_stride);
        }
        case KindDerivation::Select:
            return base.member(g, select[static_cast<std::size_t>(k)]);
        case KindDerivation::Concat: {
            const std::int64_t n = base.group_size();
            return base.member(g * concat + k / n, k % n);
        }
        default:
            return base.member(g, k);
    }
}

std::optional<std::pair<std::int64_t, std::int64_t>> GroupKind::find(std::int64_t rank) const {
    const std::int64_t world = product(base.masked) * product(base.unmasked);
    if (rank < base.offset || rank >= base.offset + world) {
        return std::nullopt;
    }
    const auto [g, p] = base.locate(rank);
    switch (derivation) {
        case KindDerivation::Split: {
            const std::int64_t u = split_stride;
            const std::int64_t h = split_size;
            const std::int64_t per_base = base.group_size() / h;
            const std::int64_t b = p / (u * h);
            const std::int64_t o = p % u;
            const std::int64_t m = (p % (u * h)) / u;
            return std::make_pair(g * per_base + b * u + o, m);
        }
        case KindDerivation::Select: {
            const auto it = std::find(select.begin(), select.end(), p);
            if (it == select.end()) {
                return std::nullopt;
            }
            return std::make_pair(g, static_cast<std::int64_t>(it - select.begin()));
        }
        case KindDerivation::Concat:
            return std::make_pair(g / concat, (g % concat) * base.group_size() + p);
        default:
            return std::make_pair(g, p);
    }
}

std::vector<std::int64_t> GroupKind::group(std::int64_t g) const {
    std::vector<std::int64_t> ranks(static_cast<std::size_t>(group_size()));
    for (std::int64_t k = 0; k < group_size(); ++k) {
        ranks[static_cast<std::size_t>(k)] = member(g, k);
    }
    return ranks;
}

const GroupKind* Groups::find(const std::string& name) const {
    for (const auto& k : kinds) {
        if (k.name == name) {
            return &k;
        }
    }
    return nullptr;
}

const GroupKind* Groups::find_role(const std::string& role) const {
    for (const auto& k : kinds) {
        if (k.role == role) {
            return &k;
        }
    }
    return nullptr;
}

std::vector<std::string> all_kind_names(const Groups& groups) {
    std::vector<std::string> names;
    for (const auto& k : groups.kinds) {
        names.push_back(k.name);
    }
    return names;
}

Groups build_groups(const ResolvedSpec& spec) {
    Groups out;
    out.spec = spec;
    auto& kinds = out.kinds;
    const std::int64_t off = spec.rank_offset;
    auto dense = [&](const std::string& token) { return make_grid(spec.dense, token, off); };
    auto expert = [&](const std::string& token) { return make_grid(spec.expert, token, off); };
    auto add = [&](std::string name, std::string desc, std::string gen, std::string token, Grid grid) -> GroupKind& {
        GroupKind k;
        k.name = std::move(name);
        k.group_desc = std::move(desc);
        k.generator = std::move(gen);
        k.token = std::move(token);
        k.base = std::move(grid);
        k.role = k.name;
        if (k.name == "ep") {
            k.pattern = Pattern::AllToAll;
        } else if (k.name == "pp") {
            k.pattern = Pattern::PipelineP2p;
        }
        kinds.push_back(std::move(k));
        return kinds.back();
    };
    auto add_split = [&](std::string name, std::string desc, std::string gen, std::string token, Grid grid,
                         std::int64_t u, std::int64_t h) {
        GroupKind& k = add(std::move(name), std::move(desc), std::move(gen), std::move(token), std::move(grid));
        k.derivation = KindDerivation::Split;
        k.split_stride = u;
        k.split_size = h;
    };
    const std::int64_t k_inst = spec.dist_opt_instances;
    const bool gtp_on = spec.gtp > 1 || spec.egtp > 1;

    add("gtp_remat", "GTP_WEIGHT_REMAT_GROUP", "dense", "gtp_remat", dense("gtp_remat"));
    add("dp_cp", "DATA_PARALLEL_GROUP_WITH_CP", "dense", "dp-cp", dense("dp-cp"));
    const std::int64_t dp_cp = spec.dp * spec.cp;
    if (k_inst > 1) {
        add_split("intra_partial_dp_cp", "INTRA_PARTIAL_DATA_PARALLEL_GROUP_WITH_CP", "dense", "dp-cp",
                  dense("dp-cp"), 1, dp_cp / k_inst);
    }
    if (spec.hybrid_cp) {
        // Sizes 2, 4, ..., 2^(floor(log2 n) - 1), contiguous chunks of each dp_cp group.
        std::int64_t log2n = 0;
        while ((std::int64_t{2} << log2n) <= dp_cp) {
            ++log2n;
        }
        for (std::int64_t s = 2; s <= (std::int64_t{1} << (log2n - 1)) && log2n >= 1; s *= 2) {
            if (dp_cp % s == 0) {
                add_split("hybrid_dp_cp_" + std::to_string(s), "HYBRID_DP_CP_GROUP_" + std::to_string(s), "dense",
                          "dp-cp", dense("dp-cp"), 1, s);
            }
        }
    }
    add("dp", "DATA_PARALLEL_GROUP", "dense", "dp", dense("dp"));
    if (spec.gtp > 1) {
        add("gtp_remat_dp", "DATA_PARALLEL_GROUP_WITH_GTP_REMAT", "dense", "gtp_remat-dp", dense("gtp_remat-dp"));
        add("gtp_remat_dp_cp", "DATA_PARALLEL_GROUP_WITH_CP_WITH_GTP_REMAT", "dense", "gtp_remat-dp-cp",
            dense("gtp_remat-dp-cp"));
    }
    add("cp", "CONTEXT_PARALLEL_GROUP", "dense", "cp", dense("cp"));
    if (!spec.hierarchical_cp.empty()) {
        std::int64_t u = 1;
        for (std::size_t i = 0; i < spec.hierarchical_cp.size(); ++i) {
            const std::int64_t h = spec.hierarchical_cp[i];
            add_split("hcp_l" + std::to_string(i), "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L" + std::to_string(i),
                      "dense", "cp", dense("cp"), u, h);
            u *= h;
        }
    }
    add("mp", "MODEL_PARALLEL_GROUP", "dense", "tp-gtp_remat-pp", dense("tp-gtp_remat-pp"));
    add("tp", "TENSOR_MODEL_PARALLEL_GROUP", "dense", "tp", dense("tp"));
    add("pp", "PIPELINE_MODEL_PARALLEL_GROUP", "dense", "pp", dense("pp"));
    {
        GroupKind& e = add("embd", "EMBEDDING_GROUP", "dense", "pp", dense("pp"));
        e.derivation = KindDerivation::Select;
        e.pattern = Pattern::Embedding;
        e.select = spec.pp == 1 ? std::vector<std::int64_t>{0} : std::vector<std::int64_t>{0, spec.pp - 1};
        GroupKind& p = add("pos_embd", "POSITION_EMBEDDING_GROUP", "dense", "pp", dense("pp"));
        p.derivation = KindDerivation::Select;
        p.pattern = Pattern::Embedding;
        p.select = {0};
    }
    add("tp_dp_cp", "TENSOR_AND_DATA_PARALLEL_GROUP_WITH_CP", "dense", "tp-gtp_remat-dp-cp",
        dense("tp-gtp_remat-dp-cp"));
    add("tp_dp", "TENSOR_AND_DATA_PARALLEL_GROUP", "dense", "tp-gtp_remat-dp", dense("tp-gtp_remat-dp"));
    add("tp_cp", "TENSOR_AND_CONTEXT_PARALLEL_GROUP", "dense", "tp-cp", dense("tp-cp"));
    add("expt_gtp_remat", "EXPERT_GTP_WEIGHT_REMAT_GROUP", "expert", "gtp_remat", expert("gtp_remat"));
    add("ep", "EXPERT_MODEL_PARALLEL_GROUP", "expert", "ep", expert("ep"));
    add("expt_tp", "EXPERT_TENSOR_PARALLEL_GROUP", "expert", "tp", expert("tp"));
    add("tp_ep", "EXPERT_TENSOR_AND_MODEL_PARALLEL_GROUP", "expert", "tp-ep", expert("tp-ep"));
    add("tp_ep_pp", "EXPERT_TENSOR_MODEL_PIPELINE_PARALLEL_GROUP", "expert", "tp-ep-pp", expert("tp-ep-pp"));
    add("tp_ep_egtp_pp", "EXPERT_TENSOR_MODEL_PIPELINE_PARALLEL_GROUP_WITH_EGTP", "expert", "tp-ep-gtp_remat-pp",
        expert("tp-ep-gtp_remat-pp"));
    add("expt_dp", "EXPERT_DATA_PARALLEL_GROUP", "expert", "dp", expert("dp"));
    if (k_inst > 1) {
        const std::int64_t intra = spec.expert_dp / k_inst;
        add_split("intra_partial_expt_dp", "HIERARCHICAL_EXPERT_DATA_PARALLEL_GROUP_L0", "expert", "dp",
                  expert("dp"), 1, intra);
        add_split("inter_partial_expt_dp", "HIERARCHICAL_EXPERT_DATA_PARALLEL_GROUP_L1", "expert", "dp",
                  expert("dp"), intra, k_inst);
    }
    if (spec.egtp > 1) {
        add("expt_gtp_remat_dp", "EXPERT_DATA_PARALLEL_GROUP_WITH_GTP_REMAT", "expert", "gtp_remat-dp",
            expert("gtp_remat-dp"));
    }
    if (gtp_on) {
        // One sorted group of the whole grid.
        add("intra_dist_opt_instance", "INTRA_DISTRIBUTED_OPTIMIZER_INSTANCE_GROUP", "dense",
            "tp-gtp_remat-cp-ep-dp-pp", dense("tp-gtp_remat-cp-ep-dp-pp"));
    } else {
        GroupKind& k = add("intra_dist_opt_instance", "INTRA_DISTRIBUTED_OPTIMIZER_INSTANCE_GROUP", "expert",
                           "tp-ep-pp", expert("tp-ep-pp"));
        k.derivation = KindDerivation::Concat;
        k.concat = spec.expert_dp / k_inst;
    }
    return out;
}

}  // namespace planlayout
