// Tests: memory as Hugging Face transformers' eager modules allocate it (the "hf" implementation):
// the tensors its modules save (fp32 norm inputs, RoPE'd q and k, SDPA's output and o_proj's
// contiguous copy, the gated MLP's four outputs), the loss's fp32 temporaries, gradients that
// exist only after the activations are freed (one rank, one micro-batch) and foreach AdamW's
// sqrt(v) at the optimizer step. Every figure is derived by hand below from transformers 5's
// modeling_llama.py / LlamaRMSNorm / ForCausalLMLoss and torch's _multi_tensor_adamw.
#include <doctest/doctest.h>

#include "planlayout/model/memory.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

// Llama 3.2 1B's shape (h 2048, 32 heads of 64, 8 KV heads, FFN 8192 gated, vocabulary 128256,
// 16 layers), with Ψ given as 1e9 so the states are round.
ModelSpec llama_1b() {
    ModelSpec m;
    m.layers = 16;
    m.hidden = 2048;
    m.heads = 32;
    m.kv_heads = 8;
    m.ffn_hidden = 8192;
    m.vocab = 128256;
    m.tied_embeddings = true;
    m.dense_params = 1e9;
    return m;
}

TrainingSpec hf_run(int global_batch = 1) {
    TrainingSpec t;
    t.global_batch = global_batch;
    t.micro_batch = 1;
    t.seq_len = 4096;
    t.implementation = Implementation::Hf;
    return t;
}

ParallelSizes ranks(int dp) {
    ParallelSizes p;
    p.dp = dp;
    p.expert_dp = dp;
    return p;
}

// Per token and layer: two norms × (4 + 2·2)·2048 = 32768; q, k, v, SDPA's output and o_proj's
// copy 2·(3·2048 + 2·512) = 14336; gate, up, act, product 2·2·2·8192 = 65536: 112640 bytes.
constexpr double kLayer = 4096.0 * 112640;
// The final norm 8·2048 and the loss (2 + 12)·128256 per token.
constexpr double kOutput = 4096.0 * (8.0 * 2048 + 14.0 * 128256);

}  // namespace

TEST_CASE("hf activations are what transformers' modules save - by hand for Llama 3.2 1B's shape") {
    const MemoryEstimate e = estimate_memory(ranks(1), llama_1b(), hf_run());
    CHECK(e.activations_bytes == doctest::Approx(16 * kLayer + kOutput));
    CHECK(e.activations_formula.find("Hugging Face modules") != std::string::npos);
    CHECK(e.activations_formula.find("log-softmax") != std::string::npos);
    // Qwen3's q_norm and k_norm keep (4 + 2) bytes per element of q and k: 6·(2048 + 512) per token.
    ModelSpec qwen = llama_1b();
    qwen.qk_norm = true;
    CHECK(estimate_memory(ranks(1), qwen, hf_run()).activations_bytes - e.activations_bytes ==
          doctest::Approx(16 * 4096.0 * 6 * (2048 + 512)));
    // Megatron's modules keep less: the same shape under megatron-te is Korthikanti's count.
    TrainingSpec te = hf_run();
    te.implementation = Implementation::MegatronTe;
    CHECK(estimate_memory(ranks(1), llama_1b(), te).activations_bytes < e.activations_bytes - kOutput / 2);
}

TEST_CASE("hf on one rank with one micro-batch: the gradients never sit beside the activations") {
    const double act = 16 * kLayer + kOutput;
    // bf16 weights 2e9, gradients 2e9, AdamW m and v 4e9; foreach's sqrt(v) 2e9 at the step.
    const MemoryEstimate one = estimate_memory(ranks(1), llama_1b(), hf_run());
    CHECK(one.grads_after_activations);
    CHECK(one.optimizer_step_bytes == doctest::Approx(2e9));
    CHECK(one.total_bytes() == doctest::Approx(2e9 + 4e9 + act));
    // DDP (two ranks) keeps gradient buckets: gradients beside the activations.
    const MemoryEstimate ddp = estimate_memory(ranks(2), llama_1b(), hf_run(2));
    CHECK_FALSE(ddp.grads_after_activations);
    CHECK(ddp.total_bytes() == doctest::Approx(2e9 + 4e9 + act + 2e9));
    // Gradient accumulation (two micro-batches): the first micro-batch's gradients stay for the second.
    CHECK_FALSE(estimate_memory(ranks(1), llama_1b(), hf_run(2)).grads_after_activations);
}

TEST_CASE("the optimizer step's peak wins when the states outweigh the activations") {
    // A short sequence: the activations are small, the step holds weights, m, v, gradients and sqrt(v).
    TrainingSpec t = hf_run();
    t.seq_len = 128;
    const MemoryEstimate e = estimate_memory(ranks(1), llama_1b(), t);
    REQUIRE(e.activations_bytes < 4e9);
    CHECK(e.total_bytes() == doctest::Approx(2e9 + 4e9 + 2e9 + 2e9));
    // A fused optimizer steps in place: no temporaries; megatron-local's foreach on fp32 states
    // takes 4 bytes per parameter.
    t.optimizer = OptimizerImpl::FusedBf16;
    CHECK(estimate_memory(ranks(1), llama_1b(), t).optimizer_step_bytes == 0);
    t.implementation = Implementation::MegatronLocal;
    t.optimizer = OptimizerImpl::Auto;
    CHECK(estimate_memory(ranks(1), llama_1b(), t).optimizer_step_bytes == doctest::Approx(4e9));
}
