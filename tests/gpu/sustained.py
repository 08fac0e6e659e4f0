#!/usr/bin/env python3
"""GEMM throughput at the board's power limit (issue 28).

The kernel tables time each GEMM in short bursts (the median of 10 samples, each queued behind
torch.cuda._sleep): the GPU starts every sample cool and at its boost clock. A training step keeps
the GPU busy for hours, and when its GEMMs draw more than the board's power limit the driver lowers
the SM clock (nvidia-smi's clocks_event_reasons 0x4, software power cap). How much depends on how
much of the time the GPU spends in GEMMs, so this runs, per GEMM variant (bf16; FP8 e4m3 with one
scale per tensor through torch._scaled_mm), blocks of back-to-back GEMMs followed by memory-bound
work (element-wise adds of 256 MiB tensors) sized so that the GEMMs take a given share of the time
at burst rates (the duty: 1.0, 0.8, 0.6, 0.4, 0.2), for --seconds each, and records the GEMMs' own
achieved TFLOPS (CUDA events around each block's GEMMs, after a 2 s warm-up), the adds' GB/s, and
nvidia-smi's SM clock, power and throttle reasons once a second. Two more shapes run at duty 1.0.

  python3 sustained.py --out DIR [--tag h100] [--seconds 6]

Writes sustained-TAG.json: {"meta", "burst": [...], "rows": [{"variant", "shape", "duty",
"gemm_tflops", "burst_tflops", "ratio", "add_gbyte_s", "sm_mhz", "power_w", "reasons"}]}.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernels import timed  # noqa: E402

SHAPES = {"llama405b-tp8-fc1": (8192, 13312, 16384), "llama8b-fc1": (8192, 28672, 4096),
          "qwen3-30b-expert-fc1": (4096, 1536, 2048)}
DUTIES = (1.0, 0.8, 0.6, 0.4, 0.2)


def smi():
    q = "clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active"
    p = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader,nounits"], capture_output=True, text=True)
    f = [x.strip() for x in p.stdout.strip().split("\n")[0].split(",")]
    return {"sm_mhz": float(f[0]), "power_w": float(f[1]), "temp_c": float(f[2]), "reasons": f[3]}


def burst_us(fn, samples=10):
    """The kernel tables' timing (kernels.timed: the median of samples, each behind torch.cuda._sleep)."""
    return timed(fn, samples)[0]


def gemm_fn(variant, m, n, k):
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    if variant == "bf16":
        return lambda: a @ b.t()
    a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    one = torch.ones((), device="cuda")
    return lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


def sustain(fn, gemms, adds, add_fn, seconds):
    """Blocks of `gemms` GEMMs then `adds` adds for `seconds`; the GEMMs' and the adds' mean µs per
    call after a 2 s warm-up, and nvidia-smi once a second."""
    t0 = time.time()
    pending, g_us, a_us, smis = [], [], [], []
    last_smi = t0
    while time.time() - t0 < seconds:
        e0, e1, e2 = (torch.cuda.Event(enable_timing=True) for _ in range(3))
        e0.record()
        for _ in range(gemms):
            fn()
        e1.record()
        for _ in range(adds):
            add_fn()
        e2.record()
        pending.append((time.time() - t0, e0, e1, e2))
        if len(pending) >= 8:
            pending[0][3].synchronize()
            t, a, b, c = pending.pop(0)
            if t > 2.0:
                g_us.append(a.elapsed_time(b) * 1000.0 / gemms)
                if adds:
                    a_us.append(b.elapsed_time(c) * 1000.0 / adds)
        if time.time() - last_smi > 1.0 and time.time() - t0 > 2.0:
            smis.append(smi())
            last_smi = time.time()
    torch.cuda.synchronize()
    return statistics.mean(g_us), (statistics.mean(a_us) if a_us else None), smis


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--tag", default="h100")
    ap.add_argument("--seconds", type=float, default=6)
    a = ap.parse_args()
    x = torch.randn(64 << 20, device="cuda", dtype=torch.float32)
    y = torch.randn_like(x)
    z = torch.empty_like(x)
    add_fn = lambda: torch.add(x, y, out=z)  # noqa: E731
    add_bytes = 3 * x.numel() * 4
    add_burst = burst_us(add_fn)
    rows, burst = [], []
    for variant in ("bf16", "fp8-tensorwise"):
        for shape, (m, n, k) in SHAPES.items():
            fn = gemm_fn(variant, m, n, k)
            flops = 2.0 * m * n * k
            b_us = burst_us(fn)
            burst.append({"variant": variant, "shape": shape, "us": b_us, "tflops": flops / b_us / 1e6})
            duties = DUTIES if shape == "llama405b-tp8-fc1" else (1.0,)
            gemms = max(1, round(20000 / b_us))  # about 20 ms of GEMMs per block at burst rates
            for duty in duties:
                adds = round(gemms * b_us * (1 - duty) / duty / add_burst)
                g, ad, smis = sustain(fn, gemms, adds, add_fn, a.seconds)
                row = {"variant": variant, "shape": shape, "duty": duty, "gemms": gemms, "adds": adds,
                       "gemm_tflops": flops / g / 1e6, "burst_tflops": flops / b_us / 1e6, "ratio": b_us / g,
                       "add_gbyte_s": add_bytes / ad / 1e3 if ad else None,
                       "sm_mhz": statistics.median(s["sm_mhz"] for s in smis) if smis else None,
                       "power_w": statistics.median(s["power_w"] for s in smis) if smis else None,
                       "reasons": sorted({s["reasons"] for s in smis})}
                rows.append(row)
                print(json.dumps(row), flush=True)
                time.sleep(2)
    meta = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
            "add_burst_gbyte_s": add_bytes / add_burst / 1e3, "seconds": a.seconds, "command": " ".join(sys.argv),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    with open(os.path.join(a.out, f"sustained-{a.tag}.json"), "w") as fh:
        json.dump({"meta": meta, "burst": burst, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
