#!/usr/bin/env python3
"""Predicted vs measured MoE steps for RESULTS.md (issue 16): python3 and the built plan-layout, no torch.

  python3 tests/gpu/step_predictions.py PLAN_LAYOUT_BINARY

1. The 2 x H200 MoE step (data/h200-2gpu*, the first harness's one-hot router), per mode (fast =
   NCCL over NVLink, the layouts' gdrdma arm; tcp = NCCL's socket transport over lo), predicted
   a) uncalibrated: the compute model from the GPU's specs (analyze --measured-step none), and
   b) compute-calibrated from the other layout of the same size: calibrate --compute on the other
      layout (anchored to its measured fast step) gives compute_scale, which this layout takes.
2. The MoE layer's compute alone on one H200 (data/h200-moe-sort: the sort-based router, three
   rounds), against the model's compute per GPU of the layout of the same per-rank shape, uncalibrated.
check_pipeline.sh runs it (--check) and checks that RESULTS.md quotes every row. With --check, exits 1
when a median |error| (uncalibrated, calibrated, compute alone) is worse than its baseline in
tests/tolerances.json ("device_moe_steps") by more than 1 point. Eight and four rows: no split."""
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA, LAYOUTS = os.path.join(HERE, "data"), os.path.join(HERE, "layouts")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "support"))
import tolerances  # noqa: E402


def run(binary, args, cwd, stdin=None):
    p = subprocess.run([binary] + args, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"step_predictions: plan-layout {' '.join(args)} failed: {p.stderr.strip()[:300]}")
    return json.loads(p.stdout)


def ab_medians(binary, files):
    """arm -> median of the rounds' stable-step means, as plan-layout ab prints it."""
    doc = run(binary, ["ab"] + files + ["--format", "json"], DATA)
    return {a["arm"]: a["median_s"] for a in doc["arms"]}


def layout_with_scale(name, scale):
    """The layout's text with its measured step replaced by a given compute_scale."""
    out = []
    for line in open(os.path.join(LAYOUTS, name + ".json")):
        if '"measured_step_time_s"' in line:
            continue
        if '"measured_transport"' in line:
            line = line.split('"measured_transport"')[0] + f'"compute_scale": {scale!r}\n'
        out.append(line)
    return "".join(out)


def err(pred, meas):
    return f"{(pred / meas - 1) * 100:+.1f} %"


def main(binary, check):
    errors = {"uncalibrated": [], "calibrated": [], "compute_alone": []}
    print("| config | layout | mode | measured s | uncalibrated s | error | calibrated from | compute_scale | calibrated s | error |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for cfg in ("h200-2gpu", "h200-2gpu-large"):
        for lay, other in (("ep2-dp1", "ep1-dp2"), ("ep1-dp2", "ep2-dp1")):
            name, oname = f"{cfg}-{lay}", f"{cfg}-{other}"
            d = os.path.join(cfg, f"moe-{lay}")
            files = sorted(os.path.join(d, f) for f in os.listdir(os.path.join(DATA, d)) if f.endswith(".csv"))
            measured = ab_medians(binary, files)
            unc = run(binary, ["analyze", "--allow-outside-files", f"../layouts/{name}.json", "--measured-step", "none",
                               "--format", "json"], DATA)["score"]["step_time_s"]
            fit = run(binary, ["calibrate", "--compute", "--allow-outside-files", f"../layouts/{oname}.json",
                               "--format", "json"], DATA)["compute"]["compute_scale"]
            cal = run(binary, ["analyze", "-", "--allow-outside-files", "--format", "json"], LAYOUTS,
                      layout_with_scale(name, fit))["score"]["step_time_s"]
            for mode, arm in (("fast", "gdrdma"), ("tcp", "tcp")):
                m = measured[mode]
                errors["uncalibrated"].append(abs(unc[arm] / m - 1))
                errors["calibrated"].append(abs(cal[arm] / m - 1))
                print(f"| {cfg} | {lay} | {mode} | {m:.5f} | {unc[arm]:.5f} | {err(unc[arm], m)} | {other} | {fit:.4f} | "
                      f"{cal[arm]:.5f} | {err(cal[arm], m)} |")
    print()
    print("| compute alone (1 GPU, sort router) | per-rank shape | measured s (median of 3 rounds) | model compute s, uncalibrated | error |")
    print("| --- | --- | --- | --- | --- |")
    for cfg, sub in (("h200-2gpu", "h1024-f2048-t8192"), ("h200-2gpu-large", "h2048-f8192-t16384")):
        for shape, lay in (("ep1", "ep1-dp2"), ("ep2", "ep2-dp1")):
            d = os.path.join("h200-moe-sort", f"moe-compute-{sub}-{shape}-dp1")
            runs = []
            for f in sorted(os.listdir(os.path.join(DATA, d))):
                if f.endswith(".csv"):
                    runs += ["--run", f"compute:{f[len('compute-round'):-len('.csv')]}={os.path.join(d, f)}"]
            m = ab_medians(binary, runs)["compute"]
            comp = run(binary, ["analyze", "--allow-outside-files", f"../layouts/{cfg}-{lay}.json", "--measured-step",
                                "none", "--format", "json"], DATA)["score"]["compute_s"]
            print(f"| {sub} | {shape} ({lay}'s rank) | {m:.5f} | {comp:.5f} | {err(comp, m)} |")
            errors["compute_alone"].append(abs(comp / m - 1))
    print()
    medians = {k: round(statistics.median(v) * 100, 1) for k, v in errors.items()}
    print(f"MoE steps: uncalibrated {len(errors['uncalibrated'])} rows, median |error| {medians['uncalibrated']:.1f} %; "
          f"calibrated {len(errors['calibrated'])} rows, median |error| {medians['calibrated']:.1f} %; "
          f"compute alone {len(errors['compute_alone'])} rows, median |error| {medians['compute_alone']:.1f} %")
    held = tolerances.Held("device_moe_steps")
    held.check("all", {f"median_abs_error_pct_{k}": v for k, v in medians.items()})
    tolerances.finish([held], check, "step_predictions")


if __name__ == "__main__":
    main(sys.argv[1], "--check" in sys.argv[2:])
