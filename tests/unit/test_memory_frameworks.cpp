// Tests: the model states as each framework allocates them (DeepSpeed ZeRO-0..3 with its precision
// options and offload, Megatron DDP / distributed optimizer / Megatron-FSDP, torchtitan FSDP2 and
// HSDP), the parameters gathered during compute, activations by recompute mode, and the readers
// that carry those settings (ds_config, torchtitan TOML, Megatron-LM flags). Every figure is
// derived by hand from the framework's own accounting, cited where it is used.
#include <doctest/doctest.h>

#include <string>

#include "planlayout/error.hpp"
#include "planlayout/ingest/deepspeed_config.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/ingest/torchtitan_toml.hpp"
#include "planlayout/model/memory.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

constexpr double kPsi = 1e9;  // the parameters of the test model ("params": {"dense": 1e9})

// 16 layers, h 4096, 32 heads, FFN 11008, vocabulary 32000 (untied), Ψ given as 1e9: the states
// are exact multiples of Ψ; the shape only sizes the gathered units and the activations.
ModelSpec small_model() {
    ModelSpec m;
    m.layers = 16;
    m.hidden = 4096;
    m.heads = 32;
    m.ffn_hidden = 11008;
    m.vocab = 32000;
    m.dense_params = kPsi;
    return m;
}

TrainingSpec run(int seq = 4096) {
    TrainingSpec t;
    t.global_batch = 1024;
    t.micro_batch = 1;
    t.seq_len = seq;
    return t;
}

double states(const MemoryEstimate& e) { return e.params_bytes + e.grads_bytes + e.optimizer_bytes; }

// tp 1, pp 1, cp 1, dp `dp`; `fsdp` the size of the group with role fsdp (0: none).
ParallelSizes sizes(int dp, int fsdp = 0, int dp_replicate = 0) {
    ParallelSizes p;
    p.dp = dp;
    p.expert_dp = dp;
    p.fsdp = fsdp;
    p.dp_replicate = dp_replicate;
    return p;
}

}  // namespace

TEST_CASE("DeepSpeed ZeRO-0..3 model states are ZeRO's own accounting: 16, 4 + 12/Nd, 2 + 14/Nd, 16/Nd bytes per parameter") {
    // ZeRO (Rajbhandari et al. 2020, §3 and Figure 1; DeepSpeed's ZeRO tutorial): mixed-precision
    // Adam keeps 2 (fp16/bf16 weights) + 2 (gradients) + K = 12 (fp32 master, momentum, variance)
    // bytes per parameter; stage 1 partitions the 12, stage 2 also the gradients, stage 3 also
    // the weights over the Nd data-parallel ranks. Nd = 8; stage 3's group has role fsdp.
    const ModelSpec m = small_model();
    const TrainingSpec t = run();
    const StateOwner z0{Framework::DeepSpeed, 0};
    CHECK(states(estimate_memory(sizes(8), m, t, z0)) == 16 * kPsi);
    CHECK(states(estimate_memory(sizes(8), m, t, {Framework::DeepSpeed, 1})) == (4 + 12.0 / 8) * kPsi);
    CHECK(states(estimate_memory(sizes(8), m, t, {Framework::DeepSpeed, 2})) == (2 + 14.0 / 8) * kPsi);
    const MemoryEstimate z3 = estimate_memory(sizes(8, 8), m, t, {Framework::DeepSpeed, 3});
    CHECK(states(z3) == 16.0 / 8 * kPsi);
    CHECK(z3.accounting.find("DeepSpeed ZeRO-3, bf16: 2/Nd weights + 2/Nd grads + 12/Nd optimizer") == 0);
    // ZeRO-3 fetches module by module (runtime/zero/partitioned_param_coordinator.py), prefetching
    // stage3_prefetch_bucket_size = 5e7 elements ahead (runtime/zero/config.py default): the largest
    // module here is the 32000 x 4096 embedding, 131,072,000 parameters, in bf16:
    //   (131,072,000 + 50,000,000) x 2 = 362,144,000 bytes.
    CHECK(z3.gathered_bytes == 362144000.0);
    CHECK(estimate_memory(sizes(8), m, t, z0).gathered_bytes == 0);
    // The HF Trainer's "auto" (0 here) fills 0.9 * hidden^2 = 15,099,494.4 elements.
    TrainingSpec auto_bucket = t;
    auto_bucket.prefetch_bucket = 0;
    CHECK(estimate_memory(sizes(8, 8), m, auto_bucket, {Framework::DeepSpeed, 3}).gathered_bytes ==
          doctest::Approx((131072000.0 + 0.9 * 4096 * 4096) * 2));
    // The stage given in "training" counts too (the larger of the two).
    TrainingSpec in_training = t;
    in_training.zero_stage = 1;
    CHECK(states(estimate_memory(sizes(8), m, in_training, z0)) == (4 + 12.0 / 8) * kPsi);
}

TEST_CASE("DeepSpeed precision: fp32 by default, bf16 master weights and optimizer states, CPU offload") {
    const ModelSpec m = small_model();
    TrainingSpec t = run();
    // runtime/precision_config.py: neither bf16 nor fp16 enabled trains in fp32: 4-byte weights and
    // gradients, Adam m and v (8), and no separate master copy: 16 bytes, 4 + 4 + 8.
    t.precision = StatePrecision::Fp32;
    const MemoryEstimate fp32 = estimate_memory(sizes(8), m, t, {Framework::DeepSpeed, 0});
    CHECK(fp32.params_bytes == 4 * kPsi);
    CHECK(fp32.grads_bytes == 4 * kPsi);
    CHECK(fp32.optimizer_bytes == 8 * kPsi);
    CHECK(states(estimate_memory(sizes(8, 8), m, t, {Framework::DeepSpeed, 3})) == 16.0 / 8 * kPsi);
    // bf16.bf16_master_weights_and_grads: the master in bf16 (2), m and v fp32 (8): K = 10;
    // with bf16.bf16_optimizer_states also m and v in bf16: K = 2 + 2 + 2 = 6 (DeepSpeed PR #7700).
    t.precision = StatePrecision::Bf16;
    t.bf16_master_weights_and_grads = true;
    CHECK(estimate_memory(sizes(8), m, t, {Framework::DeepSpeed, 1}).optimizer_bytes == 10.0 / 8 * kPsi);
    t.bf16_optimizer_states = true;
    CHECK(estimate_memory(sizes(8), m, t, {Framework::DeepSpeed, 1}).optimizer_bytes == 6.0 / 8 * kPsi);
    // ZeRO-Offload: offload_optimizer moves the optimizer states off the GPU (counted apart);
    // offload_param moves ZeRO-3's weight shards; the gathered modules stay on the GPU.
    TrainingSpec off = run();
    off.offload_optimizer = Offload::Cpu;
    const MemoryEstimate z2 = estimate_memory(sizes(8), m, off, {Framework::DeepSpeed, 2});
    CHECK(z2.optimizer_bytes == 0);
    CHECK(z2.offloaded_bytes == 12.0 / 8 * kPsi);
    CHECK(z2.total_bytes() == z2.params_bytes + z2.grads_bytes + z2.activations_bytes);
    off.offload_param = Offload::Nvme;
    const MemoryEstimate z3 = estimate_memory(sizes(8, 8), m, off, {Framework::DeepSpeed, 3});
    CHECK(z3.params_bytes == 0);
    CHECK(z3.offloaded_bytes == (12.0 + 2.0) / 8 * kPsi);
    CHECK(z3.gathered_bytes == 362144000.0);
    // offload_param means nothing below stage 3 (DeepSpeed ignores it there).
    CHECK(estimate_memory(sizes(8), m, off, {Framework::DeepSpeed, 2}).params_bytes == 2 * kPsi);
}

TEST_CASE("Megatron's own accounting: 18 bytes per parameter with DDP, 6 + 12/d with the distributed optimizer, Megatron-FSDP's strategies") {
    // megatron/training/theoretical_memory_usage.py compute_weight_and_optimizer_memory:
    // num_bytes_per_parameter = 18 if not use_distributed_optimizer else 6 + 12 / data_parallel_size
    // (bf16 weights 2, fp32 main grads 4, fp32 master + Adam m, v 12). The Megatron reader gives the
    // model 4-byte gradients for --bf16 (fp32 main grads); d = 8.
    ModelSpec m = small_model();
    m.grad_bytes = 4;
    TrainingSpec t = run();
    CHECK(states(estimate_memory(sizes(8), m, t)) == 18 * kPsi);
    t.distributed_optimizer = true;
    CHECK(states(estimate_memory(sizes(8), m, t)) == (6 + 12.0 / 8) * kPsi);
    CHECK(estimate_memory(sizes(8), m, t).accounting.find("Megatron distributed optimizer: 2 weights + 4 grads + 12/Nd") == 0);
    // Megatron-FSDP (--use-megatron-fsdp --data-parallel-sharding-strategy): no_shard keeps all
    // 18; optim shards the 12; optim_grads also the 4; optim_grads_params everything (ZeRO-3-like)
    // and gathers the units it computes (layer by layer, the next one prefetched).
    t.distributed_optimizer = false;
    t.megatron_fsdp = ShardingStrategy::NoShard;
    CHECK(states(estimate_memory(sizes(8), m, t)) == 18 * kPsi);
    t.megatron_fsdp = ShardingStrategy::Optim;
    CHECK(states(estimate_memory(sizes(8), m, t)) == (6 + 12.0 / 8) * kPsi);
    t.megatron_fsdp = ShardingStrategy::OptimGrads;
    CHECK(states(estimate_memory(sizes(8), m, t)) == (2 + 16.0 / 8) * kPsi);
    t.megatron_fsdp = ShardingStrategy::OptimGradsParams;
    const MemoryEstimate full = estimate_memory(sizes(8), m, t);
    CHECK(states(full) == 18.0 / 8 * kPsi);
    // The largest unit: the embedding, 131,072,000 parameters (a layer holds
    // (1e9 - 2 x 131,072,000) / 16 = 46,116,000); two in flight in bf16 and one unit's main grad
    // (4 bytes): 131,072,000 x (2 x 2 + 4) = 1,048,576,000.
    CHECK(full.gathered_bytes == 1048576000.0);
    CHECK(estimate_memory(sizes(8), m, run()).gathered_bytes == 0);
}

TEST_CASE("torchtitan FSDP2 and HSDP: 16 bytes per parameter sharded over dp_shard x cp, replicated over dp_replicate") {
    // torchtitan/distributed/fsdp.py + models/llama3/infra/parallelize.py apply_fsdp: fully_shard
    // with MixedPrecisionPolicy(param_dtype bf16, reduce_dtype fp32) keeps the fp32 parameters (4),
    // their fp32 gradients (4) and AdamW's m, v (8) as DTensor shards over the FSDP mesh.
    const ModelSpec m = small_model();
    const TrainingSpec t = run();
    const StateOwner titan{Framework::Torchtitan, 0};
    const MemoryEstimate fsdp = estimate_memory(sizes(8, 8), m, t, titan);
    CHECK(fsdp.params_bytes == 4.0 / 8 * kPsi);
    CHECK(fsdp.grads_bytes == 4.0 / 8 * kPsi);
    CHECK(fsdp.optimizer_bytes == 8.0 / 8 * kPsi);
    // HSDP: dp 16 = dp_replicate 2 x dp_shard 8: the replicas do not shard further.
    CHECK(states(estimate_memory(sizes(16, 8, 2), m, t, titan)) == states(fsdp));
    // Gathered: the unit computing and the next one prefetched in bf16, and one unit's gradient
    // in bf16 plus its fp32 copy for the reduce-scatter: the embedding unit, 131,072,000 x
    // (2 x 2 + 2 + 4) = 1,310,720,000 bytes.
    CHECK(fsdp.gathered_bytes == 1310720000.0);
    // Without an FSDP mesh (dp_shard x cp = 1: DDP over dp_replicate, or one GPU) the 16 bytes
    // stay whole and nothing is gathered.
    const MemoryEstimate ddp = estimate_memory(sizes(4, 1, 4), m, t, titan);
    CHECK(states(ddp) == 16 * kPsi);
    CHECK(ddp.gathered_bytes == 0);
    // The same model under Megatron's default accounting is not this one.
    CHECK(states(estimate_memory(sizes(8, 8), m, t)) != states(fsdp));
}

TEST_CASE("activations by recompute mode: none, full (uniform and block), every Nth layer, unfused scores, interleaved pipeline") {
    // s 4096, b 1, h 4096, t 1, no SP: a kept layer is s·b·h·(10 + 24) (Korthikanti et al. 2022,
    // Table 2) with its 4h GELU MLP's 16·s·b·h replaced by this model's gated MLP, FC1 and
    // activation outputs 2·s·b·3·f: 4096·(18·4096 + 6·11008) = 572,522,496 bytes; a
    // checkpointed one its input 2·s·b·h = 33,554,432; with
    // p = 1 the output layer's input and fp32 logits 4·s·b·(h + V) = 4·4096·(4096 + 32000) =
    // 591,396,864 (Megatron's theoretical_memory_usage.py) are added once.
    const ModelSpec m = small_model();
    TrainingSpec t = run();
    constexpr double kLayer = 572522496.0;
    constexpr double kInput = 33554432.0;
    constexpr double kLogits = 591396864.0;
    CHECK(estimate_memory(sizes(1), m, t).activations_bytes == 16 * kLayer + kLogits);
    // Full recompute of every layer: 16 inputs, plus one layer's activations while it is recomputed.
    t.recompute = Recompute::Full;
    CHECK(estimate_memory(sizes(1), m, t).activations_bytes == 16 * kInput + kLayer + kLogits);
    // --recompute-method block --recompute-num-layers 4: 4 layers checkpointed, 12 kept.
    t.recompute_method = RecomputeMethod::Block;
    t.recompute_layers = 4;
    CHECK(estimate_memory(sizes(1), m, t).activations_bytes == 12 * kLayer + 4 * kInput + kLayer + kLogits);
    // --recompute-method uniform --recompute-num-layers 4: one checkpoint per group of 4 layers,
    // and the 4 layers of a group recomputed together.
    t.recompute_method = RecomputeMethod::Uniform;
    CHECK(estimate_memory(sizes(1), m, t).activations_bytes == 4 * kInput + 4 * kLayer + kLogits);
    // torchtitan's selective_ac_option "2" (its default): every 2nd block fully checkpointed.
    t = run();
    t.recompute = Recompute::Selective;
    t.checkpoint_every = 2;
    CHECK(estimate_memory(sizes(1), m, t).activations_bytes == 8 * kLayer + 8 * kInput + kLayer + kLogits);
    // torchtitan's per-op selective checkpointing ("op"): the block input, the attention output
    // and every other matmul output (q, v, w1, w2), bf16: 2·(2·4096 + 2·4096 + 4096 + 11008) =
    // 62,976 bytes per token, 257,949,696 per layer of 4096 tokens (the MHA model: kv = heads).
    t.checkpoint_every = 0;
    t.per_op_checkpoint = true;
    CHECK(estimate_memory(sizes(1), m, t).activations_bytes == 16 * 257949696.0 + kLogits);
    // Unfused attention keeps the scores, softmax and dropout: 5·a·s²·b/t = 5·32·4096² =
    // 2,684,354,560 bytes per layer; the backward of the last layer holds two s×s gradients
    // (probabilities and scores, bf16) on top: 4·a·s²·b/t = 2,147,483,648.
    t = run();
    t.attention_backend = AttentionBackend::Unfused;
    CHECK(estimate_memory(sizes(1), m, t).activations_bytes == 16 * (kLayer + 2684354560.0) + 2147483648.0 + kLogits);
    // --attention-dropout 0: no mask and no dropped copy, the probabilities alone, 2·a·s²·b/t.
    t.attention_dropout = 0;
    CHECK(estimate_memory(sizes(1), m, t).activations_bytes == 16 * (kLayer + 1073741824.0) + 2147483648.0 + kLogits);
    // Interleaved pipeline, p 4, v 2: the first stage's 4 layers for p·(1 + (p−1)/(p·v)) = 5.5
    // micro-batches (Megatron's interleaved_schedule_memory_penalty); no logits on the first stage.
    t = run();
    t.vpp = 2;
    ParallelSizes p = sizes(1);
    p.pp = 4;
    CHECK(estimate_memory(p, m, t).activations_bytes == 5.5 * 4 * kLayer);
    // 1F1B: min(p, m) = 4 micro-batches.
    t.vpp = 1;
    CHECK(estimate_memory(p, m, t).activations_bytes == 4 * 4 * kLayer);
}

TEST_CASE("ds_config: precision, bf16 'auto', bf16 master options, offload devices and the ZeRO-3 prefetch bucket are read as DeepSpeed reads them") {
    const DeepSpeedConfig plain = read_deepspeed_config(R"({"train_batch_size": 8})", "ds.json");
    CHECK(!plain.bf16);
    CHECK(!plain.fp16);  // fp32: DeepSpeed's default
    CHECK(plain.prefetch_bucket == 5e7);
    const DeepSpeedConfig hf = read_deepspeed_config(
        R"({"bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"},
            "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "nvme"},
                                  "stage3_prefetch_bucket_size": "auto"}})",
        "ds.json");
    CHECK(hf.bf16);
    CHECK(hf.bf16_auto);
    CHECK(!hf.fp16);
    CHECK(hf.offload_optimizer == "cpu");
    CHECK(hf.offload_param == "nvme");
    CHECK(hf.prefetch_bucket == 0);
    const DeepSpeedConfig fp16 = read_deepspeed_config(R"({"bf16": {"enabled": false}, "fp16": {"enabled": "auto"}})", "ds.json");
    CHECK(fp16.fp16);
    CHECK(fp16.fp16_auto);
    const DeepSpeedConfig master = read_deepspeed_config(
        R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true, "bf16_optimizer_states": true},
            "zero_optimization": {"stage": 2}})",
        "ds.json");
    CHECK(master.bf16_master_weights_and_grads);
    CHECK(master.bf16_optimizer_states);
    // DeepSpeed refuses bf16 master weights at stage 0 (runtime/config.py), and unknown devices.
    CHECK_THROWS_AS((void)read_deepspeed_config(R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true}})", "ds.json"),
                    Error);
    CHECK_THROWS_WITH_AS((void)read_deepspeed_config(R"({"zero_optimization": {"offload_optimizer": {"device": "gpu"}}})", "ds.json"),
                         doctest::Contains("unknown offload device 'gpu'"), Error);
}

TEST_CASE("torchtitan [activation_checkpoint] is read: mode and selective_ac_option, refused when torchtitan would refuse") {
    const TorchtitanConfig c = read_torchtitan_config("[activation_checkpoint]\nmode = \"full\"\n", "t.toml");
    CHECK(c.training.ac_mode == std::optional<std::string>("full"));
    CHECK(!c.training.ac_option);
    const TorchtitanConfig d = read_torchtitan_config("[activation_checkpoint]\nselective_ac_option = \"3\"\n", "t.toml");
    CHECK(d.training.ac_option == std::optional<std::string>("3"));
    CHECK_THROWS_WITH_AS((void)read_torchtitan_config("[activation_checkpoint]\nmode = \"everything\"\n", "t.toml"),
                         doctest::Contains("t.toml:2: [activation_checkpoint] mode must be"), Error);
    CHECK_THROWS_AS((void)read_torchtitan_config("[activation_checkpoint]\nselective_ac_option = \"x2\"\n", "t.toml"), Error);
}

TEST_CASE("the training section's memory block reads and writes back, and refuses what DeepSpeed refuses") {
    const nlohmann::json j = nlohmann::json::parse(
        R"({"global_batch": 8, "seq_len": 128, "attention_backend": "unfused", "checkpoint_every": 2,
            "states": {"precision": "bf16", "bf16_master_weights_and_grads": true, "bf16_optimizer_states": true,
                       "offload_optimizer": "cpu", "offload_param": "nvme", "prefetch_bucket": 0,
                       "megatron_fsdp": "optim_grads"}})");
    const TrainingSpec t = training_spec_from_json(j, "l.json", "/training");
    CHECK(t.unfused_attention());
    CHECK(t.checkpoint_every == 2);
    CHECK(t.bf16_optimizer_states);
    CHECK(t.offload_optimizer == Offload::Cpu);
    CHECK(t.offload_param == Offload::Nvme);
    CHECK(t.prefetch_bucket == 0);
    CHECK(t.megatron_fsdp == ShardingStrategy::OptimGrads);
    const TrainingSpec again = training_spec_from_json(t.to_json(), "l.json", "/training");
    CHECK(again.to_json() == t.to_json());
    CHECK(again.megatron_fsdp == ShardingStrategy::OptimGrads);
    CHECK(again.offload_param == Offload::Nvme);
    CHECK_THROWS_WITH_AS((void)training_spec_from_json(
                             nlohmann::json::parse(R"({"global_batch": 8, "seq_len": 128, "states": {"bf16_optimizer_states": true}})"),
                             "l.json", "/training"),
                         doctest::Contains("bf16_optimizer_states requires bf16_master_weights_and_grads"), Error);
    CHECK_THROWS_WITH_AS((void)training_spec_from_json(
                             nlohmann::json::parse(R"({"global_batch": 8, "seq_len": 128, "states": {"megatron_fsdp": "zero3"}})"),
                             "l.json", "/training"),
                         doctest::Contains("optim_grads_params"), Error);
}

TEST_CASE("Megatron --recompute-modules: each module drops its own saved tensors, core_attn alone by default") {
    // The small model (h 4096, f 11008 gated, 32 heads), s 4096, b 1, t 1, unfused attention
    // without dropout. Per layer: the probabilities 2·a·s² = 1,073,741,824; the two norms' outputs
    // 4·s·h = 67,108,864; the MLP's FC1 and activation outputs 2·s·3·f = 270,532,608.
    const ModelSpec m = small_model();
    TrainingSpec t = run();
    t.attention_backend = AttentionBackend::Unfused;
    t.attention_dropout = 0;
    const double none = estimate_memory(sizes(1), m, t).activations_bytes;
    constexpr double kScores = 1073741824.0;
    t.recompute = Recompute::Selective;  // Megatron's default module list: core_attn
    const double core = estimate_memory(sizes(1), m, t).activations_bytes;
    // Recomputed scores are rebuilt for the layer in backward: 15 layers' scores fewer than kept.
    CHECK(none - core == doctest::Approx(15 * kScores));
    t.recompute_modules = {"core_attn", "mlp"};
    CHECK(core - estimate_memory(sizes(1), m, t).activations_bytes == doctest::Approx(16 * 270532608.0));
    t.recompute_modules = {"core_attn", "layernorm"};
    CHECK(core - estimate_memory(sizes(1), m, t).activations_bytes == doctest::Approx(16 * 67108864.0));
    // mlp alone keeps the scores.
    t.recompute_modules = {"mlp"};
    CHECK(none - estimate_memory(sizes(1), m, t).activations_bytes == doctest::Approx(16 * 270532608.0));
    CHECK(estimate_memory(sizes(1), m, t).activations_formula.find("selective recompute of mlp") != std::string::npos);

    // An MoE model: 64 experts, top-8, expert FFN 1024, every layer MoE; per layer the routed
    // copies in and out 2·8·s·h·2, the experts' FC1 outputs 8·s·2·1024·2 and activation outputs
    // 8·s·1024·2 instead of the dense MLP's outputs.
    ModelSpec moe = small_model();
    moe.experts = 64;
    moe.topk = 8;
    moe.moe_ffn_hidden = 1024;
    moe.moe_layers = 16;
    TrainingSpec r = run();
    const double s = 4096;
    const double act = 8 * s * 1024 * 2;
    const double io = 2 * 8 * s * 4096 * 2;
    const double dense_layer = estimate_memory(sizes(1), m, r).activations_bytes;
    const double moe_layer = estimate_memory(sizes(1), moe, r).activations_bytes;
    CHECK(moe_layer - dense_layer == doctest::Approx(16 * (io + 2 * act + act - 270532608.0)));
    r.recompute = Recompute::Selective;
    r.recompute_modules = {"moe_act"};
    CHECK(moe_layer - estimate_memory(sizes(1), moe, r).activations_bytes == doctest::Approx(16 * act));
    r.recompute_modules = {"moe"};
    CHECK(moe_layer - estimate_memory(sizes(1), moe, r).activations_bytes == doctest::Approx(16 * (io + 3 * act)));
}

TEST_CASE("AdamW on the bf16 weights (hf's default optimizer): 2 + 2 + 4 bytes per parameter, no fp32 master") {
    const ModelSpec m = small_model();
    TrainingSpec t = run();
    t.implementation = Implementation::Hf;
    const MemoryEstimate e = estimate_memory(sizes(1), m, t);
    CHECK(states(e) == doctest::Approx(8 * kPsi));
    CHECK(e.accounting.find("PyTorch DDP (hf)") == 0);
    // The same code with an fp32-master optimizer named: Megatron's 2 + 2 + 12 (grad bytes of the layout).
    t.optimizer = OptimizerImpl::FusedFp32;
    CHECK(states(estimate_memory(sizes(1), m, t)) == doctest::Approx(16 * kPsi));
    // megatron-local steps an fp32 master by default.
    t = run();
    t.implementation = Implementation::MegatronLocal;
    CHECK(t.resolved_optimizer() == OptimizerImpl::ForeachFp32);
    CHECK(states(estimate_memory(sizes(1), m, t)) == doctest::Approx(16 * kPsi));
}

TEST_CASE("recompute_modules and attention_dropout: read from the layout and from Megatron-LM flags, refused when Megatron would") {
    const nlohmann::json base = {{"global_batch", 8}, {"seq_len", 1024}, {"recompute", "selective"}};
    nlohmann::json j = base;
    j["recompute_modules"] = {"mlp", "moe_act", "mlp"};
    j["attention_dropout"] = 0;
    j["hidden_dropout"] = 0;
    const TrainingSpec t = training_spec_from_json(j, "l.json", "/training");
    CHECK(t.hidden_dropout == 0);
    CHECK(training_spec_from_json(t.to_json(), "back", "").hidden_dropout == 0);
    // CUDA graphs: the layers (of the modules named) or the whole step, saved with the layout.
    nlohmann::json g = base;
    g["cuda_graph"] = "layers";
    g["cuda_graph_modules"] = {"attn", "moe_router", "attn"};
    const TrainingSpec graphed = training_spec_from_json(g, "l.json", "/training");
    CHECK(graphed.cuda_graph == CudaGraph::Layers);
    CHECK(graphed.cuda_graph_modules == std::vector<std::string>{"attn", "moe_router"});
    const TrainingSpec back = training_spec_from_json(graphed.to_json(), "back", "");
    CHECK(back.cuda_graph == CudaGraph::Layers);
    CHECK(back.cuda_graph_modules == graphed.cuda_graph_modules);
    g["cuda_graph_modules"] = {"attention"};
    CHECK_THROWS_WITH(training_spec_from_json(g, "l.json", "/training"),
                      doctest::Contains("l.json (/training/cuda_graph_modules/0): not a CUDA-graph module: 'attention'"));
    g["cuda_graph"] = "full_iteration";
    g["cuda_graph_modules"] = {"attn"};
    CHECK_THROWS_WITH(training_spec_from_json(g, "l.json", "/training"), doctest::Contains("\"layers\" only"));
    g.erase("cuda_graph_modules");
    CHECK(training_spec_from_json(g, "l.json", "/training").cuda_graph == CudaGraph::FullIteration);
    CHECK(t.recompute_modules == std::vector<std::string>{"mlp", "moe_act"});
    CHECK(t.attention_dropout == 0);
    CHECK(t.recomputes("mlp"));
    CHECK_FALSE(t.recomputes("core_attn"));
    CHECK(training_spec_from_json(t.to_json(), "back", "").recompute_modules == t.recompute_modules);
    j["recompute_modules"] = {"attention"};
    CHECK_THROWS_WITH(training_spec_from_json(j, "l.json", "/training"),
                      doctest::Contains("l.json (/training/recompute_modules/0): not a recompute module: 'attention'"));
    j = base;
    j["recompute"] = "full";
    j["recompute_modules"] = {"mlp"};
    CHECK_THROWS_WITH(training_spec_from_json(j, "l.json", "/training"), doctest::Contains("selective recompute only"));
}

TEST_CASE("hidden dropout 0: Megatron keeps no dropout masks, torchtitan never does") {
    // Korthikanti's layer holds two one-byte masks of s·b·h (after the attention and after the MLP):
    // 2·4096·4096 bytes per layer without sequence parallelism, 16 layers. F.dropout with p = 0
    // returns its input (Megatron's bias-dropout-add keeps no mask).
    const ModelSpec m = small_model();
    TrainingSpec t = run();
    const double masks = 16 * 2.0 * 4096 * 4096;
    const double with = estimate_memory(sizes(1), m, t).activations_bytes;
    t.hidden_dropout = 0;
    CHECK(with - estimate_memory(sizes(1), m, t).activations_bytes == masks);
    // torchtitan's models have no dropout: no masks whatever hidden_dropout says.
    t.hidden_dropout = 0.1;
    const double tt = estimate_memory(sizes(1), m, t, {Framework::Torchtitan, 0}).activations_bytes;
    t.hidden_dropout = 0;
    CHECK(estimate_memory(sizes(1), m, t, {Framework::Torchtitan, 0}).activations_bytes == tt);
    // With sequence parallelism the masks are split over the tensor-parallel ranks too.
    ParallelSizes p = sizes(1);
    p.tp = 4;
    t.sequence_parallel = true;
    const double sp0 = estimate_memory(p, m, t).activations_bytes;
    t.hidden_dropout = 0.1;
    CHECK(estimate_memory(p, m, t).activations_bytes - sp0 == masks / 4);
}

TEST_CASE("FP8 under Transformer Engine: the GEMMs keep FP8 copies of their inputs, half the bf16 bytes") {
    // The small model, s 4096, b 1, t 1, no SP. Per layer the GEMM inputs kept in bf16: the two
    // norms' outputs (QKV and FC1 inputs) 4·s·h = 67,108,864, the attention output (proj input)
    // 2·s·h = 33,554,432 and the activation output (FC2 input) 2·s·f = 90,177,536; in FP8 half:
    // 95,420,416 fewer bytes per layer, 16 layers.
    const ModelSpec m = small_model();
    TrainingSpec t = run();
    const double bf16 = estimate_memory(sizes(1), m, t).activations_bytes;
    t.fp8 = "hybrid";
    const MemoryEstimate e = estimate_memory(sizes(1), m, t);
    CHECK(bf16 - e.activations_bytes == doctest::Approx(16 * 95420416.0));
    CHECK(e.activations_formula.find("GEMM inputs kept in FP8") != std::string::npos);
    // Megatron's local implementation runs no FP8 GEMMs: nothing changes (flash attention named,
    // so that the local implementation's unfused scores stay out of the comparison).
    t.implementation = Implementation::MegatronLocal;
    t.attention_backend = AttentionBackend::Flash;
    CHECK(estimate_memory(sizes(1), m, t).activations_bytes == bf16);
}
