// Topology: what one GPU's kernels measured (layouts/kernels/*.json, read by ingest/kernel_table_json):
// dense bf16 GEMMs by shape (topology/gemm_table), attention by backend, the memory-bound blocks of each training implementation, optimizer steps,
// launch cost. The compute model (model/compute_model) prices ops from it (docs/cost-model.md,
// "Compute: kernels"). Pure values, no I/O.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/topology/gemm_table.hpp"

namespace planlayout {

/// Fused attention backends (PyTorch SDPA's, Transformer Engine's) and the unfused path.
enum class AttentionBackend {
    Auto,       // the implementation's own choice (training.implementation)
    Flash,      // FlashAttention-2 (SDPA flash, flash_attn)
    Cudnn,      // cuDNN fused attention (SDPA cuDNN, Transformer Engine's default on Hopper)
    Efficient,  // PyTorch's memory-efficient attention
    Unfused,    // scores materialized: QK^T, mask, softmax, PV as separate kernels
};

/// One measured point of a fused backend: efficiency = achieved TFLOPS / the dense bf16 peak.
struct AttentionPoint {
    AttentionBackend backend = AttentionBackend::Flash;
    int head_dim = 0;
    int seq = 0;
    double fwd = 0;
    double bwd = 0;  // backward FLOPs are 2.5x the forward's
};

/// Forward and backward picoseconds per element of one block.
struct BlockCost {
    double fwd_ps = 0;
    double bwd_ps = 0;
};

/// The memory-bound blocks of a layer as one implementation runs them, per element: rmsnorm and
/// residual per token x hidden, rope per token x (heads + kv heads) x head dim, swiglu per token x
/// FFN width, loss per token x vocabulary, moe_routing per routed element (token x top-k x hidden)
/// plus moe_tokens per token x hidden (router, top-k, dispatch and combine).
struct ImplementationBlocks {
    BlockCost rmsnorm, rope, swiglu, residual, loss;
    std::optional<BlockCost> moe_routing;
    std::optional<BlockCost> moe_tokens;
    std::optional<BlockCost> unfused_attention;  // per score element (batch x heads x seq_q x seq_k)
};

/// FP8 GEMM against bf16 at one size: speedup = bf16 time / FP8 time, d = (M·N·K)^(1/3).
struct SpeedupPoint {
    double d = 0;
    double speedup = 0;
};

/// One measured grouped (routed-expert) bf16 GEMM: K × N per expert at tokens per expert;
/// efficiency = achieved TFLOPS / the dense bf16 peak.
struct GroupedPoint {
    double k = 0;
    double n = 0;
    double tokens_per_expert = 0;
    double eff = 0;
};

/// Host time of one pass, microseconds.
struct PassUs {
    double fwd = 0;
    double bwd = 0;
};

/// The host's time (Python, PyTorch dispatch, kernel launches) of one implementation's layers,
/// measured where the GPU's work does not hide it (tests/gpu/host_sweep.sh): per micro-batch outside
/// the layers (the schedule, embedding, output layer and loss), per dense layer, per MoE layer
/// without its experts, per local expert run one by one (SequentialMLP), and the optimizer step's
/// host time, once per step and per layer's parameters. A pass runs as fast as the slower of the GPU's work and
/// the host's (docs/cost-model.md, "Host time").
struct HostTime {
    PassUs base;  // per micro-batch on each pipeline stage, outside its layers
    PassUs dense;
    PassUs moe;     // a MoE layer at zero local experts (attention, router, dispatcher, permutes)
    PassUs expert;  // each local expert of SequentialMLP
    double optimizer_base_us = 0;
    double optimizer_dense_us = 0;
    double optimizer_moe_us = 0;
    double optimizer_expert_us = 0;
    std::string source;
    // Where it was measured; the model prices it there only ("host time not modelled" elsewhere).
    std::string implementation;      // the implementation's name ("megatron-local"); "" any
    double hidden_min = 0;           // the hidden sizes measured
    double hidden_max = 0;           // 0: no bound
    double local_experts_max = 0;    // the most local experts per MoE layer measured; 0: no bound
};

/// One point of compute-bound kernels' sustained rate at the board's power limit: when GEMMs fill
/// `duty` of the GPU's time (at the burst rates the table's other curves give), they run at
/// `ratio` x that burst rate (tests/gpu/sustained.py).
struct PowerPoint {
    double duty = 0;
    double ratio = 1;
};

/// What the power limit costs sustained tensor-core work, per GEMM precision (docs/cost-model.md,
/// "Compute: the power limit").
struct PowerCurve {
    std::vector<std::string> gpus;  // the GPUs (layouts/gpus names) it applies to; measured on the first
    std::string source;
    std::vector<PowerPoint> bf16;  // by duty ascending
    std::vector<PowerPoint> fp8;
    /// The ratio at `duty` on the curve of the GEMMs' precision: linear in duty between measured
    /// points, the ends held; 1 without points.
    [[nodiscard]] double ratio(bool fp8_gemms, double duty) const;
    [[nodiscard]] bool applies_to(const std::string& gpu_name) const;
};

/// The table of one GPU (measured) and how to carry it to another (derived by spec ratios).
struct KernelTable {
    std::string gpu;     // the GPU it was measured on ("H200")
    std::string source;  // what ran, where, with which versions
    std::string file;    // layouts/kernels/h200.json
    bool carried = false;  // the table GPUs without their own carry (by the datasheets' bandwidth ratio)
    double peak_bf16_tflops = 0;  // the dense peak the attention efficiencies are shares of
    double spec_hbm_gbyte_s = 0;  // that GPU's datasheet memory bandwidth (carrying the table to another GPU)
    double copy_gbyte_s = 0;      // measured device copy bandwidth
    double launch_us = 0;         // host time per eager kernel launch
    GemmTable gemm;  // the measured dense bf16 GEMMs; empty: the prior curve (gemm_efficiency) prices them
    std::vector<AttentionPoint> attention;
    std::map<std::string, ImplementationBlocks> blocks;  // "hf", "megatron", "fused"
    double embedding_bwd_ps = 0;                          // per vocab x hidden element
    std::map<std::string, double> optimizer_ps_per_param;  // "foreach_fp32", "fused_bf16", ...
    std::string fp8_source;                                // what ran for the three below
    std::map<std::string, std::vector<SpeedupPoint>> gemm_fp8;  // "tensorwise", "rowwise"; by d ascending
    std::map<std::string, double> fp8_quant_ps;             // per element quantized: "delayed", "tensorwise"
    std::vector<GroupedPoint> grouped_gemm;
    std::map<std::string, HostTime> host;  // by implementation ("megatron"); absent: no host term
    std::optional<PowerCurve> power;       // absent: burst rates throughout

    /// FP8 GEMM speedup over bf16 of an M×K by K×N product for a GEMM variant ("tensorwise",
    /// "rowwise"): linear in log2(d) between measured points, the ends held. nullopt without points.
    [[nodiscard]] std::optional<double> fp8_speedup(const std::string& variant, double m, double n, double k) const;
    /// A grouped expert GEMM's efficiency at `tokens_per_expert` for K × N per expert: the measured
    /// shape nearest in log(K·N) (ties: the smaller), linear in log2(tokens per expert) between its
    /// points, the ends held. nullopt without points.
    [[nodiscard]] std::optional<double> grouped_efficiency(double tokens_per_expert, double k, double n) const;

    /// The backend's efficiency (share of the dense bf16 peak) at this head dim and sequence:
    /// linear in log2(seq) between measured points (the ends held), linear in head dim between
    /// the measured ones (held outside). nullopt when the backend has no point.
    [[nodiscard]] std::optional<double> attention_efficiency(AttentionBackend b, double head_dim, double seq,
                                                             bool backward) const;
    [[nodiscard]] const ImplementationBlocks* implementation(const std::string& name) const;
};

[[nodiscard]] std::string to_string(AttentionBackend b);
[[nodiscard]] std::optional<AttentionBackend> parse_attention_backend(const std::string& s);

}  // namespace planlayout
