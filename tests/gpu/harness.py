#!/usr/bin/env python3
"""plan-layout GPU validation harness (issue 10).

Measures, on real GPUs, what the cost model predicts, in the file formats plan-layout reads:

  sweep   all_reduce and all_to_all over group sizes (2, 4, 8 by default, those <= world),
          1/16/64/256 MiB per rank, 5 warm-up + 20 timed iterations, the slowest rank's time,
          written in nccl-tests' own output format (one file per op, group size, transport,
          round) so `plan-layout calibrate` reads it.
  moe     a small MoE training step (top-k routed experts, EP all-to-all dispatch and combine,
          DP gradient all-reduce) per layout (EP = world and EP = 2 by default), step times
          of the slowest rank written as step logs that `plan-layout ab` reads.
  capture `nvidia-smi topo -m`, `nvidia-smi -q` and the software versions of the host.

Each (round, transport) pair is one fresh process group (NCCL reads its environment once), the
transports interleaved round by round:
  fast  NCCL's default path (NVLink P2P / SHM inside a node)
  tcp   NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_NET=Socket NCCL_SOCKET_IFNAME=lo
NVLink multicast stays off in every run (NCCL_NVLS_ENABLE=0 and friends).

Everything is parameterized by --world: world 1 is the smoke test (group size 1, EP = 1).
Without CUDA (or with --device cpu) it runs on CPU with the gloo backend; a transport then only
changes NCCL variables that gloo ignores, which the output says.

Launch: python3 tests/gpu/harness.py all --world 8 --out DIR   (torch.multiprocessing spawn)
   or:  torchrun --nproc-per-node 8 tests/gpu/harness.py all --transport fast --round 1 --out DIR
"""
import argparse
import datetime
import json
import math
import os
import socket
import subprocess
import sys
import time

SAFE_ENV = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
TRANSPORT_ENV = {
    "fast": {},
    "tcp": {"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1", "NCCL_NET": "Socket", "NCCL_SOCKET_IFNAME": "lo"},
}
TRANSPORT_KEYS = sorted({k for env in TRANSPORT_ENV.values() for k in env})
MIB = 1 << 20


def log(msg):
    print(f"[harness {datetime.datetime.now().strftime('%H:%M:%S')}] {msg}", flush=True)


# ---------------------------------------------------------------------------------------------
# Formats (pure Python, no torch: unit-testable anywhere)

def bus_factor(op, n):
    if n <= 1:
        return 0.0
    return 2.0 * (n - 1) / n if op == "all_reduce" else (n - 1) / n


def nccl_tests_text(op, group, rows, ranks_info, meta):
    """nccl-tests output (2.13+ layout, out-of-place columns only).

    rows: [(size_bytes, time_us, wrong)], size as nccl-tests prints it: the buffer of one rank
    (for alltoall the whole send buffer of one rank, count = size / 4 / group).
    ranks_info: [(rank, pid, host, device, busid, name)] of the group's ranks.
    """
    binary = "all_reduce_perf" if op == "all_reduce" else "alltoall_perf"
    sizes = [r[0] for r in rows]
    out = [
        f"# Collective test starting: {binary}",
        "# nccl-tests-format output written by plan-layout tests/gpu/harness.py (PyTorch "
        f"torch.distributed, not the nccl-tests binary); {meta}",
        f"# nThread 1 nGpus 1 minBytes {min(sizes)} maxBytes {max(sizes)} step: 4(factor) "
        f"warmup iters: {meta_iters(meta, 'warmup')} iters: {meta_iters(meta, 'iters')} agg iters: 1 "
        "validation: 1 graph: 0",
        "#",
        "# Using devices",
    ]
    for rank, pid, host, dev, busid, name in ranks_info:
        out.append(f"#  Rank {rank:>2} Group  0 Pid {pid:>6} on {host:>10} device {dev:>2} [{busid}] {name}")
    out += [
        "#",
        "#                                                              measured (slowest rank)",
        "#       size         count      type   redop    root     time   algbw   busbw #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       ",
    ]
    redop = "sum" if op == "all_reduce" else "none"
    busbws = []
    wrong_total = 0
    for size, t_us, wrong in rows:
        count = size // 4 if op == "all_reduce" else size // 4 // group
        algbw = size / t_us / 1e3
        busbw = algbw * bus_factor(op, group)
        busbws.append(busbw)
        wrong_total += wrong
        out.append(f"{size:>12d}  {count:>12d}  {'float':>8}  {redop:>6}  {-1:>6}  {t_us:>7.1f}  "
                   f"{algbw:>6.2f}  {busbw:>6.2f}  {wrong:>6d}")
    out.append(f"# Out of bounds values : {wrong_total} {'OK' if wrong_total == 0 else 'FAILED'}")
    out.append(f"# Avg bus bandwidth    : {sum(busbws) / len(busbws):.6g} ")
    out.append("#")
    return "\n".join(out) + "\n"


def meta_iters(meta, key):
    for part in meta.split(","):
        k, _, v = part.strip().partition("=")
        if k == key:
            return v
    return "?"


def step_log_text(arm, rnd, times_s, comment):
    lines = [f"# {comment}", f"# arm: {arm}", f"# round: {rnd}", "# kind: instant", "step,step_time_s"]
    lines += [f"{i + 1},{t:.6f}" for i, t in enumerate(times_s)]
    return "\n".join(lines) + "\n"


def layouts_for(world, wanted):
    eps = []
    for ep in wanted:
        ep = min(ep, world)
        if ep >= 1 and world % ep == 0 and ep not in eps:
            eps.append(ep)
    return eps


# ---------------------------------------------------------------------------------------------
# Workers (torch imported lazily so the format helpers work without it)

class Ctx:
    pass


def setup(rank, world, cfg):
    import torch
    import torch.distributed as dist
    c = Ctx()
    c.rank, c.world = rank, world
    c.cuda = cfg["device"] == "cuda"
    if c.cuda:
        ndev = torch.cuda.device_count()
        c.dev = torch.device("cuda", rank % ndev)
        torch.cuda.set_device(c.dev)
        backend = "nccl"
    else:
        c.dev = torch.device("cpu")
        torch.set_num_threads(max(1, (os.cpu_count() or 2) // max(world, 1) // 2))
        backend = "gloo"
    if "TORCHELASTIC_RUN_ID" not in os.environ:
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(cfg["port"])
    kwargs = {"backend": backend, "rank": rank, "world_size": world}
    if c.cuda:
        kwargs["device_id"] = c.dev
    dist.init_process_group(**kwargs)
    c.backend = backend
    # Identity of every rank, for the Rank lines.
    if c.cuda:
        props = torch.cuda.get_device_properties(c.dev)
        busid = f"0x{props.pci_bus_id:02x}" if hasattr(props, "pci_bus_id") else "0x00"
        me = (rank, os.getpid(), socket.gethostname()[:10], c.dev.index, busid, props.name)
    else:
        me = (rank, os.getpid(), socket.gethostname()[:10], 0, "cpu", "CPU (gloo)")
    c.ranks_info = [None] * world
    dist.all_gather_object(c.ranks_info, me)
    return c


def sync(c):
    import torch
    if c.cuda:
        torch.cuda.synchronize(c.dev)


def slowest(c, value):
    """Max of a float over all ranks (non-participants pass 0)."""
    import torch
    import torch.distributed as dist
    t = torch.tensor([value], dtype=torch.float64, device=c.dev)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t.item())


def run_sweep(c, cfg, transport, rnd, outdir):
    import torch
    import torch.distributed as dist
    groups = {}
    for g in cfg["groups"]:
        if g > c.world:
            continue
        # every rank creates every group, in the same order
        groups[g] = dist.group.WORLD if g == c.world else dist.new_group(list(range(g)))
    warmup, iters = cfg["warmup"], cfg["iters"]
    for op in cfg["ops"]:
        for g, group in groups.items():
            rows = []
            for mib in cfg["sizes_mib"]:
                size = int(mib * MIB)
                numel = size // 4
                t_us, wrong = 0.0, 0
                if c.rank < g:
                    if op == "all_reduce":
                        buf = torch.full((numel,), float(c.rank + 1), dtype=torch.float32, device=c.dev)
                        dist.all_reduce(buf, group=group)
                        sync(c)
                        wrong = int((buf != float(g * (g + 1) // 2)).sum().item())
                        buf.zero_()

                        def once():
                            dist.all_reduce(buf, group=group)
                    else:
                        chunk = numel // g
                        send = torch.arange(g, dtype=torch.float32, device=c.dev).repeat_interleave(chunk)
                        send += 1000.0 * c.rank
                        recv = torch.empty_like(send)
                        dist.all_to_all_single(recv, send, group=group)
                        sync(c)
                        expect = (torch.arange(g, dtype=torch.float32, device=c.dev) * 1000.0
                                  + c.rank).repeat_interleave(chunk)
                        wrong = int((recv != expect).sum().item())
                        del expect

                        def once():
                            dist.all_to_all_single(recv, send, group=group)
                    for _ in range(warmup):
                        once()
                    sync(c)
                    dist.barrier(group=group)
                    t0 = time.perf_counter()
                    for _ in range(iters):
                        once()
                    sync(c)
                    t_us = (time.perf_counter() - t0) / iters * 1e6
                t_slow = slowest(c, t_us)
                wrong = int(slowest(c, float(wrong)))
                rows.append((size, t_slow, wrong))
                if c.rank == 0:
                    log(f"sweep {transport} r{rnd} {op} g{g} {mib} MiB: {t_slow:.1f} us")
            if c.rank == 0:
                meta = (f"transport={transport}, round={rnd}, backend={c.backend}, world={c.world}, "
                        f"group={g}, warmup={warmup}, iters={iters}, time=slowest rank mean")
                name = f"sweep-{op}-g{g}-{transport}-r{rnd}.txt"
                with open(os.path.join(outdir, name), "w") as f:
                    f.write(nccl_tests_text(op, g, rows, c.ranks_info[:g], meta))


def make_a2a():
    import torch
    import torch.distributed as dist

    class A2A(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, group):
            ctx.group = group
            out = torch.empty_like(x)
            dist.all_to_all_single(out, x.contiguous(), group=group)
            return out

        @staticmethod
        def backward(ctx, grad):
            out = torch.empty_like(grad)
            dist.all_to_all_single(out, grad.contiguous(), group=ctx.group)
            return out, None

    return A2A.apply


def run_moe(c, cfg, transport, rnd, outdir):
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    a2a = make_a2a()
    H, Fd, E, K, T = cfg["hidden"], cfg["ffn"], cfg["experts"], cfg["topk"], cfg["tokens"]
    dtype = torch.bfloat16 if c.cuda else torch.float32
    for ep in layouts_for(c.world, cfg["ep"]):
        dp = c.world // ep
        # EP groups: contiguous blocks of ep ranks; DP groups: same EP index across blocks.
        ep_group = dp_group = None
        for b in range(dp):
            ranks = list(range(b * ep, (b + 1) * ep))
            g = dist.group.WORLD if ep == c.world else dist.new_group(ranks)
            if c.rank in ranks:
                ep_group = g
        for j in range(ep if dp > 1 else 0):  # DP=1: no expert gradient all-reduce, no group
            ranks = list(range(j, c.world, ep))
            g = dist.group.WORLD if dp == c.world else dist.new_group(ranks)
            if c.rank in ranks:
                dp_group = g
        El = E // ep
        C = int(math.ceil(T * K / E * cfg["capacity_factor"]))
        gen = torch.Generator(device=c.dev).manual_seed(1234)  # same dense weights on every rank
        def param(*shape, scale):
            return (torch.randn(*shape, generator=gen, device=c.dev, dtype=torch.float32) * scale).to(dtype)
        w_router = param(H, E, scale=H ** -0.5)
        w_d1, w_d2 = param(H, Fd, scale=H ** -0.5), param(Fd, H, scale=Fd ** -0.5)
        ep_index = c.rank % ep
        gen_e = torch.Generator(device=c.dev).manual_seed(99 + ep_index)  # same experts across DP
        w_e1 = (torch.randn(El, H, Fd, generator=gen_e, device=c.dev) * H ** -0.5).to(dtype)
        w_e2 = (torch.randn(El, Fd, H, generator=gen_e, device=c.dev) * Fd ** -0.5).to(dtype)
        dense = [w_router, w_d1, w_d2]
        experts = [w_e1, w_e2]
        for p in dense + experts:
            p.requires_grad_(True)
        gen_x = torch.Generator(device=c.dev).manual_seed(7 + c.rank)
        xs = [torch.randn(T, H, generator=gen_x, device=c.dev).to(dtype) for _ in range(2)]
        times = []
        dropped = 0
        for step in range(cfg["steps"]):
            sync(c)
            t0 = time.perf_counter()
            x = xs[step % 2]
            h = x + F.gelu(x @ w_d1) @ w_d2
            probs = torch.softmax((h @ w_router).float(), dim=-1)
            gate, idx = torch.topk(probs, K, dim=-1)
            gate = (gate / gate.sum(-1, keepdim=True)).to(dtype)
            flat_e = idx.reshape(-1)
            flat_tok = torch.arange(T, device=c.dev).repeat_interleave(K)
            pos = (F.one_hot(flat_e, E).cumsum(0) - 1).gather(1, flat_e[:, None]).squeeze(1)
            keep = pos < C
            slot = (flat_e * C + pos)[keep]
            tok = flat_tok[keep]
            send = torch.zeros(E * C, H, device=c.dev, dtype=dtype).index_copy(0, slot, h[tok])
            recv = a2a(send, ep_group)                                   # dispatch
            z = recv.view(ep, El, C, H).transpose(0, 1).reshape(El, ep * C, H)
            z = torch.bmm(F.gelu(torch.bmm(z, w_e1)), w_e2)
            z = z.view(El, ep, C, H).transpose(0, 1).reshape(E * C, H)
            back = a2a(z, ep_group)                                      # combine
            y = h + torch.zeros(T, H, device=c.dev, dtype=dtype).index_add(
                0, tok, back[slot] * gate.reshape(-1)[keep][:, None])
            loss = (y.float() ** 2).mean()
            loss.backward()
            # DP gradient all-reduce: dense weights over the world, experts over their DP group.
            flat = torch.cat([p.grad.reshape(-1) for p in dense])
            dist.all_reduce(flat)
            flat /= c.world
            fe = torch.cat([p.grad.reshape(-1) for p in experts])
            if dp > 1:
                dist.all_reduce(fe, group=dp_group)
                fe /= dp
            with torch.no_grad():
                off = 0
                for p in dense:
                    p -= cfg["lr"] * flat[off:off + p.numel()].view_as(p)
                    p.grad = None
                    off += p.numel()
                off = 0
                for p in experts:
                    p -= cfg["lr"] * fe[off:off + p.numel()].view_as(p)
                    p.grad = None
                    off += p.numel()
            sync(c)
            times.append(time.perf_counter() - t0)
            if step == 0:
                dropped = int((~keep).sum().item())
        # slowest rank, per step
        t = torch.tensor(times, dtype=torch.float64, device=c.dev)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        times = t.tolist()
        if c.rank == 0:
            layout = f"ep{ep}-dp{dp}"
            d = os.path.join(outdir, f"moe-{layout}")
            os.makedirs(d, exist_ok=True)
            comment = (f"plan-layout tests/gpu/harness.py MoE step, layout {layout}, world {c.world}, "
                       f"transport {transport}, backend {c.backend}, tokens/rank {T}, hidden {H}, ffn {Fd}, "
                       f"experts {E}, top-{K}, capacity {C}/expert, dropped {dropped} of {T * K} at step 1, "
                       f"{dtype}, seconds of the slowest rank")
            with open(os.path.join(d, f"{transport}-round{rnd}.csv"), "w") as f:
                f.write(step_log_text(transport, rnd, times, comment))
            stable = sorted(times[cfg["window"][0] - 1:cfg["window"][1]])
            log(f"moe {layout} {transport} r{rnd}: median stable step {stable[len(stable) // 2] * 1e3:.3f} ms")


def worker(rank, world, cfg, transport, rnd):
    import torch.distributed as dist
    c = setup(rank, world, cfg)
    try:
        if "sweep" in cfg["parts"]:
            run_sweep(c, cfg, transport, rnd, cfg["out"])
        if "moe" in cfg["parts"]:
            run_moe(c, cfg, transport, rnd, cfg["out"])
        dist.barrier()
    finally:
        dist.destroy_process_group()


# ---------------------------------------------------------------------------------------------
# Host capture

def capture(outdir, device):
    import torch
    info = {"torch": torch.__version__, "cuda_available": torch.cuda.is_available(), "device": device,
            "python": sys.version.split()[0], "hostname": socket.gethostname(),
            "date_utc": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ")}
    if torch.cuda.is_available():
        info["cuda"] = torch.version.cuda
        info["gpus"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        try:
            info["nccl"] = ".".join(str(v) for v in torch.cuda.nccl.version())
        except Exception as e:  # noqa: BLE001
            info["nccl"] = f"unknown ({e})"
    info["gloo"] = torch.distributed.is_gloo_available()
    for name, args in (("nvidia-smi-topo-m.txt", ["nvidia-smi", "topo", "-m"]),
                       ("nvidia-smi-q.txt", ["nvidia-smi", "-q"])):
        try:
            r = subprocess.run(args, capture_output=True, text=True, timeout=60)
            text = r.stdout
            if name == "nvidia-smi-q.txt":  # keep the capture, drop the board's identity
                text = "\n".join(l if not any(k in l for k in ("Serial Number", "GPU UUID", "Board Part"))
                                 else l.split(":")[0] + ": (redacted)" for l in text.splitlines()) + "\n"
            with open(os.path.join(outdir, name), "w") as f:
                f.write(text)
            info[name] = f"rc {r.returncode}"
        except (OSError, subprocess.TimeoutExpired) as e:
            info[name] = f"not captured: {e}"
    with open(os.path.join(outdir, "host.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
        f.write("\n")
    log(f"capture: {info}")


# ---------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("parts", nargs="+", choices=["sweep", "moe", "capture", "all"])
    ap.add_argument("--world", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", choices=["auto", "cuda", "cpu"], default="auto")
    ap.add_argument("--transports", default="fast,tcp")
    ap.add_argument("--transport", help="torchrun mode: the one transport this launch uses")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--round", type=int, help="torchrun mode: the one round this launch is")
    ap.add_argument("--ops", default="all_reduce,all_to_all")
    ap.add_argument("--groups", default="2,4,8", help="group sizes (those > world are skipped; world 1 uses 1)")
    ap.add_argument("--sizes-mib", default="1,16,64,256")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--ep", default="8,2", help="EP sizes of the MoE layouts (capped at world)")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--window", default="6:20")
    ap.add_argument("--tokens", type=int, default=8192, help="tokens per rank per step")
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--ffn", type=int, default=2048)
    ap.add_argument("--experts", type=int, default=8)
    ap.add_argument("--topk", type=int, default=2)
    ap.add_argument("--port", type=int, default=29511)
    a = ap.parse_args(argv)
    parts = {"sweep", "moe", "capture"} if "all" in a.parts else set(a.parts)
    os.makedirs(a.out, exist_ok=True)
    for k, v in SAFE_ENV.items():
        os.environ[k] = v
    import torch
    device = a.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() and torch.cuda.device_count() >= 1 else "cpu"
    if device == "cuda" and torch.cuda.device_count() < a.world:
        sys.exit(f"harness: --world {a.world} needs {a.world} GPUs, {torch.cuda.device_count()} visible")
    groups = [int(g) for g in a.groups.split(",") if int(g) <= a.world] or [1]
    if a.world == 1:
        groups = [1]
    w0, w1 = (int(v) for v in a.window.split(":"))
    cfg = {"device": device, "parts": parts, "out": a.out, "ops": a.ops.split(","), "groups": groups,
           "sizes_mib": [float(s) if "." in s else int(s) for s in a.sizes_mib.split(",")],
           "warmup": a.warmup, "iters": a.iters, "ep": [int(e) for e in a.ep.split(",")],
           "steps": a.steps, "window": (w0, w1), "tokens": a.tokens, "hidden": a.hidden, "ffn": a.ffn,
           "experts": a.experts, "topk": a.topk, "capacity_factor": 1.25, "lr": 1e-4, "port": a.port}
    if a.experts % max(layouts_for(a.world, cfg["ep"]) or [1]) != 0:
        sys.exit("harness: --experts must be a multiple of every EP size")
    if "capture" in parts:
        capture(a.out, device)
    dist_parts = parts & {"sweep", "moe"}
    if not dist_parts:
        return 0
    log(f"device {device}, world {a.world}, groups {groups}, EP layouts {layouts_for(a.world, cfg['ep'])}")
    if "LOCAL_RANK" in os.environ:  # torchrun: one transport, one round, set by the launcher
        t, r = a.transport or "fast", a.round or 1
        worker(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), cfg, t, r)
        return 0
    import torch.multiprocessing as mp
    transports = a.transports.split(",")
    port = a.port
    for rnd in range(1, a.rounds + 1):
        for t in transports:
            for k in TRANSPORT_KEYS:
                os.environ.pop(k, None)
            os.environ.update(TRANSPORT_ENV[t])
            port += 1
            cfg["port"] = port
            log(f"round {rnd} transport {t}: {TRANSPORT_ENV[t] or 'NCCL defaults'}")
            t0 = time.time()
            mp.spawn(worker, args=(a.world, cfg, t, rnd), nprocs=a.world, join=True)
            log(f"round {rnd} transport {t} took {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
