// Frameworks: reading a layout's "parallel" object for any framework, and dispatch to each
// framework's group builder (parallel/framework.hpp).
#include "planlayout/parallel/framework.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/ingest/json_reader.hpp"
#include "planlayout/parallel/mesh_spec_text.hpp"

namespace planlayout {
namespace {

constexpr std::int64_t kMin = -kMaxWorld;  // sizes are checked by each builder with its framework's rules
constexpr std::int64_t kMax = kMaxWorld;

void read_size(const JsonReader& r, const char* key, std::int64_t& field) {
    if (const auto v = r.get<std::int64_t>(key, kMin, kMax)) {
        field = *v;
    }
}

// The degrees in the framework's own words, resolved (a -1 degree as the size it took).
std::string degrees_text(const FrameworkSpec& spec, const ResolvedSpec& equivalent) {
    std::string s;
    auto add = [&s](const std::string& name, std::int64_t v) { s += (s.empty() ? "" : " ") + name + "=" + std::to_string(v); };
    switch (spec.framework) {
        case Framework::Torchtitan: {
            const TorchtitanDims& d = spec.torchtitan;
            add("dp_replicate", d.dp_replicate);
            add("dp_shard", d.dp_shard > 0 ? d.dp_shard : equivalent.dp / std::max<std::int64_t>(1, d.dp_replicate));
            add("cp", d.cp);
            add("tp", d.tp);
            add("pp", d.pp);
            add("ep", d.ep);
            if (spec.torchtitan.mesh_2025) {
                add("etp", d.etp);
            }
            break;
        }
        case Framework::DeepSpeed: {
            const DeepSpeedDims& d = spec.deepspeed;
            add("pipe", d.pp);
            add("data", d.dp > 0 ? d.dp : equivalent.dp);
            add("model", d.mp);
            add("ep", d.ep);
            s += " moe_path=" + d.moe_path;
            break;
        }
        case Framework::DeviceMesh:
            for (const auto& dim : spec.mesh.dims) {
                add(dim.name, dim.size);
            }
            for (const auto& f : spec.mesh.flatten) {
                std::string dims;
                for (const auto& n : f.dims) {
                    dims += (dims.empty() ? "" : ",") + n;
                }
                std::string name = f.name;
                if (name.empty()) {  // DeviceMesh's default: the names joined by '_'
                    for (const auto& n : f.dims) {
                        name += (name.empty() ? "" : "_") + n;
                    }
                }
                s += " flatten(" + dims + ")=" + name;
            }
            break;
        default:
            break;
    }
    return s;
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

void check_megatron_echo(const ParallelSpec& echo, const Groups& built, const SpecSource& source, const std::string& framework) {
    const auto where = [&source](const char* key) {
        return source.file.empty() ? std::string("--") + key : source.file + " (" + source.pointer + "/" + key + ")";
    };
    if (echo.etp && *echo.etp != built.spec.etp) {
        throw input_error(where("etp"),
                          framework + " shards experts with an expert tensor-parallel size of " + std::to_string(built.spec.etp) +
                              ", not " + std::to_string(*echo.etp),
                          "drop etp (" + framework + "'s expert groups follow its own rules)");
    }
    if (echo.dp && *echo.dp != built.spec.dp) {
        throw input_error(where("dp"),
                          "the data-parallel size is " + std::to_string(built.spec.dp) + " under " + framework + ", not " +
                              std::to_string(*echo.dp),
                          "drop dp, or make it agree");
    }
}

}  // namespace

const std::vector<std::string>& framework_names() {
    static const std::vector<std::string> kNames{"megatron", "torchtitan", "torchtitan:2025", "deepspeed", "mesh"};
    return kNames;
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

std::int64_t framework_world(const FrameworkSpec& spec) {
    switch (spec.framework) {
        case Framework::Torchtitan:
            return spec.torchtitan.world;
        case Framework::DeepSpeed:
            return spec.deepspeed.world;
        case Framework::DeviceMesh:
            return spec.mesh.world;
        default:
            return spec.megatron.world;
    }
}

void set_framework_world(FrameworkSpec& spec, std::int64_t world) {
    spec.megatron.world = world;
    spec.torchtitan.world = world;
    spec.deepspeed.world = world;
    spec.mesh.world = world;
}

std::string framework_name(const FrameworkSpec& spec) {
    switch (spec.framework) {
        case Framework::Torchtitan:
            return spec.torchtitan.mesh_2025 ? "torchtitan:2025" : "torchtitan";
        case Framework::DeepSpeed:
            return "deepspeed";
        case Framework::DeviceMesh:
            return "mesh";
        default:
            return "megatron";
    }
}

Groups build_framework_groups(const FrameworkSpec& spec, const SpecSource& source) {
    Groups out;
    switch (spec.framework) {
        case Framework::Torchtitan:
            out = build_torchtitan_groups(spec.torchtitan, source);
            check_megatron_echo(spec.megatron, out, source, framework_name(spec));
            if (spec.megatron.vpp) {
                out.spec.vpp = spec.megatron.vpp;  // the pipeline schedule's virtual stages: no effect on groups
            }
            break;
        case Framework::DeepSpeed:
            out = build_deepspeed_groups(spec.deepspeed, source);
            check_megatron_echo(spec.megatron, out, source, "deepspeed");
            break;
        case Framework::DeviceMesh: {
            if (spec.mesh.dims.empty()) {
                // Errors about the shape name the mesh as the user wrote it ("--mesh", or the
                // layout's /parallel/mesh); those about flatten keep their own place.
                const std::string where = source.file.empty() ? std::string("--mesh") : source.file + " (" + source.pointer + "/mesh)";
                FrameworkSpec parsed = spec;
                try {
                    parsed.mesh = parse_mesh_spec(spec.mesh_text, spec.mesh_flatten, spec.mesh.world, where);
                    out = build_mesh_groups(parsed.mesh, source);
                } catch (const Error& e) {
                    if (e.where().find("flatten") != std::string::npos) {
                        throw;
                    }
                    throw Error(e.code(), where, e.problem() + " (mesh \"" + spec.mesh_text + "\")", e.hint());
                }
                out.framework_degrees = degrees_text(parsed, out.spec);
                out.framework = framework_name(spec);
                return out;
            }
            out = build_mesh_groups(spec.mesh, source);
            break;
        }
        default:
            out = build_groups(resolve_spec(spec.megatron, source));
            break;
    }
    out.framework = framework_name(spec);
    out.framework_degrees = degrees_text(spec, out.spec);
    return out;
}

}  // namespace planlayout
