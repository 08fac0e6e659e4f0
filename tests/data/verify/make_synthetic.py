#!/usr/bin/env python3
"""Writes the synthetic NCCL INFO logs of this folder (2 nodes x 8 GPUs, rail-aligned, NCCL 2.21
grammar, mpirun --tag-output prefixes, lines of all ranks interleaved). Each variant breaks one
rule that `plan-layout verify` checks. Deterministic: rerun to regenerate the same bytes."""
import random

NODES, GPUS = 2, 8
HOSTS = ["node-a", "node-b"]


def envelope(rank, tid_offset=0):
    node, gpu = divmod(rank, GPUS)
    return f"[1,{rank}]<stdout>:{HOSTS[node]}:{4100 + rank}:{4300 + rank + tid_offset} [{gpu}] NCCL INFO "


def make(variant):
    pre, body = [], []
    socket = variant == "socket"
    for r in range(NODES * GPUS):
        g = r % GPUS
        e = envelope(r)
        if r == 0:
            pre.append(e + "NCCL version 2.21.5+cuda12.4")
        if socket:
            pre.append(e + "NET/IB : No device found.")
            pre.append(e + "NET/Socket : Using [0]eth0:10.0.0.%d<0>" % (r // GPUS + 1))
            pre.append(e + "Using network Socket")
        else:
            pre.append(e + "NET/IB : Using " + " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(GPUS))
                       + " [RO]; OOB eth0:10.0.0.%d<0>" % (r // GPUS + 1))
            pre.append(e + "Using network IB")
            pre.append(e + f"GPU Direct RDMA Enabled for HCA {g} 'mlx5_{g}'")
        pre.append(e + f"comm 0x55{r:04x} rank {r} nRanks 16 nNodes 2 localRanks 8 localRank {g} MNNVL 0")
    for c in range(GPUS):  # channel c crosses nodes on rail c
        for node in range(NODES):
            src = node * GPUS + c
            dst = ((node + 1) % NODES) * GPUS + c
            nic = c
            if variant == "wrong-nic" and src == 5:
                nic = 4
            via = f"NET/Socket/0" if socket else f"NET/IB/{nic}/GDRDMA"
            body.append(envelope(src, 1) + f"Channel {c:02d}/0 : {src}[{c}] -> {dst}[{c}] [send] via {via}")
            rnic = c
            rvia = f"NET/Socket/0" if socket else f"NET/IB/{rnic}/GDRDMA"
            body.append(envelope(dst, 1) + f"Channel {c:02d}/0 : {src}[{c}] -> {dst}[{c}] [receive] via {rvia}")
            for k in range(1, GPUS):  # the ring inside the node starts on GPU c
                a = node * GPUS + (c + k - 1) % GPUS
                b = node * GPUS + (c + k) % GPUS
                via_p2p = "SHM/direct/direct" if variant == "shm" and node == 1 and k == 3 and c == 2 else "P2P/CUMEM/read"
                body.append(envelope(a, 1) + f"Channel {c:02d}/0 : {a}[{a % GPUS}] -> {b}[{b % GPUS}] via {via_p2p}")
    random.Random(11).shuffle(body)
    tail = [envelope(r, 1) + "Connected all rings, use ring PXN 0 GDR %d" % (0 if socket else 1)
            for r in range(NODES * GPUS)]
    return "\n".join(pre + body + tail) + "\n"


for name, variant in [("2x8-gdrdma-pass.log", "pass"), ("2x8-wrong-nic.log", "wrong-nic"),
                      ("2x8-socket-fallback.log", "socket"), ("2x8-shm-inside-node.log", "shm")]:
    with open(name, "w") as f:
        f.write(make(variant))
