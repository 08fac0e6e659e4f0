// Frameworks: dispatch to each framework's group builder (parallel/framework.hpp).
#include "planlayout/parallel/framework.hpp"

namespace planlayout {

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
            break;
        case Framework::DeepSpeed:
            out = build_deepspeed_groups(spec.deepspeed, source);
            break;
        case Framework::DeviceMesh:
            out = build_mesh_groups(spec.mesh, source);
            break;
        default:
            out = build_groups(resolve_spec(spec.megatron, source));
            break;
    }
    out.framework = framework_name(spec);
    return out;
}

}  // namespace planlayout
