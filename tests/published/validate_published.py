#!/usr/bin/env python3
"""Published DGX-H100 pre-training throughput, predicted with no calibration (issue 28).

  python3 tests/published/validate_published.py PLAN_LAYOUT_BINARY [--markdown]

The rows are tests/data/published/megatron-bridge-dgx-h100.json (NVIDIA's Megatron-Bridge
performance summary, every DGX-H100 row of three releases). Each is written as a plan-layout layout:
the row's GPUs as DGX-H100 nodes on a rail-aligned fat tree, its TP/PP/CP/VP/EP, batch and sequence,
the model from its Hugging Face config (or the shape the data file names), and what Megatron-Bridge's
performance recipes run beside the row's columns, stated here as the assumption it is:
Transformer Engine kernels, sequence parallelism with TP, the distributed optimizer with overlapped
gradient reduce and parameter gather, TP communication overlap with TP > 1, grouped GEMM for the
experts with expert TP 1, FP8-CS as --fp8-recipe tensorwise; and, per model, the MoE settings of its H100
recipe (RECIPE_MOE below: the dispatcher and --overlap-moe-expert-parallel-comm, and GPT-OSS-120B's
--recompute-modules, from Megatron-Bridge's
scripts/performance/configs/{qwen,deepseek,gpt_oss}/*_workload_base_configs.py as the library holds
them; the rows' own releases may have differed). The prediction is the InfiniBand (GPUDirect RDMA) arm's
step: tokens/s/GPU = global batch x sequence / (step x GPUs). Validation only: nothing is fitted.

Prints a markdown table and the median |error|, for all rows and for each half of the development /
held-out split (tolerances.half of the row id, row_id below); docs/gpu-validation.md quotes it. With
--check, exits 1 when an aggregate of either half (or of all) is worse than its baseline in
tests/tolerances.json ("published"): the median |error| by more than 1 point, a count at all.
"""
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "tests", "data", "published", "megatron-bridge-dgx-h100.json")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
import tolerances  # noqa: E402


# The H100 recipes' MoE settings (Megatron-Bridge scripts/performance/configs/qwen/
# qwen3_workload_base_configs.py: QWEN3_235B_A22B_PRETRAIN_CONFIG_H100_* and
# QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_{BF16,FP8_CS}: moe_a2a_overlap=True, the model's dispatcher
# moe_token_dispatcher_type="alltoall"; deepseek/deepseek_workload_base_configs.py:
# DEEPSEEK_V3_PRETRAIN_CONFIG_H100_V1: moe_flex_dispatcher_backend="hybridep", moe_a2a_overlap=False).
# GPT-OSS-120B: gpt_oss/gpt_oss_workload_base_configs.py, GPT_OSS_120B_PRETRAIN_CONFIG_H100_BF16_V1
# (expert parallel 8, pipeline 4, as the rows) recomputes the layernorms and the MoE activation
# (recompute_modules=["layernorm", "moe_act"]) with the default dispatcher.
RECIPE_MOE = {
    "qwen3-235b-a22b": {"dispatcher": "alltoall", "a2a_overlap": True},
    "qwen3-30b-a3b": {"dispatcher": "alltoall", "a2a_overlap": True},
    "deepseek-v3": {"dispatcher": "flex", "a2a_overlap": False},
    "gpt-oss-120b": {"dispatcher": "alltoall", "a2a_overlap": False, "recompute_modules": ["layernorm", "moe_act"]},
}


def layout(row, models):
    spec = models[row["model"]]
    nodes = row["gpus"] // 8
    training = {"global_batch": row["gbs"], "micro_batch": row["mbs"], "seq_len": row["seq"],
                "implementation": "megatron-te", "distributed_optimizer": True,
                # Megatron-Bridge's LlamaModelProvider: attention_dropout and hidden_dropout 0.0; the
                # other families' providers, converted from Hugging Face configs with no dropout,
                # are assumed the same.
                "attention_dropout": 0, "hidden_dropout": 0,
                "sequence_parallel": row["tp"] > 1,
                "overlap": {"dp": True, "param_gather": True, "tp": row["tp"] > 1,
                            "ep": RECIPE_MOE.get(row["model"], {}).get("a2a_overlap", False)}}
    if row["vp"] > 1:
        training["vpp"] = row["vp"]
    if row["precision"].startswith("fp8"):
        training["fp8"] = "hybrid"
        training["fp8_recipe"] = "tensorwise"
    if row.get("recompute_layers"):
        training.update(recompute="full", recompute_method="block", recompute_layers=row["recompute_layers"])
    elif RECIPE_MOE.get(row["model"], {}).get("recompute_modules"):
        training.update(recompute="selective", recompute_modules=RECIPE_MOE[row["model"]]["recompute_modules"])
    doc = {"name": f"{row['model']}-{row['gpus']}gpu",
           "cluster": {"nodes": nodes, "node": "h100-hgx-8gpu-8nic",
                       "fabric": {"rails": "aligned", "nodes_per_su": min(nodes, 32), "leaf_uplinks": 32,
                                  "oversubscription": 1.0, "pxn": True}},
           "parallel": {"tp": row["tp"], "pp": row["pp"], "cp": row["cp"], "ep": row["ep"], "world": row["gpus"]},
           "training": training}
    if row["ep"] > 1:
        doc["parallel"]["etp"] = 1  # the recipes' expert_tensor_parallel_size
    if "model" in spec:
        m = json.loads(json.dumps(spec["model"]))
        if "moe" in m:
            m["moe"]["grouped_gemm"] = True
            m["moe"]["token_dispatcher"] = RECIPE_MOE.get(row["model"], {}).get("dispatcher", "alltoall")
        doc["model"] = m
    return doc, spec.get("model_config")


def moe_flags(row):
    """The Megatron flags of a model-config row's MoE recipe settings."""
    return ["--moe-grouped-gemm", "--moe-token-dispatcher-type", RECIPE_MOE.get(row["model"], {}).get("dispatcher", "alltoall")]


def analyze(binary, doc, model_config, row=None):
    args = [binary, "analyze", "-", "--format", "json"]
    if model_config:
        args += ["--model-config", os.path.join(ROOT, model_config)] + moe_flags(row or {"model": ""})
    p = subprocess.run(args, input=json.dumps(doc), capture_output=True, text=True, timeout=300, cwd=ROOT)
    if p.returncode not in (0, 1):
        return None, p.stderr.strip().splitlines()[-1][:200] if p.stderr.strip() else f"exit {p.returncode}"
    return json.loads(p.stdout), None


def row_id(row):
    """The row's id, from its columns alone: what decides its half of the split."""
    return (f"megatron-bridge/{row['page']}/{row['model']}{'-tokendrop' if row.get('tokendrop') else ''}/"
            f"{row['gpus']}gpu/{row['precision']}/tp{row['tp']}-pp{row['pp']}-cp{row['cp']}-vp{row['vp']}-ep{row['ep']}/"
            f"gbs{row['gbs']}-mbs{row['mbs']}")


def aggregates(results, n_rows):
    """The held aggregates of (|error|, fits) results out of n_rows rows."""
    errs = [e for e, _ in results]
    return {"predicted": len(errs), "rows": n_rows,
            "median_abs_error_pct": round(statistics.median(errs) * 100, 1) if errs else None,
            "over_high": sum(e > tolerances.tolerance("published.over_high") for e in errs),
            "over": sum(e > tolerances.tolerance("published.over") for e in errs),
            "fits": sum(f is True for _, f in results)}


def summary(which, a):
    high, over = tolerances.tolerance("published.over_high") * 100, tolerances.tolerance("published.over") * 100
    median = f"{a['median_abs_error_pct']:.1f} %" if a["median_abs_error_pct"] is not None else "-"
    if which == "all":
        return (f"rows predicted: {a['predicted']} of {a['rows']}; median |error| {median}; over {high:.0f} %: {a['over_high']}; "
                f"over {over:.0f} %: {a['over']}; estimated to fit (all ran): {a['fits']} of {a['predicted']}")
    return (f"{which} half: {a['predicted']} of {a['rows']} rows predicted; median |error| {median}; over {high:.0f} %: "
            f"{a['over_high']}; over {over:.0f} %: {a['over']}; estimated to fit: {a['fits']} of {a['predicted']}")


def main():
    binary = sys.argv[1]
    check = "--check" in sys.argv[2:]
    data = json.load(open(DATA))
    results = {h: [] for h in tolerances.HALVES}
    counts = {h: 0 for h in tolerances.HALVES}
    print("| release | model | GPUs | precision | TP/PP/CP/VP/EP | published tok/s/GPU | predicted | error | "
          "published TFLOP/s/GPU | predicted TFLOP/s/GPU | largest exposed | memory GiB (fits 80 GB?) | half |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in data["rows"]:
        half = tolerances.half(row_id(row))
        counts["all"] += 1
        counts[half] += 1
        doc, cfg = layout(row, data["models"])
        report, why = analyze(binary, doc, cfg, row)
        par = f"{row['tp']}/{row['pp']}/{row['cp']}/{row['vp']}/{row['ep']}"
        name = row["model"] + (" (tokendrop)" if row.get("tokendrop") else "")
        if report is None:
            print(f"| {row['page']} | {name} | {row['gpus']} | {row['precision']} | {par} | {row['tokens_s_gpu']} | "
                  f"refused: {why} | | {row['tflops_gpu']} | | | | {half} |")
            continue
        s = report["score"]
        step = s["step_time_s"].get("gdrdma") or s["step_time_s"].get("rdma")
        pred = row["gbs"] * row["seq"] / (step * row["gpus"])
        err = pred / row["tokens_s_gpu"] - 1
        tflops = s["compute"]["model_flops"] / (step * 1e12 * row["gpus"]) if s["compute"].get("model_flops") else 0
        kinds = sorted(((k, v.get("exposed_s", {}).get("gdrdma", 0)) for k, v in s.get("by_kind", {}).items()
                        if isinstance(v, dict) and isinstance(v.get("exposed_s"), dict)), key=lambda kv: -kv[1])
        exposed = ", ".join(f"{k} {v:.2f} s" for k, v in kinds[:2] if v > 0) or "none"
        # Every published run ran on 80 GB H100s: the estimate should say it fits.
        mem = report.get("memory", {})
        fit = mem.get("fits")
        for h in ("all", half):
            results[h].append((abs(err), fit))
        mem_text = f"{mem['total'] / 2**30:.1f} ({'yes' if fit else 'no' if fit is False else '?'})" if mem else ""
        print(f"| {row['page']} | {name} | {row['gpus']} | {row['precision']} | {par} | {row['tokens_s_gpu']} | "
              f"{pred:.0f} | {err * 100:+.1f} % | {row['tflops_gpu']} | {tflops:.0f} | {exposed} | {mem_text} | {half} |")
    print()
    held = tolerances.Held("published")
    for h in tolerances.HALVES:
        a = aggregates(results[h], counts[h])
        print(summary(h, a))
        held.check(h, {k: a[k] for k in ("predicted", "median_abs_error_pct", "over_high", "over", "fits")})
    tolerances.finish([held], check, "validate_published")


if __name__ == "__main__":
    main()
