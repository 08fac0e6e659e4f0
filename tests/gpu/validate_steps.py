#!/usr/bin/env python3
"""Full training steps on one H200, predicted with no calibration against what ran (issue 28).

  python3 tests/gpu/validate_steps.py PLAN_LAYOUT_BINARY [--check]

The runs are tests/gpu/data/h200-steps/ (device_run28.sh): Megatron-LM pretrain_gpt.py with
--transformer-impl local and every fusion off, and HF transformers (SDPA, AdamW on the bf16
weights), five shapes at 4096 tokens per step. Each is written here as a plan-layout layout (one
GPU; the shape as the script gave it; "implementation" as the run's code) and analyzed with no
measured step; the prediction is the step's compute (one GPU: no communication, no bubble).

Measured: Megatron's "elapsed time per iteration" median over iterations 3-10 (1-2 warm up, 11 is
profiled); HF the median of 8 timed steps. A run whose GPU sat idle more than a third of its profiled
step (kernel span over busy time above 1.5: the host could not keep the GPU fed) is marked
host-bound. Since issue 42 a host-bound run is counted in the "over" aggregate and not held to the
bound: its time is the host CPU's, which differs 2-3x between sessions of the same machine kind
(the kernel table's host section is the sweep of tests/gpu/data/h100-host-sweep).

Prints the tables (docs/gpu-validation.md quotes them), each with its rows' half of the development /
held-out split (tolerances.half of "h200-steps/SHAPE/IMPL", a run's step and peak in the same half;
"h100/RUN/IMPL") and the aggregates of all rows and of each half. --check exits 1 when an H200 step
that is not host-bound is off by more than the tolerance (tests/tolerances.json "device.h200_step_error",
issue 28's 15 %),
or when an aggregate of all rows or of either half is worse than its baseline in tests/tolerances.json
("device_h200_steps", "device_h200_memory", "device_h100_steps"): a median |error| by more than
1 point, a count at all.
"""
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "h200-steps")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "support"))
import tolerances  # noqa: E402

BOUND = tolerances.tolerance("device.h200_step_error")
MEMORY_BOUND = tolerances.tolerance("device.h200_memory_error")
H100_BOUND = tolerances.tolerance("device.h100_step_error")

# name: hidden, layers, heads, kv heads, ffn, vocab, tied, experts, topk, expert ffn (device_run28.sh SHAPES)
SHAPES = {
    "llama3.2-1b": (2048, 16, 32, 8, 8192, 128256, True, 0, 0, 0),
    "llama3.2-3b": (3072, 28, 24, 8, 8192, 128256, True, 0, 0, 0),
    "qwen2.5-1.5b-shape": (1536, 28, 12, 2, 8960, 151936, True, 0, 0, 0),
    "llama3.1-8b-8l": (4096, 8, 32, 8, 14336, 128256, False, 0, 0, 0),
    "olmoe-8l": (2048, 8, 16, 16, 1024, 50304, False, 64, 8, 1024),
}


def layout(name, impl, vocab):
    h, layers, heads, kv, ffn, _, tied, experts, topk, mf = SHAPES[name]
    model = {"layers": layers, "hidden": h, "heads": heads, "kv_heads": kv, "ffn_hidden": ffn, "vocab": vocab,
             "tied_embeddings": tied}
    if experts:
        model["moe"] = {"experts": experts, "topk": topk, "ffn_hidden": mf}
    training = {"global_batch": 1, "micro_batch": 1, "seq_len": 4096, "gpu": "H200", "implementation": impl}
    if impl == "megatron-local":
        # As the runs were launched (device_run28.sh): --bf16 keeps fp32 main grads (the log's
        # main_grads_dtype torch.float32, as Megatron's reader gives for --bf16), --attention-dropout 0,
        # --hidden-dropout 0.
        model["dtype_bytes"] = {"grad": 4}
        training["attention_dropout"] = 0
        training["hidden_dropout"] = 0
    return {"name": f"h200-{impl}-{name}", "cluster": {"nodes": 1, "node": "h100-hgx-8gpu-8nic"},
            "parallel": {"tp": 1, "pp": 1, "cp": 1, "ep": 1, "world": 1}, "model": model, "training": training}


def megatron_peak_gib(name):
    """Megatron's own report after iteration 2: max allocated (MB = 2^20 bytes)."""
    log = open(os.path.join(DATA, f"megatron-{name}", "log.txt")).read()
    m = re.findall(r"after 2 iterations\) memory \(MB\) \| allocated: [\d.]+ \| max allocated: ([\d.]+)", log)
    return float(m[-1]) / 1024 if m else None


def hf_peak_gib(name):
    return json.load(open(os.path.join(DATA, f"hf-{name}.json")))["mem"]["max_allocated_gib"]


def megatron_measured(name):
    log = open(os.path.join(DATA, f"megatron-{name}", "log.txt")).read()
    its = [float(x) / 1e3 for x in re.findall(r"elapsed time per iteration \(ms\): ([\d.]+)", log)]
    padded = re.search(r"padded vocab .*new size: (\d+)\)", log)
    prof = json.load(open(os.path.join(DATA, f"megatron-{name}", "profile.json")))
    return statistics.median(its[2:10]), prof, int(padded.group(1)) if padded else SHAPES[name][5]


def hf_measured(name):
    d = json.load(open(os.path.join(DATA, f"hf-{name}.json")))
    return d["median_s"], d["profile"], SHAPES[name][5]


H100_STEPS = os.path.join(HERE, "data", "h100-steps")
H100_SYNC = os.path.join(HERE, "data", "h100-moe-sync")
# The H100 runs (not held to the bound; their aggregates are held to baselines): HF steps long enough to run at the power limit
# (device_run_h100_steps.sh: name, SHAPES entry, micro-batch) and Megatron-LM local's MoE steps of
# moe_sync.sh (experts, top-k, expert width; dropless and drop+pad).
H100_HF = (("llama3.1-8b-8l-m1", "llama3.1-8b-8l", 1), ("llama3.1-8b-8l-m2", "llama3.1-8b-8l", 2),
           ("llama3.2-1b-m2", "llama3.2-1b", 2))
H100_SYNC_RUNS = {"e128k8": (128, 8, 768), "e16k2": (16, 2, 3072)}


def h100_rows(binary):
    """(run, implementation, measured s, predicted s, power duty, power ratio) of the H100 runs."""
    out = []
    for run, shape, mbs in H100_HF:
        meas = statistics.median(json.load(open(os.path.join(H100_STEPS, f"hf-{run}.json")))["step_s"])
        doc = layout(shape, "hf", SHAPES[shape][5])
        doc["training"].update(gpu="H100 SXM", micro_batch=mbs, global_batch=mbs)
        out.append((run, "hf", meas, analyze(binary, doc)))
    for name, (experts, topk, width) in H100_SYNC_RUNS.items():
        model = {"layers": 4, "hidden": 2048, "heads": 32, "kv_heads": 4, "head_dim": 128, "ffn_hidden": 6144,
                 "vocab": 32000, "tied_embeddings": False, "moe": {"experts": experts, "topk": topk, "ffn_hidden": width},
                 "dtype_bytes": {"grad": 4}}
        training = {"global_batch": 1, "micro_batch": 1, "seq_len": 4096, "gpu": "H100 SXM",
                    "implementation": "megatron-local", "attention_dropout": 0, "hidden_dropout": 0}
        doc = {"name": f"h100-{name}", "cluster": {"nodes": 1, "node": "h100-hgx-8gpu-8nic"},
               "parallel": {"tp": 1, "pp": 1, "cp": 1, "ep": 1, "world": 1}, "model": model, "training": training}
        report = analyze(binary, doc)
        for mode in ("dropless", "droppad"):
            log = open(os.path.join(H100_SYNC, f"{name}-{mode}", "log.txt")).read()
            its = [(int(i), float(ms) / 1e3) for i, ms in
                   re.findall(r"iteration +(\d+)/.*?elapsed time per iteration \(ms\): ([\d.]+)", log)]
            meas = statistics.median(t for i, t in its if 3 <= i <= 10)
            out.append((f"moe {name} {mode}", "megatron-local", meas, report))
    return out


def analyze(binary, doc):
    """plan-layout analyze of one layout: its JSON report (score and memory)."""
    p = subprocess.run([binary, "analyze", "-", "--format", "json"], input=json.dumps(doc), capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"validate_steps: plan-layout analyze failed: {p.stderr.strip()[:300]}")
    return json.loads(p.stdout)


def summarize(label, rows, held, over_name, bound, within=False):
    """Prints the aggregates of (id, |error|) rows for all and for each half and checks them."""
    for which, part in tolerances.split(rows, lambda r: r[0]).items():
        errs = [e for _, e in part]
        median = round(statistics.median(errs) * 100, 1) if errs else None
        count = sum(e <= bound for e in errs) if within else sum(e > bound for e in errs)
        word = f"within {bound * 100:.0f} %" if within else f"over {bound * 100:.0f} %"
        text = f"{median:.1f} %" if median is not None else "-"
        prefix = label if which == "all" else f"{label}, {which} half"
        print(f"{prefix}: {len(errs)} rows, median |error| {text}, {word}: {count}")
        held.check(which, {"rows": len(errs), "median_abs_error_pct": median, over_name: count})


def main():
    binary, check = sys.argv[1], "--check" in sys.argv[2:]
    rows, bad, memory = [], [], []
    print("| shape | implementation | measured s | predicted s | error | GPU busy / span | largest predicted ops | half |")
    print("|---|---|---|---|---|---|---|---|")
    for name in SHAPES:
        for impl, measured in (("megatron-local", megatron_measured), ("hf", hf_measured)):
            run_id = f"h200-steps/{name}/{impl}"
            half = tolerances.half(run_id)
            meas, prof, vocab = measured(name)
            report = analyze(binary, layout(name, impl, vocab))
            score = report["score"]
            pred = score["compute_s"] + score["bubble_s"]
            err = pred / meas - 1
            busy = prof["busy_us_per_step"] / prof["span_us_per_step"]
            host_bound = busy < 1 / 1.5
            ops = ", ".join(f"{o['name']} {o['seconds'] * 1e3:.1f} ms" for o in score["compute"]["ops"][:3])
            flag = " (host-bound)" if host_bound else ""
            print(f"| {name} | {impl} | {meas:.4f} | {pred:.4f} | {err * 100:+.1f} %{flag} | {busy * 100:.0f} % | {ops} | {half} |")
            rows.append((run_id, abs(err)))
            peak = megatron_peak_gib(name) if impl == "megatron-local" else hf_peak_gib(name)
            memory.append((run_id, name, impl, peak, report["memory"]["total"] / 2**30))
            if abs(err) > BOUND and not host_bound:
                bad.append(f"{name} {impl}: {err * 100:+.1f} %")
    print()
    steps = tolerances.Held("device_h200_steps")
    summarize("H200 steps", rows, steps, "over", BOUND)
    # Peak memory (issue 29): the estimate's total per GPU (states as the run kept them,
    # activations with the backward's transient, no runtime overhead: the headroom's) against the
    # allocator's peak. Issue 29's bound (10 %) counts the rows within it; the count and the median
    # are held to their baselines.
    print()
    print("| shape | implementation | measured peak allocated GiB | estimated GiB | error | half |")
    print("|---|---|---|---|---|---|")
    for run_id, name, impl, peak, est in memory:
        print(f"| {name} | {impl} | {peak:.1f} | {est:.1f} | {(est / peak - 1) * 100:+.1f} % | {tolerances.half(run_id)} |")
    print()
    mem = tolerances.Held("device_h200_memory")
    summarize("peak memory", [(r, abs(e / p - 1)) for r, _, _, p, e in memory], mem, "within", MEMORY_BOUND, within=True)
    # The H100 runs: held to their baselines, not to the bound (docs/gpu-validation.md says what each shows).
    print()
    print("| H100 run | implementation | measured s | predicted s | error | power: duty, ratio | half |")
    print("|---|---|---|---|---|---|---|")
    h100 = []
    for run, impl, meas, report in h100_rows(binary):
        score = report["score"]
        pred = score["compute_s"] + score["bubble_s"]
        power = (score["compute"].get("kernels") or {}).get("power") or {}
        run_id = f"h100/{run}/{impl}"
        h100.append((run_id, abs(pred / meas - 1)))
        print(f"| {run} | {impl} | {meas:.4f} | {pred:.4f} | {(pred / meas - 1) * 100:+.1f} % | "
              f"{power.get('duty', 0):.2f}, {power.get('ratio', 1):.3f} | {tolerances.half(run_id)} |")
    print()
    hh = tolerances.Held("device_h100_steps")
    summarize("H100 runs", h100, hh, "over", H100_BOUND)
    if check and bad:
        sys.exit("validate_steps: over the bound: " + "; ".join(bad))
    tolerances.finish([steps, mem, hh], check, "validate_steps")


if __name__ == "__main__":
    main()
