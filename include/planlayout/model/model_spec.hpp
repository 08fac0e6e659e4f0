// Model inputs: the model, the training run and the transports, from a layout file's
// "model", "training" and "transport" sections (docs/cost-model.md gives every default).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "planlayout/model/numbers/hardware.hpp"
#include "planlayout/model/numbers/memory.hpp"
#include "planlayout/model/numbers/network.hpp"
#include "planlayout/model/numbers/training.hpp"
#include "planlayout/topology/kernel_table.hpp"

namespace planlayout {

struct CollectiveFits;  // model/collective_fit.hpp

/// Where an effective value came from: the input gave it, it is the documented default, or it
/// was computed from other fields (docs/cost-model.md, "Parameters from the shape").
enum class ValueOrigin { Given, Default, Derived };

[[nodiscard]] std::string_view to_string(ValueOrigin o);

/// One field of a section with its effective value: `pointer` is relative to the section
/// ("/hidden", "/moe/experts"), so "/model" + pointer is where it sits in a layout.
struct SpecField {
    std::string pointer;
    nlohmann::json value;
    ValueOrigin origin = ValueOrigin::Given;
};

/// How MoE tokens reach their experts (Megatron --moe-token-dispatcher-type).
enum class TokenDispatcher { AllGather, AllToAll, Flex };

[[nodiscard]] std::string_view to_string(TokenDispatcher d);

/// Multi-head latent attention (DeepSeek-V2/V3; Megatron's MLATransformerConfig). Per layer:
/// q_a h×q_lora + q_b q_lora×heads·(qk+rope) (or q_proj h×heads·(qk+rope) when q_lora_rank is 0),
/// kv_a h×(kv_lora+rope), kv_b kv_lora×heads·(qk+v), o heads·v×h.
struct MlaSpec {
    int q_lora_rank = 0;       // 0 = no query compression
    int kv_lora_rank = 0;      // the compressed K/V latent
    int qk_head_dim = 0;       // per head, the part of Q/K without rotary embedding (HF qk_nope_head_dim)
    int qk_rope_head_dim = 0;  // per head, the rotary part (Megatron qk_pos_emb_head_dim)
    int v_head_dim = 0;
};

/// Linear-attention layers (Qwen3-Next's Gated DeltaNet, transformers' Qwen3NextGatedDeltaNet) in
/// place of softmax attention on some layers. Per such layer: in_proj_qkvz h×(2·key_dim + 2·value_dim),
/// in_proj_ba h×2·value_heads, a depthwise conv1d (2·key_dim + value_dim)×conv_kernel, dt_bias and A_log
/// (value_heads each), out_proj value_dim×h, and a gated norm of value_head_dim (counted with norms);
/// key_dim = key_heads·key_head_dim, value_dim = value_heads·value_head_dim.
struct LinearAttentionSpec {
    std::vector<int> layers;  // one 0/1 per layer: 1 = linear attention
    int key_heads = 0;
    int value_heads = 0;
    int key_head_dim = 0;
    int value_head_dim = 0;
    int conv_kernel = 0;

    [[nodiscard]] double params_per_layer(double hidden, bool with_norm) const;
    [[nodiscard]] int count() const;  // layers that are linear attention
};

/// The network model: what the collectives move. Parameter counts are totals over the whole
/// model (not per rank); 0 means "derive from the shape" (see derived_*()).
struct ModelSpec {
    int layers = 0;             // transformer layers
    int moe_layers = 0;         // of which MoE (0 = dense model); default: layers − first_dense_layers
    int first_dense_layers = 0; // DeepSeek-style leading dense layers
    int hidden = 0;             // h
    int heads = 0;
    int kv_heads = 0;           // GQA/MQA; 0 = heads
    int head_dim = 0;           // 0 = hidden / heads
    int ffn_hidden = 0;         // dense FFN width; 0 = 4·hidden
    bool ffn_gated = true;      // SwiGLU-style FFN, 3 matrices (gate, up, down); false: 2 (GELU)
    int vocab = 0;
    bool tied_embeddings = false;
    // MoE
    int experts = 0;
    int topk = 0;
    int moe_ffn_hidden = 0;     // per expert; 0 = ffn_hidden / topk (whole number)
    int shared_experts = 0;
    int shared_ffn_hidden = 0;  // total FFN width of the shared expert(s); 0 = shared_experts × moe_ffn_hidden
    double capacity_factor = 1.0;  // tokens sent per expert ÷ an even share of tokens·topk (an
                                   // expert capacity the dispatch pads to; 1 = dropless)
    int moe_layer_freq = 0;              // "moe/layer_freq" as an int N: layer i is MoE when i % N == 0 (0 = not given)
    std::vector<int> moe_layer_pattern;  // "moe/layer_freq" as a list: one 0/1 per layer (empty = not given)
    TokenDispatcher token_dispatcher = TokenDispatcher::AllToAll;
    int router_groups = 0;      // group-limited routing: experts in this many groups (0: none) ...
    int router_group_topk = 0;  // ... a token reaches at most this many (DeepSeek-V3 n_group/topk_group)
    bool grouped_gemm = false;
    bool moe_shared_gate = false;  // "moe/shared_gate": a sigmoid gate h×1 on the shared expert (Qwen2-MoE, Qwen3-Next)
    bool moe_router_bias = false;  // "moe/router_bias": the router carries a bias, E per MoE layer (GptOssTopKRouter)
    bool moe_expert_bias = false;  // "moe/expert_bias": each routed expert's projections carry biases, (μ−1)·f_e + h
                                   // per expert (GptOssExperts' gate_up_proj_bias, down_proj_bias; in expert_params)
    // Attention
    std::optional<MlaSpec> mla;  // multi-head latent attention instead of (GQA) multi-head attention
    bool attention_bias = false;  // q, k and v projections carry biases (Qwen2, GLM-4.5, Llama's attention_bias);
                                  // with MLA q_a_proj and kv_a_proj_with_mqa (DeepseekV3Attention's attention_bias)
    bool attention_out_bias = false;  // the output projection o_proj carries a bias, h per layer (Llama's attention_bias)
    bool attention_sinks = false;     // a learned sink logit per head and layer (GptOssAttention's sinks)
    bool mlp_bias = false;            // the dense FFN's and the shared experts' projections carry biases,
                                      // (μ−1)·f + h per FFN (LlamaMLP's mlp_bias)
    bool attention_gate = false;  // the query projection is twice as wide: an output gate per head (Qwen3-Next)
    int sliding_window = 0;       // keys a windowed layer attends to (0 = none): FLOPs, not weights
    std::vector<int> window_layers;  // one 0/1 per layer, 1 = windowed (empty: every layer when sliding_window > 0)
    std::optional<LinearAttentionSpec> linear_attention;  // Gated DeltaNet layers (Qwen3-Next)
    // Norm weights (0/false = not counted, as the parameter count always was): hidden-sized norms per
    // layer (2 for pre-norm, 4 for Gemma 2/3's pre- and post-norms); with norms > 0 the final norm and
    // MLA's latent norms count too. qk_norm: per-head q and k norms of head_dim (Qwen3, Gemma 3).
    int norms = 0;
    bool qk_norm = false;
    // Parameter counts (0 = derived)
    double dense_params = 0;   // everything that is not a routed expert
    double expert_params = 0;  // all routed experts of all layers
    // Bytes per element
    int activation_bytes = numbers::kHalfBytes.count();  // β for activations (bf16)
    int grad_bytes = numbers::kHalfBytes.count();        // β_g for gradient reduction (bf16 grads; 4 with fp32 reduction)
    int param_bytes = numbers::kHalfBytes.count();       // β_p for parameter all-gathers
    // The keys the reader (ingest/layout_sections.hpp) found in the input, as pointers relative to the section ("/hidden",
    // "/moe/experts"): what fields() reports as given rather than default.
    std::vector<std::string> given;

    // Effective values: the field when given, else what it defaults to or is derived from.
    [[nodiscard]] int derived_head_dim() const;        // head_dim, else hidden / heads
    [[nodiscard]] int derived_kv_heads() const;        // kv_heads, else heads
    [[nodiscard]] int derived_ffn_hidden() const;      // ffn_hidden, else 4·hidden
    [[nodiscard]] int derived_moe_ffn_hidden() const;  // moe ffn_hidden, else ffn / topk (0 without MoE)
    [[nodiscard]] int derived_shared_ffn_hidden() const;  // shared_ffn_hidden, else shared_experts × moe ffn
    [[nodiscard]] int ffn_matrices() const {
        return ffn_gated ? numbers::kGatedFfnMatrices.count() : numbers::kPlainFfnMatrices.count();
    }

    /// Per token and layer, the width of one of K or V that context-parallel ring attention passes
    /// around: kv_heads · head_dim; with MLA the mean of K and V after the up-projection,
    /// heads·(qk + rope + v)/2 (Megatron's MLA hands core attention full per-head K and V).
    [[nodiscard]] int kv_dim() const;
    /// Per token and layer, what a KV cache holds: 2·kv_heads·head_dim; with MLA the compressed
    /// latent and the shared rotary key, kv_lora_rank + qk_rope_head_dim.
    [[nodiscard]] int kv_cache_dim() const;
    /// Attention weights of one layer (no norms, no biases).
    [[nodiscard]] double attention_params_per_layer() const;
    /// What norms, q/k norms, attention, FFN and router biases, attention sinks and gates and
    /// linear-attention layers add to the dense parameters over the whole model (0 with none of those keys).
    [[nodiscard]] double extra_dense_params() const;
    /// Per layer, whether attention is windowed (sliding_window with window_layers) and whether it is
    /// linear attention.
    [[nodiscard]] bool layer_windowed(int layer) const;
    [[nodiscard]] bool layer_linear(int layer) const;
    [[nodiscard]] double derived_dense_params() const;
    [[nodiscard]] double derived_expert_params() const;
    /// Parameters one token touches: dense + (topk / experts) · expert.
    [[nodiscard]] double active_params() const;
    /// Per layer, whether it is MoE: the layer_freq pattern when given, else first_dense_layers
    /// dense layers, then moe_layers MoE layers, then dense ones.
    [[nodiscard]] std::vector<bool> moe_layer_map() const;

    /// Whether the reader found this key (a pointer relative to the section, "/moe/experts").
    [[nodiscard]] bool is_given(std::string_view pointer) const;
    /// Every field with its effective value and origin, in the order docs/formats/layout.md lists them.
    [[nodiscard]] std::vector<SpecField> fields() const;
    /// Every field written explicitly (effective values; derived parameter counts under "params"), so
    /// that model_spec_training_spec_from_json(to_json()) gives the same effective numbers.
    [[nodiscard]] nlohmann::json to_json() const;
};

enum class Recompute { None, Selective, Full };

enum class FineTune { Full, Lora };

/// Which layers full recompute covers (Megatron --recompute-method).
enum class RecomputeMethod { Uniform, Block };

/// The training code whose kernels run (docs/cost-model.md, "Compute: kernels"): what prices the
/// memory-bound blocks, picks the attention backend and the optimizer by default.
///   MegatronTe     Megatron-LM with Transformer Engine (--transformer-impl transformer_engine, its
///                  default): fused norm, RoPE, SwiGLU and loss, cuDNN attention, fused Adam
///   MegatronLocal  --transformer-impl local with the fusions off: torch kernels, unfused attention
///   Hf             Hugging Face transformers modules (eager PyTorch, SDPA attention)
enum class Implementation { MegatronTe, MegatronLocal, Hf };

[[nodiscard]] std::string_view to_string(Implementation i);
[[nodiscard]] std::optional<Implementation> parse_implementation(std::string_view s);

/// The optimizer step's kernels (Auto: by implementation; MegatronTe fused fp32, MegatronLocal
/// foreach fp32, Hf foreach on the bf16 weights).
enum class OptimizerImpl { Auto, FusedFp32, ForeachFp32, FusedBf16, ForeachBf16 };

[[nodiscard]] std::string_view to_string(OptimizerImpl o);
[[nodiscard]] std::optional<OptimizerImpl> parse_optimizer_impl(std::string_view s);

/// CUDA graphs of the training step (Megatron --cuda-graph-impl): None; Layers (local or
/// transformer_engine: each transformer layer, or the --cuda-graph-modules named, replayed as a
/// graph); FullIteration (the whole forward-backward step).
enum class CudaGraph { None, Layers, FullIteration };

[[nodiscard]] std::string_view to_string(CudaGraph g);
[[nodiscard]] std::optional<CudaGraph> parse_cuda_graph(std::string_view s);

/// Megatron's CUDA-graph capture regions (megatron/core/transformer/enums.py CudaGraphModule).
inline constexpr std::array kCudaGraphModules{
    std::string_view{"attn"}, std::string_view{"mlp"}, std::string_view{"moe"},
    std::string_view{"moe_router"}, std::string_view{"moe_preprocess"}, std::string_view{"mamba"}};
/// Whether the optimizer steps the bf16 weights themselves (m, v in bf16, no fp32 master).
[[nodiscard]] bool steps_bf16_weights(OptimizerImpl o);

/// Megatron's --recompute-modules (selective recompute; megatron/core/transformer/
/// transformer_config.py recompute_modules): which parts of a layer are recomputed instead of
/// kept. Without the flag Megatron recomputes core_attn alone.
inline constexpr std::array kRecomputeModules{
    std::string_view{"core_attn"}, std::string_view{"moe_act"}, std::string_view{"layernorm"},
    std::string_view{"mla_up_proj"}, std::string_view{"mlp"}, std::string_view{"moe"}, std::string_view{"shared_experts"}};
/// Memory as the frameworks allocate it (TrainingSpec's last block): the dtype of the model
/// states, where ZeRO-Offload puts them, and Megatron-FSDP's sharding strategy.
enum class StatePrecision { Bf16, Fp16, Fp32 };
enum class Offload { None, Cpu, Nvme };
enum class ShardingStrategy { Off, NoShard, Optim, OptimGrads, OptimGradsParams };

[[nodiscard]] std::string_view to_string(StatePrecision p);
[[nodiscard]] std::string_view to_string(Offload o);
[[nodiscard]] std::string_view to_string(ShardingStrategy s);  // "off", "no_shard", "optim", ...
/// The ZeRO stage a Megatron-FSDP sharding strategy shards like: off and no_shard 0, optim 1 (the
/// optimizer), optim_grads 2 (and the gradients), optim_grads_params 3 (and the weights).
[[nodiscard]] int zero_stage_of(ShardingStrategy s);

/// The training run: batch, sequence, memory tricks and what overlaps what.
struct TrainingSpec {
    int global_batch = 0;  // sequences per optimizer step
    int micro_batch = 1;   // b
    int grad_accum = 0;    // gradient-accumulation steps as given (DeepSpeed, HF Trainer; 0: derived,
                           // Megatron's way); plan() settles it with the global batch (model/batch.hpp)
    int seq_len = 0;       // s
    int vpp = 1;           // virtual pipeline stages per rank (v)
    Recompute recompute = Recompute::None;
    FineTune finetune = FineTune::Full;
    int zero_stage = 0;               // 0 = DDP, 1/2 = sharded grads/optimizer, 3 = FSDP
    bool sequence_parallel = false;
    bool distributed_optimizer = false;
    // Overlap (docs/cost-model.md §6): what compute may hide which collective.
    bool overlap_dp = true;           // bucketed grad reduce under the last micro-batch's backward
    bool overlap_param_gather = true; // distributed-optimizer/ZeRO param gathers prefetched under the
                                      // forward (default: as overlap_dp; Megatron's --overlap-param-gather)
    bool overlap_pp = true;           // 1F1B steady state hides p2p under the other micro-batch
    bool overlap_ep = false;          // EP dispatch/combine overlapped with compute (DualPipe-like)
    bool overlap_cp = true;           // ring attention hides KV passing under attention
    bool overlap_tp = false;          // TP collectives split and pipelined with the GEMMs (Megatron
                                      // --tp-comm-overlap, Transformer Engine userbuffers)
    double lora_adapter_params = 0;   // trainable adapter parameters (total) for LoRA
    double lora_expert_share = 0;     // fraction of the adapters that sit on routed experts
    double bucket_params = 0;         // parameters per DP bucket (Megatron --ddp-bucket-size); 0 = default
    double bucket_bytes = 0;          // or bytes per bucket (PyTorch DDP bucket_cap_mb); 0 = not given
    // Compute
    std::optional<double> measured_step_time_s;  // a measured stable step ...
    std::string measured_transport = "tcp";      // ... and the transport it was measured on
    std::optional<double> second_measured_step_time_s;  // the other arm's measured step (two arms:
    std::string second_measured_transport;              // compute from the faster, each arm's transport from its own)
    std::optional<double> measured_compute_s;     // a measured compute-only step (one node, no cross-node
                                                  // traffic): pins compute; the measured arms fit their transports
    std::optional<double> compute_time_s;        // compute per step per GPU, if known
    std::string gpu;                             // a GPU of layouts/gpus by name or id ("" = from the node templates)
    std::optional<double> gpu_peak_tflops;       // dense bf16 peak override (else the GPU spec's)
    std::optional<double> mfu;                   // override: the flat model (comp from 6·N·tokens / (peak·mfu))
    double compute_scale = 1.0;                  // multiplies the efficiency of compute-bound ops (anchoring)
    // Precision and recompute details (stored; Megatron --fp8-format, --recompute-method/-num-layers)
    std::string fp8;                                 // "" = no FP8; "e4m3" or "hybrid"
    std::string fp8_recipe;                          // with fp8: delayed (Megatron's default), tensorwise,
                                                     // blockwise or mxfp8 (--fp8-recipe); "" = delayed
    std::optional<RecomputeMethod> recompute_method;  // full recompute only
    int recompute_layers = 0;                         // --recompute-num-layers (0 = not given)
    std::vector<std::string> recompute_modules;       // selective only (--recompute-modules); empty: core_attn
    double attention_dropout = numbers::kDefaultAttentionDropout;  // --attention-dropout (Megatron's default 0.1): with
                                                      // unfused attention, a mask and a copy of the s×s probabilities
    double hidden_dropout = numbers::kDefaultHiddenDropout;        // --hidden-dropout (Megatron's default 0.1): 0 keeps no
                                                      // dropout masks after the attention and the MLP
    // Kernels (docs/cost-model.md, "Compute: kernels")
    Implementation implementation = Implementation::MegatronTe;  // whose kernels run
    AttentionBackend attention_backend = AttentionBackend::Auto; // Auto: the implementation's
    OptimizerImpl optimizer = OptimizerImpl::Auto;
    bool host_time = true;  // "host_time": "auto" prices the kernel table's host time of the implementation;
                            // "none" prices none (code that is not Megatron's Python, a step in CUDA graphs)
    CudaGraph cuda_graph = CudaGraph::None;      // "cuda_graph" (Megatron --cuda-graph-impl): layers replayed as
                                                 // graphs cost no host time; full_iteration: none at all
    std::vector<std::string> cuda_graph_modules;  // with layers: only these regions (--cuda-graph-modules;
                                                  // empty: the whole layer)
    std::vector<std::string> given;                   // keys the reader found ("/seq_len", "/overlap/dp")

    // ---- Memory as the frameworks allocate it (issue 29; docs/cost-model.md §8 "Memory per GPU").
    //      The layout's "training": {"states": {...}, "checkpoint_every": N}; unfused attention's
    //      scores follow attention_backend (unfused_attention() below).
    double prefetch_bucket = numbers::kZero3PrefetchBucketElements;  // states/prefetch_bucket: ZeRO-3
                                                 // stage3_prefetch_bucket_size (elements);
                                                 // 0: "auto", the HF Trainer's 0.9·h·h
    StatePrecision precision = StatePrecision::Bf16;  // states/precision: bf16 or fp16 mixed precision, or fp32
                                                      // (DeepSpeed with neither bf16 nor fp16 enabled)
    Offload offload_optimizer = Offload::None;   // states/offload_optimizer (zero_optimization.offload_optimizer.device)
    Offload offload_param = Offload::None;       // states/offload_param (zero_optimization.offload_param.device, ZeRO-3)
    ShardingStrategy megatron_fsdp = ShardingStrategy::Off;  // states/megatron_fsdp: --use-megatron-fsdp with
                                                              // --data-parallel-sharding-strategy
    int checkpoint_every = 0;        // torchtitan selective_ac_option N: every Nth layer fully checkpointed (0: off)
    bool per_op_checkpoint = false;  // torchtitan selective_ac_option "op": per-op selective checkpointing
    bool bf16_master_weights_and_grads = false;  // states/bf16_master_weights_and_grads (DeepSpeed bf16.*): master in bf16
    bool bf16_optimizer_states = false;          // states/bf16_optimizer_states (DeepSpeed bf16.*): Adam m, v in bf16

    /// m: micro-batches per pipeline per step = global_batch / (micro_batch · dp).
    [[nodiscard]] int micro_batches(int dp) const;

    /// Whether the attention keeps the s×s scores (memory) and runs unfused (compute):
    /// attention_backend unfused, or auto under --transformer-impl local (megatron-local).
    [[nodiscard]] bool unfused_attention() const {
        return attention_backend == AttentionBackend::Unfused ||
               (attention_backend == AttentionBackend::Auto && implementation == Implementation::MegatronLocal);
    }

    /// Whether selective recompute repeats this part of a layer (a name of kRecomputeModules);
    /// "moe" covers moe_act and shared_experts.
    [[nodiscard]] bool recomputes(std::string_view module) const;

    /// The optimizer that runs: `optimizer`, or the implementation's (megatron-te fused fp32,
    /// megatron-local foreach fp32, hf foreach on the bf16 weights).
    [[nodiscard]] OptimizerImpl resolved_optimizer() const;

    /// Every field written explicitly (optional ones when set), so that from_json(to_json()) gives
    /// the same run.
    [[nodiscard]] nlohmann::json to_json() const;
};

/// What carries a collective. Tcp, Rdma and Gdrdma are network transports (between nodes); P2p and
/// Shm are the two intra-node arms (docs/cost-model.md §4): P2P (NVLink or PCIe peer access, what
/// NCCL uses when it can) and SHM (NCCL_P2P_DISABLE=1, or P2P unavailable: staged through host
/// memory). A comparison is of two network transports or of the two intra-node arms, never mixed.
enum class Transport { Tcp, Rdma, Gdrdma, P2p, Shm };

[[nodiscard]] std::string_view to_string(Transport t);
/// How many transports there are (Shm is the last).
inline constexpr std::size_t kTransportCount = static_cast<std::size_t>(Transport::Shm) + 1;
[[nodiscard]] std::optional<Transport> parse_transport(std::string_view s);
/// p2p or shm: an arm that changes the path inside a node, not the network.
[[nodiscard]] bool is_intra_arm(Transport t);

/// A prior with its band: the point value and the low/high ends the score's band uses.
struct Prior {
    double value = 0;
    double low = 0;
    double high = 0;
};

/// A registry entry as a prior: its value and its plausible range.
[[nodiscard]] constexpr Prior prior_of(const Number& n) { return {n.value, n.low, n.high}; }

/// Which end of every prior to use (the band of docs/cost-model.md §6).
enum class PriorEnd { Point, Low, High };

[[nodiscard]] double pick(const Prior& p, PriorEnd end);

/// One transport's priors (docs/cost-model.md §4). Efficiencies are fractions of the line rate reached
/// by large messages; alpha is the per-step latency in µs.
struct TransportParams {
    Prior efficiency;         // ring collectives and send/recv
    Prior alltoall_efficiency;
    double alpha_us = numbers::kRdmaAlphaUs;  // per network step
};

/// The TCP socket path: which interface NCCL_SOCKET_IFNAME picks, and NCCL's socket limits.
struct TcpSpec {
    std::string interface_name = "eth0";
    double interface_gbit_s = numbers::kTcpInterfaceGbitS;  // line rate of one interface
    int interfaces_per_node = 1;      // shared by every GPU of the node
    int sockets_per_thread = 1;       // NCCL_NSOCKS_PERTHREAD
    int socket_threads = 1;           // NCCL_SOCKET_NTHREADS
    double per_stream_gbit_s = 0;     // one TCP stream's cap; 0 = no cap
    bool inside_node = false;         // NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1: ranks of one node
                                      // talk through sockets too (every rank its own endpoint)
};

/// NCCL's SHM transport (src/transport/shm.cc): the sender's GPU writes into a host-memory buffer
/// (on the receiver's NUMA node, NCCL_SHM_LOCALITY=2), the receiver's GPU reads it back. The host
/// side it crosses (docs/cost-model.md §4, "SHM"):
struct ShmSpec {
    double host_memory_gbyte_s = numbers::kHostMemoryGbyteS;     // per CPU socket: 8 channels of DDR5-4800 (Sapphire Rapids)
    double inter_socket_gbyte_s = numbers::kInterSocketGbyteS;  // one direction of the CPU-CPU link: NCCL's SRP_QPI_BW
    int sockets_per_node = 0;            // CPU sockets the node's GPUs are spread over; 0: as many as the
                                         // node template's GPUs have NUMA nodes, else 2 (HGX/DGX)
};

/// The transports the score compares, with their priors; all overridable from the layout.
struct TransportSpec {
    Transport baseline = Transport::Tcp;     // "compare": [baseline, candidate]
    Transport candidate = Transport::Gdrdma;
    bool compare_given = false;              // the layout named "compare" (else the default)
    Transport network = Transport::Gdrdma;   // the network both arms of a p2p/shm comparison use:
                                             // the best the used GPUs allow (choose_arms sets it)
    TcpSpec tcp;
    ShmSpec shm;
    // The priors of the registry (planlayout/model/numbers/network.def): value and band.
    TransportParams tcp_params{prior_of(numbers::kTcpEfficiency), prior_of(numbers::kTcpAlltoallEfficiency),
                               numbers::kTcpAlphaUs};
    TransportParams rdma_params{prior_of(numbers::kRdmaEfficiency), prior_of(numbers::kRdmaAlltoallEfficiency),
                                numbers::kRdmaAlphaUs};
    TransportParams gdrdma_params{prior_of(numbers::kGdrdmaEfficiency), prior_of(numbers::kGdrdmaAlltoallEfficiency),
                                  numbers::kRdmaAlphaUs};
    // SHM: fractions of its host-side bound (PCIe, host memory, inter-socket link; cost.hpp
    // shm_line_gbyte_s).
    TransportParams shm_params{prior_of(numbers::kShmEfficiency), prior_of(numbers::kShmEfficiency), numbers::kShmAlphaUs};
    std::vector<std::string> calibrations;  // calibration files (plan-layout calibrate -o), in
                                            // order; read by the caller (apply_calibration_files)
    std::shared_ptr<const CollectiveFits> fits;  // their fits, set by apply_calibration (null: priors only)
    // Anchoring (model/score): a measured arm's network efficiencies multiplied by its factor
    // (1: none), when the compute band, a second arm or a measured compute leaves it the rest of its step.
    std::array<double, kTransportCount> anchor_factors{1.0, 1.0, 1.0, 1.0, 1.0};  // by Transport

    [[nodiscard]] double anchor_factor(Transport t) const { return anchor_factors.at(static_cast<std::size_t>(t)); }
    void set_anchor_factor(Transport t, double f) { anchor_factors.at(static_cast<std::size_t>(t)) = f; }

    /// A transport's priors; p2p has none of its own (P2P is the node's NVLink/PCIe priors) and
    /// gives the network's.
    [[nodiscard]] const TransportParams& params(Transport t) const;
    [[nodiscard]] TransportParams& params(Transport t);
};

}  // namespace planlayout
