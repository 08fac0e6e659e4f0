// torchtitan groups (parallel/framework.hpp). Work in progress: refused until the builder lands.
#include "planlayout/error.hpp"
#include "planlayout/parallel/framework.hpp"

namespace planlayout {

Groups build_torchtitan_groups(const TorchtitanDims& /*dims*/, const SpecSource& /*source*/) {
    throw input_error("--framework", "the torchtitan group builder is not available yet", "use --framework megatron");
}

}  // namespace planlayout
