#!/usr/bin/env python3
"""Full training steps of Hugging Face transformers models on one GPU (issue 28 validation).

A model built from a config (random weights, no download): bf16 weights, AdamW (torch's default
implementation for CUDA tensors, foreach), causal-LM loss on random tokens, micro-batch 1, one
optimizer step per micro-batch. --warmup steps, then --steps timed steps (wall time between
torch.cuda.synchronize() calls), then one profiled step (torch.profiler, CUDA kernels only) whose
kernel summary (trace_summary.py) is written beside the step times. Peak memory:
torch.cuda.max_memory_allocated / max_memory_reserved over the timed steps.

Writes OUT/hf-NAME.json: {"meta", "config", "step_s": [...], "median_s", "mem": {...}, "profile": {...}}.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_summary  # noqa: E402


def build(a):
    import transformers
    common = dict(vocab_size=a.vocab, hidden_size=a.hidden, num_hidden_layers=a.layers, num_attention_heads=a.heads,
                  num_key_value_heads=a.kv_heads, intermediate_size=a.ffn, max_position_embeddings=a.seq,
                  tie_word_embeddings=a.tied, attn_implementation=a.attn, rms_norm_eps=1e-5)
    if a.experts:
        cfg = transformers.Qwen3MoeConfig(**common, num_experts=a.experts, num_experts_per_tok=a.topk,
                                          moe_intermediate_size=a.moe_ffn, decoder_sparse_step=1,
                                          norm_topk_prob=True, output_router_logits=False)
        cls = transformers.Qwen3MoeForCausalLM
    else:
        cfg = transformers.LlamaConfig(**common)
        cls = transformers.LlamaForCausalLM
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = cls(cfg).to(torch.bfloat16)
    return model, cfg, transformers.__version__


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--name", required=True)
    ap.add_argument("--hidden", type=int, required=True)
    ap.add_argument("--layers", type=int, required=True)
    ap.add_argument("--heads", type=int, required=True)
    ap.add_argument("--kv-heads", type=int, required=True)
    ap.add_argument("--ffn", type=int, required=True)
    ap.add_argument("--vocab", type=int, required=True)
    ap.add_argument("--tied", action="store_true")
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--mbs", type=int, default=1)
    ap.add_argument("--experts", type=int, default=0)
    ap.add_argument("--topk", type=int, default=0)
    ap.add_argument("--moe-ffn", type=int, default=0)
    ap.add_argument("--attn", default="sdpa", choices=["sdpa", "eager"])
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    model, cfg, tv = build(a)
    params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    gen = torch.Generator(device="cuda").manual_seed(0)
    ids = torch.randint(0, a.vocab, (a.mbs, a.seq), device="cuda", generator=gen)

    def step():
        out = model(input_ids=ids, labels=ids)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(a.warmup):
        step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(a.steps):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    mem = {"max_allocated_gib": torch.cuda.max_memory_allocated() / 2**30,
           "max_reserved_gib": torch.cuda.max_memory_reserved() / 2**30}
    with tempfile.TemporaryDirectory() as tmp:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            step()
            torch.cuda.synchronize()
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as fh:
            doc = json.load(fh)
    summary = trace_summary.summarize(doc["traceEvents"] if isinstance(doc, dict) else doc, 1)
    result = {"meta": {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "transformers": tv,
                       "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "command": " ".join(sys.argv)},
              "config": {k: getattr(a, k) for k in ("hidden", "layers", "heads", "kv_heads", "ffn", "vocab", "tied",
                                                     "seq", "mbs", "experts", "topk", "moe_ffn", "attn")},
              "params": params, "optimizer": "torch.optim.AdamW(lr=1e-5), default (foreach), bf16 params and states",
              "step_s": times, "median_s": statistics.median(times), "mem": mem, "profile": summary}
    with open(os.path.join(a.out, f"hf-{a.name}.json"), "w") as fh:
        json.dump(result, fh, indent=1)
    print(f"hf {a.name}: params {params / 1e9:.2f} B, median step {result['median_s']:.4f} s, "
          f"busy {summary['busy_us_per_step'] / 1e6:.4f} s, classes "
          + ", ".join(f"{k} {v['us'] / 1e6:.4f} s" for k, v in summary["classes"].items())
          + f", peak alloc {mem['max_allocated_gib']:.1f} GiB reserved {mem['max_reserved_gib']:.1f} GiB", flush=True)


if __name__ == "__main__":
    main()
