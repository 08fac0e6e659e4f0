// Frameworks: reading a layout's "parallel" object for any framework, and dispatch to each
// framework's group builder (parallel/framework.hpp).
#include "planlayout/parallel/framework.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "planlayout/error.hpp"
#include "planlayout/parallel/mesh_spec_text.hpp"

namespace planlayout {
namespace {


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

// Megatron's etp / dp given under another framework (read by ingest/layout_parallel.cpp) agree
// with the built groups.
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
