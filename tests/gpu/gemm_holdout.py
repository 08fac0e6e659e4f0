#!/usr/bin/env python3
"""The measured GEMM table checked out of sample (issue 42 item 2): pure Python, no torch.

  python3 tests/gpu/gemm_holdout.py [PLAN_LAYOUT_BINARY] [--neighbours N] [--power Q]

The kernel tables' gemm section (tests/gpu/kernel_table.py) is the H200's sweep of dense bf16 GEMMs,
tests/gpu/data/h200-ops/ (harness.py ops, three runs; 400 shapes of layers of hidden 1024, 2048,
4096 and 8192 at TP 1-8, forward, dgrad and wgrad). The model reads it as a grid filled by inverse
distance and interpolated trilinearly in log2 (topology/gemm_table.cpp; docs/cost-model.md,
"Compute: GEMMs"). This script builds the same grid in Python from part of the data and times the
rest as the model does (max(FLOPs / (989 TFLOPS x eff), bytes / 4,800 GB/s, the 4 us kernel floor);
ratio = predicted / measured, each op the median of its runs, as calibrate --ops):

  in-sample          the table from all three runs, against all three (what calibrate --ops prints)
  leave-one-run-out  the table from two runs, against the third: the runs' noise
  leave-hidden-out   the table without the shapes only one hidden size has, against those shapes:
                     shapes the table never saw, priced from their neighbours
and the prior curve (0.8 x prod x/(x + 128)) on the same rows. The neighbour count and the weight's
power default to the registry's (include/planlayout/model/numbers/compute.def); --neighbours and
--power vary them. Given the binary, the in-sample gemm row of its calibrate --ops must agree with
this script's (the Python rule is the C++ one): exit 1 otherwise. tests/gpu/RESULTS.md quotes it."""
import argparse
import itertools
import math
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import kernel_table  # noqa: E402

PEAK, HBM, FLOOR, BETA = 989.0, 4800e9, 4e-6, 2  # the H200's datasheet (layouts/gpus/h200.json), compute.kernel.floor_s
HIDDENS = ("h1024", "h2048", "h4096", "h8192")


def registry(name):
    text = open(os.path.join(ROOT, "include", "planlayout", "model", "numbers", "compute.def")).read()
    return float(re.search(r"PLANLAYOUT_NUMBER\(" + name + r', "[^"]+", ([0-9.e+-]+),', text).group(1))


def build(eff, neighbours, power):
    """(log2 axes, grid) as GemmTable builds them."""
    pts = sorted(eff)
    logs = [tuple(math.log2(x) for x in p) for p in pts]
    axes = [sorted(set(l[d] for l in logs)) for d in range(3)]
    grid = {}
    for at in itertools.product(*axes):
        near = sorted((sum((a - b) ** 2 for a, b in zip(l, at)), i) for i, l in enumerate(logs))[:int(neighbours)]
        if near[0][0] <= 0:
            grid[at] = eff[pts[near[0][1]]]
            continue
        w = [1 / d ** power for d, _ in near]
        grid[at] = sum(wi * eff[pts[i]] for wi, (_, i) in zip(w, near)) / sum(w)
    return axes, grid


def lookup(table, m, n, k):
    axes, grid = table
    cells = []
    for axis, x in zip(axes, (math.log2(m), math.log2(n), math.log2(k))):
        if len(axis) == 1 or x <= axis[0]:
            cells.append((0, 0.0))
        elif x >= axis[-1]:
            cells.append((len(axis) - 2, 1.0))
        else:
            hi = next(i for i, a in enumerate(axis) if a > x)
            cells.append((hi - 1, (x - axis[hi - 1]) / (axis[hi] - axis[hi - 1])))
    e = 0.0
    for corner in itertools.product((0, 1), repeat=3):
        w = 1.0
        for (lo, t), up in zip(cells, corner):
            w *= t if up else 1 - t
        if w > 0:
            e += w * grid[tuple(axes[d][cells[d][0] + corner[d]] for d in range(3))]
    return e


def prior(m, n, k):
    f = lambda x: x / (x + 128)
    return 0.8 * f(m) * f(n) * f(k)


def ratios(eff_of, runs, keep=lambda op: True):
    """predicted / measured per (name, shape), measured the median of the runs."""
    rows = {}
    for ops in runs:
        for op in ops:
            if op["kind"] == "gemm" and keep(op):
                rows.setdefault((op["name"], op["shape"]), []).append(op["us"] * 1e-6)
    out = []
    for (_, shape), us in sorted(rows.items()):
        m, n, k = kernel_table.gemm_shape(shape)
        t = max(2 * m * n * k / (PEAK * 1e12 * eff_of(m, n, k)), BETA * (m * k + k * n + m * n) / HBM, FLOOR)
        out.append(t / statistics.median(us))
    return out


def summary(r):
    r = sorted(r)
    q = lambda p: r[min(len(r) - 1, int(p * len(r)))]
    return (f"{len(r):4d} ops  median {statistics.median(r):.2f}  p10 {q(0.1):.2f}  p90 {q(0.9):.2f}  min {r[0]:.2f}  "
            f"max {r[-1]:.2f}  median |err| {100 * statistics.median(abs(x - 1) for x in r):.1f} %")


def calibrate_gemm_row(binary):
    files = [os.path.join(kernel_table.OPS, f) for f in kernel_table.OPS_RUNS]
    out = subprocess.run([binary, "calibrate", "--ops"] + files, capture_output=True, text=True, check=True).stdout
    row = next(l for l in out.splitlines() if l.startswith("gemm "))
    return [float(x) for x in row.split()[2:7]]  # median p10 p90 min max


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", nargs="?")
    ap.add_argument("--neighbours", type=float, default=registry("kGemmTableNeighbours"))
    ap.add_argument("--power", type=float, default=registry("kGemmTableDistancePower"))
    a = ap.parse_args()
    runs = [r["ops"] for r in kernel_table.ops_runs()]
    table = lambda rs, keep=lambda op: True: build(kernel_table.gemm_efficiencies(rs, PEAK, keep), a.neighbours, a.power)
    print(f"# gemm_holdout: {a.neighbours:g} neighbours, weights 1 / d^(2 x {a.power:g}); ratio = predicted / measured")
    full = table(runs)
    inside = ratios(lambda m, n, k: lookup(full, m, n, k), runs)
    print(f"in-sample            table  {summary(inside)}")
    print(f"                     prior  {summary(ratios(prior, runs))}")
    for i in range(len(runs)):
        t = table(runs[:i] + runs[i + 1:])
        print(f"leave run {i + 1} out      table  {summary(ratios(lambda m, n, k: lookup(t, m, n, k), [runs[i]]))}")
    hiddens = {}
    for ops in runs:
        for op in ops:
            if op["kind"] == "gemm":
                hiddens.setdefault(op["shape"], set()).add(op["name"].split("-")[0])
    pooled_t, pooled_p = [], []
    for h in HIDDENS:
        own = lambda op, h=h: hiddens[op["shape"]] == {h}
        t = table(runs, lambda op, own=own: not own(op))
        rt, rp = ratios(lambda m, n, k: lookup(t, m, n, k), runs, own), ratios(prior, runs, own)
        pooled_t += rt
        pooled_p += rp
        print(f"{h} hidden out     table  {summary(rt)}")
        print(f"                     prior  {summary(rp)}")
    print(f"hidden out, pooled   table  {summary(pooled_t)}")
    print(f"                     prior  {summary(pooled_p)}")
    if a.binary:
        have = calibrate_gemm_row(a.binary)
        r = sorted(inside)
        q = lambda p: r[min(len(r) - 1, int(p * len(r)))]
        want = [statistics.median(r), r[0], r[-1]]
        if any(abs(x - y) > 0.011 for x, y in zip(want, [have[0], have[3], have[4]])):
            sys.exit(f"gemm_holdout: calibrate --ops says gemm median/min/max {have[0]}/{have[3]}/{have[4]}, this script "
                     f"{want[0]:.2f}/{want[1]:.2f}/{want[2]:.2f}: the Python rule and topology/gemm_table.cpp differ")
        print(f"calibrate --ops agrees: gemm median {have[0]:.2f}, p10 {have[1]:.2f}, min {have[3]:.2f}, max {have[4]:.2f}")


if __name__ == "__main__":
    main()
