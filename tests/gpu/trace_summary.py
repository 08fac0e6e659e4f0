#!/usr/bin/env python3
"""Summarize a PyTorch profiler chrome trace (.json or .json.gz) of training steps (issue 28).

Kernels are grouped by name into classes:
  gemm       cuBLAS/cuBLASLt/CUTLASS matrix products (nvjet, xmma, gemm, cutlass)
  attention  fused attention kernels (flash, fmha, cudnn sdpa, efficient attention)
  optimizer  multi-tensor-apply / fused Adam kernels
  nccl       communication kernels
  memory     everything else: element-wise, reductions, norms, softmax, casts, copies, index, loss
and summed per class (count, µs). The GPU busy time is the union of kernel intervals; the span is
first kernel start to last kernel end, so span - busy is where the GPU waited on the host.
Memcpy/memset events are counted as memory. Pure Python, no torch.

Usage: trace_summary.py TRACE [--steps N] > summary.json
"""
import argparse
import gzip
import json
import re
import sys

CLASSES = [
    ("nccl", re.compile(r"nccl", re.I)),
    ("attention", re.compile(r"flash|fmha|sdpa|attention|attn", re.I)),
    ("optimizer", re.compile(r"multi_tensor|fused_adam|adam|FusedOptimizer|_foreach|foreach", re.I)),
    ("gemm", re.compile(r"gemm|nvjet|xmma|cutlass|cublas|sm90_|sm80_|ampere_|hopper_|s16816|s1688|magma", re.I)),
]


def kernel_class(name):
    for cls, rx in CLASSES:
        if rx.search(name):
            return cls
    return "memory"


def busy_us(intervals):
    """The length of the union of (start, end) intervals: the time some kernel ran."""
    total, cur_s, cur_e = 0.0, None, None
    for s, t in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, t
        else:
            cur_e = max(cur_e, t)
    return total + ((cur_e - cur_s) if cur_e is not None else 0.0)


def summarize(events, steps=1):
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    by_class = {}
    by_name = {}
    for e in kernels:
        name = e.get("name", "")
        cls = "memory" if e.get("cat") != "kernel" else kernel_class(name)
        d = float(e.get("dur", 0.0))
        c = by_class.setdefault(cls, {"count": 0, "us": 0.0})
        c["count"] += 1
        c["us"] += d
        n = by_name.setdefault(name[:160], {"class": cls, "count": 0, "us": 0.0})
        n["count"] += 1
        n["us"] += d
    iv = sorted((float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0.0))) for e in kernels)
    busy = busy_us(iv)
    span = (iv[-1][1] - iv[0][0]) if iv else 0.0
    top = sorted(by_name.items(), key=lambda kv: -kv[1]["us"])[:60]
    per = lambda x: x / max(1, steps)
    return {
        "steps": steps,
        "kernels_per_step": per(len(kernels)),
        "busy_us_per_step": per(busy),
        "span_us_per_step": per(span),
        "classes": {k: {"count": per(v["count"]), "us": per(v["us"])} for k, v in sorted(by_class.items())},
        "top_kernels": [{"name": k, "class": v["class"], "count": per(v["count"]), "us": per(v["us"])} for k, v in top],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--steps", type=int, default=1)
    a = ap.parse_args()
    opener = gzip.open if a.trace.endswith(".gz") else open
    with opener(a.trace, "rt") as fh:
        doc = json.load(fh)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    json.dump(summarize(events, a.steps), sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
