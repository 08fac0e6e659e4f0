// Frameworks: the rank-group conventions of Megatron-Core, torchtitan (ParallelDims), DeepSpeed
// and raw PyTorch DeviceMesh, all built as Groups (parallel/groups.hpp) so that every later stage
// (placement, classification, traffic, score, emitters) works on any of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "planlayout/parallel/groups.hpp"
#include "planlayout/parallel/parallel_spec.hpp"

namespace planlayout {

enum class Framework { Megatron, Torchtitan, DeepSpeed, DeviceMesh };

/// torchtitan's ParallelDims degrees, as its job config names them
/// (`[parallelism] data_parallel_replicate_degree` ...).
struct TorchtitanDims {
    std::int64_t world = 0;
    std::int64_t dp_replicate = 1;
    std::int64_t dp_shard = -1;  // -1: the rest of the world
    std::int64_t cp = 1;
    std::int64_t tp = 1;
    std::int64_t pp = 1;
    std::int64_t ep = 1;
    std::int64_t etp = 1;        // expert_tensor_parallel_degree: the ≤ 2025-12 mesh only
    bool mesh_2025 = false;      // --framework torchtitan:2025 (one init_device_mesh + _flatten)
    /// parallelism.spmd_backend (current torchtitan only): "spmd_types" (the default since
    /// 2026-08: dp_shard and dp meshes) or "partial_dtensor" (one fsdp = dp_shard*cp mesh).
    std::string spmd_backend = "spmd_types";
};

/// DeepSpeed's pipeline grid (PipeModelDataParallelTopology axes pipe, data, model) and MoE
/// expert-group path (deepspeed/utils/groups.py).
struct DeepSpeedDims {
    std::int64_t world = 0;
    std::int64_t pp = 1;          // pipe
    std::int64_t mp = 1;          // model (tensor/slice parallel)
    std::int64_t dp = -1;         // data; -1: the rest
    std::int64_t ep = 1;          // MoE expert-parallel size (1: no MoE groups)
    /// "auto" (what a MoE layer picks from mp), "legacy" (E+D), "data-before-expert"
    /// (use_data_before_expert_parallel_), "emd" (E+M+D), "autoep-tp", "autoep-sp".
    std::string moe_path = "auto";
    /// Where the dense groups come from: "pipe-model-data" (PipeModelDataParallelTopology, the
    /// default), "pipe-data" (PipeDataParallelTopology: no model axis, mp must be 1), "none"
    /// (PipelineParallelGrid(topology=None): the world's prime factors dealt alternately to pipe
    /// and data; pp, mp and dp must be left at their defaults), "autotp" (AutoTP's
    /// (data_parallel, tensor_parallel) mesh of groups._init_tp_mesh_device; pp must be 1),
    /// "sp-mesh" (deepspeed.initialize's (data_parallel, sequence_parallel) mesh, mp = sp).
    /// moe_path "autoep-tp" always uses "autotp"; "autoep-sp" uses the (data_parallel,
    /// sequence_parallel) mesh of deepspeed.initialize(mesh_param=...), mp being the Ulysses
    /// sequence-parallel size.
    std::string topology = "pipe-model-data";
    /// use_data_before_expert_parallel_ (ds_config key of the same name): the D + E expert layout.
    bool data_before_expert = false;
    /// zero_optimization.stage (0..3). Stage 3 partitions parameters over the data group (role
    /// "fsdp") and AutoEP expert parameters over the expert-data group (role "efsdp"); stages 2
    /// and 3 are refused with pp > 1, stage 3 with a native MoE layer (runtime/engine.py).
    std::int64_t zero_stage = 0;
};

/// Raw DeviceMesh: init_device_mesh(shape, names) (row-major, last dim most local) and
/// `_flatten` of named dims.
struct MeshDim {
    std::string name;
    std::int64_t size = 1;
};
struct MeshFlatten {
    std::vector<std::string> dims;  // in mesh order
    std::string name;               // default: dims joined by '_'
};
struct MeshSpec {
    std::int64_t world = 0;
    std::vector<MeshDim> dims;         // outermost first, as init_device_mesh takes them
    std::vector<MeshFlatten> flatten;  // --flatten dp,cp (repeatable)
};

/// The parallel spec in the framework's own terms; only the member of `framework` is read.
struct FrameworkSpec {
    Framework framework = Framework::Megatron;
    ParallelSpec megatron;
    TorchtitanDims torchtitan;
    DeepSpeedDims deepspeed;
    MeshSpec mesh;
    // A DeviceMesh as written ("pp=2,dp=4,tp=2", ["dp,cp"]): parsed by build_framework_groups
    // once the world is known (parse_mesh_spec).
    std::string mesh_text;
    std::vector<std::string> mesh_flatten;
};

/// The framework names `--framework` and a layout's "parallel": {"framework": ...} take.
[[nodiscard]] const std::vector<std::string>& framework_names();

/// The world size the spec asks for (0: not given, the cluster's GPUs), and setting it.
[[nodiscard]] std::int64_t framework_world(const FrameworkSpec& spec);
void set_framework_world(FrameworkSpec& spec, std::int64_t world);

/// "megatron", "torchtitan" ("torchtitan:2025" with mesh_2025), "deepspeed", "mesh".
[[nodiscard]] std::string framework_name(const FrameworkSpec& spec);

/// The framework's groups, named as the framework names them, each kind's `role` set for the
/// cost model and Groups::spec holding the equivalent Megatron sizes. Refuses what the framework
/// refuses (same condition, our wording: Error BadInput naming the flag or JSON pointer of
/// `source`, with the fix).
[[nodiscard]] Groups build_framework_groups(const FrameworkSpec& spec, const SpecSource& source = {});

// One builder per framework (parallel/framework_*.cpp); build_framework_groups dispatches.
[[nodiscard]] Groups build_torchtitan_groups(const TorchtitanDims& dims, const SpecSource& source);
[[nodiscard]] Groups build_deepspeed_groups(const DeepSpeedDims& dims, const SpecSource& source);
[[nodiscard]] Groups build_mesh_groups(const MeshSpec& mesh, const SpecSource& source);

}  // namespace planlayout
