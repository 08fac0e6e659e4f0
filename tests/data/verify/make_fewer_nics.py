#!/usr/bin/env python3
"""Writes the NCCL INFO logs of nodes with fewer NICs than GPUs, and of jobs whose RDMA ports mix
link layers or speeds (2 nodes x 8 GPUs, mpirun --tag-output prefixes). Deterministic.

Grammar, from NVIDIA/nccl at commit 5067397c2676d5aed50042fc39e5c8ee96eb0027:
- src/transport/net_ib/init.cc, ncclIbInitDevices: one line per port found,
  `NET/IB: [%d] %s:%s:%d/%s provider=%s speed=%d context=%p pciPath=%s ar=%d oooRqSize=%d`
  (device, uverbs name, port, link layer IB|RoCE, speed in Mb/s), then
  `NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>`;
  real lines of both kinds: NVIDIA/nccl-tests issue #185 (`NET/IB : Using [0]mlx5_10:1/RoCE
  [1]mlx5_11:1/RoCE [RO]; OOB enp220s0np0:...`, NCCL 2.19.3) and NCCL 2.27.5 logs such as
  `NET/IB: [2] mlx5_2:uverbs2:1/RoCE provider=Mlx5 speed=400000 context=0x5563d0080110 pciPath=... ar=0`.
- which NIC a GPU uses: src/graph/topo.cc ncclTopoGetLocalNetType: the GPU's local NICs (highest
  bandwidth, then shortest path: ncclTopoGetLocal) shared by the GPUs that have the same set,
  net = mirrorBits(dev % localGpuCount) + channel % netsPerGpu. One NIC for 8 GPUs: every GPU
  uses NIC 0; a NIC per GPU pair (NIC k beside GPUs 2k, 2k+1): GPU g uses NIC g // 2.
"""
import random

NODES, GPUS = 2, 8
HOSTS = ["node-a", "node-b"]


def envelope(rank, tid_offset=0):
    node, gpu = divmod(rank, GPUS)
    return f"[1,{rank}]<stdout>:{HOSTS[node]}:{4100 + rank}:{4300 + rank + tid_offset} [{gpu}] NCCL INFO "


def make(nics, nic_of_gpu, layer_of=lambda node, i: "IB", speed_of=lambda node, i: 400000):
    pre, body = [], []
    for r in range(NODES * GPUS):
        node, g = divmod(r, GPUS)
        e = envelope(r)
        if r == 0:
            pre.append(e + "NCCL version 2.27.5+cuda12.9")
        for i in range(nics):
            pre.append(e + f"NET/IB: [{i}] mlx5_{i}:uverbs{i}:1/{layer_of(node, i)} provider=Mlx5 "
                       f"speed={speed_of(node, i)} context=0x55{r:02x}d0080{i}10 "
                       f"pciPath=/sys/devices/pci0000:{0x15 + 0x22 * i:02x}/0000:{0x16 + 0x22 * i:02x}:00.0 ar=1 oooRqSize=0")
        pre.append(e + "NET/IB : Using " + " ".join(f"[{i}]mlx5_{i}:1/{layer_of(node, i)}" for i in range(nics))
                   + " [RO]; OOB eth0:10.0.0.%d<0>" % (node + 1))
        pre.append(e + "Using network IB")
        pre.append(e + f"GPU Direct RDMA Enabled for HCA {nic_of_gpu(g)} 'mlx5_{nic_of_gpu(g)}'")
        pre.append(e + f"comm 0x55{r:04x} rank {r} nRanks 16 nNodes 2 localRanks 8 localRank {g} MNNVL 0")
    for c in range(GPUS):  # channel c enters and leaves each node on GPU c, through GPU c's NIC
        for node in range(NODES):
            src = node * GPUS + c
            dst = ((node + 1) % NODES) * GPUS + c
            via = f"NET/IB/{nic_of_gpu(c)}/GDRDMA"
            body.append(envelope(src, 1) + f"Channel {c:02d}/0 : {src}[{c}] -> {dst}[{c}] [send] via {via}")
            body.append(envelope(dst, 1) + f"Channel {c:02d}/0 : {src}[{c}] -> {dst}[{c}] [receive] via {via}")
            for k in range(1, GPUS):
                a = node * GPUS + (c + k - 1) % GPUS
                b = node * GPUS + (c + k) % GPUS
                body.append(envelope(a, 1) + f"Channel {c:02d}/0 : {a}[{a % GPUS}] -> {b}[{b % GPUS}] via P2P/CUMEM/read")
    random.Random(7).shuffle(body)
    tail = [envelope(r, 1) + "Connected all rings, use ring PXN 0 GDR 1" for r in range(NODES * GPUS)]
    return "\n".join(pre + body + tail) + "\n"


VARIANTS = [
    ("2x8-one-shared-nic.log", dict(nics=1, nic_of_gpu=lambda g: 0)),
    ("2x8-nic-per-gpu-pair.log", dict(nics=4, nic_of_gpu=lambda g: g // 2)),
    # node-b's second port is RoCE (an Ethernet port in NCCL_IB_HCA's reach)
    ("2x8-mixed-ib-roce.log", dict(nics=4, nic_of_gpu=lambda g: g // 2,
                                   layer_of=lambda node, i: "RoCE" if node == 1 and i == 1 else "IB")),
    # node-a's port 3 trained down to 200 Gb/s
    ("2x8-mixed-nic-speed.log", dict(nics=4, nic_of_gpu=lambda g: g // 2,
                                     speed_of=lambda node, i: 200000 if node == 0 and i == 3 else 400000)),
]
if __name__ == "__main__":
    for name, kw in VARIANTS:
        with open(name, "w") as f:
            f.write(make(**kw))
