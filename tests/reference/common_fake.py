"""Shared by the reference harnesses: run a mesh-building function once per rank of a world on
torch's fake process group (no devices, no communication) and collect every group's ranks."""
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore  # registers backend "fake"


def per_rank(world, build):
    """build(rank) -> {name: [ranks of this rank's group]} (or raises). Returns
    {name: sorted list of distinct groups}, or raises the first rank's exception."""
    groups = {}
    for rank in range(world):
        dist.init_process_group("fake", store=FakeStore(), rank=rank, world_size=world)
        try:
            found = build(rank)
        finally:
            dist.destroy_process_group()
        for name, ranks in found.items():
            groups.setdefault(name, set()).add(tuple(ranks))
    return {k: [list(g) for g in sorted(v)] for k, v in groups.items()}
