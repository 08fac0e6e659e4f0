#!/usr/bin/env python3
"""Kernel sweeps for the compute model (issue 28): attention by backend, optimizer steps, launch cost.

Each measurement is one kernel or one small fixed group of kernels, timed with CUDA events
(median of --samples samples after 3 warm-ups, each sample queued behind torch.cuda._sleep so the
GPU never waits on the host). Nothing here is an end-to-end step.

  attn       causal attention forward and backward by backend:
               flash     SDPA with only the flash backend (FlashAttention-2 in PyTorch)
               cudnn     SDPA with only the cuDNN fused backend
               efficient SDPA with only the memory-efficient backend
               unfused   QK^T (baddbmm), scale, causal mask, softmax in fp32, cast, PV (bmm): the
                         path of Megatron's --transformer-impl local DotProductAttention with its
                         fusions off and of HF's "eager" attention
             over sequence (1024..8192), head dim (64, 128), heads (16, 32), GQA (kv 8 / = heads),
             at about 16k tokens per call.
  optim      torch.optim.AdamW steps (foreach and fused; fp32 and bf16 parameters) over a list of
             tensors of a realistic size mix, per parameter.
  launch     the host cost of one eager kernel launch: N tiny adds issued back to back without a
             sleep ahead (the GPU waits on the host), wall time / N.
  membw      element-wise bandwidth: copy, add, cast bf16->fp32, fp32->bf16, at 64M-1G elements.

Writes --out/kernels-TAG.json: {"meta": {...}, "rows": [{kind, backend, ...shape, fwd_us, bwd_us}]}.
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

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")


def timed(fn, samples=10, reps=1, sleep_cycles=20_000_000):
    """Median microseconds of one call of fn (reps back-to-back calls per sample)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(samples):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(sleep_cycles)
        s.record()
        for _ in range(reps):
            fn()
        e.record()
        torch.cuda.synchronize()
        out.append(s.elapsed_time(e) * 1000.0 / reps)
    return statistics.median(out), min(out)


def meta():
    p = torch.cuda.get_device_properties(0)
    return {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(), "sm": f"{p.major}.{p.minor}", "sms": p.multi_processor_count,
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def unfused_attention(q, k, v, scale):
    """Megatron local DotProductAttention (fusions off) / HF eager: scores materialized."""
    b, h, s, d = q.shape
    hk = k.shape[1]
    if hk != h:  # GQA: repeat the K/V heads (Megatron repeat_interleave, HF repeat_kv)
        k = k.repeat_interleave(h // hk, dim=1)
        v = v.repeat_interleave(h // hk, dim=1)
    qf = q.reshape(b * h, s, d)
    kf = k.reshape(b * h, s, d)
    scores = torch.baddbmm(torch.empty(b * h, s, s, dtype=q.dtype, device=q.device), qf, kf.transpose(1, 2),
                           beta=0.0, alpha=scale)
    mask = torch.ones(s, s, dtype=torch.bool, device=q.device).triu_(1)
    scores = scores.masked_fill(mask, float("-inf"))
    probs = torch.softmax(scores.float(), dim=-1).to(q.dtype)
    out = torch.bmm(probs, v.reshape(b * h, s, d))
    return out.reshape(b, h, s, d)


def attn_rows(args):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                "efficient": SDPBackend.EFFICIENT_ATTENTION}
    rows = []
    tokens = args.attn_tokens
    for seq in (1024, 2048, 4096, 8192):
        for d in (64, 128):
            for heads, kv in ((16, 16), (32, 8), (32, 32)):
                b = max(1, tokens // seq)
                q = torch.randn(b, heads, seq, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                k = torch.randn(b, kv, seq, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                v = torch.randn(b, kv, seq, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                for name in ("flash", "cudnn", "efficient", "unfused"):
                    if name == "unfused" and b * heads * seq * seq * 6 > 48e9:
                        continue
                    row = {"kind": "attn", "backend": name, "batch": b, "heads": heads, "kv_heads": kv, "seq": seq,
                           "head_dim": d, "causal": True}
                    try:
                        if name == "unfused":
                            f = lambda: unfused_attention(q, k, v, 1.0 / math.sqrt(d))
                        else:
                            def f(name=name):
                                with sdpa_kernel([backends[name]]):
                                    return F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                                          enable_gqa=kv != heads)
                        o = f()
                        g = torch.randn_like(o)
                        row["fwd_us"], row["fwd_min_us"] = timed(lambda: f(), samples=args.samples)
                        row["bwd_us"], row["bwd_min_us"] = timed(
                            lambda: torch.autograd.grad(o, (q, k, v), g, retain_graph=True), samples=args.samples)
                        row["fwd_flops"] = 2.0 * b * heads * seq * seq * d  # causal half of 4·b·h·s²·d
                        row["bwd_flops"] = 2.5 * row["fwd_flops"]
                    except Exception as e:  # a backend that does not take this shape
                        row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                del q, k, v
                torch.cuda.empty_cache()
    return rows


def optim_rows(args):
    rows = []
    # A layer-like mix: 4 large matrices, 2 vectors, repeated; total ~ n params.
    for total in (25_000_000, 200_000_000, 800_000_000):
        for dtype in (torch.float32, torch.bfloat16):
            for impl in ("foreach", "fused"):
                per = total // 8
                shapes = [(per * 2 // 4096, 4096)] * 3 + [(per // 4096, 4096)] + [(4096,)] * 2
                params = [torch.nn.Parameter(torch.randn(*s, device="cuda", dtype=dtype) * 0.01) for s in shapes]
                for p in params:
                    p.grad = torch.randn_like(p) * 1e-3
                opt = torch.optim.AdamW(params, lr=1e-4, foreach=impl == "foreach", fused=impl == "fused")
                n = sum(p.numel() for p in params)
                us, mn = timed(lambda: opt.step(), samples=args.samples)
                row = {"kind": "optim", "impl": impl, "dtype": str(dtype).replace("torch.", ""), "params": n,
                       "tensors": len(params), "us": us, "min_us": mn}
                rows.append(row)
                print(json.dumps(row), flush=True)
                del params, opt
                torch.cuda.empty_cache()
    return rows


def launch_rows(args):
    rows = []
    x = torch.zeros(16, device="cuda")
    for n in (1000, 10000):
        for _ in range(3):
            for _ in range(100):
                x.add_(1)
        torch.cuda.synchronize()
        walls = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n):
                x.add_(1)
            torch.cuda.synchronize()
            walls.append((time.perf_counter() - t0) * 1e6 / n)
        row = {"kind": "launch", "what": "x.add_(1) on 16 floats, eager, back to back", "n": n,
               "us_per_launch": statistics.median(walls)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def membw_rows(args):
    rows = []
    for n in (64 << 20, 256 << 20, 1024 << 20):
        a = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        f = a.float()
        ops = {"copy": (lambda: a.clone(), 4), "add": (lambda: a + b, 6), "cast_to_fp32": (lambda: a.float(), 6),
               "cast_to_bf16": (lambda: f.to(torch.bfloat16), 6), "mul_fp32": (lambda: f * f, 12)}
        for name, (fn, bpe) in ops.items():
            us, mn = timed(fn, samples=args.samples)
            row = {"kind": "membw", "op": name, "elements": n, "bytes": n * bpe, "us": us, "min_us": mn,
                   "gbyte_s": n * bpe / us / 1e3}
            rows.append(row)
            print(json.dumps(row), flush=True)
        del a, b, f
        torch.cuda.empty_cache()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", nargs="+", choices=["attn", "optim", "launch", "membw"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--tag", default="h200")
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--attn-tokens", type=int, default=16384)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for w in a.what:
        rows += {"attn": attn_rows, "optim": optim_rows, "launch": launch_rows, "membw": membw_rows}[w](a)
    with open(os.path.join(a.out, f"kernels-{a.tag}.json"), "w") as fh:
        json.dump({"meta": meta(), "command": " ".join(sys.argv), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
