#!/usr/bin/env python3
"""The memory-bound blocks of a transformer layer, timed as each implementation runs them (issue 28).

Each block is the implementation's own code (imported, not copied), run forward and backward on
one GPU with CUDA events (median of --samples samples after 3 warm-ups, each sample queued behind
torch.cuda._sleep): the norms, rotary embedding, gated activation, residual add, the core
attention of Megatron's local implementation, the loss over the vocabulary and the embedding.

  hf.*        transformers (LlamaRMSNorm, apply_rotary_pos_emb, the LlamaMLP activation
              act(gate) * up, the residual add, ForCausalLMLoss)
  megatron.*  Megatron-Core with --transformer-impl local and every fusion off (torch.nn.RMSNorm
              through WrappedTorchNorm, _apply_rotary_pos_emb_bshd, the MLP's glu, the unfused
              bias-dropout-add, DotProductAttention with the unfused scale-mask-softmax,
              vocab_parallel_cross_entropy)
  torch.*     nn.Embedding (both frameworks' embedding lookup and its dense gradient)

Rows: {impl, block, shape, elements (what the block's cost scales with), fwd_us, bwd_us}.
Usage: blocks.py --megatron DIR --out DIR [--tag h200]
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernels import timed as timed_pair  # noqa: E402  (the same CUDA-event timing: median of samples behind _sleep)


def timed(fn, samples):
    """The median microseconds of kernels.timed (which also returns the minimum)."""
    return timed_pair(fn, samples)[0]


def fwd_bwd(fn, inputs, samples, fresh=False):
    """(fwd µs, bwd µs) of out = fn(*inputs) and its backward to every input that needs a grad.
    fresh: the backward consumes its graph (Megatron's cross entropy works in place on what it
    saved), so each sample runs forward + backward and the forward's time is subtracted."""
    out = fn(*inputs)
    outs = out if isinstance(out, tuple) else (out,)
    grads = [torch.randn_like(o) for o in outs]
    leaves = [x for x in inputs if isinstance(x, torch.Tensor) and x.requires_grad]
    f = timed(lambda: fn(*inputs), samples)
    if fresh:
        def both():
            o = fn(*inputs)
            return torch.autograd.grad(o if isinstance(o, tuple) else (o,), leaves, grads)
        return f, timed(both, samples) - f
    b = timed(lambda: torch.autograd.grad(outs, leaves, grads, retain_graph=True), samples)
    return f, b


def rand(*shape, grad=True, dtype=torch.bfloat16):
    return torch.randn(*shape, device="cuda", dtype=dtype).requires_grad_(grad)


def hf_rows(a, rows, shapes):
    import transformers
    from transformers.loss.loss_utils import ForCausalLMLoss
    from transformers.models.llama import modeling_llama as ml
    for h, f, n, kv, d, v in shapes:
        t = a.tokens
        cfg = transformers.LlamaConfig(hidden_size=h, intermediate_size=f, num_attention_heads=n, num_key_value_heads=kv,
                                       head_dim=d, vocab_size=v, max_position_embeddings=t)
        norm = ml.LlamaRMSNorm(h, eps=1e-5).cuda().to(torch.bfloat16)
        add(rows, "hf", "rmsnorm", f"T{t} h{h}", t * h, *fwd_bwd(norm, [rand(1, t, h)], a.samples))
        rot = ml.LlamaRotaryEmbedding(cfg).cuda()
        pos = torch.arange(t, device="cuda")[None]
        x = rand(1, t, h, grad=False)
        cos, sin = rot(x, pos)
        add(rows, "hf", "rope", f"T{t} n{n} kv{kv} d{d}", t * (n + kv) * d,
            *fwd_bwd(lambda q, k: ml.apply_rotary_pos_emb(q, k, cos, sin), [rand(1, n, t, d), rand(1, kv, t, d)], a.samples))
        act = transformers.activations.ACT2FN["silu"]
        add(rows, "hf", "swiglu", f"T{t} f{f}", t * f, *fwd_bwd(lambda g, u: act(g) * u, [rand(1, t, f), rand(1, t, f)], a.samples))
        add(rows, "hf", "residual", f"T{t} h{h}", t * h, *fwd_bwd(lambda p, q: p + q, [rand(1, t, h), rand(1, t, h)], a.samples))
        labels = torch.randint(0, v, (1, t), device="cuda")
        add(rows, "hf", "loss", f"T{t} V{v}", t * v,
            *fwd_bwd(lambda lg: ForCausalLMLoss(lg, labels, v), [rand(1, t, v)], a.samples))
        torch.cuda.empty_cache()


def profiled_classes(fn):
    """Kernel time by class (trace_summary's classes) of one call of fn, in µs."""
    import tempfile
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import trace_summary
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.json")
        prof.export_chrome_trace(path)
        doc = json.load(open(path))
    s = trace_summary.summarize(doc["traceEvents"] if isinstance(doc, dict) else doc, 1)
    return {k: v["us"] for k, v in s["classes"].items()}, s["kernels_per_step"]


def hf_moe_rows(a, rows):
    """The HF Qwen3-MoE sparse block (router, top-k, expert dispatch and combine, experts): the
    memory-bound kernels' time, forward and backward, per routed element (tokens x top-k x hidden);
    the GEMMs are priced by the GEMM model."""
    import transformers
    from transformers.models.qwen3_moe import modeling_qwen3_moe as mq
    t, h = a.tokens, 2048
    for e, k, mf in ((64, 8, 1024), (16, 2, 4096)):
        cfg = transformers.Qwen3MoeConfig(hidden_size=h, num_experts=e, num_experts_per_tok=k, moe_intermediate_size=mf,
                                          norm_topk_prob=True, num_attention_heads=16, num_key_value_heads=16)
        # What the full model's from-config dispatch sets (its trace runs the grouped-GEMM experts);
        # a standalone block would otherwise take the per-expert loop.
        cfg._experts_implementation = a.hf_experts
        torch.manual_seed(0)
        block = mq.Qwen3MoeSparseMoeBlock(cfg).cuda().to(torch.bfloat16)
        x = rand(1, t, h)
        out = block(x)
        out = out[0] if isinstance(out, tuple) else out
        g = torch.randn_like(out)
        for _ in range(3):
            o = block(x)
            o = o[0] if isinstance(o, tuple) else o
            torch.autograd.grad(o, [x] + list(block.parameters()), g)
        fwd, nf = profiled_classes(lambda: block(x))
        def both():
            o = block(x)
            o = o[0] if isinstance(o, tuple) else o
            torch.autograd.grad(o, [x] + list(block.parameters()), g)
        tot, nt = profiled_classes(both)
        el = t * k * h
        mem_f = fwd.get("memory", 0.0)
        mem_b = tot.get("memory", 0.0) - mem_f
        row = {"impl": "hf", "block": "moe_routing", "shape": f"T{t} h{h} E{e} k{k} f{mf}", "elements": el,
               "fwd_us": mem_f, "bwd_us": mem_b, "fwd_ps_per_element": mem_f * 1e6 / el,
               "bwd_ps_per_element": mem_b * 1e6 / el, "classes_fwd_us": fwd, "classes_fwd_bwd_us": tot,
               "kernels_fwd": nf, "kernels_fwd_bwd": nt}
        rows.append(row)
        print(json.dumps(row), flush=True)
        del block
        torch.cuda.empty_cache()


def megatron_init(a):
    sys.path.insert(0, os.path.abspath(a.megatron))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    torch.distributed.init_process_group("nccl", world_size=1, rank=0)
    from megatron.core import parallel_state
    from megatron.core.tensor_parallel.random import model_parallel_cuda_manual_seed
    parallel_state.initialize_model_parallel()
    model_parallel_cuda_manual_seed(0)


def megatron_rows(a, rows, shapes):
    megatron_init(a)
    from megatron.core.fusions.fused_bias_dropout import bias_dropout_add_unfused
    from megatron.core.models.common.embeddings.rope_utils import _apply_rotary_pos_emb_bshd
    from megatron.core.tensor_parallel.cross_entropy import vocab_parallel_cross_entropy
    from megatron.core.transformer.dot_product_attention import DotProductAttention
    from megatron.core.transformer.enums import AttnMaskType
    from megatron.core.transformer.transformer_config import TransformerConfig
    for h, f, n, kv, d, v in shapes:
        t = a.tokens
        norm = torch.nn.RMSNorm(h, eps=1e-5).cuda().to(torch.bfloat16)  # WrappedTorchNorm's RMSNorm
        add(rows, "megatron", "rmsnorm", f"T{t} h{h}", t * h, *fwd_bwd(norm, [rand(t, 1, h)], a.samples))
        inv = 1.0 / (10000 ** (torch.arange(0, d, 2, device="cuda", dtype=torch.float32) / d))
        fr = torch.outer(torch.arange(t, device="cuda", dtype=torch.float32), inv)
        freqs = torch.cat((fr, fr), dim=-1)[:, None, None, :]
        add(rows, "megatron", "rope", f"T{t} n{n} kv{kv} d{d}", t * (n + kv) * d,
            *fwd_bwd(lambda q, k: (_apply_rotary_pos_emb_bshd(q, freqs), _apply_rotary_pos_emb_bshd(k, freqs)),
                     [rand(t, 1, n, d), rand(t, 1, kv, d)], a.samples))

        def glu(x):  # megatron/core/transformer/mlp.py, bias_swiglu_fusion off, no clamp
            x_glu, x_linear = torch.chunk(x, 2, dim=-1)
            return F.silu(x_glu) * (x_linear + 0.0)
        add(rows, "megatron", "swiglu", f"T{t} f{f}", t * f, *fwd_bwd(glu, [rand(t, 1, 2 * f)], a.samples))
        bda = bias_dropout_add_unfused(True)
        add(rows, "megatron", "residual", f"T{t} h{h}", t * h,
            *fwd_bwd(lambda x, r: bda((x, None), r, 0.0), [rand(t, 1, h), rand(t, 1, h)], a.samples))
        cfg = TransformerConfig(num_layers=1, hidden_size=h, num_attention_heads=n, num_query_groups=kv, kv_channels=d,
                                ffn_hidden_size=f, bf16=True, params_dtype=torch.bfloat16, masked_softmax_fusion=False,
                                attention_dropout=0.0, hidden_dropout=0.0, attention_softmax_in_fp32=False)
        core = DotProductAttention(cfg, layer_number=1, attn_mask_type=AttnMaskType.causal, attention_type="self").cuda()
        s = a.attn_seq
        b = max(1, t // s)
        add(rows, "megatron", "core_attention", f"b{b} s{s} n{n} kv{kv} d{d}", b * n * s * s,
            *fwd_bwd(lambda q, k, vv: core(q, k, vv, None), [rand(s, b, n, d), rand(s, b, kv, d), rand(s, b, kv, d)],
                     a.samples))
        labels = torch.randint(0, v, (t, 1), device="cuda")
        add(rows, "megatron", "loss", f"T{t} V{v}", t * v,
            *fwd_bwd(lambda lg: vocab_parallel_cross_entropy(lg, labels), [rand(t, 1, v)], a.samples, fresh=True))
        emb = torch.nn.Embedding(v, h).cuda().to(torch.bfloat16)
        ids = torch.randint(0, v, (1, t), device="cuda")
        out = emb(ids)
        g = torch.randn_like(out)
        fw = timed(lambda: emb(ids), a.samples)
        bw = timed(lambda: torch.autograd.grad(emb(ids), emb.weight, g), a.samples) - fw
        add(rows, "torch", "embedding", f"T{t} V{v} h{h}", v * h, fw, bw)
        torch.cuda.empty_cache()


def add(rows, impl, block, shape, elements, fwd_us, bwd_us):
    row = {"impl": impl, "block": block, "shape": shape, "elements": elements, "fwd_us": fwd_us, "bwd_us": bwd_us,
           "fwd_ps_per_element": fwd_us * 1e6 / elements, "bwd_ps_per_element": bwd_us * 1e6 / elements}
    rows.append(row)
    print(json.dumps(row), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--megatron", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tag", default="h200")
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--attn-seq", type=int, default=4096)
    ap.add_argument("--hf-experts", default="grouped_mm", help="transformers' experts implementation for the MoE block")
    ap.add_argument("--moe-only", action="store_true", help="only the HF MoE block (blocks-moe-TAG.json)")
    a = ap.parse_args()
    # (hidden, ffn, heads, kv heads, head dim, vocab): the Llama-3.2-1B and Llama-3.1-8B layer shapes.
    shapes = [(2048, 8192, 32, 8, 64, 128256), (4096, 14336, 32, 8, 128, 128256), (1536, 8960, 12, 2, 128, 151936)]
    rows = []
    if a.moe_only:
        hf_moe_rows(a, rows)
        rows_out = os.path.join(a.out, f"blocks-moe-{a.tag}.json")
    else:
        hf_rows(a, rows, shapes)
        hf_moe_rows(a, rows)
        rows_out = None
    if not a.moe_only:
        megatron_rows(a, rows, shapes)
    p = torch.cuda.get_device_properties(0)
    import transformers
    meta = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
            "transformers": transformers.__version__, "sms": p.multi_processor_count,
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    with open(rows_out or os.path.join(a.out, f"blocks-{a.tag}.json"), "w") as fh:
        json.dump({"meta": meta, "command": " ".join(sys.argv), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
