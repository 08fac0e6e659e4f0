#!/usr/bin/env python3
"""FP8 kernel sweeps for the compute model (issue 28): GEMMs by scaling recipe against bf16, and the
quantization work FP8 training adds (amax, cast, transpose), per element.

Each measurement is one kernel or one fixed small group of kernels, timed with CUDA events (median
of --samples samples after 3 warm-ups, each sample queued behind torch.cuda._sleep so the GPU never
waits on the host). Nothing here is an end-to-end step.

  gemm    Y = X W^T for X: M x K and W: N x K (a linear layer's forward), bf16 (cuBLAS through
          F.linear) and FP8 e4m3 through torch._scaled_mm with
            tensorwise  one fp32 scale per tensor (Megatron/TE "delayed" and "tensorwise" recipes
                        run this GEMM; they differ in how the scale is found)
            rowwise     one scale per row of X and per row of W
            blockwise   1x128 scales for X, 128x128 for W (DeepSeek-V3's recipe, TE "blockwise"),
                        through torch.nn.functional.scaled_mm when this torch has it
          over square shapes 1k-16k and the shapes of Llama 8B/70B/405B layers at 8k tokens.
  quant   per element of a bf16 tensor: amax (|x| max), cast to e4m3 with a scale, the fp8
          transpose (X^T for the weight-gradient GEMM), and the same three fused by torch.compile
          when it works here (what TE's cast_transpose kernels do in one pass).

  grouped routed experts as one bf16 grouped GEMM (torch._grouped_mm) by tokens per expert, for
          the expert shapes of Qwen3-30B-A3B, Qwen3-235B-A22B, DeepSeek-V3 and GPT-OSS-120B at EP 8.

Writes --out/fp8-TAG.json: {"meta": {...}, "rows": [...]}; a row that this torch or GPU cannot run
says so in "error".
"""
import argparse
import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F

E4M3 = torch.float8_e4m3fn


def timed(fn, samples=10, sleep_cycles=20_000_000):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(samples):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(sleep_cycles)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        out.append(s.elapsed_time(e) * 1000.0)
    return statistics.median(out), min(out)


def meta():
    p = torch.cuda.get_device_properties(0)
    return {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
            "sm": f"{p.major}.{p.minor}", "sms": p.multi_processor_count, "script": "tests/gpu/fp8.py"}


SQUARE = [1024, 2048, 4096, 8192, 16384]
# (name, M tokens, N out, K in): Llama 3 layers at 8192 tokens (micro 1, seq 8192), TP as published
LLM = [("llama8b-qkv", 8192, 6144, 4096), ("llama8b-fc1", 8192, 28672, 4096), ("llama8b-fc2", 8192, 4096, 14336),
       ("llama70b-tp4-qkv", 8192, 2560, 8192), ("llama70b-tp4-fc1", 8192, 14336, 8192),
       ("llama70b-tp4-fc2", 8192, 8192, 7168), ("llama405b-tp8-fc1", 8192, 13312, 16384),
       ("llama405b-tp8-fc2", 8192, 16384, 6656), ("moe-expert-512tok", 512, 1536, 2048),
       ("moe-expert-2048tok", 2048, 1536, 2048)]


def blockwise_fn(x8, w8, m, n, k):
    """DeepSeek-style 1x128 / 128x128 scaled GEMM, if this torch exposes it."""
    sm = getattr(F, "scaled_mm", None)
    if sm is None:
        raise RuntimeError("torch.nn.functional.scaled_mm not in this torch")
    from torch.nn.functional import ScalingType, SwizzleType  # noqa: F401
    sa = torch.ones(m, k // 128, device="cuda", dtype=torch.float32)
    sb = torch.ones(n // 128, k // 128, device="cuda", dtype=torch.float32)
    return lambda: sm(x8, w8.t(), sa, ScalingType.BlockWise1x128, sb.t(), ScalingType.BlockWise128x128,
                      output_dtype=torch.bfloat16)


def gemm_rows(args):
    rows = []
    shapes = [(f"square-{d}", d, d, d) for d in SQUARE] + LLM
    for name, m, n, k in shapes:
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        x8, w8 = x.to(E4M3), w.to(E4M3)
        one = torch.ones((), device="cuda", dtype=torch.float32)
        ra = torch.ones(m, 1, device="cuda", dtype=torch.float32)
        rb = torch.ones(1, n, device="cuda", dtype=torch.float32)
        flops = 2.0 * m * n * k
        variants = {
            "bf16": lambda: F.linear(x, w),
            "fp8-tensorwise": lambda: torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
            "fp8-tensorwise-fastacc": lambda: torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one,
                                                               out_dtype=torch.bfloat16, use_fast_accum=True),
            "fp8-rowwise": lambda: torch._scaled_mm(x8, w8.t(), scale_a=ra, scale_b=rb, out_dtype=torch.bfloat16),
        }
        for v, fn in variants.items():
            row = {"kind": "gemm", "shape": name, "m": m, "n": n, "k": k, "variant": v}
            try:
                us, mn = timed(fn, args.samples)
                row.update(us=us, min_us=mn, tflops=flops / us / 1e6)
            except Exception as e:  # noqa: BLE001 - recorded, not hidden
                row["error"] = f"{type(e).__name__}: {e}"[:300]
            rows.append(row)
            print(json.dumps(row), flush=True)
        row = {"kind": "gemm", "shape": name, "m": m, "n": n, "k": k, "variant": "fp8-blockwise"}
        try:
            us, mn = timed(blockwise_fn(x8, w8, m, n, k), args.samples)
            row.update(us=us, min_us=mn, tflops=flops / us / 1e6)
        except Exception as e:  # noqa: BLE001
            row["error"] = f"{type(e).__name__}: {e}"[:300]
        rows.append(row)
        print(json.dumps(row), flush=True)
        del x, w, x8, w8
        torch.cuda.empty_cache()
    return rows


def quant_rows(args):
    rows = []

    def amax(x):
        return x.abs().amax()

    def cast(x, s):
        return (x.float() * s).to(E4M3)

    def cast_t(x, s):
        q = (x.float() * s).to(E4M3)
        return q, q.t().contiguous()

    def cast_t_amax(x, s):
        a = x.abs().amax()
        q = (x.float() * s).to(E4M3)
        return a, q, q.t().contiguous()

    def block_cast(x):  # 1x128 blocks along the row
        b = x.view(x.shape[0], -1, 128).float()
        sc = 448.0 / b.abs().amax(-1, keepdim=True).clamp(min=1e-12)
        return (b * sc).to(E4M3).view(x.shape), sc

    compiled = {}
    for name, fn in (("cast_transpose", cast_t), ("cast_transpose_amax", cast_t_amax), ("cast", cast),
                     ("block_cast", block_cast)):
        try:
            compiled[name] = torch.compile(fn, dynamic=False)
        except Exception as e:  # noqa: BLE001
            compiled[name] = e
    for rows_n, cols in ((8192, 4096), (8192, 8192), (16384, 8192), (8192, 16384)):
        x = torch.randn(rows_n, cols, device="cuda", dtype=torch.bfloat16)
        s = torch.ones((), device="cuda", dtype=torch.float32)
        q = x.to(E4M3)
        n = rows_n * cols
        ops = {"amax": (lambda: amax(x), 2), "cast": (lambda: cast(x, s), 3),
               "transpose_fp8": (lambda: q.t().contiguous(), 2), "cast_transpose_eager": (lambda: cast_t(x, s), 4)}
        for cname, cf in compiled.items():
            if isinstance(cf, Exception):
                rows.append({"kind": "quant", "op": cname + "_compiled", "error": str(cf)[:300]})
                continue
            if cname == "block_cast":
                ops[cname + "_compiled"] = ((lambda cf=cf: cf(x)), 3)
            else:
                ops[cname + "_compiled"] = ((lambda cf=cf: cf(x, s)), {"cast_transpose": 4, "cast_transpose_amax": 4,
                                                                        "cast": 3}[cname])
        for op, (fn, bpe) in ops.items():
            row = {"kind": "quant", "op": op, "rows": rows_n, "cols": cols, "elements": n, "min_bytes_per_el": bpe}
            try:
                us, mn = timed(fn, args.samples)
                row.update(us=us, min_us=mn, ps_per_el=us * 1e6 / n, gbyte_s=bpe * n / us / 1e3)
            except Exception as e:  # noqa: BLE001
                row["error"] = f"{type(e).__name__}: {e}"[:300]
            rows.append(row)
            print(json.dumps(row), flush=True)
        del x, q
        torch.cuda.empty_cache()
    return rows


# (name, local experts, hidden, expert ffn): Qwen3-30B-A3B, Qwen3-235B-A22B, DeepSeek-V3, GPT-OSS-120B at EP 8
GROUPED = [("qwen3-30b-a3b-ep8", 16, 2048, 768), ("qwen3-235b-a22b-ep8", 16, 4096, 1536),
           ("deepseek-v3-ep8", 32, 7168, 2048), ("gpt-oss-120b-ep8", 16, 2880, 2880)]


def grouped_rows(args):
    """Routed experts as one grouped GEMM (torch._grouped_mm, what --moe-grouped-gemm runs) by tokens
    per expert, bf16, the up projection (tokens x hidden by hidden x 2 ffn) and down (ffn x hidden)."""
    rows = []
    gm = getattr(torch, "_grouped_mm", None)
    for name, e, h, f in GROUPED:
        for tpe in (64, 128, 256, 512, 1024, 2048, 4096):
            t = tpe * e
            for proj, k, n in (("up", h, 2 * f), ("down", f, h)):
                row = {"kind": "grouped", "model": name, "experts": e, "tokens_per_expert": tpe, "proj": proj,
                       "k": k, "n": n}
                try:
                    if gm is None:
                        raise RuntimeError("torch._grouped_mm not in this torch")
                    a = torch.randn(t, k, device="cuda", dtype=torch.bfloat16)
                    b = torch.randn(e, n, k, device="cuda", dtype=torch.bfloat16).transpose(-2, -1)
                    offs = torch.arange(tpe, t + 1, tpe, device="cuda", dtype=torch.int32)
                    us, mn = timed(lambda: gm(a, b, offs=offs, out_dtype=torch.bfloat16), args.samples)
                    row.update(us=us, min_us=mn, tflops=2.0 * t * k * n / us / 1e6)
                    del a, b
                except Exception as ex:  # noqa: BLE001
                    row["error"] = f"{type(ex).__name__}: {ex}"[:300]
                rows.append(row)
                print(json.dumps(row), flush=True)
        torch.cuda.empty_cache()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", nargs="+", choices=["gemm", "quant", "grouped"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--tag", default="h200")
    ap.add_argument("--samples", type=int, default=10)
    a = ap.parse_args()
    rows = []
    for w in a.what:
        rows += {"gemm": gemm_rows, "quant": quant_rows, "grouped": grouped_rows}[w](a)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, f"fp8-{a.tag}.json"), "w") as f:
        json.dump({"meta": meta(), "rows": rows}, f, indent=1)
    print(f"wrote {len(rows)} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
