#!/usr/bin/env python3
"""Markdown tables of an `ops` run (tests/gpu/harness.py ops), for RESULTS.md. Python only, no torch.

  python3 tests/gpu/ops_summary.py data/h200-ops/ops-h200.json [MORE RUNS: ops-h200-r2.json ...]

Each op's time is the median over the runs given; the MoE layer rows are listed per run.
check_pipeline.sh runs it over the kept data and checks that RESULTS.md quotes every row."""
import json
import statistics
import sys


def fmt(v, nd=1):
    return "—" if v is None else f"{v:.{nd}f}"


def tf(r):
    return r["tflops"] if r and r.get("us") else None


def main(argv):
    docs = [json.load(open(f)) for f in argv]
    doc = docs[0]
    # per op: the median over the runs given (a run that lacks the op or failed it is left out)
    per_run = [{(r["kind"], r["name"], r["shape"]): r for r in d["ops"] if r.get("us")} for d in docs]
    ops, spreads = [], []
    for r in doc["ops"]:
        k = (r["kind"], r["name"], r["shape"])
        us = [pr[k]["us"] for pr in per_run if k in pr]
        if not us:
            continue
        r = dict(r, us=statistics.median(us))
        r["tflops"], r["gbps"] = r["flops"] / r["us"] / 1e6, r["bytes"] / r["us"] / 1e3
        ops.append(r)
        if len(us) > 1:
            spreads.append(((max(us) - min(us)) / r["us"], r["us"], r["name"] + " " + r["shape"]))
    by = {(r["kind"], r["name"], r["shape"]): r for r in ops}  # dense GEMM names repeat over M: the shape tells
    out = []
    # reference
    out.append("| reference | shape | µs | TFLOPS | GB/s |")
    out.append("| --- | --- | --- | --- | --- |")
    for r in ops:
        if r["kind"] == "reference":
            out.append(f"| {r['name']} | {r['shape']} | {fmt(r['us'])} | {fmt(r['tflops'])} | {fmt(r['gbps'], 0)} |")
    ref = [r for r in ops if r["kind"] == "reference" and r["name"].startswith("square")]
    best = max(ref, key=lambda r: r["tflops"]) if ref else None
    peak = {"name": best["name"], "tflops": best["tflops"]} if best else {}
    out.append("")
    out.append(f"matmul peak reached: {peak.get('name')} at {fmt(peak.get('tflops'))} TFLOPS")
    out.append("")
    # dense GEMMs: per (hidden, TP) and tokens, the layer's 12 GEMMs (fwd, dgrad, wgrad of qkv, proj, fc1, fc2)
    gem = [r for r in ops if r["kind"] == "gemm"]
    tokens = sorted({int(r["shape"].split()[0][1:]) for r in gem if r["name"].endswith("-fwd")})
    hs = sorted({int(r["name"].split("-")[0][1:]) for r in gem})
    tps = sorted({int(r["name"].split("-")[1][2:]) for r in gem})
    out.append("| dense layer GEMMs, TFLOPS (12 GEMMs: fwd+dgrad+wgrad of qkv, proj, fc1, fc2) | "
               + " | ".join(f"M={m}" for m in tokens) + " |")
    out.append("| --- | " + " | ".join("---" for _ in tokens) + " |")
    for h in hs:
        for tp in tps:
            cells = []
            for m in tokens:
                sel = [r for r in gem if r["name"].startswith(f"h{h}-tp{tp}-") and gemm_tokens(r) == m]
                cells.append(fmt(sum(r["flops"] for r in sel) / sum(r["us"] for r in sel) / 1e6) if sel else "—")
            out.append(f"| h{h} tp{tp} | " + " | ".join(cells) + " |")
    out.append("")
    slow = sorted(gem, key=lambda r: r["tflops"])[:8]
    fast = sorted(gem, key=lambda r: -r["tflops"])[:4]
    out.append("| dense GEMM extremes | shape | µs | TFLOPS |")
    out.append("| --- | --- | --- | --- |")
    for r in slow + fast:
        out.append(f"| {r['name']} M{gemm_tokens(r)} | {r['shape']} | {fmt(r['us'], 2)} | {fmt(r['tflops'])} |")
    out.append("")
    passes = {}
    for r in gem:
        passes.setdefault(r["name"].rsplit("-", 1)[1], []).append(r["tflops"] / peak.get("tflops", 1.0))
    out.append("dense GEMM efficiency vs the peak reached, median by pass: " + ", ".join(
        f"{p} {statistics.median(v):.2f}" for p, v in sorted(passes.items())))
    out.append("")
    fp8 = [r for r in ops if r["kind"] == "gemm-fp8"]
    if fp8:
        out.append("| fp8 GEMM (torch._scaled_mm) | µs | TFLOPS | bf16 same shape, TFLOPS (dense sweep, else the square reference) |")
        out.append("| --- | --- | --- | --- |")
        for r in fp8:
            n = r["shape"]
            bf = [x for x in ops if x["kind"] in ("gemm", "reference") and x["shape"].replace("x", " ") == n]
            sq = [x for x in ops if x["kind"] == "reference" and x["name"] == "square-" + n.split()[0][1:]
                  and len(set(n.replace("M", "").replace("N", "").replace("K", "").split())) == 1]
            ref = (bf or sq or [None])[0]
            out.append(f"| {n} | {fmt(r['us'])} | {fmt(r['tflops'])} | {fmt(tf(ref))} |")
        out.append("")
    # MoE expert GEMMs
    moe = [r for r in ops if r["kind"].startswith("moe-")]
    if moe:
        ts = sorted({int(r["name"].split("-")[3][1:]) for r in moe})
        out.append("| MoE expert GEMMs, TFLOPS of up+down: loop / bmm / grouped | " + " | ".join(f"t={t}" for t in ts) + " |")
        out.append("| --- | " + " | ".join("---" for _ in ts) + " |")
        keys = []
        for r in moe:
            k = "-".join(r["name"].split("-")[:3])
            if k not in keys:
                keys.append(k)
        for k in keys:
            cells = []
            for t in ts:
                trip = []
                for kind in ("moe-loop", "moe-bmm", "moe-grouped"):
                    rs = [first(ops, kind, f"{k}-t{t}-{p}") for p in ("up", "down")]
                    trip.append(fmt(sum(r["flops"] for r in rs) / sum(r["us"] for r in rs) / 1e6, 0)
                                if all(rs) else "—")
                cells.append(" / ".join(trip))
            out.append(f"| {k} | " + " | ".join(cells) + " |")
        out.append("")
        out.append(f"grouped GEMM: {doc.get('grouped_mm')}")
        out.append("")
    # attention
    out.append("| attention (SDPA flash, causal, bf16) | fwd µs | fwd TFLOPS | bwd µs | bwd TFLOPS | bwd/fwd time |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    for r in ops:
        if r["kind"] == "attn-fwd":
            b = first(ops, "attn-bwd", r["name"])
            out.append(f"| {r['shape']} | {fmt(r['us'])} | {fmt(r['tflops'])} | {fmt(b and b['us'])} | {fmt(tf(b))} | "
                       f"{fmt(b['us'] / r['us'], 2) if b else '—'} |")
    out.append("")
    out.append("| bandwidth-bound op | shape | µs | GB/s (bytes counted) |")
    out.append("| --- | --- | --- | --- |")
    for r in ops:
        if r["kind"] == "bw":
            out.append(f"| {r['name']} | {r['shape']} | {fmt(r['us'])} | {fmt(r['gbps'], 0)} |")
    out.append("")
    out.append("| MoE harness layer, compute alone | run | fwd µs | bwd µs | update µs | step ms | step TFLOPS | GEMM kernels µs | other kernels µs |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    runs = list(enumerate(docs, 1))
    for n, d in runs:
        for r in d.get("moe_layer", []):
            p = r.get("profile") or {}
            other = p["kernel_us_per_step"] - p["gemm_kernel_us_per_step"] if "kernel_us_per_step" in p else None
            out.append(f"| h{r['hidden']} f{r['ffn']} t{r['tokens']} {r['layout_shape']} | {n} | {fmt(r['fwd_us_median'], 0)} | "
                       f"{fmt(r['bwd_us_median'], 0)} | {fmt(r['update_us_median'], 0)} | {fmt(r['step_s_median'] * 1e3, 3)} | "
                       f"{fmt(r['achieved_tflops_step'])} | {fmt(p.get('gemm_kernel_us_per_step'), 0)} | {fmt(other, 0)} |")
    if spreads:
        absd = sorted(x for x, _, _ in spreads)
        big = sorted(x for x in spreads if x[1] >= 100.0)
        out.append("")
        out.append(f"{len(docs)} runs, per op (max - min) / median: median {100 * statistics.median(absd):.1f} %, "
                   f"90th percentile {100 * absd[int(0.9 * len(absd))]:.1f} %, largest {100 * absd[-1]:.1f} % "
                   f"({max(spreads)[2]}); ops of 100 µs or more ({len(big)}): median "
                   f"{100 * statistics.median(x for x, _, _ in big):.1f} %, largest {100 * big[-1][0]:.1f} % ({big[-1][2]})")
    print("\n".join(out))
    return 0


def first(ops, kind, name):
    for r in ops:
        if r["kind"] == kind and r["name"] == name:
            return r
    return None


def gemm_tokens(r):
    """The token count M of a dense GEMM row: fwd and dgrad have it as M, wgrad as K."""
    m, n, k = (int(x[1:]) for x in r["shape"].split())
    return k if r["name"].endswith("-wgrad") else m


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
