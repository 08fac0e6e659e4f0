#!/usr/bin/env python3
"""Builds layouts/kernels/h200.json and layouts/kernels/h100.json, the compute model's measured kernel
tables (issue 28), from the raw measurements of each GPU: the H200's under tests/gpu/data/h200-steps/
(kernels-h200.json from kernels.py, blocks-h200.json and blocks-moe-h200.json from blocks.py) and
tests/gpu/data/h200-fp8/, the H100's under tests/gpu/data/h100-kernels/ (the same scripts). Pure
Python, no torch. The H200 table is the one carried to GPUs without their own ("carried": true).

  python3 tests/gpu/kernel_table.py [--gpu h200|h100]   # prints a table
  python3 tests/gpu/kernel_table.py --write             # writes both
  python3 tests/gpu/kernel_table.py --check             # exit 1 unless both files are exactly this

Every number in the table is a mechanical reduction of those files:
  gemm        dense bf16 GEMMs from tests/gpu/data/h200-ops/ (harness.py ops, three runs on one H200:
              ops-h200.json, ops-h200-r2.json, ops-h200-r3.json; kind "gemm", 400 transformer-layer
              shapes, forward, dgrad and wgrad): per shape (M, N, K) the median of its rows in each run,
              the median of the runs, as efficiency = TFLOPS / the dense bf16 peak (989); the H100 table
              carries the H200's (the same GH100 die and 132 SMs), labelled measured_on "H200"
  attention   per backend (flash, cudnn, efficient), head dim and sequence: achieved TFLOPS / the
              GPU's dense bf16 peak (989, layouts/gpus/), forward and backward (backward
              FLOPs = 2.5 x forward), mean over the head layouts measured (16/16, 32/8, 32/32 heads)
  unfused     per score element (batch x heads x seq^2), picoseconds, forward and backward: "hf" the
              eager path (kernels.py unfused: baddbmm, mask, fp32 softmax, bmm), "megatron" the local
              DotProductAttention (blocks.py core_attention); mean over the shapes measured
  blocks      per implementation and block, picoseconds per element (rmsnorm and residual per
              token x hidden, rope per token x (heads + kv heads) x head dim, swiglu per token x ffn,
              loss per token x vocab), mean over the three layer shapes; "fused" is derived, not
              measured (Transformer Engine does not install on the lent machine): each fused
              kernel's minimal bytes at the measured copy bandwidth, except rmsnorm (torch's fused
              RMSNorm, measured)
  embedding   the dense gradient of the embedding table, picoseconds per vocab x hidden element
  optimizer   torch.optim.AdamW per parameter (foreach / fused, fp32 / bf16), at 700M parameters
  launch_us   host time per eager kernel launch; copy_gbyte_s the 1 GiB device copy's bandwidth
and, from fp8-TAG.json (fp8.py):
  gemm_fp8    per FP8 GEMM variant (tensorwise: one scale per tensor, the GEMM of the delayed and
              tensorwise recipes; rowwise), points of (d = (M N K)^(1/3), speedup = bf16 time / FP8
              time at the same shape), mean over shapes of equal d
  fp8_quant_ps per element quantized, picoseconds, per recipe: delayed = one fused cast+transpose
              pass (the scale is known from the amax history), tensorwise = amax pass then
              cast+transpose (torch.compile'd, median over the four tensor sizes), blockwise = two
              1x128-block casts (one per orientation: the rows for the GEMM, the columns for
              the weight gradient)
  grouped_gemm routed experts as one bf16 grouped GEMM: (k, n, tokens per expert, efficiency =
              achieved TFLOPS / the dense bf16 peak) for four production expert shapes
and, from tests/gpu/data/h100-power/ (sustained.py on the lent H100; carried to the H200), in both:
  power       per GEMM precision (bf16, fp8), points of (duty = the GEMMs' share of the GPU's time at
              burst rates, ratio = the GEMMs' sustained rate at the 700 W power limit / their burst
              rate), the mean over the runs, from the duty sweep of Llama 405B's fc1 shape; duty 0 is
              the burst measurement itself (ratio 1)
and, from tests/gpu/data/h100-host-time/ (host_time.sh: Megatron-LM local at hidden 256, sequence
256, where the GPU's work is negligible and each pass takes the host's time; README.md there):
  host        "megatron": microseconds per micro-batch outside the layers (base), per dense layer,
              per MoE layer without its experts and per local expert (SequentialMLP), forward and
              backward, and the optimizer step's (base, per dense layer, per MoE layer, per local
              expert): Megatron's own timers (forward-compute, backward-compute, optimizer; the
              median over iterations 3 to the last, the profiled 10 and 11 left out), fitted over
              the seven runs at once (fit_host: least squares of relative error, terms >= 0);
              fit_error is each run's relative error against the fit
"""
import argparse
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HOST = os.path.join(HERE, "data", "h100-host-time")
SWEEP = os.path.join(HERE, "data", "h100-host-sweep")
POWER = os.path.join(HERE, "data", "h100-power")
OPS = os.path.join(HERE, "data", "h200-ops")
OPS_RUNS = ("ops-h200.json", "ops-h200-r2.json", "ops-h200-r3.json")
DOC = os.path.join(ROOT, "docs", "cost-model.md")
# Per GPU: its layouts/gpus file and name, the raw files, and whether GPUs without a table carry it.
DEVICES = {
    "h200": {"gpu": "H200", "spec": "h200.json", "dir": os.path.join(HERE, "data", "h200-steps"),
             "fp8": os.path.join(HERE, "data", "h200-fp8", "fp8-h200.json"), "carried": True},
    "h100": {"gpu": "H100 SXM", "spec": "h100-sxm.json", "dir": os.path.join(HERE, "data", "h100-kernels"),
             "fp8": os.path.join(HERE, "data", "h100-kernels", "fp8-h100.json"), "carried": False},
}


def out_path(tag):
    return os.path.join(ROOT, "layouts", "kernels", f"{tag}.json")


def gpu_spec(tag):
    return json.load(open(os.path.join(ROOT, "layouts", "gpus", DEVICES[tag]["spec"])))


def r4(x):
    return float(f"{x:.4g}")


def build(tag):
    dev = DEVICES[tag]
    peak = gpu_spec(tag)["bf16_tflops"]
    k = json.load(open(os.path.join(dev["dir"], f"kernels-{tag}.json")))
    b = json.load(open(os.path.join(dev["dir"], f"blocks-{tag}.json")))
    moe = json.load(open(os.path.join(dev["dir"], f"blocks-moe-{tag}.json")))
    cells = {}
    unfused_hf = ([], [])
    for r in k["rows"]:
        if r["kind"] != "attn" or "error" in r:
            continue
        if r["backend"] == "unfused":
            el = r["batch"] * r["heads"] * r["seq"] ** 2
            unfused_hf[0].append(r["fwd_us"] * 1e6 / el)
            unfused_hf[1].append(r["bwd_us"] * 1e6 / el)
            continue
        c = cells.setdefault((r["backend"], r["head_dim"], r["seq"]), ([], []))
        c[0].append(r["fwd_flops"] / (r["fwd_us"] * 1e6) / peak)
        c[1].append(r["bwd_flops"] / (r["bwd_us"] * 1e6) / peak)
    attention = [{"backend": be, "head_dim": d, "seq": s, "fwd": r4(statistics.mean(f)), "bwd": r4(statistics.mean(w))}
                 for (be, d, s), (f, w) in sorted(cells.items())]
    blocks = {}
    core = ([], [])
    emb = []
    for r in b["rows"]:
        if r["block"] == "core_attention":
            core[0].append(r["fwd_ps_per_element"])
            core[1].append(r["bwd_ps_per_element"])
        elif r["block"] == "embedding":
            emb.append(r["bwd_ps_per_element"])
        else:
            c = blocks.setdefault(r["impl"], {}).setdefault(r["block"], ([], []))
            c[0].append(r["fwd_ps_per_element"])
            c[1].append(r["bwd_ps_per_element"])
    # HF's MoE block (grouped-GEMM experts): its memory-bound kernels at two shapes of the same token
    # count and hidden size, solved for a cost per routed element (tokens x top-k x hidden) and one per
    # token x hidden (router, top-k, scatter of the whole batch).
    m = sorted((r for r in moe["rows"] if r["block"] == "moe_routing"), key=lambda r: -r["elements"])
    hf_moe = None
    if len(m) == 2:
        th = 4096 * 2048  # tokens x hidden of both rows (blocks.py --tokens 4096, h 2048)
        routing, tokens = [], []
        for key in ("fwd_us", "bwd_us"):
            a = (m[0][key] - m[1][key]) / (m[0]["elements"] - m[1]["elements"])  # µs per routed element
            routing.append(r4(a * 1e6))
            tokens.append(r4((m[1][key] - a * m[1]["elements"]) / th * 1e6))
        hf_moe = (routing, tokens)
    out_blocks = {impl: {blk: [r4(statistics.mean(f)), r4(statistics.mean(w))] for blk, (f, w) in sorted(d.items())}
                  for impl, d in sorted(blocks.items())}
    if hf_moe:
        out_blocks["hf"]["moe_routing"], out_blocks["hf"]["moe_tokens"] = hf_moe
    copy = max(r["gbyte_s"] for r in k["rows"] if r["kind"] == "membw" and r["op"] == "copy")
    ps = lambda nbytes: r4(nbytes / (copy * 1e9) * 1e12)  # picoseconds to move nbytes at the copy bandwidth
    out_blocks["fused"] = {
        "rmsnorm": out_blocks["megatron"]["rmsnorm"],            # torch's fused RMSNorm kernel, measured
        "rope": [ps(4), ps(4)],                                   # read + write q/k (bf16), both passes
        "swiglu": [ps(6), ps(10)],                                # fwd: 2 reads + 1 write; bwd: 3 reads + 2 writes
        "residual": out_blocks["megatron"]["residual"],          # a plain add, measured
        "loss": [ps(2), ps(4)],                                   # fwd: logits read once; bwd: read + write grad
    }
    opt = {}
    for r in k["rows"]:
        if r["kind"] == "optim" and r["params"] > 5e8:
            opt[f"{r['impl']}_{'fp32' if r['dtype'] == 'float32' else 'bf16'}"] = r4(r["us"] * 1e6 / r["params"])
    launch = statistics.median(r["us_per_launch"] for r in k["rows"] if r["kind"] == "launch")
    gemm_fp8, quant, grouped = fp8_tables(dev["fp8"], peak)
    rel = os.path.relpath(dev["dir"], ROOT)
    return {
        "_": f"Generated by tests/gpu/kernel_table.py from {rel}/ (kernels-{tag}.json, blocks-{tag}.json)"
             f"{' and tests/gpu/data/h200-ops/ (gemm)' if os.path.isdir(OPS) else ''}. Do not edit.",
        "gpu": dev["gpu"],
        "carried": dev["carried"],
        "source": f"one {dev['gpu']} ({k['meta']['device']}, {k['meta']['sms']} SMs), torch {k['meta']['torch']}, CUDA "
                  f"{k['meta']['cuda']}, cuDNN {k['meta']['cudnn']}, transformers {b['meta']['transformers']}, "
                  f"Megatron-LM d98e8a64; {k['meta']['date']}",
        "peak_bf16_tflops": peak,
        "spec_hbm_gbyte_s": gpu_spec(tag)["hbm_gbyte_s"],
        "copy_gbyte_s": r4(copy),
        "launch_us": r4(launch),
        **({"gemm": gemm_table(tag, peak)} if os.path.isdir(OPS) else {}),
        "attention": attention,
        "unfused_attention": {"hf": [r4(statistics.mean(unfused_hf[0])), r4(statistics.mean(unfused_hf[1]))],
                              "megatron": [r4(statistics.mean(core[0])), r4(statistics.mean(core[1]))]},
        "blocks": out_blocks,
        "embedding_bwd_ps": r4(statistics.mean(emb)),
        "optimizer_ps_per_param": dict(sorted(opt.items())),
        "fp8_source": fp8_source(dev["fp8"]),
        "gemm_fp8": gemm_fp8,
        "fp8_quant_ps": quant,
        "grouped_gemm": grouped,
        **({"host": host_tables(tag)} if os.path.isdir(HOST) and os.path.isdir(SWEEP) else {}),
        **({"power": power_table()} if os.path.isdir(POWER) else {}),
    }


def gemm_shape(shape):
    """(M, N, K) of a harness.py GEMM shape "M512 N3072 K1024"."""
    d = dict((p[0], int(p[1:])) for p in shape.split())
    return d["M"], d["N"], d["K"]


def gemm_efficiencies(runs, peak, keep=lambda op: True):
    """{(M, N, K): efficiency}: per shape the median TFLOPS of its rows in each run, the median of the
    runs, over the dense bf16 peak. `runs`: the runs' op lists; `keep` selects rows (tests/gpu/gemm_holdout.py)."""
    per = {}
    for ops in runs:
        one = {}
        for op in ops:
            if op["kind"] == "gemm" and op.get("dtype", "bf16") == "bf16" and "tflops" in op and keep(op):
                one.setdefault(gemm_shape(op["shape"]), []).append(op["tflops"])
        for shape, v in one.items():
            per.setdefault(shape, []).append(statistics.median(v))
    return {shape: statistics.median(v) / peak for shape, v in per.items()}


def ops_runs():
    return [json.load(open(os.path.join(OPS, f))) for f in OPS_RUNS]


def gemm_table(tag, peak):
    """The gemm section: the H200's measured GEMMs; on the H100 the same, carried (measured_on H200)."""
    runs = ops_runs()
    eff = gemm_efficiencies([r["ops"] for r in runs], gpu_spec("h200")["bf16_tflops"])
    rel = os.path.relpath(OPS, ROOT)
    source = (f"tests/gpu/harness.py ops on one H200 ({runs[0]['device']}, torch {runs[0]['torch']}), {rel}/"
              f"{', '.join(OPS_RUNS)} ({', '.join(r['date_utc'] for r in runs)}): {len(eff)} dense bf16 GEMM shapes of "
              f"transformer layers (forward, dgrad, wgrad), each the median of the runs' medians, as TFLOPS / the bf16 "
              f"peak")
    if tag != "h200":
        source += (f"; carried to the {DEVICES[tag]['gpu']} as the same shares of its bf16 peak ({peak} TFLOPS): the "
                   f"same GH100 die with 132 SMs (datasheets), an assumption: no GEMM sweep ran on it")
    return {"measured_on": "H200", "source": source,
            "points": [{"m": m, "n": n, "k": k, "eff": r4(e)} for (m, n, k), e in sorted(eff.items())]}


def power_table():
    """The power section: per GEMM precision, (duty, mean sustained/burst ratio over the runs) of the
    duty sweep (sustained.py's Llama-405B fc1 shape), by duty ascending."""
    runs = [json.load(open(os.path.join(POWER, f))) for f in sorted(os.listdir(POWER)) if f.startswith("sustained-")]
    curve = {}
    for variant, key in (("bf16", "bf16"), ("fp8-tensorwise", "fp8")):
        by_duty = {}
        for run in runs:
            for r in run["rows"]:
                if r["variant"] == variant and r["shape"] == "llama405b-tp8-fc1":
                    by_duty.setdefault(r["duty"], []).append(r["ratio"])
        # Duty 0 is the burst measurement itself (each GEMM timed behind an idle GPU): ratio 1.
        curve[key] = [{"duty": 0.0, "ratio": 1.0}] + [{"duty": d, "ratio": r4(statistics.mean(v))}
                                                      for d, v in sorted(by_duty.items())]
    m = runs[0]["meta"]
    return {"gpus": ["H100 SXM", "H200"],
            "source": f"tests/gpu/sustained.py on the lent H100 ({m['device']}, 700 W power limit), {len(runs)} runs, "
                      f"torch {m['torch']}, CUDA {m['cuda']}, {m['date']}; carried to the H200, the same GH100 "
                      f"die at the same 700 W limit (datasheets), as an assumption: no H200 was lent for it",
            **curve}


TIMER = re.compile(r"^\s+([a-z0-9-]+) \.*: \(?([0-9.]+)")
ITERATION = re.compile(r"iteration\s+(\d+)/")


def timers(run):
    """Median ms per iteration of forward-compute, backward-compute and optimizer in a run's log."""
    seen = {}
    it = 0
    for line in open(os.path.join(HOST, run, "log.txt"), errors="replace"):
        m = ITERATION.search(line)
        if m:
            it = int(m.group(1))
            continue
        m = TIMER.match(line)
        if m and it >= 3 and it not in (10, 11):
            seen.setdefault(m.group(1), []).append(float(m.group(2)))
    return {k: statistics.median(seen[k]) for k in ("forward-compute", "backward-compute", "optimizer")}


# The host-time runs: micro-batches per step, dense layers, MoE layers, local experts per MoE layer.
HOST_RUNS = {"dense-l2": (1, 2, 0, 0), "dense-l8": (1, 8, 0, 0), "dense-l8-m4": (4, 8, 0, 0),
             "moe64-l2": (1, 0, 2, 64), "moe64-l8": (1, 0, 8, 64), "moe16-l8": (1, 0, 8, 16),
             "moe64-l8-m4": (4, 0, 8, 64)}


def solve(m, v):
    """Gauss-Jordan with partial pivoting: m x = v (square)."""
    n = len(v)
    a = [row[:] + [v[i]] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        for r in range(n):
            if r != c:
                f = a[r][c] / a[c][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [a[i][n] / a[i][i] for i in range(n)]


def fit_host(rows, measured):
    """Non-negative least squares of relative errors: minimises sum((row . x / y - 1)^2), a term
    that comes out negative is dropped (held at 0) and the rest refitted."""
    n = len(next(iter(rows.values())))
    cols = list(range(n))
    while True:
        a = [[rows[r][c] / measured[r] for c in cols] for r in rows]
        ata = [[sum(row[i] * row[j] for row in a) for j in range(len(cols))] for i in range(len(cols))]
        atb = [sum(row[i] for row in a) for i in range(len(cols))]
        x = dict(zip(cols, solve(ata, atb)))
        if all(v >= 0 for v in x.values()):
            return [x.get(c, 0.0) for c in range(n)]
        cols = [c for c in cols if x[c] > 0]


def sweep_runs():
    """Every run of the host sweep (SWEEP/partN/NAME/run.json, host_sweep.py run), by configuration
    (hidden, layers, experts): the repeats of one configuration together."""
    by = {}
    for part in sorted(os.listdir(SWEEP)):
        d = os.path.join(SWEEP, part)
        if not part.startswith("part") or not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name, "run.json")
            if os.path.exists(p):
                r = json.load(open(p))
                by.setdefault((r["hidden"], r["layers"], r["experts"]), []).append(r)
    return by


def line_fit(xs, ys):
    """Least squares y = a + b x: (a, b)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def sweep_terms(pick=statistics.median):
    """The host terms from the sweep, each the median over a configuration's repeats (what a run's
    median step sees on a shared host; `pick` min gives the quietest repeat), then the median over
    the hidden sizes (the terms do not
    depend on hidden: tests/gpu/RESULTS.md): per dense layer, the steady layers 3-8; per micro-batch
    outside the layers (base), the pass's host time less layers x the steady layer; per MoE layer
    without its experts and per local expert, the line through the MoE layer's host time at 8, 32
    and 128 experts (4 layers, all of them)."""
    by = sweep_runs()
    dense = {h: v for (h, layers, e), v in by.items() if e == 0 and layers >= 8}
    moe_hidden = sorted({h for (h, _, e) in by if e > 0})
    out = {"base_us": [], "dense_us": [], "moe_us": [], "expert_us": []}
    for p in ("fwd", "bwd"):
        layer = f"layer_{p}_steady_us"
        out["dense_us"].append(statistics.median(pick([r[layer] for r in v]) for v in dense.values()))
        out["base_us"].append(statistics.median(pick([r[f"microbatch_{p}_us"] - r["layers"] * r[layer] for r in v])
                                                for v in dense.values()))
        lines = []
        for h in moe_hidden:
            es = sorted(e for (hh, _, e) in by if hh == h and e > 0)
            lines.append(line_fit(es, [pick([r[layer] for r in by[(h, 4, e)]]) for e in es]))
        out["moe_us"].append(statistics.median(a for a, _ in lines))
        out["expert_us"].append(statistics.median(b for _, b in lines))
    experts = sorted({e for (_, _, e) in by if e > 0})
    hidden = sorted({h for (h, _, _) in by})
    return {k: [r4(v) for v in vs] for k, vs in out.items()}, hidden, experts


def host_tables(tag):
    """Megatron-LM local's host time: per micro-batch outside the layers, per dense layer, per MoE
    layer without its experts and per local expert from the host sweep (sweep_terms); the optimizer's
    per layer and per expert fitted to the per-step optimizer timer of the seven hidden-256 runs
    (fit_host). The measured range (hidden, local experts) goes with it: outside it, and for every
    other implementation, the model says the host time is not modelled."""
    if not os.path.isdir(HOST) or not os.path.isdir(SWEEP):
        return {}
    t = {r: timers(r) for r in HOST_RUNS}
    rows = {r: [1, ld, lm, lm * e] for r, (_, ld, lm, e) in HOST_RUNS.items()}
    x = fit_host(rows, {r: t[r]["optimizer"] for r in HOST_RUNS})
    o = [r4(v * 1e3) for v in x]  # ms -> us
    fit_error = {r: r4(sum(a * b for a, b in zip(rows[r], x)) / t[r]["optimizer"] - 1) for r in HOST_RUNS}
    terms, hidden, experts = sweep_terms()
    host = open(os.path.join(SWEEP, "host.txt")).read().split("\n")
    return {"megatron": {
        "source": "Megatron-LM local (SequentialMLP experts), tests/gpu/host_sweep.sh on the lent H100 machine, "
                  f"hidden {hidden[0]}-{hidden[-1]}, {experts[0]}-{experts[-1]} experts (tests/gpu/data/h100-host-sweep); "
                  "the optimizer's from tests/gpu/host_time.sh (tests/gpu/data/h100-host-time)" +
                  (", the H100 host's time carried to the H200" if tag == "h200" else "") +
                  " (" + "; ".join(" ".join(l.split()) for l in host[1:] if l.strip()) + ")",
        "implementation": "megatron-local",
        "hidden": [hidden[0], hidden[-1]],
        "local_experts_max": experts[-1],
        **terms,
        "optimizer_us": {"base": o[0], "dense": o[1], "moe": o[2], "expert": o[3]},
        "fit_error": {"optimizer": fit_error}}}


def fp8_source(path):
    m = json.load(open(path))["meta"]
    gpu = "H200" if "H200" in m["device"] else "H100 SXM" if "H100" in m["device"] else m["device"]
    return f"one {gpu} ({m['device']}, {m['sms']} SMs), torch {m['torch']}, CUDA {m['cuda']}, {m['script']}"


def fp8_tables(path, peak):
    rows = json.load(open(path))["rows"]
    bf16 = {r["shape"]: r["us"] for r in rows if r["kind"] == "gemm" and r["variant"] == "bf16" and "us" in r}
    gemm = {}
    for variant in ("tensorwise", "rowwise"):
        by_d = {}
        for r in rows:
            if r["kind"] == "gemm" and r["variant"] == f"fp8-{variant}" and "us" in r and r["shape"] in bf16:
                d = round((r["m"] * r["n"] * r["k"]) ** (1.0 / 3.0))
                by_d.setdefault(d, []).append(bf16[r["shape"]] / r["us"])
        gemm[variant] = [{"d": d, "speedup": r4(statistics.mean(v))} for d, v in sorted(by_d.items())]
    ps = lambda op: r4(statistics.median(r["ps_per_el"] for r in rows if r["kind"] == "quant" and r.get("op") == op
                                         and "ps_per_el" in r))
    quant = {"delayed": ps("cast_transpose_compiled"), "tensorwise": ps("cast_transpose_amax_compiled"),
             "blockwise": r4(2 * ps("block_cast_compiled"))}
    grouped = [{"k": r["k"], "n": r["n"], "tokens_per_expert": r["tokens_per_expert"], "eff": r4(r["tflops"] / peak)}
               for r in rows if r["kind"] == "grouped" and "tflops" in r]
    grouped.sort(key=lambda g: (g["k"], g["n"], g["tokens_per_expert"]))
    return gemm, quant, grouped


def host_doc_rows(table):
    """docs/cost-model.md's "Compute: host time" table, last column, as the built-in table gives it."""
    h = table["host"]["megatron"]
    n = lambda v: f"{round(v):,}"
    pair = lambda k: f"{n(h[k][0])} / {n(h[k][1])}"
    opt = h["optimizer_us"]
    return {"base_us": pair("base_us"), "dense_us": pair("dense_us"), "moe_us": pair("moe_us"),
            "expert_us": pair("expert_us"),
            "optimizer_us": f"{n(opt['base'])}; {n(opt['dense'])}, {n(opt['moe'])}, {n(opt['expert'])}"}


def check_host_doc(table):
    """Exit 1 unless the doc's host table quotes the built-in table's numbers."""
    doc = open(DOC).read()
    for key, want in host_doc_rows(table).items():
        row = next((line for line in doc.splitlines() if line.startswith(f"| `{key}`")), None)
        have = row.rstrip(" |").rsplit("|", 1)[-1].strip() if row else None
        if have != want:
            sys.exit(f"kernel_table: docs/cost-model.md's host-time row `{key}` says {have!r}, the built-in table "
                     f"{want!r}; write the table's numbers there")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--gpu", choices=sorted(DEVICES), default="h200", help="the table to print")
    a = ap.parse_args()
    texts = {tag: json.dumps(build(tag), indent=1) + "\n" for tag in DEVICES}
    if a.write:
        for tag, text in texts.items():
            os.makedirs(os.path.dirname(out_path(tag)), exist_ok=True)
            open(out_path(tag), "w").write(text)
    elif a.check:
        for tag, text in texts.items():
            have = open(out_path(tag)).read() if os.path.exists(out_path(tag)) else ""
            if have != text:
                sys.exit(f"kernel_table: {out_path(tag)} differs from what its measurements give; run tests/gpu/kernel_table.py --write")
        check_host_doc(json.loads(texts["h200"]))
        print("kernel_table: layouts/kernels/h200.json and h100.json match the measurements, and docs/cost-model.md quotes the host times")
    else:
        sys.stdout.write(texts[a.gpu])


if __name__ == "__main__":
    main()
