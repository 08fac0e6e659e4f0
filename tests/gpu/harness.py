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
  fast  NCCL's default path (NVLink P2P / SHM inside a node): "p2p" in issue 16's words
  shm   NCCL_P2P_DISABLE=1: SHM allowed, so NCCL stages through host memory ("via SHM")
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
    "shm": {"NCCL_P2P_DISABLE": "1"},
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
    if op == "sendrecv":
        return 1.0
    return 2.0 * (n - 1) / n if op == "all_reduce" else (n - 1) / n


def nccl_tests_text(op, group, rows, ranks_info, meta):
    """nccl-tests output (2.13+ layout, out-of-place columns only).

    rows: [(size_bytes, time_us, wrong)], size as nccl-tests prints it: the buffer of one rank
    (for alltoall the whole send buffer of one rank, count = size / 4 / group; for sendrecv what
    each rank sends to the next, busbw = algbw).
    ranks_info: [(rank, pid, host, device, busid, name)] of the group's ranks.
    """
    binary = {"all_reduce": "all_reduce_perf", "all_to_all": "alltoall_perf", "sendrecv": "sendrecv_perf"}[op]
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
    redop = "sum" if op in ("all_reduce", "sendrecv") else "none"  # nccl-tests prints sum for sendrecv
    busbws = []
    wrong_total = 0
    for size, t_us, wrong in rows:
        count = size // 4 // group if op == "all_to_all" else size // 4
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
            if op == "sendrecv" and g < 2:
                if c.rank == 0:
                    log(f"sweep {transport} r{rnd} sendrecv g{g}: skipped (no peer in a group of one)")
                continue
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
                    elif op == "sendrecv":  # ring: each rank sends to the next, receives from the previous
                        nxt, prv = (c.rank + 1) % g, (c.rank - 1) % g
                        send = torch.full((numel,), float(c.rank + 1), dtype=torch.float32, device=c.dev)
                        recv = torch.zeros_like(send)

                        def once():
                            ops = [dist.P2POp(dist.isend, send, nxt, group), dist.P2POp(dist.irecv, recv, prv, group)]
                            for req in dist.batch_isend_irecv(ops):
                                req.wait()
                        once()
                        sync(c)
                        wrong = int((recv != float(prv + 1)).sum().item())
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


def moe_capacity(cfg):
    return int(math.ceil(cfg["tokens"] * cfg["topk"] / cfg["experts"] * cfg["capacity_factor"]))


def moe_build(dev, dtype, cfg, ep, ep_index, x_seed):
    """The MoE layer's tensors: dense weights (same on every rank), this EP index's experts, inputs."""
    import torch
    H, Fd, E, T = cfg["hidden"], cfg["ffn"], cfg["experts"], cfg["tokens"]
    El = E // ep
    gen = torch.Generator(device=dev).manual_seed(1234)  # same dense weights on every rank

    def param(*shape, scale):
        return (torch.randn(*shape, generator=gen, device=dev, dtype=torch.float32) * scale).to(dtype)
    w_router = param(H, E, scale=H ** -0.5)
    w_d1, w_d2 = param(H, Fd, scale=H ** -0.5), param(Fd, H, scale=Fd ** -0.5)
    gen_e = torch.Generator(device=dev).manual_seed(99 + ep_index)  # same experts across DP
    w_e1 = (torch.randn(El, H, Fd, generator=gen_e, device=dev) * H ** -0.5).to(dtype)
    w_e2 = (torch.randn(El, Fd, H, generator=gen_e, device=dev) * Fd ** -0.5).to(dtype)
    m = Ctx()
    m.dense, m.experts = [w_router, w_d1, w_d2], [w_e1, w_e2]
    for p in m.dense + m.experts:
        p.requires_grad_(True)
    gen_x = torch.Generator(device=dev).manual_seed(x_seed)
    m.xs = [torch.randn(T, H, generator=gen_x, device=dev).to(dtype) for _ in range(2)]
    m.ep, m.El, m.C, m.dev, m.dtype = ep, El, moe_capacity(cfg), dev, dtype
    return m


def moe_forward(m, cfg, x, a2a, ep_group):
    """Forward of the MoE layer; returns (loss, assignments dropped). a2a(t, group) moves tokens."""
    import torch
    import torch.nn.functional as F
    H, E, K, T, C, ep, El = cfg["hidden"], cfg["experts"], cfg["topk"], cfg["tokens"], m.C, m.ep, m.El
    w_router, w_d1, w_d2 = m.dense
    w_e1, w_e2 = m.experts
    h = x + F.gelu(x @ w_d1) @ w_d2
    probs = torch.softmax((h @ w_router).float(), dim=-1)
    gate, idx = torch.topk(probs, K, dim=-1)
    gate = (gate / gate.sum(-1, keepdim=True)).to(m.dtype)
    flat_e = idx.reshape(-1)
    flat_tok = torch.arange(T, device=m.dev).repeat_interleave(K)
    if cfg.get("router", "sort") == "onehot":  # the first harness's count: one int64 scan along the tokens (slow)
        pos = (F.one_hot(flat_e, E).cumsum(0) - 1).gather(1, flat_e[:, None]).squeeze(1)
    else:  # a stable sort by expert, as Megatron's permutation does: the same positions (token order within an expert)
        order = torch.argsort(flat_e, stable=True)
        counts = torch.bincount(flat_e, minlength=E)
        starts = torch.cumsum(counts, 0) - counts
        pos = torch.empty_like(flat_e)
        pos[order] = torch.arange(flat_e.numel(), device=m.dev) - starts[flat_e[order]]
    keep = pos < C
    slot = (flat_e * C + pos)[keep]
    tok = flat_tok[keep]
    send = torch.zeros(E * C, H, device=m.dev, dtype=m.dtype).index_copy(0, slot, h[tok])
    recv = a2a(send, ep_group)                                   # dispatch
    z = recv.view(ep, El, C, H).transpose(0, 1).reshape(El, ep * C, H)
    z = torch.bmm(F.gelu(torch.bmm(z, w_e1)), w_e2)
    z = z.view(El, ep, C, H).transpose(0, 1).reshape(E * C, H)
    back = a2a(z, ep_group)                                      # combine
    y = h + torch.zeros(T, H, device=m.dev, dtype=m.dtype).index_add(
        0, tok, back[slot] * gate.reshape(-1)[keep][:, None])
    loss = (y.float() ** 2).mean()
    return loss, keep


def moe_update(m, cfg, reduce_dense, reduce_experts):
    """Gradient all-reduce (the callables; identity for compute alone) and the SGD update."""
    import torch
    flat = reduce_dense(torch.cat([p.grad.reshape(-1) for p in m.dense]))
    fe = reduce_experts(torch.cat([p.grad.reshape(-1) for p in m.experts]))
    with torch.no_grad():
        for params, buf in ((m.dense, flat), (m.experts, fe)):
            off = 0
            for p in params:
                p -= cfg["lr"] * buf[off:off + p.numel()].view_as(p)
                p.grad = None
                off += p.numel()


def moe_flops(cfg, ep):
    """Matmul FLOPs of one step of the MoE layer (capacity slots counted, padded or not).

    forward: dense MLP 2 x 2*T*H*F, router 2*T*H*E, experts 2 x 2*(E*C)*H*F;
    backward: 2 x forward, less the dense input's gradient (x needs none): 2*T*H*F."""
    H, Fd, E, T = cfg["hidden"], cfg["ffn"], cfg["experts"], cfg["tokens"]
    C = moe_capacity(cfg)
    fwd = 4.0 * T * H * Fd + 2.0 * T * H * E + 4.0 * E * C * H * Fd
    bwd = 2.0 * fwd - 2.0 * T * H * Fd
    return fwd, bwd


def run_moe(c, cfg, transport, rnd, outdir):
    import torch
    import torch.distributed as dist
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
        m = moe_build(c.dev, dtype, cfg, ep, c.rank % ep, 7 + c.rank)
        C = m.C

        def reduce_dense(flat):
            dist.all_reduce(flat)           # dense weights over the world
            flat /= c.world
            return flat

        def reduce_experts(fe):
            if dp > 1:                      # experts over their DP group
                dist.all_reduce(fe, group=dp_group)
                fe /= dp
            return fe
        times = []
        dropped = 0
        for step in range(cfg["steps"]):
            sync(c)
            t0 = time.perf_counter()
            loss, keep = moe_forward(m, cfg, m.xs[step % 2], a2a, ep_group)
            loss.backward()
            moe_update(m, cfg, reduce_dense, reduce_experts)
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


def run_dp(c, cfg, transport, rnd, outdir):
    """Data-parallel step: a stack of linear layers under DistributedDataParallel (bucketed gradient
    all-reduce launched from backward hooks, overlapping the rest of backward), at several token
    counts (the compute/communication ratio). Per token count, three measurements of the slowest
    rank: compute alone (DDP's no_sync: forward + backward, no all-reduce), communication alone (the
    same buckets all-reduced back to back, async like DDP, no compute) and the overlapped DDP step."""
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP
    dtype = torch.bfloat16 if c.cuda else torch.float32
    W, L = cfg["dp_width"], cfg["dp_layers"]
    torch.manual_seed(4321)
    model = nn.Sequential(*[nn.Linear(W, W, bias=False) for _ in range(L)]).to(device=c.dev, dtype=dtype)
    ddp = DDP(model, device_ids=[c.dev.index] if c.cuda else None, bucket_cap_mb=cfg["dp_bucket_mb"],
              gradient_as_bucket_view=True)
    sizes = []

    def hook(state, bucket):  # records the buckets DDP built, then DDP's own all-reduce
        sizes.append(bucket.buffer().numel())
        fut = dist.all_reduce(bucket.buffer(), async_op=True).get_future()
        return fut.then(lambda f: f.value()[0].div_(c.world))
    ddp.register_comm_hook(None, hook)
    params = sum(p.numel() for p in model.parameters())
    elt = torch.empty((), dtype=dtype).element_size()
    steps, w0, w1 = cfg["steps"], cfg["window"][0], cfg["window"][1]

    def measure(fn):
        ts = []
        for _ in range(steps):
            sync(c)
            dist.barrier()
            sync(c)
            t0 = time.perf_counter()
            fn()
            sync(c)
            ts.append(time.perf_counter() - t0)
        t = torch.tensor(ts, dtype=torch.float64, device=c.dev)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return t.tolist()

    def med(ts):
        v = sorted(ts[w0 - 1:w1])
        return v[len(v) // 2]
    for tokens in cfg["dp_tokens"]:
        gen = torch.Generator(device=c.dev).manual_seed(11 + c.rank)
        x = torch.randn(tokens, W, generator=gen, device=c.dev).to(dtype)

        def step():
            sizes.clear()  # the hook refills it: the buckets of the last step
            ddp.zero_grad(set_to_none=False)
            loss = ddp(x).float().pow(2).mean()
            loss.backward()

        def compute_alone():
            with ddp.no_sync():
                step()
        overlapped = measure(step)
        buckets = list(sizes)  # the last step's buckets, in launch order
        bufs = [torch.zeros(n, dtype=dtype, device=c.dev) for n in buckets]

        def comm_alone():
            works = [dist.all_reduce(b, async_op=True) for b in bufs]
            for w in works:
                w.wait()
        compute = measure(compute_alone)
        comm = measure(comm_alone)
        del bufs
        if c.rank == 0:
            # forward 2 and backward 4 FLOPs per parameter and token, less layer 1's input gradient (x needs none)
            flops = 6.0 * tokens * params - 2.0 * tokens * W * W
            d = os.path.join(outdir, f"dp-w{W}-l{L}-t{tokens}")
            os.makedirs(d, exist_ok=True)
            comment = (f"plan-layout tests/gpu/harness.py data-parallel step (DDP, bucket_cap_mb {cfg['dp_bucket_mb']}, "
                       f"gradient_as_bucket_view), {L} x Linear({W}, {W}, bias=False), tokens/rank {tokens}, world {c.world}, "
                       f"transport {transport}, backend {c.backend}, {dtype}, seconds of the slowest rank")
            for arm, ts in (("overlapped", overlapped), ("compute", compute), ("comm", comm)):
                name = f"{transport}-round{rnd}.csv" if arm == "overlapped" else f"{arm}-{transport}-round{rnd}.csv"
                with open(os.path.join(d, name), "w") as f:
                    f.write(step_log_text(transport if arm == "overlapped" else f"{arm}-{transport}", rnd, ts,
                                          comment + f"; {arm}" + ("" if arm == "overlapped" else " alone")))
            summ = {"transport": transport, "round": rnd, "backend": c.backend, "world": c.world, "width": W,
                    "layers": L, "tokens": tokens, "dtype": str(dtype), "params": params, "grad_bytes": params * elt,
                    "bucket_cap_mb": cfg["dp_bucket_mb"], "buckets_elements": buckets, "flops_per_step": flops,
                    "window": [w0, w1], "compute_s": med(compute), "comm_s": med(comm), "overlapped_s": med(overlapped),
                    "exposed_comm_s": med(overlapped) - med(compute),
                    "hidden_fraction": (1.0 - (med(overlapped) - med(compute)) / med(comm)) if med(comm) > 0 else None}
            with open(os.path.join(d, f"summary-{transport}-round{rnd}.json"), "w") as f:
                json.dump(summ, f, indent=1, sort_keys=True)
                f.write("\n")
            log(f"dp t{tokens} {transport} r{rnd}: compute {summ['compute_s'] * 1e3:.3f} ms, comm {summ['comm_s'] * 1e3:.3f} ms "
                f"({len(buckets)} buckets), overlapped {summ['overlapped_s'] * 1e3:.3f} ms, "
                f"exposed {summ['exposed_comm_s'] * 1e3:.3f} ms")
        del x


def worker(rank, world, cfg, transport, rnd):
    import torch.distributed as dist
    c = setup(rank, world, cfg)
    try:
        if "sweep" in cfg["parts"]:
            run_sweep(c, cfg, transport, rnd, cfg["out"])
        if "moe" in cfg["parts"]:
            run_moe(c, cfg, transport, rnd, cfg["out"])
        if "dp" in cfg["parts"] and transport in cfg["dp_transports"]:
            run_dp(c, cfg, transport, rnd, cfg["out"])
        dist.barrier()
    finally:
        dist.destroy_process_group()


# ---------------------------------------------------------------------------------------------
# ops: per-operation compute timings on one GPU (issue 16), no communication

OPS_SAMPLES, OPS_WARMUP = 20, 3
BF16 = 2


def dense_gemm_shapes(tokens, hiddens, tps):
    """(name, M, N, K) of a transformer layer's GEMMs, split by TP: QKV (N = 3h/tp), out-proj
    (K = h/tp), FFN up (N = 4h/tp) and down (K = 4h/tp); for each, the forward product and the two
    backward ones (dgrad: M x K from M x N by N x K; wgrad: N x K from N x M by M x K)."""
    out = []
    for h in hiddens:
        for tp in tps:
            widths = {"qkv": (3 * h // tp, h), "proj": (h, h // tp), "fc1": (4 * h // tp, h), "fc2": (h, 4 * h // tp)}
            for m in tokens:
                for kind, (n, k) in widths.items():
                    tag = f"h{h}-tp{tp}-{kind}"
                    out.append((f"{tag}-fwd", m, n, k))
                    out.append((f"{tag}-dgrad", m, k, n))
                    out.append((f"{tag}-wgrad", n, k, m))
    return out


def ops_table_text(meta, rows):
    lines = [f"# {meta}",
             "# op kind | name | shape | dtype | GFLOP | MB moved | us (median) | min us | reps | TFLOPS | GB/s | note"]
    for r in rows:
        lines.append(" | ".join([r["kind"], r["name"], r["shape"], r["dtype"], f"{r['flops'] / 1e9:.3f}",
                                 f"{r['bytes'] / 1e6:.2f}", f"{r['us']:.2f}", f"{r['us_min']:.2f}", str(r["reps"]),
                                 f"{r['tflops']:.1f}", f"{r['gbps']:.1f}", r.get("note", "")]))
    return "\n".join(lines) + "\n"


class OpTimer:
    """Median of OPS_SAMPLES CUDA-event samples after warm-up. A sample times `reps` back-to-back
    calls (reps chosen so a sample lasts >= ~200 us) and is queued behind a GPU sleep so that the
    CPU's launch cost does not show; on CPU, wall clock."""

    def __init__(self, torch, cuda):
        self.torch, self.cuda = torch, cuda

    def __call__(self, fn, launches=1):
        torch = self.torch
        for _ in range(OPS_WARMUP):
            fn()
        if not self.cuda:
            ts = []
            for _ in range(OPS_SAMPLES // 4):
                t0 = time.perf_counter()
                fn()
                ts.append((time.perf_counter() - t0) * 1e6)
            ts.sort()
            return ts[len(ts) // 2], ts[0], 1
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        est = s.elapsed_time(e) * 1e3
        reps = max(1, min(50, int(200.0 / max(est, 1.0))))
        ts = []
        for _ in range(OPS_SAMPLES):
            torch.cuda._sleep(int(min(reps * launches * 60_000, 40_000_000)))  # ~30 us per launch at 2 GHz
            s.record()
            for _ in range(reps):
                fn()
            e.record()
            torch.cuda.synchronize()
            ts.append(s.elapsed_time(e) * 1e3 / reps)
        ts.sort()
        return ts[len(ts) // 2], ts[0], reps


def run_ops(cfg, outdir):
    import torch
    import torch.nn.functional as F
    cuda = cfg["device"] == "cuda"
    dev = torch.device("cuda", 0) if cuda else torch.device("cpu")
    dt = torch.bfloat16 if cuda else torch.float32
    dname = "bf16" if cuda else "fp32"
    timer = OpTimer(torch, cuda)
    small = cfg["ops_small"]
    rows = []
    t_start = time.time()

    def add(kind, name, shape, dtype, flops, nbytes, fn, launches=1, note=""):
        try:
            us, us_min, reps = timer(fn, launches)
        except Exception as ex:  # noqa: BLE001  -- recorded, not fatal: the sweep goes on
            log(f"ops {kind} {name}: failed: {type(ex).__name__}: {str(ex).splitlines()[0][:200]}")
            rows.append({"kind": kind, "name": name, "shape": shape, "dtype": dtype, "flops": flops, "bytes": nbytes,
                         "us": float("nan"), "us_min": float("nan"), "reps": 0, "tflops": 0.0, "gbps": 0.0,
                         "note": f"failed: {type(ex).__name__}: {str(ex).splitlines()[0][:160]}"})
            return None
        r = {"kind": kind, "name": name, "shape": shape, "dtype": dtype, "flops": flops, "bytes": nbytes,
             "us": us, "us_min": us_min, "reps": reps, "tflops": flops / us / 1e6, "gbps": nbytes / us / 1e3}
        if note:
            r["note"] = note
        rows.append(r)
        return r

    def rnd(*shape, dtype=dt):
        return torch.randn(*shape, device=dev, dtype=torch.float32).to(dtype)

    moe_rows = []
    preheat = {}
    has_grouped = hasattr(torch, "_grouped_mm") and cuda
    if cuda and cfg["ops_preheat_s"] > 0:  # bring the clocks up: an idle H200 sits at 345 MHz
        a = torch.randn(8192, 8192, device=dev, dtype=dt)
        t0 = time.time()
        while time.time() - t0 < cfg["ops_preheat_s"]:
            for _ in range(20):
                torch.matmul(a, a)
            torch.cuda.synchronize()
        del a
        preheat = {"seconds": cfg["ops_preheat_s"], "sm_clock_after": gpu_query("clocks.sm"),
                   "power_after": gpu_query("power.draw")}
        log(f"ops: preheat {cfg['ops_preheat_s']} s of 8192^3 bf16 GEMMs: {preheat}")
    try:
        if not cfg["ops_moe_only"]:  # --ops-moe-only: the MoE layer alone (section 6)
            # 1. reference: the largest square bf16 GEMM, and a device-to-device copy (HBM)
            for n in cfg["ops_square"]:
                a, b = rnd(n, n), rnd(n, n)
                add("reference", f"square-{n}", f"{n}x{n}x{n}", dname, 2.0 * n ** 3, 3.0 * n * n * a.element_size(),
                    lambda: torch.matmul(a, b))
                del a, b
            ncopy = (1 << 30) if not small else (1 << 22)
            x = torch.empty(ncopy, device=dev, dtype=dt)
            y = torch.empty_like(x)
            add("reference", "copy", f"{ncopy}", dname, 0.0, 2.0 * ncopy * x.element_size(), lambda: y.copy_(x),
                note="device-to-device copy: bytes read + written")
            del x, y

            # 2. dense GEMMs of a transformer layer, split by TP
            for name, m, n, k in dense_gemm_shapes(cfg["ops_tokens"], cfg["ops_hidden"], cfg["ops_tp"]):
                a, w = rnd(m, k), rnd(n, k)   # F.linear(a, w): (m, k) x (k, n)
                add("gemm", name, f"M{m} N{n} K{k}", dname, 2.0 * m * n * k, float(m * k + n * k + m * n) * a.element_size(),
                    lambda: F.linear(a, w))
                del a, w
            # fp8 on a few (torch._scaled_mm, e4m3, per-tensor scales, bf16 out)
            if cuda:
                for m, n, k in cfg["ops_fp8"]:
                    try:
                        a8 = rnd(m, k).to(torch.float8_e4m3fn)
                        b8 = rnd(n, k).to(torch.float8_e4m3fn).t()   # column-major K x N
                        one = torch.tensor(1.0, device=dev)
                        fn = lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
                        fn()
                    except Exception as ex:  # noqa: BLE001
                        fn = None
                        rows.append({"kind": "gemm-fp8", "name": f"fp8-{m}x{n}x{k}", "shape": f"M{m} N{n} K{k}", "dtype": "fp8e4m3",
                                     "flops": 2.0 * m * n * k, "bytes": 0.0, "us": float("nan"), "us_min": float("nan"),
                                     "reps": 0, "tflops": 0.0, "gbps": 0.0, "note": f"failed: {type(ex).__name__}: {str(ex)[:160]}"})
                    if fn is not None:
                        add("gemm-fp8", f"fp8-{m}x{n}x{k}", f"M{m} N{n} K{k}", "fp8e4m3", 2.0 * m * n * k,
                            float(m * k + n * k) + 2.0 * m * n, fn, note="torch._scaled_mm, per-tensor scales, bf16 out")
                        del a8, b8

            # 3. MoE expert GEMMs: E_local experts with t tokens each, up (t x H by H x F) and down
            for hid, ffn in cfg["ops_moe_hf"]:
                for el in cfg["ops_moe_experts"]:
                    for t in cfg["ops_moe_tokens"]:
                        for proj, (kk, nn_) in (("up", (hid, ffn)), ("down", (ffn, hid))):
                            xs = rnd(el, t, kk)
                            ws = rnd(el, kk, nn_)
                            flops = 2.0 * el * t * kk * nn_
                            nbytes = float(el * (t * kk + kk * nn_ + t * nn_)) * xs.element_size()
                            tag = f"h{hid}-f{ffn}-e{el}-t{t}-{proj}"
                            shape = f"E{el} x (M{t} N{nn_} K{kk})"
                            add("moe-loop", tag, shape, dname, flops, nbytes,
                                lambda: [torch.matmul(xs[i], ws[i]) for i in range(el)], launches=el,
                                note="one torch.matmul per expert")
                            add("moe-bmm", tag, shape, dname, flops, nbytes, lambda: torch.bmm(xs, ws),
                                note="torch.bmm (equal tokens per expert, as the MoE harness)")
                            if has_grouped:
                                x2 = xs.reshape(el * t, kk)
                                wt = ws.transpose(1, 2).contiguous().transpose(1, 2)  # E x K x N, column-major per expert
                                offs = torch.arange(1, el + 1, device=dev, dtype=torch.int32) * t
                                add("moe-grouped", tag, shape, dname, flops, nbytes,
                                    lambda: torch._grouped_mm(x2, wt, offs=offs, out_dtype=dt),
                                    note="torch._grouped_mm (2-D tokens, 3-D weights, offsets)")
                                del x2, wt
                            del xs, ws

            # 4. attention: SDPA, causal, flash backend where there is one; forward and backward
            try:
                from torch.nn.attention import SDPBackend, sdpa_kernel
                ctx = (lambda: sdpa_kernel(SDPBackend.FLASH_ATTENTION)) if cuda else (lambda: sdpa_kernel(SDPBackend.MATH))
                backend = "flash" if cuda else "math"
            except ImportError:
                import contextlib
                ctx, backend = contextlib.nullcontext, "default"
            hd = cfg["ops_head_dim"]
            if not hasattr(F, "scaled_dot_product_attention"):
                log("ops: no F.scaled_dot_product_attention in this torch: attention skipped")
            for seq in cfg["ops_seq"] if hasattr(F, "scaled_dot_product_attention") else []:
                for heads in cfg["ops_heads"]:
                    b = max(1, cfg["ops_attn_tokens"] // seq)
                    q, k, v = (rnd(b, heads, seq, hd).requires_grad_(True) for _ in range(3))
                    go = rnd(b, heads, seq, hd)
                    fwd_flops = 2.0 * b * heads * seq * seq * hd      # 4*B*H*S^2*D halved by the causal mask
                    io = float(b * heads * seq * hd) * q.element_size()
                    tag = f"s{seq}-h{heads}-d{hd}-b{b}"
                    shape = f"B{b} H{heads} S{seq} D{hd}"
                    with ctx():
                        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                        add("attn-fwd", tag, shape, dname, fwd_flops, 4.0 * io,
                            lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                            note=f"SDPA {backend}, causal; FLOPs 2*B*H*S^2*D; bytes q,k,v read + o written")
                        add("attn-bwd", tag, shape, dname, 2.5 * fwd_flops, 8.0 * io,
                            lambda: torch.autograd.grad(out, (q, k, v), go, retain_graph=True), launches=4,
                            note=f"SDPA {backend}, causal; FLOPs 2.5 x forward (FlashAttention-2's count); "
                                 "bytes q,k,v,o,do read + dq,dk,dv written")
                    del q, k, v, go, out

            # 5. bandwidth-bound: norms, SiLU-mul, add, fused AdamW
            T = cfg["ops_bw_tokens"]
            for h in cfg["ops_bw_hidden"]:
                x = rnd(T, h)
                w, bb = rnd(h), rnd(h)
                n = T * h
                e = x.element_size()
                add("bw", f"layernorm-t{T}-h{h}", f"{T}x{h}", dname, 8.0 * n, 2.0 * n * e, lambda: F.layer_norm(x, (h,), w, bb),
                    note="F.layer_norm; bytes: x read + y written")
                if hasattr(F, "rms_norm"):
                    add("bw", f"rmsnorm-t{T}-h{h}", f"{T}x{h}", dname, 4.0 * n, 2.0 * n * e, lambda: F.rms_norm(x, (h,), w),
                        note="F.rms_norm; bytes: x read + y written")
                y = rnd(T, h)
                add("bw", f"add-t{T}-h{h}", f"{T}x{h}", dname, 1.0 * n, 3.0 * n * e, lambda: x + y,
                    note="bytes: 2 read + 1 written")
                f4 = 4 * h
                a, g = rnd(T, f4), rnd(T, f4)
                nf = T * f4
                add("bw", f"silu_mul-t{T}-f{f4}", f"{T}x{f4}", dname, 5.0 * nf, 3.0 * nf * e, lambda: F.silu(a) * g, launches=2,
                    note="F.silu(a) * b, eager (2 kernels: 5 passes); bytes counted: the fused minimum, 2 read + 1 written")
                del x, w, bb, y, a, g
            chunk = 1 << 24 if not small else 1 << 16
            for nparams in cfg["ops_adam_params"]:
                ps = [torch.zeros(chunk, device=dev, dtype=torch.float32, requires_grad=True)
                      for _ in range(max(1, nparams // chunk))]
                for p in ps:
                    p.grad = torch.randn_like(p)
                kw = {"fused": True} if cuda else {}
                opt = torch.optim.AdamW(ps, lr=1e-4, **kw)
                opt.step()
                total = len(ps) * chunk
                add("bw", f"adamw-{total}", f"{len(ps)} x {chunk} fp32", "fp32", 16.0 * total, 28.0 * total, opt.step,
                    launches=2, note=f"torch.optim.AdamW({'fused=True' if cuda else 'foreach'}); bytes: p,g,m,v read + p,m,v written = 28 B/param")
                del ps, opt

        # 6. the MoE harness layer itself, compute alone (no communication), shaped as EP=ep at world ep
        for hid, ffn, tokens in cfg["ops_moe_layer"]:
            for ep in (1, 2):
                lc = dict(cfg)
                lc.update({"hidden": hid, "ffn": ffn, "tokens": tokens})
                m = moe_build(dev, dt, lc, ep, 0, 7)
                ident = lambda t, g: t  # noqa: E731  -- the rank's own slots stand in for what the all-to-all brings
                keep_id = lambda t: t  # noqa: E731
                fwd_f, bwd_f = moe_flops(lc, ep)
                step_s, fwd_us, bwd_us, upd_us = [], [], [], []
                for step in range(cfg["steps"]):
                    ev = [torch.cuda.Event(enable_timing=True) for _ in range(4)] if cuda else None
                    sync_dev(torch, cuda)
                    t0 = time.perf_counter()
                    if ev:
                        ev[0].record()
                    loss, _ = moe_forward(m, lc, m.xs[step % 2], ident, None)
                    if ev:
                        ev[1].record()
                    loss.backward()
                    if ev:
                        ev[2].record()
                    moe_update(m, lc, keep_id, keep_id)
                    if ev:
                        ev[3].record()
                    sync_dev(torch, cuda)
                    step_s.append(time.perf_counter() - t0)
                    if ev:
                        fwd_us.append(ev[0].elapsed_time(ev[1]) * 1e3)
                        bwd_us.append(ev[1].elapsed_time(ev[2]) * 1e3)
                        upd_us.append(ev[2].elapsed_time(ev[3]) * 1e3)
                w0, w1 = cfg["window"]

                def med(v):
                    v = sorted(v[w0 - 1:w1])
                    return v[len(v) // 2] if v else float("nan")
                layout = f"ep{ep}-dp1"
                r = {"hidden": hid, "ffn": ffn, "tokens": tokens, "experts": lc["experts"], "topk": lc["topk"],
                     "capacity": m.C, "layout_shape": layout, "experts_local": m.El, "rows_per_expert": ep * m.C,
                     "fwd_flops": fwd_f, "bwd_flops": bwd_f, "step_s_median": med(step_s),
                     "fwd_us_median": med(fwd_us), "bwd_us_median": med(bwd_us), "update_us_median": med(upd_us),
                     "achieved_tflops_step": (fwd_f + bwd_f) / med(step_s) / 1e12}
                moe_rows.append(r)
                d = os.path.join(outdir, f"moe-compute-h{hid}-f{ffn}-t{tokens}-{layout}")
                os.makedirs(d, exist_ok=True)
                comment = (f"plan-layout tests/gpu/harness.py MoE step, compute alone (no communication: the all-to-alls are "
                           f"the identity, no gradient all-reduce), one GPU shaped as layout {layout}, tokens/rank {tokens}, "
                           f"hidden {hid}, ffn {ffn}, experts {lc['experts']}, top-{lc['topk']}, capacity {m.C}/expert, {dt}, router {lc['router']}")
                rnd = cfg["ops_round"]
                with open(os.path.join(d, f"compute-round{rnd}.csv"), "w") as f:
                    f.write(step_log_text("compute", rnd, step_s, comment))
                if cuda and cfg["ops_profile"]:
                    r["profile"] = moe_profile(torch, m, lc, ident, keep_id, os.path.join(d, f"profile-round{rnd}.txt"))
                log(f"ops moe-layer h{hid} f{ffn} t{tokens} {layout}: step {r['step_s_median'] * 1e3:.3f} ms, "
                    f"fwd {r['fwd_us_median']:.0f} us, bwd {r['bwd_us_median']:.0f} us, {r['achieved_tflops_step']:.0f} TFLOPS")
                del m
    except Exception as ex:  # noqa: BLE001  -- keep what was measured
        import traceback
        traceback.print_exc()
        log(f"ops: stopped early: {type(ex).__name__}: {ex}")
        rows.append({"kind": "stopped", "name": type(ex).__name__, "shape": "", "dtype": "", "flops": 0.0,
                     "bytes": 0.0, "us": float("nan"), "us_min": float("nan"), "reps": 0, "tflops": 0.0,
                     "gbps": 0.0, "note": f"the sweep stopped here: {str(ex)[:200]}"})
    meta = (f"plan-layout tests/gpu/harness.py ops, device {torch.cuda.get_device_name(0) if cuda else 'cpu'}, "
            f"torch {torch.__version__}, {OPS_SAMPLES} samples after {OPS_WARMUP} warm-up calls, median; CUDA events; "
            f"a sample = reps back-to-back calls (L2 warm across reps), queued behind torch.cuda._sleep; "
            f"TFLOPS = FLOPs / median, GB/s = bytes counted / median")
    doc = {"meta": meta, "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "torch": torch.__version__, "device": torch.cuda.get_device_name(0) if cuda else "cpu",
           "grouped_mm": "torch._grouped_mm" if has_grouped else "absent (loop and bmm only)",
           "sweep_seconds": round(time.time() - t_start, 1), "ops": rows, "moe_layer": moe_rows, "preheat": preheat}
    ref = [r for r in rows if r["kind"] == "reference" and r["name"].startswith("square") and r["reps"] > 0]
    if ref:
        best = max(ref, key=lambda r: r["tflops"])
        doc["matmul_peak_reached"] = {"name": best["name"], "tflops": best["tflops"]}
    tag = cfg["ops_tag"]

    def no_nan(v):  # strict JSON: a failed measurement is null
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: no_nan(x) for k, x in v.items()}
        if isinstance(v, list):
            return [no_nan(x) for x in v]
        return v
    with open(os.path.join(outdir, f"ops-{tag}.json"), "w") as f:
        json.dump(no_nan(doc), f, indent=1, sort_keys=True, allow_nan=False)
        f.write("\n")
    with open(os.path.join(outdir, f"ops-{tag}.txt"), "w") as f:
        f.write(ops_table_text(meta, rows))
        f.write("\n# MoE harness layer, compute alone: hidden ffn tokens layout | fwd us | bwd us | update us | "
                "step ms (wall, synced) | step TFLOPS\n")
        for r in moe_rows:
            f.write(f"{r['hidden']} {r['ffn']} {r['tokens']} {r['layout_shape']} | {r['fwd_us_median']:.1f} | "
                    f"{r['bwd_us_median']:.1f} | {r['update_us_median']:.1f} | {r['step_s_median'] * 1e3:.3f} | "
                    f"{r['achieved_tflops_step']:.1f}\n")
    log(f"ops: {len(rows)} ops + {len(moe_rows)} MoE layer shapes in {time.time() - t_start:.0f} s -> ops-{tag}.json")


GEMM_KERNEL_MARKS = ("gemm", "gemv", "cutlass", "xmma", "nvjet", "wgmma", "cublas", "sm90_")


def moe_profile(torch, m, lc, ident, keep_id, path, steps=3):
    """torch.profiler over `steps` MoE steps: GPU kernel time per step by kind (GEMM kernels vs the
    rest: routing, element-wise, copies, optimizer) and the top kernels, against the step's wall time."""
    from torch.profiler import ProfilerActivity, profile
    try:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for step in range(steps):
                loss, _ = moe_forward(m, lc, m.xs[step % 2], ident, None)
                loss.backward()
                moe_update(m, lc, keep_id, keep_id)
            torch.cuda.synchronize()
        wall_us = (time.perf_counter() - t0) * 1e6 / steps
        kern = {}
        for evt in prof.key_averages():
            dt = getattr(evt, "self_device_time_total", None)
            if dt is None:
                dt = getattr(evt, "self_cuda_time_total", 0.0)
            if dt and str(getattr(evt, "device_type", "")).endswith("CUDA"):
                kern[evt.key] = (kern.get(evt.key, (0.0, 0))[0] + dt / steps, evt.count // steps)
        gemm = sum(t for k, (t, _) in kern.items() if any(x in k.lower() for x in GEMM_KERNEL_MARKS))
        total = sum(t for t, _ in kern.values())
        with open(path, "w") as f:
            f.write(f"# MoE layer step, compute alone, torch.profiler (CUDA kernels), {steps} steps, per step; "
                    f"wall {wall_us:.1f} us/step (profiled, synced once per {steps} steps)\n")
            f.write(f"# kernel time {total:.1f} us/step: GEMM kernels {gemm:.1f} us, other kernels {total - gemm:.1f} us; "
                    f"kernels named GEMM when they contain one of {', '.join(GEMM_KERNEL_MARKS)}\n")
            f.write("# us/step | calls/step | kernel\n")
            for k, (t, n) in sorted(kern.items(), key=lambda kv: -kv[1][0])[:30]:
                f.write(f"{t:10.1f} | {n:4d} | {k[:160]}\n")
        return {"wall_us_per_step": wall_us, "kernel_us_per_step": total, "gemm_kernel_us_per_step": gemm,
                "kernels": len(kern)}
    except Exception as ex:  # noqa: BLE001
        log(f"ops: MoE profile failed: {type(ex).__name__}: {ex}")
        return {"failed": f"{type(ex).__name__}: {str(ex)[:200]}"}


def gpu_query(field):
    try:
        r = subprocess.run(["nvidia-smi", f"--query-gpu={field}", "--format=csv,noheader"], capture_output=True,
                           text=True, timeout=30)
        return r.stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unknown ({e})"


def sync_dev(torch, cuda):
    if cuda:
        torch.cuda.synchronize()


def clocks(outdir, name):
    try:
        r = subprocess.run(["nvidia-smi", "-q", "-d", "CLOCK,PERFORMANCE,POWER,TEMPERATURE"], capture_output=True,
                           text=True, timeout=60)
        with open(os.path.join(outdir, name), "w") as f:
            f.write(r.stdout)
    except (OSError, subprocess.TimeoutExpired) as e:
        log(f"clocks: not captured: {e}")


# ---------------------------------------------------------------------------------------------
# Host capture

def capture(outdir, device):
    import torch
    info = {"torch": torch.__version__, "cuda_available": torch.cuda.is_available(), "device": device,
            "python": sys.version.split()[0], "hostname": socket.gethostname(),
            "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
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


def nccl_paths(outdir, transport, rnd):
    """Keeps the connection lines of NCCL's INFO log ('... via P2P/CUMEM', 'via SHM/direct/direct',
    'via NET/Socket/0') as nccl-via-TRANSPORT-rROUND.txt and drops the rest of the log."""
    import glob
    files = sorted(glob.glob(os.path.join(outdir, f"nccl-debug-{transport}-r{rnd}.*.log")))
    lines, kinds = set(), set()
    for fn in files:
        with open(fn, errors="replace") as f:
            for line in f:
                if " via " in line:
                    text = line.split("NCCL INFO", 1)[-1].strip()
                    lines.add(text)
                    kinds.add(text.split(" via ", 1)[1].split()[0])
                elif "NCCL version" in line or "Using network" in line:
                    lines.add(line.split("NCCL INFO", 1)[-1].strip())
        os.remove(fn)
    with open(os.path.join(outdir, f"nccl-via-{transport}-r{rnd}.txt"), "w") as f:
        f.write(f"# NCCL INFO lines with 'via' (+ version, network) of transport {transport}, round {rnd}, "
                f"{len(files)} process logs; distinct paths: {', '.join(sorted(kinds)) or 'none'}\n")
        f.writelines(t + "\n" for t in sorted(lines))
    log(f"nccl paths {transport} r{rnd}: {', '.join(sorted(kinds)) or 'none seen'}")


OPS_FULL = {
    "ops_square": [4096, 8192, 16384],
    "ops_tokens": [512, 2048, 8192, 16384], "ops_hidden": [1024, 2048, 4096, 8192], "ops_tp": [1, 2, 4, 8],
    "ops_fp8": [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 16384, 16384), (8192, 16384, 4096),
                (8192, 4096, 16384), (2048, 1536, 4096)],
    "ops_moe_hf": [(1024, 2048), (2048, 8192), (4096, 14336)], "ops_moe_experts": [1, 2, 8, 32],
    "ops_moe_tokens": [16, 64, 256, 1024, 4096, 8192],
    "ops_seq": [512, 2048, 4096, 8192], "ops_heads": [8, 32], "ops_head_dim": 128, "ops_attn_tokens": 16384,
    "ops_bw_tokens": 16384, "ops_bw_hidden": [4096, 8192], "ops_adam_params": [1 << 24, 1 << 27, 1 << 30],
    "ops_moe_layer": [(1024, 2048, 8192), (2048, 8192, 16384)],
}
OPS_SMALL = {
    "ops_square": [256], "ops_tokens": [64, 128], "ops_hidden": [128, 256], "ops_tp": [1, 2], "ops_fp8": [],
    "ops_moe_hf": [(128, 256)], "ops_moe_experts": [1, 2], "ops_moe_tokens": [16, 64],
    "ops_seq": [128], "ops_heads": [2], "ops_head_dim": 32, "ops_attn_tokens": 256,
    "ops_bw_tokens": 256, "ops_bw_hidden": [128], "ops_adam_params": [1 << 18],
    "ops_moe_layer": [(128, 256, 256)],
}


# ---------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("parts", nargs="+", choices=["sweep", "moe", "capture", "ops", "dp", "all"])
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
    ap.add_argument("--dp-width", type=int, default=4096, help="dp: width of each Linear(W, W)")
    ap.add_argument("--dp-layers", type=int, default=8, help="dp: number of Linear layers")
    ap.add_argument("--dp-tokens", default="512,4096,32768", help="dp: tokens per rank (the compute/communication ratios)")
    ap.add_argument("--dp-bucket-mb", type=float, default=25.0, help="dp: DDP bucket_cap_mb (DDP's default 25)")
    ap.add_argument("--dp-transports", default="fast,tcp", help="dp: the transports it runs in (of --transports)")
    ap.add_argument("--ops-tag", default="h200", help="ops: output name ops-TAG.json / ops-TAG.txt")
    ap.add_argument("--ops-small", action="store_true", help="ops: tiny shapes (CPU smoke test)")
    ap.add_argument("--ops-preheat-s", type=float, default=2.0,
                    help="ops: seconds of large GEMMs before the sweep, to bring the clocks up (0: none)")
    ap.add_argument("--ops-profile", action="store_true",
                    help="ops: torch.profiler breakdown of the MoE layer step (GEMM vs other kernels)")
    ap.add_argument("--router", choices=["sort", "onehot"], default="sort",
                    help="MoE: how slot positions are counted: sort (a stable sort by expert, as Megatron permutes; "
                         "default) or onehot (one_hot(...).cumsum(0), the first harness's slow int64 scan)")
    ap.add_argument("--ops-moe-only", action="store_true", help="ops: only the MoE layer's compute (section 6)")
    ap.add_argument("--no-nccl-info", action="store_true",
                    help="do not write NCCL's INFO log (kept: its 'via' lines, nccl-via-TRANSPORT-rR.txt)")
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
           "experts": a.experts, "topk": a.topk, "capacity_factor": 1.25, "lr": 1e-4, "port": a.port,
           "dp_width": a.dp_width, "dp_layers": a.dp_layers, "dp_tokens": [int(t) for t in a.dp_tokens.split(",")],
           "dp_bucket_mb": a.dp_bucket_mb, "dp_transports": a.dp_transports.split(","),
           "ops_tag": a.ops_tag, "ops_small": a.ops_small, "ops_profile": a.ops_profile, "ops_round": a.round or 1,
           "ops_preheat_s": a.ops_preheat_s, "router": a.router, "ops_moe_only": a.ops_moe_only}
    cfg.update(OPS_SMALL if a.ops_small else OPS_FULL)
    if a.experts % max(layouts_for(a.world, cfg["ep"]) or [1]) != 0:
        sys.exit("harness: --experts must be a multiple of every EP size")
    if "capture" in parts:
        capture(a.out, device)
    if "ops" in parts:
        if device == "cuda":
            clocks(a.out, "clocks-before-ops.txt")
        log(f"ops: device {device}, {'small' if a.ops_small else 'full'} shapes")
        run_ops(cfg, a.out)
        if device == "cuda":
            clocks(a.out, "clocks-after-ops.txt")
    dist_parts = parts & {"sweep", "moe", "dp"}
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
            nccl_log = device == "cuda" and not a.no_nccl_info
            if nccl_log:
                os.environ.update({"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,P2P,SHM,NET",
                                   "NCCL_DEBUG_FILE": os.path.join(a.out, f"nccl-debug-{t}-r{rnd}.%h.%p.log")})
            port += 1
            cfg["port"] = port
            log(f"round {rnd} transport {t}: {TRANSPORT_ENV[t] or 'NCCL defaults'}")
            t0 = time.time()
            mp.spawn(worker, args=(a.world, cfg, t, rnd), nprocs=a.world, join=True)
            log(f"round {rnd} transport {t} took {time.time() - t0:.1f} s")
            if nccl_log:
                nccl_paths(a.out, t, rnd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
