// Raw PyTorch DeviceMesh groups (parallel/framework.hpp, docs/frameworks/devicemesh.md):
// init_device_mesh(device, shape, mesh_dim_names) lays ranks 0..W-1 out row-major (the last dim
// most local) and creates one process group per dim; `mesh[dims]._flatten(name)` creates one
// more over several dims.
#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "mesh_kind.hpp"
#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/parallel/framework.hpp"
#include "planlayout/parallel/mesh_spec_text.hpp"

namespace planlayout {
namespace detail {

GroupKind mesh_kind(const std::vector<MeshDim>& dims, const std::vector<std::size_t>& picked, std::string name,
                    std::string role, std::string generator, std::string desc) {
    std::vector<std::int64_t> stride(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;) {
        stride[i - 1] = stride[i] * dims[i].size;
    }
    GroupKind k;
    k.name = std::move(name);
    k.group_desc = std::move(desc);
    k.generator = std::move(generator);
    k.pattern = role == "ep" ? Pattern::AllToAll : role == "pp" ? Pattern::PipelineP2p : Pattern::Ring;
    k.role = std::move(role);
    // Both axis lists most local (innermost) first.
    for (std::size_t i = dims.size(); i-- > 0;) {
        const Axis a{dims[i].name, dims[i].size, stride[i]};
        (std::find(picked.begin(), picked.end(), i) != picked.end() ? k.base.masked : k.base.unmasked).push_back(a);
    }
    for (const std::size_t i : picked) {
        k.token += (k.token.empty() ? "" : "-") + dims[i].name;
    }
    return k;
}

}  // namespace detail

namespace {

std::string mesh_where(const SpecSource& source, const std::string& field) {
    if (source.file.empty()) {
        return field == "flatten" ? "--flatten" : "--mesh";
    }
    return source.file + " (" + source.pointer + "/" + field + ")";
}

// The Megatron kind (or framework role) a dim named like torchtitan's/Megatron's carries.
std::string mesh_role_of(const std::string& name) {
    static const std::map<std::string, std::string> kRoles = {
        {"tp", "tp"},         {"cp", "cp"},        {"pp", "pp"},           {"dp", "dp"},
        {"ep", "ep"},         {"dp_cp", "dp_cp"},  {"dp_replicate", "dp_replicate"},
        {"dp_shard", "fsdp"}, {"fsdp", "fsdp"},    {"dp_shard_cp", "fsdp"}, {"efsdp", "efsdp"},
        {"dp_shard_mod_ep", "efsdp"},
    };
    const auto it = kRoles.find(name);
    return it == kRoles.end() ? std::string() : it->second;
}

std::string generator_of(const std::string& role) { return role == "ep" || role == "efsdp" ? "expert" : "dense"; }

std::string joined(const std::vector<std::string>& v, const std::string& sep) {
    std::string out;
    for (const auto& s : v) {
        out += (out.empty() ? "" : sep) + s;
    }
    return out;
}

// Size of the dim named `name`, 1 when absent.
std::int64_t size_of(const MeshSpec& mesh, const std::string& name) {
    for (const auto& d : mesh.dims) {
        if (d.name == name) {
            return d.size;
        }
    }
    return 1;
}

}  // namespace

Groups build_mesh_groups(const MeshSpec& mesh, const SpecSource& source) {
    const std::string where = mesh_where(source, "dims");
    if (mesh.world < 1 || mesh.world > kMaxWorld) {
        throw input_error(where, "the world size must be between 1 and 2^31, got " + std::to_string(mesh.world),
                          "give the number of ranks");
    }
    if (mesh.dims.empty()) {
        throw input_error(where, "the mesh has no dims", "give the mesh shape, e.g. --mesh pp=2,dp=4,tp=2");
    }
    std::set<std::string> names;
    std::int64_t product = 1;
    std::string shape;
    for (const auto& d : mesh.dims) {
        if (d.name.empty()) {
            throw input_error(where, "a mesh dim has no name", "name every dim, e.g. dp=4");
        }
        if (!names.insert(d.name).second) {
            throw input_error(where, "mesh dim '" + d.name + "' appears twice (DeviceMesh: mesh_dim_names must be unique)",
                              "give each dim its own name");
        }
        if (d.size < 1 || d.size > mesh.world) {
            throw input_error(where, "mesh dim " + d.name + "=" + std::to_string(d.size) + " must be between 1 and the world size " +
                                         std::to_string(mesh.world),
                              "give a size that divides the world");
        }
        product *= d.size;
        if (product > mesh.world) {
            break;
        }
        shape += (shape.empty() ? "" : "*") + std::to_string(d.size);
    }
    if (product != mesh.world) {
        const bool over = product > mesh.world;
        throw input_error(where,
                          "the mesh has " + (over ? std::string("more") : std::string("fewer")) + " ranks (" +
                              (over ? std::string("over ") + std::to_string(mesh.world) : shape + " = " + std::to_string(product)) +
                              ") than the world size " + std::to_string(mesh.world) +
                              (over ? " (DeviceMesh refuses a mesh bigger than the world)"
                                    : " (DeviceMesh would leave ranks " + std::to_string(product) + ".." +
                                          std::to_string(mesh.world - 1) + " in no group)"),
                          "make the product of the dim sizes equal the world size");
    }

    Groups out;
    for (std::size_t i = 0; i < mesh.dims.size(); ++i) {
        const std::string& n = mesh.dims[i].name;
        const std::string role = mesh_role_of(n);
        out.kinds.push_back(detail::mesh_kind(mesh.dims, {i}, n, role, generator_of(role),
                                              "init_device_mesh dim '" + n + "'"));
    }
    const std::string fwhere = mesh_where(source, "flatten");
    for (const auto& f : mesh.flatten) {
        if (f.dims.empty()) {
            throw input_error(fwhere, "a flatten names no dims", "name the dims to flatten, e.g. --flatten dp,cp");
        }
        std::vector<std::size_t> picked;
        for (const auto& dn : f.dims) {
            const auto it = std::find_if(mesh.dims.begin(), mesh.dims.end(), [&](const MeshDim& d) { return d.name == dn; });
            if (it == mesh.dims.end()) {
                std::vector<std::string> known;
                for (const auto& d : mesh.dims) {
                    known.push_back(d.name);
                }
                throw input_error(fwhere, "flatten names dim '" + dn + "', which the mesh does not have (" + joined(known, ", ") + ")",
                                  "name dims of the mesh");
            }
            const auto idx = static_cast<std::size_t>(it - mesh.dims.begin());
            if (!picked.empty() && idx <= picked.back()) {
                throw input_error(fwhere,
                                  "flatten dims " + joined(f.dims, ",") +
                                      " are not in mesh order (DeviceMesh slices dims in the order init_device_mesh created them)",
                                  "list them outermost first, as the mesh does");
            }
            picked.push_back(idx);
        }
        const std::string name = f.name.empty() ? joined(f.dims, "_") : f.name;
        if (!names.insert(name).second) {
            throw input_error(fwhere, "flattened name '" + name + "' is already a mesh dim or flattened dim",
                              "give the flattened dim another name (dp,cp:NAME)");
        }
        const std::string role = mesh_role_of(name);
        out.kinds.push_back(detail::mesh_kind(mesh.dims, picked, name, role, generator_of(role),
                                              "_flatten of " + joined(f.dims, ",")));
    }

    // The equivalent Megatron sizes: tp, cp, pp, ep from the dims so named, dp the rest. When
    // ep does not fit Megatron's expert grid, the spec keeps ep 1 (the mesh groups are unaffected).
    ParallelSpec spec;
    spec.world = mesh.world;
    spec.tp = size_of(mesh, "tp");
    spec.cp = size_of(mesh, "cp");
    spec.pp = size_of(mesh, "pp");
    spec.ep = size_of(mesh, "ep");
    spec.etp = 1;
    try {
        out.spec = resolve_spec(spec);
    } catch (const Error&) {
        spec.ep = 1;
        out.spec = resolve_spec(spec);
    }
    return out;
}

MeshSpec parse_mesh_spec(const std::string& text, const std::vector<std::string>& flatten, std::int64_t world,
                         const std::string& where) {
    MeshSpec out;
    out.world = world;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
            throw input_error(where + " " + text, "'" + item + "' is not NAME=SIZE", "write the mesh as pp=2,dp=4,tp=2");
        }
        MeshDim d;
        d.name = item.substr(0, eq);
        const std::string num = item.substr(eq + 1);
        if (num.size() > 10 || !std::all_of(num.begin(), num.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            throw input_error(where + " " + text, "size '" + num + "' of dim " + d.name + " is not a whole number",
                              "write the mesh as pp=2,dp=4,tp=2");
        }
        d.size = std::stoll(num);
        if (d.size < 1) {
            throw input_error(where + " " + text, "dim " + d.name + " has size 0", "sizes are at least 1");
        }
        out.dims.push_back(d);
    }
    if (out.dims.empty() || text.back() == ',') {
        throw input_error(where + " '" + text + "'", "the mesh is empty or ends with ','", "write the mesh as pp=2,dp=4,tp=2");
    }
    for (const auto& f : flatten) {
        MeshFlatten mf;
        const auto colon = f.find(':');
        const std::string list = f.substr(0, colon);
        if (colon != std::string::npos) {
            mf.name = f.substr(colon + 1);
            if (mf.name.empty()) {
                throw input_error("--flatten " + f, "the name after ':' is empty", "write dp,cp or dp,cp:NAME");
            }
        }
        std::stringstream ls(list);
        for (std::string dn; std::getline(ls, dn, ',');) {
            if (dn.empty()) {
                throw input_error("--flatten " + f, "an empty dim name", "write dp,cp or dp,cp:NAME");
            }
            mf.dims.push_back(dn);
        }
        if (mf.dims.empty() || list.back() == ',') {
            throw input_error("--flatten " + f, "no dims, or a trailing ','", "write dp,cp or dp,cp:NAME");
        }
        out.flatten.push_back(mf);
    }
    return out;
}

}  // namespace planlayout
