#!/usr/bin/env python3
"""Writes the synthetic NCCL INFO logs of verify's MNNVL checks (SOURCES.md): four GB200 trays of
4 GPUs (tray0..tray3), two NVLink cliques of two trays, 16 ranks node-major, as
verify-4tray-ep8.json places them. Every line is one of NCCL's own format strings filled in (the
string and its file are named in SOURCES.md); the values are invented. Deterministic.

  4tray-mnnvl-on.log   NCCL 2.27.3: MNNVL on (src/mnnvl.cc line), comm lines MNNVL 1, NVLS
                       available, P2P/MNNVL inside each clique, NET/IB/GDRDMA between the cliques.
  4tray-mnnvl-off.log  NCCL 2.21.5 with NCCL_MNNVL_ENABLE=0: the 2.21 init.cc line 'MNNVL 0 ...',
                       comm lines MNNVL 0, the trays of one clique joined over NET/IB.
"""

TRAYS, GPUS = 4, 4
CLIQUE_TRAYS = 2


def envelope(rank):
    tray, gpu = divmod(rank, GPUS)
    return f"tray{tray}:{5100 + rank}:{5300 + rank} [{gpu}] NCCL INFO "


def make(on):
    version = "2.27.3+cuda12.9" if on else "2.21.5+cuda12.4"
    lines = []
    n = TRAYS * GPUS
    per_clique = CLIQUE_TRAYS * GPUS
    for r in range(n):
        e = envelope(r)
        tray, g = divmod(r, GPUS)
        clique = tray // CLIQUE_TRAYS
        if r == 0:
            lines.append(e + "NCCL version " + version)
        lines.append(e + "NET/IB : Using " + " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(GPUS))
                     + f" [RO]; OOB eth0:10.0.0.{tray + 1}<0>")
        lines.append(e + "Using network IB")
        if on:
            # src/mnnvl.cc: "MNNVL %d cliqueId %x cliqueSize %d cliqueRank %d nvlDomainSize %d"
            lines.append(e + f"MNNVL 1 cliqueId {clique + 2:x} cliqueSize {per_clique} cliqueRank {r % per_clique}"
                         f" nvlDomainSize {per_clique}")
        else:
            # 2.21.5 src/init.cc checkMNNVL: "MNNVL %d cliqueId %x cliqueSize %d cliqueRank %d " (trailing space)
            lines.append(e + f"MNNVL 0 cliqueId {clique + 2:x} cliqueSize {per_clique} cliqueRank {r % per_clique} ")
        # src/transport/nvls.cc: "NVLS multicast support is %savailable on dev %d"
        lines.append(e + f"NVLS multicast support is {'' if on else 'not '}available on dev {g}")
        nodes = TRAYS // CLIQUE_TRAYS if on else TRAYS
        local = per_clique if on else GPUS
        lines.append(e + f"comm 0x66{r:04x} rank {r} nRanks {n} nNodes {nodes} localRanks {local}"
                     f" localRank {r % local} MNNVL {1 if on else 0}")
    # One ring per channel: 0 -> 1 -> ... -> 15 -> 0. Inside a clique P2P (MNNVL when on); between
    # trays of one clique with MNNVL off, and between cliques, NET/IB on the sender's rail.
    for c in range(2):
        for r in range(n):
            s, d = r, (r + 1) % n
            same_tray = s // GPUS == d // GPUS
            same_clique = s // per_clique == d // per_clique
            if same_tray or (on and same_clique):
                kind = "MNNVL" if on else "CUMEM"
                # src/transport/p2p.cc: "Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/%s%s%s"
                lines.append(envelope(s) + f"Channel {c:02d}/0 : {s}[{s % GPUS}] -> {d}[{d % GPUS}] via P2P/{kind}/read")
            else:
                nic = s % GPUS
                # src/transport/net.cc: "Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s"
                lines.append(envelope(s) + f"Channel {c:02d}/0 : {s}[{s % GPUS}] -> {d}[{d % GPUS}] [send] via NET/IB/{nic}/GDRDMA")
                lines.append(envelope(d) + f"Channel {c:02d}/0 : {s}[{s % GPUS}] -> {d}[{d % GPUS}] [receive] via NET/IB/{d % GPUS}/GDRDMA")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    for name, on in (("4tray-mnnvl-on.log", True), ("4tray-mnnvl-off.log", False)):
        with open(os.path.join(here, name), "w") as f:
            f.write(make(on))
