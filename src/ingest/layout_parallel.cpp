// Ingest: a layout's "parallel" and "placement" sections read into the domain values
// (ParallelSpec, FrameworkSpec, Placement) through the one JSON reader. The rules the values
// obey (Megatron's, each framework's, the placement orders) live in parallel/.
#include "planlayout/ingest/layout_sections.hpp"

#include <map>
#include <set>

#include "planlayout/error.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/names.hpp"

namespace planlayout {
namespace {

constexpr std::int64_t kMin = -kMaxWorld;  // sizes are checked by each builder with its framework's rules
constexpr std::int64_t kMax = kMaxWorld;

void read_size(const JsonReader& r, const char* key, std::int64_t& field) {
    if (const auto v = r.get<std::int64_t>(key, kMin, kMax)) {
        field = *v;
    }
}

// Megatron's keys a layout written for Megatron carries ("order", "etp", "dp", "cp"), accepted
// under another framework when they say what that framework does anyway: the default order, and
// etp / dp / cp as checked against the built groups (build_framework_groups).
void read_megatron_echo(const JsonReader& r, const std::string& framework, ParallelSpec& echo) {
    if (const auto order = r.get<std::string>("order")) {
        if (*order != ParallelSpec{}.order) {
            throw input_error(r.where("order"), framework + " fixes its own rank order; \"" + *order + "\" is Megatron's order",
                              "drop \"order\" (or use framework megatron)");
        }
    }
    if (const auto etp = r.get<std::int64_t>("etp", kMin, kMax)) {
        echo.etp = *etp;
    }
    if (const auto dp = r.get<std::int64_t>("dp", kMin, kMax)) {
        echo.dp = *dp;
    }
}

std::map<std::string, std::int32_t> host_index(const Cluster& c) {
    std::map<std::string, std::int32_t> m;
    for (std::size_t i = 0; i < c.nodes.size(); ++i) {
        m[c.nodes[i].host] = static_cast<std::int32_t>(i);
    }
    return m;
}

std::int32_t lookup_host(const std::map<std::string, std::int32_t>& hosts, const std::string& host, const std::string& where) {
    const auto it = hosts.find(host);
    if (it == hosts.end()) {
        std::string some;
        int shown = 0;
        for (const auto& [h, i] : hosts) {
            if (shown++ == 4) {
                some += ", ...";
                break;
            }
            some += (some.empty() ? "" : ", ") + h;
        }
        throw input_error(where, "unknown host '" + printable(host) + "'", "use a host of the cluster (" + some + ")");
    }
    return it->second;
}

}  // namespace

ParallelSpec parallel_spec_from_json(const nlohmann::json& j, const SpecSource& source) {
    const JsonReader r(j, source.file, source.pointer);
    r.check_keys({"tp", "pp", "cp", "ep", "etp", "dp", "vpp", "order", "rank_offset", "local_world_size", "dist_opt_instances",
                  "hierarchical_cp", "hybrid_cp", "gtp", "egtp", "world"});
    // Sizes are checked by resolve_spec (with Megatron's rules, e.g. at least 1); here their type
    // and the world limit, so that 18446744073709551615 is reported as given, larger than 2^31.
    constexpr std::int64_t kMin = -kMaxWorld;
    constexpr std::int64_t kMax = kMaxWorld;
    ParallelSpec s;
    for (const auto& [key, field] : std::initializer_list<std::pair<const char*, std::int64_t ParallelSpec::*>>{
             {"tp", &ParallelSpec::tp}, {"pp", &ParallelSpec::pp}, {"cp", &ParallelSpec::cp}, {"ep", &ParallelSpec::ep},
             {"rank_offset", &ParallelSpec::rank_offset}, {"dist_opt_instances", &ParallelSpec::dist_opt_instances},
             {"gtp", &ParallelSpec::gtp}, {"egtp", &ParallelSpec::egtp}, {"world", &ParallelSpec::world}}) {
        if (const auto v = r.get<std::int64_t>(key, kMin, kMax)) {
            s.*field = *v;
        }
    }
    for (const auto& [key, field] : std::initializer_list<std::pair<const char*, std::optional<std::int64_t> ParallelSpec::*>>{
             {"etp", &ParallelSpec::etp}, {"dp", &ParallelSpec::dp}, {"vpp", &ParallelSpec::vpp},
             {"local_world_size", &ParallelSpec::local_world_size}}) {
        if (const auto v = r.get<std::int64_t>(key, kMin, kMax)) {
            s.*field = *v;
        }
    }
    if (const auto order = r.get<std::string>("order")) {
        s.order = *order;
    }
    if (const auto hybrid = r.get<bool>("hybrid_cp")) {
        s.hybrid_cp = *hybrid;
    }
    if (const nlohmann::json* sizes = r.get_array("hierarchical_cp")) {
        for (std::size_t i = 0; i < sizes->size(); ++i) {
            if (!(*sizes)[i].is_number_integer() || ((*sizes)[i].is_number_unsigned() && (*sizes)[i].get<std::uint64_t>() > kMax)) {
                throw input_error(r.where("hierarchical_cp/" + std::to_string(i)),
                                  "hierarchical_cp holds " + (*sizes)[i].dump() + ", not a whole number", "write whole numbers, e.g. [2, 4]");
            }
            s.hierarchical_cp.push_back((*sizes)[i].get<std::int64_t>());
        }
    }
    return s;
}

FrameworkSpec framework_spec_from_json(const nlohmann::json& j, const SpecSource& source) {
    const JsonReader r(j, source.file, source.pointer);
    FrameworkSpec out;
    const std::string name = r.get<std::string>("framework").value_or("megatron");
    if (name == "megatron") {
        nlohmann::json rest = j;
        if (rest.is_object()) {
            rest.erase("framework");
        }
        out.megatron = parallel_spec_from_json(rest, source);
        return out;
    }
    if (name == "torchtitan" || name == "torchtitan:2025") {
        out.framework = Framework::Torchtitan;
        TorchtitanDims& d = out.torchtitan;
        d.mesh_2025 = name == "torchtitan:2025";
        r.check_keys({"framework", "world", "dp_replicate", "dp_shard", "cp", "tp", "pp", "ep", "vpp", "etp", "order", "dp",
                      "spmd_backend"});
        read_megatron_echo(r, name, out.megatron);
        if (out.megatron.etp) {
            d.etp = *out.megatron.etp;  // expert_tensor_parallel_degree: torchtitan's own rules check it
            out.megatron.etp.reset();
        }
        if (const auto backend = r.get<std::string>("spmd_backend")) {
            if (*backend != "spmd_types" && *backend != "partial_dtensor") {
                throw input_error(r.where("spmd_backend"), "unknown spmd_backend \"" + *backend + "\"",
                                  "use spmd_types (the default) or partial_dtensor");
            }
            d.spmd_backend = *backend;
        }
        for (const auto& [key, field] : std::initializer_list<std::pair<const char*, std::int64_t TorchtitanDims::*>>{
                 {"world", &TorchtitanDims::world}, {"dp_replicate", &TorchtitanDims::dp_replicate},
                 {"dp_shard", &TorchtitanDims::dp_shard}, {"cp", &TorchtitanDims::cp}, {"tp", &TorchtitanDims::tp},
                 {"pp", &TorchtitanDims::pp}, {"ep", &TorchtitanDims::ep}}) {
            read_size(r, key, d.*field);
        }
        if (const auto v = r.get<std::int64_t>("vpp", kMin, kMax)) {
            out.megatron.vpp = *v;
        }
        return out;
    }
    if (name == "deepspeed") {
        out.framework = Framework::DeepSpeed;
        DeepSpeedDims& d = out.deepspeed;
        r.check_keys({"framework", "world", "pp", "tp", "dp", "ep", "moe_path", "topology", "data_before_expert", "zero_stage",
                      "etp", "order", "cp"});
        read_megatron_echo(r, name, out.megatron);
        out.megatron.dp.reset();  // dp is DeepSpeed's own data degree, checked by its builder
        if (const auto cp = r.get<std::int64_t>("cp", kMin, kMax); cp && *cp != 1) {
            throw input_error(r.where("cp"), "DeepSpeed's pipeline grid has no context-parallel axis",
                              "drop cp, or use topology sp-mesh with tp as the sequence-parallel size");
        }
        read_size(r, "world", d.world);
        read_size(r, "pp", d.pp);
        read_size(r, "tp", d.mp);
        read_size(r, "dp", d.dp);
        read_size(r, "ep", d.ep);
        read_size(r, "zero_stage", d.zero_stage);
        if (const auto path = r.get<std::string>("moe_path")) {
            d.moe_path = *path;
        }
        if (const auto topology = r.get<std::string>("topology")) {
            d.topology = *topology;
        }
        if (const auto dbe = r.get<bool>("data_before_expert")) {
            d.data_before_expert = *dbe;
        }
        return out;
    }
    if (name == "mesh") {
        out.framework = Framework::DeviceMesh;
        r.check_keys({"framework", "world", "mesh", "flatten"});
        read_size(r, "world", out.mesh.world);
        const auto text = r.get<std::string>("mesh");
        if (!text) {
            throw input_error(r.where("mesh"), "a DeviceMesh layout needs its shape",
                              "add \"mesh\": \"pp=2,dp=4,tp=2\" (names and sizes, outermost first), or give --mesh");
        }
        out.mesh_text = *text;
        out.mesh_flatten = r.get_strings("flatten").value_or(std::vector<std::string>{});
        return out;
    }
    std::string known;
    for (const auto& n : framework_names()) {
        known += (known.empty() ? "" : ", ") + n;
    }
    throw input_error(r.where("framework"), "unknown framework \"" + name + "\"", "use one of " + known);
}

std::int64_t placement_hosts_gpus(const nlohmann::json& j, const Cluster& cluster) {
    if (!j.is_object() || !j.contains("hosts") || !j.at("hosts").is_array() || j.contains("ranks")) {
        return 0;
    }
    const auto hosts = host_index(cluster);
    std::set<std::int32_t> seen;
    std::int64_t gpus = 0;
    for (const auto& h : j.at("hosts")) {
        const auto it = h.is_string() ? hosts.find(h.get<std::string>()) : hosts.end();
        if (it != hosts.end() && seen.insert(it->second).second) {
            gpus += cluster.facts_of(it->second).gpu_count;
        }
    }
    return gpus;
}

std::optional<std::string> placement_hostfile_name(const nlohmann::json& j) {
    if (j.is_object() && j.contains("hostfile") && j.at("hostfile").is_string()) {
        return j.at("hostfile").get<std::string>();
    }
    return std::nullopt;
}

Placement placement_from_json(const nlohmann::json& j, const std::string& file, const std::string& pointer,
                              const Cluster& cluster, std::int64_t world, const std::optional<NamedHostfile>& hostfile) {
    const JsonReader o(j, file, pointer);
    o.check_keys({"hosts", "hostfile", "local_order", "order", "ranks"});
    const auto hosts = host_index(cluster);
    const std::string node_order = o.get_string("order").value_or("node-major");
    if (node_order != "node-major" && node_order != "fabric") {
        throw input_error(o.where("order"), "unknown order '" + printable(node_order) + "'",
                          "use \"node-major\" (the hosts in the order given) or \"fabric\" (leaf-major: rings stay inside leaves)");
    }
    if (o.has("ranks")) {
        if (o.has("order")) {
            throw input_error(o.where("order"), "an explicit rank map has no node order to choose", "drop \"order\" or \"ranks\"");
        }
        const auto& ranks = o.at("ranks");
        if (!ranks.is_array() || static_cast<std::int64_t>(ranks.size()) != world) {
            throw input_error(o.where("ranks"), "expected a list of " + std::to_string(world) + " placements, one per rank",
                              "write [{\"host\": \"node0\", \"gpu\": 0}, ...] in rank order");
        }
        Placement p;
        p.description = "explicit rank map";
        std::set<std::pair<std::int32_t, std::int32_t>> used;
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            const JsonReader e(ranks[r], file, pointer + "/ranks/" + std::to_string(r));
            e.check_keys({"host", "gpu", "rank"});
            const auto host = e.get_string("host");
            if (!host) {
                throw input_error(e.where("host"), "missing host", "write {\"host\": \"node0\", \"gpu\": 0}");
            }
            const std::int32_t n = lookup_host(hosts, *host, e.where("host"));
            const auto g = static_cast<std::int32_t>(e.get_int("gpu", 0, cluster.facts_of(n).gpu_count - 1).value_or(-1));
            if (g < 0) {
                throw input_error(e.where("gpu"), "missing gpu", "write the local GPU index");
            }
            if (!used.emplace(n, g).second) {
                throw input_error(e.where(), "GPU " + std::to_string(g) + " of " + *host + " is given to two ranks",
                                  "give every rank its own GPU");
            }
            p.node.push_back(n);
            p.gpu.push_back(g);
        }
        return p;
    }
    std::vector<std::int32_t> order;
    std::vector<std::string> order_where;  // where each entry of order was given, for messages
    std::string description = "node-major";
    if (o.has("hosts") && o.has("hostfile")) {
        throw input_error(o.where("hostfile"), "both \"hosts\" and \"hostfile\" are given", "keep one of them");
    }
    if (o.has("hosts")) {
        const auto& list = o.at("hosts");
        if (!list.is_array()) {
            throw input_error(o.where("hosts"), "hosts must be a list of host names", "write [\"node1\", \"node0\"]");
        }
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (!list[i].is_string()) {
                throw input_error(o.where("hosts/" + std::to_string(i)), "host names must be strings", "write \"node0\"");
            }
            order.push_back(lookup_host(hosts, list[i].get<std::string>(), o.where("hosts/" + std::to_string(i))));
            order_where.push_back(o.where("hosts/" + std::to_string(i)));
        }
        description = "node-major in the given host order";
    }
    if (const auto hf = o.get_string("hostfile")) {
        if (!hostfile || hostfile->name != *hf) {
            throw Error(ExitCode::Internal, o.where("hostfile"), "the hostfile was not read before the placement");
        }
        for (const auto& host : hostfile->hosts) {
            order.push_back(lookup_host(hosts, host, hostfile->path));
            order_where.push_back(hostfile->path + " (host " + std::to_string(order.size()) + ")");
        }
        description = "node-major in hostfile order (" + *hf + ")";
    }
    std::map<std::int32_t, std::size_t> first_seen;
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (const auto [it, fresh] = first_seen.emplace(order[i], i); !fresh) {
            throw input_error(order_where[i],
                              "host '" + cluster.nodes[static_cast<std::size_t>(order[i])].host + "' is listed twice (first at " +
                                  order_where[it->second] + ")",
                              "list every host once");
        }
    }
    std::vector<std::int32_t> local;
    if (o.has("local_order")) {
        const auto& lo = o.at("local_order");
        // One permutation for every node: only meaningful when every node has as many GPUs.
        const int g = cluster.facts_of(0).gpu_count;
        for (std::int64_t n = 1; n < cluster.node_count(); ++n) {
            if (cluster.facts_of(n).gpu_count != g) {
                throw input_error(o.where("local_order"),
                                  "the nodes have different GPU counts (" + cluster.nodes[0].host + ": " + std::to_string(g) + ", " +
                                      cluster.nodes[static_cast<std::size_t>(n)].host + ": " +
                                      std::to_string(cluster.facts_of(n).gpu_count) + "), so one local order cannot fit all",
                                  "give \"ranks\": [{\"host\": ..., \"gpu\": ...}, ...] instead");
            }
        }
        std::set<int> seen;
        if (!lo.is_array() || static_cast<int>(lo.size()) != g) {
            throw input_error(o.where("local_order"), "expected a permutation of the " + std::to_string(g) + " local GPUs",
                              "write e.g. [0, 2, 1, 3, 4, 6, 5, 7] (a CUDA_VISIBLE_DEVICES order)");
        }
        for (const auto& v : lo) {
            if (!v.is_number_integer() || v.get<int>() < 0 || v.get<int>() >= g || !seen.insert(v.get<int>()).second) {
                throw input_error(o.where("local_order"), "not a permutation of 0.." + std::to_string(g - 1),
                                  "list every local GPU index exactly once");
            }
            local.push_back(v.get<std::int32_t>());
        }
        description += ", local GPU order " + lo.dump();
    }
    if (node_order == "fabric") {
        std::vector<std::int32_t> given = order;
        if (given.empty()) {
            for (std::int64_t n = 0; n < cluster.node_count(); ++n) {
                given.push_back(static_cast<std::int32_t>(n));
            }
        }
        order = fabric_node_order(cluster, given);
        description = order == given ? description + ", fabric order (leaf-major: the same nodes in the same order)"
                                     : "fabric order (leaf-major) of " + description;
    }
    Placement p = node_major_placement(cluster, world, order, local, o.where());
    p.description = description;
    return p;
}

}  // namespace planlayout
