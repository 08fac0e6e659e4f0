#!/usr/bin/env python3
"""Host time of Megatron-LM local layers and local experts, measured on the CPU side (host_sweep.sh).

  host_sweep.py launch MLM_DIR ARGS...   (under torchrun) instruments Megatron-LM, then runs
                                         MLM_DIR/pretrain_gpt.py ARGS... as __main__
  host_sweep.py trace TRACE              prints the GPU side of a profiled step (JSON, no torch)
  host_sweep.py run RUN_DIR --hidden H --layers L --experts E --topk K
                                         prints one run's summary (JSON, no torch) from
                                         RUN_DIR/events.jsonl, log.txt and profile.json
  host_sweep.py collect DATA_DIR [--table KERNELS_JSON]
                                         writes DATA_DIR/summary.json: every run of DATA_DIR/*/ and
                                         the per-expert slopes, against the built-in fit

What `launch` records (time.perf_counter_ns on the thread that runs the code, one JSON line per
training iteration in $HOST_SWEEP_EVENTS):
  - every TransformerLayer: forward start/end (module forward pre-/post-hooks); backward start
    (a tensor hook on the layer's output: the gradient of its output has arrived) and backward end
    (a tensor hook on the layer's input hidden states: the gradient of its input is complete,
    after every kernel of the layer's backward, the DDP gradient hooks included, was launched);
  - every SequentialMLP (the local experts of one MoE layer) the same way;
  - the schedule's forward_step and backward_step of each micro-batch;
  - the wall time spent waiting for the GPU in torch.cuda.synchronize, torch.cuda.Stream.synchronize
    and torch.cuda.Event.synchronize (Megatron's timers; the alltoall dispatcher's token-count
    synchronisation), so that a span's host time is its wall time less the waits inside it.
The layer spans are the CPU's: as long as the host does not wait for the GPU inside them (no wait
is recorded there, and the profiled step shows the GPU busy for less than the host's span), they are
the host's time alone, whatever the GPU does behind.
"""
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from trace_summary import busy_us  # noqa: E402 (the union of kernel intervals, one definition)


# ----------------------------------------------------------------------------------- launch (torch)

def launch(mlm, args):
    import torch

    events_path = os.environ["HOST_SWEEP_EVENTS"]
    now = time.perf_counter_ns
    wait = [0]          # ns spent in GPU synchronisation, all threads
    rec = []            # this iteration's events
    it = [0]

    def timed(fn):
        def w(*a, **k):
            t = now()
            try:
                return fn(*a, **k)
            finally:
                wait[0] += now() - t
        return w

    torch.cuda.synchronize = timed(torch.cuda.synchronize)
    torch.cuda.Stream.synchronize = timed(torch.cuda.Stream.synchronize)
    torch.cuda.Event.synchronize = timed(torch.cuda.Event.synchronize)

    sys.path.insert(0, mlm)
    from megatron.core.transformer import transformer_layer as tl
    from megatron.core.transformer.moe import experts as ex
    from megatron.core.pipeline_parallel import schedules
    import megatron.training.training as training

    def mark(kind, key):
        def hook(_grad):
            rec.append((kind, key, now(), wait[0]))
        return hook

    def hook_module(mod, kind, key_of):
        def pre(m, args, kwargs):
            hs = kwargs.get("hidden_states", args[0] if args else None)
            key = key_of(m)
            m._hs_t = (now(), wait[0])
            if isinstance(hs, torch.Tensor) and hs.requires_grad:
                hs.register_hook(mark(kind + "be", key))

        def post(m, args, kwargs, output):
            t, w = now(), wait[0]
            key = key_of(m)
            rec.append((kind + "f", key, m._hs_t[0], t, m._hs_t[1], w))
            out = output[0] if isinstance(output, (tuple, list)) else output
            if isinstance(out, torch.Tensor) and out.requires_grad:
                out.register_hook(mark(kind + "bs", key))

        mod.register_forward_pre_hook(pre, with_kwargs=True)
        mod.register_forward_hook(post, with_kwargs=True)

    layer_init = tl.TransformerLayer.__init__

    def init_layer(self, *a, **k):
        layer_init(self, *a, **k)
        if not getattr(self, "_hs_hooked", False):
            self._hs_hooked = True
            hook_module(self, "l", lambda m: int(m.layer_number))

    tl.TransformerLayer.__init__ = init_layer

    experts_init = ex.SequentialMLP.__init__
    n_experts = [0]

    def init_experts(self, *a, **k):
        experts_init(self, *a, **k)
        if not getattr(self, "_hs_hooked", False):
            self._hs_hooked = True
            n_experts[0] += 1
            self._hs_key = n_experts[0]
            hook_module(self, "x", lambda m: m._hs_key)

    ex.SequentialMLP.__init__ = init_experts

    def span(kind, fn):
        def w(*a, **k):
            t, ww = now(), wait[0]
            try:
                return fn(*a, **k)
            finally:
                rec.append((kind, 0, t, now(), ww, wait[0]))
        return w

    schedules.forward_step = span("F", schedules.forward_step)
    schedules.backward_step = span("B", schedules.backward_step)

    train_step = training.train_step
    out = open(events_path, "w")

    def step(*a, **k):
        it[0] += 1
        rec.clear()
        t, w = now(), wait[0]
        r = train_step(*a, **k)
        rec.append(("S", 0, t, now(), w, wait[0]))
        out.write(json.dumps({"iter": it[0], "events": rec}) + "\n")
        out.flush()
        return r

    training.train_step = step

    import runpy
    sys.argv = [os.path.join(mlm, "pretrain_gpt.py")] + args
    runpy.run_path(sys.argv[0], run_name="__main__")
    out.close()


# --------------------------------------------------------------------------- trace (pure Python)

SYNC = re.compile(r"Synchronize|Memcpy", re.I)


def trace(path):
    """GPU kernel time of a profiled step, split by the thread that launched the kernel: the
    autograd engine's thread (backward) and the main thread before its first backward launch
    (forward) and after its last (optimizer and the rest); per window the kernels' summed time,
    their busy time (union of intervals), the launch window's CPU span, and the runtime's
    synchronising calls (cuda*Synchronize, cudaMemcpy*) there."""
    import gzip
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as fh:
        doc = json.load(fh)
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    xs = [e for e in ev if e.get("ph") == "X"]
    bwd_tids = {e.get("tid") for e in xs if e.get("cat") == "cpu_op"
                and str(e.get("name", "")).startswith("autograd::engine::evaluate_function")}
    launch = {}
    runtime = []
    for e in xs:
        if e.get("cat") in ("cuda_runtime", "cuda_driver"):
            c = (e.get("args") or {}).get("correlation")
            if c is not None:
                launch[c] = (e.get("tid"), float(e["ts"]))
            runtime.append(e)
    kernels = [e for e in xs if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    bwd_launch = [launch[k["args"]["correlation"]][1] for k in kernels
                  if (k.get("args") or {}).get("correlation") in launch
                  and launch[k["args"]["correlation"]][0] in bwd_tids]
    b0, b1 = (min(bwd_launch), max(bwd_launch)) if bwd_launch else (float("inf"), float("inf"))
    win = {"forward": [], "backward": [], "rest": []}
    lts = {"forward": [], "backward": [], "rest": []}
    for k in kernels:
        c = (k.get("args") or {}).get("correlation")
        if c not in launch:
            w = "rest"
            lt = None
        else:
            tid, lt = launch[c]
            w = "backward" if tid in bwd_tids else ("forward" if lt < b0 else "rest")
        win[w].append((float(k["ts"]), float(k["ts"]) + float(k.get("dur", 0.0))))
        if lt is not None:
            lts[w].append(lt)

    res = {"kernels": len(kernels), "backward_threads": len(bwd_tids)}
    for w, iv in win.items():
        lo, hi = (min(lts[w]), max(lts[w])) if lts[w] else (0.0, 0.0)
        sync = sum(float(e.get("dur", 0.0)) for e in runtime if SYNC.search(str(e.get("name", "")))
                   and lo <= float(e["ts"]) <= hi)
        res[w] = {"kernels": len(iv), "kernel_us": round(sum(t - s for s, t in iv), 1),
                  "busy_us": round(busy_us(iv), 1), "launch_span_us": round(hi - lo, 1),
                  "sync_calls_us": round(sync, 1)}
    return res


# ----------------------------------------------------------------------------- run (pure Python)

TIMER = re.compile(r"^\s+([a-z0-9-]+) \.*: \(?([0-9.]+)")
ITERATION = re.compile(r"iteration\s+(\d+)/")
FIRST, LAST = 3, 14   # iterations used: 1-2 warm up; the profiler waits to 15, warms up 16, records 17


def q(xs):
    """median, first and third quartiles, count"""
    xs = sorted(xs)
    if not xs:
        return None
    n = len(xs)
    qs = statistics.quantiles(xs, n=4) if n > 1 else [xs[0]] * 3
    return {"median": round(statistics.median(xs), 1), "q1": round(qs[0], 1), "q3": round(qs[2], 1), "n": n}


def run_summary(d, hidden, layers, experts, topk):
    iters = [json.loads(l) for l in open(os.path.join(d, "events.jsonl"))]
    iters = [r for r in iters if FIRST <= r["iter"] <= LAST]
    samples = {}

    def add(k, v):
        samples.setdefault(k, []).append(v / 1e3)   # ns -> us

    # "steady" layers: at 8 layers, layers 3-8; the first two layers' forward carries a per-step
    # cost of its own (about +1.5 and +0.9 ms at every hidden), which the fit's base term holds
    steady = (lambda n: n >= 3) if layers >= 8 else (lambda n: True)
    for r in iters:
        bs, bw = {}, {}
        for e in r["events"]:
            kind = e[0]
            if kind in ("lf", "xf", "F", "B", "S"):
                _, key, t0, t1, w0, w1 = e
                add(kind + "_wall", t1 - t0)
                add(kind + "_wait", w1 - w0)
                add(kind + "_host", (t1 - t0) - (w1 - w0))
                if kind == "lf":
                    add("lf%d_host" % key, (t1 - t0) - (w1 - w0))
                    if steady(key):
                        add("lf_steady_host", (t1 - t0) - (w1 - w0))
            elif kind in ("lbs", "xbs"):
                bs[(kind[0], e[1])] = (e[2], e[3])
            elif kind in ("lbe", "xbe"):
                bw[(kind[0], e[1])] = (e[2], e[3])
        for k, (t0, w0) in bs.items():
            if k in bw:
                t1, w1 = bw[k]
                add(k[0] + "b_wall", t1 - t0)
                add(k[0] + "b_wait", w1 - w0)
                add(k[0] + "b_host", (t1 - t0) - (w1 - w0))
                if k[0] == "l":
                    add("lb%d_host" % k[1], (t1 - t0) - (w1 - w0))
                    if steady(k[1]):
                        add("lb_steady_host", (t1 - t0) - (w1 - w0))
    st = {k: q(v) for k, v in sorted(samples.items())}

    timer = {}
    it = 0
    for line in open(os.path.join(d, "log.txt"), errors="replace"):
        m = ITERATION.search(line)
        if m:
            it = int(m.group(1))
            continue
        m = TIMER.match(line)
        if m and FIRST <= it <= LAST:
            timer.setdefault(m.group(1), []).append(float(m.group(2)) * 1e3)   # ms -> us
    timer = {k: q(timer[k]) for k in ("forward-compute", "backward-compute", "optimizer") if k in timer}

    prof = None
    pp = os.path.join(d, "profile.json")
    if os.path.exists(pp):
        prof = json.load(open(pp))

    med = lambda k: st[k]["median"] if st.get(k) else None
    out = {
        "hidden": hidden, "layers": layers, "experts": experts, "topk": topk,
        "iterations": [r["iter"] for r in iters],
        "layer_fwd_us": med("lf_host"), "layer_bwd_us": med("lb_host"),
        "layer_fwd_steady_us": med("lf_steady_host"), "layer_bwd_steady_us": med("lb_steady_host"),
        "by_layer_fwd_us": [med("lf%d_host" % n) for n in range(1, layers + 1)],
        "by_layer_bwd_us": [med("lb%d_host" % n) for n in range(1, layers + 1)],
        "layer_fwd_wait_us": med("lf_wait"), "layer_bwd_wait_us": med("lb_wait"),
        "microbatch_fwd_us": med("F_host"), "microbatch_bwd_us": med("B_host"),
        "timers_us": {k: v["median"] for k, v in timer.items()},
        "stats_us": st, "timer_stats_us": timer,
    }
    if experts:
        out.update({
            "experts_fwd_us": med("xf_host"), "experts_bwd_us": med("xb_host"),
            "per_expert_fwd_us": round(med("xf_host") / experts, 2) if med("xf_host") else None,
            "per_expert_bwd_us": round(med("xb_host") / experts, 2) if med("xb_host") else None,
        })
    if prof:
        out["gpu_profiled_step"] = prof
        f, b = prof.get("forward", {}), prof.get("backward", {})
        out["gpu_fwd_busy_per_layer_us"] = round(f.get("busy_us", 0.0) / layers, 1)
        out["gpu_bwd_busy_per_layer_us"] = round(b.get("busy_us", 0.0) / layers, 1)
    return out


# ------------------------------------------------------------------------- collect (pure Python)

def fit_of(table_path):
    t = json.load(open(table_path))["host"]["megatron"]
    return t


def slope(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return b, my - b * mx


def collect(data, table):
    """summary.json: every run (DATA/NAME/run.json or DATA/partN/NAME/run.json), each against the
    built-in fit; per configuration the repeats, their minimum and median (the host's noise only
    slows: a shared VM's other tenants, so the minimum is the quietest repeat); dense per-layer
    against hidden 256; per hidden the MoE layer's host time against the expert count (least
    squares over 8, 32, 128 experts, on each configuration's minimum and median)."""
    fit = fit_of(table)
    runs = {}
    for root, _dirs, files in sorted(os.walk(data)):
        if "run.json" in files:
            runs[os.path.relpath(root, data)] = json.load(open(os.path.join(root, "run.json")))
    for name, r in runs.items():
        e = r["experts"]
        pred = [fit["moe_us"][i] + e * fit["expert_us"][i] for i in (0, 1)] if e else fit["dense_us"]
        r["fit_layer_us"] = [round(pred[0], 1), round(pred[1], 1)]
        fwd, bwd = (r["layer_fwd_us"], r["layer_bwd_us"]) if e else (r["layer_fwd_steady_us"], r["layer_bwd_steady_us"])
        r["measured_over_fit"] = [round(fwd / pred[0], 3), round(bwd / pred[1], 3)]
        tp = [fit["base_us"][i] + r["layers"] * pred[i] for i in (0, 1)]
        tm = [r["timers_us"].get("forward-compute"), r["timers_us"].get("backward-compute")]
        r["fit_pass_us"] = [round(x, 1) for x in tp]
        r["timer_over_fit"] = [round(m / p, 3) if m else None for m, p in zip(tm, tp)]
        if "gpu_fwd_busy_per_layer_us" in r:
            r["gpu_over_host_per_layer"] = [round(r["gpu_fwd_busy_per_layer_us"] / fwd, 3),
                                            round(r["gpu_bwd_busy_per_layer_us"] / bwd, 3)]
    configs = {}
    for name, r in runs.items():
        key = "h%d-l%d-e%d-k%d" % (r["hidden"], r["layers"], r["experts"], r["topk"])
        configs.setdefault(key, {"hidden": r["hidden"], "layers": r["layers"], "experts": r["experts"],
                                 "topk": r["topk"], "runs": []})["runs"].append(name)
    fields = ("layer_fwd_us", "layer_bwd_us", "layer_fwd_steady_us", "layer_bwd_steady_us",
              "experts_fwd_us", "experts_bwd_us")
    for c in configs.values():
        for f in fields:
            v = [runs[n][f] for n in c["runs"] if runs[n].get(f) is not None]
            if v:
                c[f] = {"runs": v, "min": min(v), "median": round(statistics.median(v), 1)}
    dense = {c["hidden"]: c for c in configs.values() if not c["experts"] and c["layers"] >= 8}
    ref = dense.get(256)
    for h, c in sorted(dense.items()):
        c["fit_dense_us"] = fit["dense_us"]
        for stat in ("min", "median"):
            m = [c["layer_fwd_steady_us"][stat], c["layer_bwd_steady_us"][stat]]
            c[stat + "_over_fit"] = [round(m[i] / fit["dense_us"][i], 3) for i in (0, 1)]
            if ref:
                r0 = [ref["layer_fwd_steady_us"][stat], ref["layer_bwd_steady_us"][stat]]
                c[stat + "_over_h256"] = [round(m[i] / r0[i], 3) for i in (0, 1)]
    slopes = {}
    by_h = {}
    for c in configs.values():
        if c["experts"]:
            by_h.setdefault(c["hidden"], []).append(c)
    for h, cs in sorted(by_h.items()):
        cs = sorted(cs, key=lambda c: c["experts"])
        if len(cs) < 2:
            continue
        es = [c["experts"] for c in cs]
        s = {"experts": es, "configs": ["h%d-l%d-e%d-k%d" % (h, c["layers"], c["experts"], c["topk"]) for c in cs]}
        for stat in ("min", "median"):
            for i, k in enumerate(("fwd", "bwd")):
                b, a = slope(es, [c[f"layer_{k}_us"][stat] for c in cs])
                xb, xa = slope(es, [c[f"experts_{k}_us"][stat] for c in cs])
                s[f"{stat}_per_expert_{k}_us"] = round(b, 1)
                s[f"{stat}_moe_layer_{k}_us_at_0_experts"] = round(a, 1)
                s[f"{stat}_per_expert_{k}_over_fit"] = round(b / fit["expert_us"][i], 3)
                s[f"{stat}_experts_block_per_expert_{k}_us"] = round(xb, 1)
                s[f"{stat}_experts_block_{k}_us_at_0_experts"] = round(xa, 1)
        s["fit_expert_us"] = fit["expert_us"]
        s["fit_moe_us"] = fit["moe_us"]
        slopes[str(h)] = s
    doc = {"fit": {k: fit[k] for k in ("base_us", "dense_us", "moe_us", "expert_us")},
           "fit_source": fit["source"],
           "configs": dict(sorted(configs.items(), key=lambda kv: (kv[1]["experts"], kv[1]["hidden"], kv[1]["layers"]))),
           "per_expert_slopes": slopes, "runs": runs}
    with open(os.path.join(data, "summary.json"), "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    return doc


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd = sys.argv[1]
    if cmd == "launch":
        launch(sys.argv[2], sys.argv[3:])
    elif cmd == "trace":
        json.dump(trace(sys.argv[2]), sys.stdout, indent=1)
        print()
    elif cmd == "run":
        import argparse
        ap = argparse.ArgumentParser()
        ap.add_argument("dir")
        for k in ("hidden", "layers", "experts", "topk"):
            ap.add_argument("--" + k, type=int, required=True)
        ap.add_argument("--command", default="")
        a = ap.parse_args(sys.argv[2:])
        r = run_summary(a.dir, a.hidden, a.layers, a.experts, a.topk)
        r["command"] = a.command
        json.dump(r, sys.stdout, indent=1)
        print()
    elif cmd == "collect":
        import argparse
        ap = argparse.ArgumentParser()
        ap.add_argument("data")
        here = os.path.dirname(os.path.abspath(__file__))
        ap.add_argument("--table", default=os.path.join(here, "..", "..", "layouts", "kernels", "h100.json"))
        a = ap.parse_args(sys.argv[2:])
        collect(a.data, a.table)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
