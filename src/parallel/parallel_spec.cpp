// Parallel spec: validation by Megatron-Core's rules (docs/commands/groups.md), with errors that say what to fix.
#include "planlayout/parallel/parallel_spec.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"

namespace planlayout {
namespace {

// Flag spellings for messages about command-line specs.
const std::map<std::string, std::string>& flag_names() {
    static const std::map<std::string, std::string> kFlags = {
        {"tp", "--tp"},
        {"pp", "--pp"},
        {"cp", "--cp"},
        {"ep", "--ep"},
        {"etp", "--etp"},
        {"dp", "--dp"},
        {"vpp", "--vpp"},
        {"order", "--order"},
        {"world", "--world"},
        {"rank_offset", "--rank-offset"},
        {"local_world_size", "--local-world-size"},
        {"dist_opt_instances", "--num-distributed-optimizer-instances"},
        {"hierarchical_cp", "--hierarchical-context-parallel-sizes"},
        {"hybrid_cp", "--hybrid-context-parallel"},
        {"gtp", "--gtp"},
        {"egtp", "--egtp"},
    };
    return kFlags;
}

class Namer {
public:
    explicit Namer(const SpecSource& s) : source_(s) {}

    // "--tp 3" for flags; "x.json (/parallel/tp)" for files.
    [[nodiscard]] std::string where(const std::string& field, const std::string& value) const {
        if (source_.file.empty()) {
            return flag_names().at(field) + " " + value;
        }
        return source_.file + " (" + source_.pointer + "/" + field + ")";
    }

    [[nodiscard]] std::string where(const std::string& field, std::int64_t value) const {
        return where(field, std::to_string(value));
    }

    // How to refer to a field inside a hint: "--tp" or "tp".
    [[nodiscard]] std::string name(const std::string& field) const {
        return source_.file.empty() ? flag_names().at(field) : field;
    }

    [[nodiscard]] bool from_file() const { return !source_.file.empty(); }

private:
    const SpecSource& source_;
};

std::string join_ints(const std::vector<std::int64_t>& v, const char* sep) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) {
        s += (i ? sep : "") + std::to_string(v[i]);
    }
    return s;
}

std::vector<std::int64_t> divisors_fitting(std::int64_t world, std::int64_t others) {
    std::vector<std::int64_t> out;
    for (std::int64_t d = 1; d * d <= world; ++d) {
        if (world % d == 0) {
            out.push_back(d);
            if (d != world / d) {
                out.push_back(world / d);
            }
        }
    }
    std::sort(out.begin(), out.end());
    std::vector<std::int64_t> fit;
    for (auto d : out) {
        if (others > 0 && world % others == 0 && (world / others) % d == 0) {
            fit.push_back(d);
        }
    }
    return fit;
}

void require_positive(const Namer& n, const std::string& field, std::int64_t v) {
    if (v < 1) {
        throw input_error(n.where(field, v), field + " must be at least 1, got " + std::to_string(v),
                          field == "world" ? "give a positive number of ranks"
                                           : "set " + n.name(field) + " to a positive size (1 disables that parallelism)");
    }
    if (v > kMaxWorld) {
        throw input_error(n.where(field, v), field + " = " + std::to_string(v) + " is over the limit of 2^31",
                          "use a size of at most 2147483648");
    }
}

// The fix for an expert grid that does not fit: the ep values that do, and — when etp was left to
// default to tp — the usual fix, expert tensor parallelism 1 (most MoE launches set it).
std::string expert_grid_hint(const Namer& n, const ResolvedSpec& r, std::int64_t w, const std::vector<std::int64_t>& valid) {
    std::string hint = valid.empty() ? "reduce etp or pp" : "valid ep values here: " + join_ints(valid, ", ");
    const std::int64_t without_etp = r.ep * r.pp * r.egtp;
    if (r.etp > 1 && without_etp <= w && w % without_etp == 0) {
        hint += "; or set " + n.name("etp") + " 1 (etp defaults to tp = " + std::to_string(r.tp) +
                "; MoE launches usually give --expert-tensor-parallel-size 1)";
    }
    return hint;
}

std::vector<std::string> split_order(const std::string& order) {
    std::vector<std::string> tokens;
    std::stringstream ss(order);
    std::string t;
    while (std::getline(ss, t, '-')) {
        tokens.push_back(t);
    }
    return tokens;
}

// Builds one generator's axes from the order tokens and the sizes (docs/commands/groups.md): GTP's
// gtp_remat axis is injected after `inject_after` (falls back to after tp, else first).
std::vector<Axis> make_axes(const std::vector<std::string>& tokens,
                            const std::map<std::string, std::int64_t>& sizes,
                            const std::string& inject_after) {
    std::vector<std::string> names = tokens;
    auto it = std::find(names.begin(), names.end(), inject_after);
    if (it == names.end()) {
        it = std::find(names.begin(), names.end(), "tp");
    }
    names.insert(it == names.end() ? names.begin() : it + 1, "gtp_remat");
    std::vector<Axis> axes;
    std::int64_t stride = 1;
    for (const auto& name : names) {
        const std::int64_t size = sizes.at(name);
        axes.push_back({name, size, stride});
        stride *= size;
    }
    // Axes absent from the order have size 1 here (checked by the caller): append them.
    for (const auto& [name, size] : sizes) {
        if (std::find(names.begin(), names.end(), name) == names.end()) {
            axes.push_back({name, size, stride});
        }
    }
    return axes;
}

std::int64_t stride_of(const std::vector<Axis>& axes, const std::string& name) {
    for (const auto& a : axes) {
        if (a.name == name) {
            return a.stride;
        }
    }
    return 0;
}

// Every size given is checked: at least 1, the rank offset inside the world, the local world
// inside the world from the offset.
void check_sizes(const Namer& n, const ParallelSpec& spec) {
    require_positive(n, "world", spec.world);
    for (const auto& [field, v] : std::vector<std::pair<std::string, std::int64_t>>{
             {"tp", spec.tp}, {"pp", spec.pp}, {"cp", spec.cp}, {"ep", spec.ep}, {"gtp", spec.gtp},
             {"egtp", spec.egtp}, {"dist_opt_instances", spec.dist_opt_instances}}) {
        require_positive(n, field, v);
    }
    if (spec.etp) {
        require_positive(n, "etp", *spec.etp);
    }
    if (spec.dp) {
        require_positive(n, "dp", *spec.dp);
    }
    if (spec.vpp) {
        require_positive(n, "vpp", *spec.vpp);
    }
    if (spec.rank_offset < 0 || spec.rank_offset >= spec.world) {
        throw input_error(n.where("rank_offset", spec.rank_offset),
                          "rank offset must be in [0, world) = [0, " + std::to_string(spec.world) + ")",
                          "set " + n.name("rank_offset") + " to 0 unless the grid starts mid-world");
    }
    if (spec.local_world_size) {
        require_positive(n, "local_world_size", *spec.local_world_size);
        if (spec.rank_offset + *spec.local_world_size > spec.world) {
            throw input_error(n.where("local_world_size", *spec.local_world_size),
                              "rank offset + local world size = " + std::to_string(spec.rank_offset) + " + " +
                                  std::to_string(*spec.local_world_size) + " exceeds the world of " +
                                  std::to_string(spec.world),
                              "make the grid fit inside the world");
        }
    }
}

// The sizes as given (etp defaulting to tp); dp, expert dp, the order and the axes still unset.
ResolvedSpec given_sizes(const ParallelSpec& spec) {
    ResolvedSpec r;
    r.world = spec.world;
    r.rank_offset = spec.rank_offset;
    r.grid_world = spec.local_world_size.value_or(spec.world - spec.rank_offset);
    r.tp = spec.tp;
    r.pp = spec.pp;
    r.cp = spec.cp;
    r.ep = spec.ep;
    r.etp = spec.etp.value_or(spec.tp);
    r.gtp = spec.gtp;
    r.egtp = spec.egtp;
    r.dist_opt_instances = spec.dist_opt_instances;
    r.vpp = spec.vpp;
    r.hierarchical_cp = spec.hierarchical_cp;
    r.hybrid_cp = spec.hybrid_cp;
    return r;
}

// The error of Rule 1 (W % (tp·pp·cp·gtp) != 0): it blames the first factor that does not divide
// W on its own, else the last one above 1, and lists the values of that factor that fit.
Error model_grid_error(const Namer& n, const ResolvedSpec& r, std::int64_t w) {
    const std::vector<std::pair<std::string, std::int64_t>> factors = {
        {"tp", r.tp}, {"pp", r.pp}, {"cp", r.cp}, {"gtp", r.gtp}};
    std::string blame = "tp";
    bool found = false;
    for (const auto& [f, v] : factors) {
        if (w % v != 0) {
            blame = f;
            found = true;
            break;
        }
    }
    if (!found) {
        for (const auto& [f, v] : factors) {
            if (v > 1) {
                blame = f;
            }
        }
    }
    std::int64_t blamed_value = 1;
    std::int64_t others = 1;
    for (const auto& [f, v] : factors) {
        if (f == blame) {
            blamed_value = v;
        } else {
            others *= v;
        }
    }
    const bool show_gtp = r.gtp > 1;
    const std::string names = show_gtp ? "tp*pp*cp*gtp" : "tp*pp*cp";
    std::string product = std::to_string(r.tp) + "*" + std::to_string(r.pp) + "*" + std::to_string(r.cp);
    if (show_gtp) {
        product += "*" + std::to_string(r.gtp);
    }
    const auto valid = divisors_fitting(w, others);
    return input_error(n.where(blame, blamed_value),
                       "world size " + std::to_string(w) + " is not divisible by " + names + " = " + product,
                       valid.empty() ? "reduce the other sizes so their product divides " + std::to_string(w)
                                     : "valid " + blame + " values here: " + join_ints(valid, ", "));
}

// The order's tokens (lower case, in r.order): known tokens, no duplicates, tp present, every
// size > 1 named (Rule 3).
std::vector<std::string> order_tokens(const Namer& n, const ParallelSpec& spec, ResolvedSpec& r) {
    std::string order = spec.order;
    std::transform(order.begin(), order.end(), order.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    r.order = order;
    auto tokens = split_order(order);
    const std::set<std::string> known = {"tp", "cp", "ep", "dp", "pp"};
    std::set<std::string> seen;
    for (const auto& t : tokens) {
        if (known.count(t) == 0) {
            throw input_error(n.where("order", "'" + spec.order + "'"),
                              "unknown token '" + t + "' in the rank order",
                              "use tokens from tp, cp, ep, dp, pp joined by '-', e.g. tp-cp-ep-dp-pp");
        }
        if (!seen.insert(t).second) {
            throw input_error(n.where("order", "'" + spec.order + "'"), "token '" + t + "' appears twice in the rank order",
                              "name each of tp, cp, ep, dp, pp at most once, e.g. tp-cp-ep-dp-pp");
        }
    }
    if (seen.count("tp") == 0) {
        throw input_error(n.where("order", "'" + spec.order + "'"), "the rank order has no 'tp' token",
                          "Megatron-Core needs tp in the order (it anchors the GTP axis); put it first, e.g. tp-" + order);
    }
    for (const auto& [name, size] : std::map<std::string, std::int64_t>{
             {"tp", std::max(r.tp, r.etp)}, {"cp", r.cp}, {"ep", r.ep}, {"dp", std::max(r.dp, r.expert_dp)}, {"pp", r.pp}}) {
        if (size > 1 && seen.count(name) == 0) {
            throw input_error(n.where("order", "'" + spec.order + "'"),
                              name + " has size " + std::to_string(size) + " but the rank order does not name it",
                              "add " + name + " to the order, e.g. tp-cp-ep-dp-pp");
        }
    }
    return tokens;
}

// Rules 4 to 6: the two generators' pipeline groups agree, and virtual stages need pp > 1.
void check_pipeline(const Namer& n, const ParallelSpec& spec, const ResolvedSpec& r, const std::vector<std::string>& tokens) {
    // Rule 4: pp not last ⇒ expert_dp == dp.
    if (r.pp > 1 && tokens.back() != "pp" && r.expert_dp != r.dp) {
        throw input_error(n.where("order", "'" + spec.order + "'"),
                          "with pp > 1 and pp not last in the order, expert dp must equal dp, but expert dp = W/(etp*ep*pp) = " +
                              std::to_string(r.expert_dp) + " and dp = W/(tp*pp*cp) = " + std::to_string(r.dp),
                          "choose etp*ep = tp*cp (" + std::to_string(r.tp * r.cp) + "), or put pp last (tp-cp-ep-dp-pp)");
    }
    // Rule 5: both generators must build identical pp groups: the pp strides must agree.
    if (r.pp > 1 && stride_of(r.dense, "pp") != stride_of(r.expert, "pp")) {
        throw input_error(n.where("order", "'" + spec.order + "'"),
                          "the dense and expert pipeline groups differ: pp stride " +
                              std::to_string(stride_of(r.dense, "pp")) + " (dense) vs " +
                              std::to_string(stride_of(r.expert, "pp")) + " (expert)",
                          "choose etp*ep = tp*cp, or put pp last (tp-cp-ep-dp-pp)");
    }
    // Rule 6.
    if (r.vpp && r.pp == 1) {
        throw input_error(n.where("vpp", *r.vpp), "virtual pipeline stages need pp > 1",
                          "drop " + n.name("vpp") + " or set " + n.name("pp") + " above 1");
    }
}

// Rules 7 and 8: distributed-optimizer instances, hierarchical and hybrid CP.
void check_optimizer_and_cp(const Namer& n, const ResolvedSpec& r) {
    // Rule 7: distributed-optimizer instances.
    const std::int64_t k = r.dist_opt_instances;
    if ((r.dp * r.cp) % k != 0 || r.expert_dp % k != 0) {
        throw input_error(n.where("dist_opt_instances", k),
                          "dp*cp = " + std::to_string(r.dp * r.cp) + " and expert dp = " + std::to_string(r.expert_dp) +
                              " must both be divisible by the " + std::to_string(k) + " optimizer instances",
                          "choose a number of instances that divides both");
    }
    if (k > 1 && (r.gtp > 1 || r.egtp > 1)) {
        throw input_error(n.where("dist_opt_instances", k), "GTP (gtp or egtp > 1) requires one optimizer instance",
                          "set " + n.name("dist_opt_instances") + " to 1");
    }
    // Rule 8: hierarchical and hybrid CP.
    if (!r.hierarchical_cp.empty()) {
        std::int64_t prod = 1;
        bool over = false;  // the product would overflow int64 (found by fuzzing): stop multiplying
        for (auto h : r.hierarchical_cp) {
            require_positive(n, "hierarchical_cp", h);
            if (over || prod > std::numeric_limits<std::int64_t>::max() / h) {
                over = true;
            } else {
                prod *= h;
            }
        }
        if (over || prod != r.cp) {
            throw input_error(n.where("hierarchical_cp", join_ints(r.hierarchical_cp, " ")),
                              "the hierarchical CP sizes multiply to " + join_ints(r.hierarchical_cp, "*") + " = " +
                                  (over ? "more than " + std::to_string(r.cp) : std::to_string(prod)) +
                                  ", not cp = " + std::to_string(r.cp),
                              "give sizes whose product is " + std::to_string(r.cp));
        }
    }
    if (r.hybrid_cp && (r.dp * r.cp) % 2 != 0) {
        throw input_error(n.where("hybrid_cp", "true"),
                          "hybrid CP needs even dp*cp groups, but dp*cp = " + std::to_string(r.dp * r.cp),
                          "choose sizes that make dp*cp even, or turn hybrid CP off");
    }
}

}  // namespace

std::string axes_order(const std::vector<Axis>& axes) {
    std::string s;
    for (const auto& a : axes) {
        s += (s.empty() ? "" : "-") + a.name;
    }
    return s;
}

ResolvedSpec resolve_spec(const ParallelSpec& spec, const SpecSource& source) {
    const Namer n(source);
    check_sizes(n, spec);
    ResolvedSpec r = given_sizes(spec);
    const std::int64_t w = r.grid_world;

    // Rule 1: W % (tp·pp·cp·gtp) == 0.
    const std::int64_t model = r.tp * r.pp * r.cp * r.gtp;
    if (r.tp > w || r.pp > w || r.cp > w || model > w || w % model != 0) {
        throw model_grid_error(n, r, w);
    }
    r.dp = w / model;
    if (spec.dp && *spec.dp != r.dp) {
        throw input_error(n.where("dp", *spec.dp),
                          "dp = " + std::to_string(*spec.dp) + " disagrees with world / (tp*pp*cp) = " +
                              std::to_string(w) + " / " + std::to_string(model) + " = " + std::to_string(r.dp),
                          "drop " + n.name("dp") + " (it is derived) or set it to " + std::to_string(r.dp));
    }
    // Rule 2: W % (etp·ep·pp·egtp) == 0.
    const std::int64_t expert_model = r.etp * r.ep * r.pp * r.egtp;
    if (r.ep > w || r.etp > w || expert_model > w || w % expert_model != 0) {
        const std::int64_t others = r.etp * r.pp * r.egtp;
        const auto valid = divisors_fitting(w, others);
        throw input_error(n.where("ep", r.ep),
                          "world size " + std::to_string(w) + " is not divisible by etp*ep*pp = " +
                              std::to_string(r.etp) + "*" + std::to_string(r.ep) + "*" + std::to_string(r.pp),
                          expert_grid_hint(n, r, w, valid));
    }
    r.expert_dp = w / expert_model;

    const auto tokens = order_tokens(n, spec, r);
    const std::map<std::string, std::int64_t> dense_sizes = {
        {"tp", r.tp}, {"cp", r.cp}, {"ep", 1}, {"dp", r.dp}, {"pp", r.pp}, {"gtp_remat", r.gtp}};
    const std::map<std::string, std::int64_t> expert_sizes = {
        {"tp", r.etp}, {"cp", 1}, {"ep", r.ep}, {"dp", r.expert_dp}, {"pp", r.pp}, {"gtp_remat", r.egtp}};
    // ep > 1 and cp > 1 together are fine: each generator holds only one of them.
    r.dense = make_axes(tokens, dense_sizes, "tp");
    r.expert = make_axes(tokens, expert_sizes, "ep");
    check_pipeline(n, spec, r, tokens);
    check_optimizer_and_cp(n, r);
    return r;
}

nlohmann::json to_json(const ResolvedSpec& s) {
    nlohmann::json j;
    for (const auto& [key, value] : std::vector<std::pair<const char*, std::int64_t>>{
             {"world", s.world}, {"grid_world", s.grid_world}, {"rank_offset", s.rank_offset}, {"tp", s.tp},
             {"pp", s.pp}, {"cp", s.cp}, {"ep", s.ep}, {"etp", s.etp}, {"dp", s.dp}, {"expert_dp", s.expert_dp},
             {"gtp", s.gtp}, {"egtp", s.egtp}, {"dist_opt_instances", s.dist_opt_instances}}) {
        j[key] = value;
    }
    j["vpp"] = s.vpp ? nlohmann::json(*s.vpp) : nlohmann::json(nullptr);
    j["hierarchical_cp"] = s.hierarchical_cp;
    j["hybrid_cp"] = s.hybrid_cp;
    j["order"] = s.order;
    j["dense_order"] = axes_order(s.dense);
    j["expert_order"] = axes_order(s.expert);
    return j;
}

std::string sizes_text(const ResolvedSpec& s) {
    return "tp" + std::to_string(s.tp) + " pp" + std::to_string(s.pp) + " cp" + std::to_string(s.cp) + " ep" +
           std::to_string(s.ep) + " etp" + std::to_string(s.etp) + " dp" + std::to_string(s.dp);
}

std::string compact_sizes_text(const ResolvedSpec& s) {
    std::string out = "tp" + std::to_string(s.tp) + " pp" + std::to_string(s.pp);
    for (const auto& [name, size] : {std::pair<const char*, std::int64_t>{"cp", s.cp}, {"ep", s.ep}, {"etp", s.etp}}) {
        if (size > 1) {
            out += std::string(" ") + name + std::to_string(size);
        }
    }
    return out + " dp" + std::to_string(s.dp);
}

}  // namespace planlayout
