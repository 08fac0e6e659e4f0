// deepspeed groups (parallel/framework.hpp). Work in progress: refused until the builder lands.
#include "planlayout/error.hpp"
#include "planlayout/parallel/framework.hpp"

namespace planlayout {

Groups build_deepspeed_groups(const DeepSpeedDims& /*dims*/, const SpecSource& /*source*/) {
    throw input_error("--framework", "the deepspeed group builder is not available yet", "use --framework megatron");
}

}  // namespace planlayout
