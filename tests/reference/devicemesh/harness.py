#!/usr/bin/env python3
"""Reference harness for raw PyTorch DeviceMesh (issue #19 item 6): torch's own
init_device_mesh(shape, mesh_dim_names) and mesh[dims]._flatten(name), run once per rank on the
fake process group; records every dim's and flattened dim's groups, or torch's refusal.

    python3 harness.py --out golden.json
"""
import argparse
import json
import os
import sys

import torch
from torch.distributed.device_mesh import init_device_mesh

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common_fake import per_rank  # noqa: E402

# (name, world, [(dim, size)...], [(dims, name or None)...])
CONFIGS = [
    ("dp8", 8, [("dp", 8)], []),
    ("dp_tp", 16, [("dp", 4), ("tp", 4)], []),
    ("pp_dp_tp", 16, [("pp", 2), ("dp", 4), ("tp", 2)], []),
    ("pp_dp_tp_flatten_dp_tp", 16, [("pp", 2), ("dp", 4), ("tp", 2)], [(["dp", "tp"], None)]),
    ("hsdp", 16, [("dp_replicate", 2), ("dp_shard", 8)], [(["dp_replicate", "dp_shard"], "dp")]),
    ("hsdp_cp_tp", 32, [("dp_replicate", 2), ("dp_shard", 2), ("cp", 2), ("tp", 4)],
     [(["dp_shard", "cp"], "dp_shard_cp"), (["dp_replicate", "dp_shard", "cp"], "dp_cp")]),
    ("flatten_default_name", 8, [("a", 2), ("b", 2), ("c", 2)], [(["a", "b"], None)]),
    ("flatten_non_adjacent", 8, [("a", 2), ("b", 2), ("c", 2)], [(["a", "c"], "ac")]),
    ("flatten_all", 8, [("a", 2), ("b", 2), ("c", 2)], [(["a", "b", "c"], "world")]),
    ("flatten_two", 24, [("pp", 3), ("dp", 2), ("cp", 2), ("tp", 2)], [(["dp", "cp"], None), (["cp", "tp"], None)]),
    ("size1_dims", 8, [("pp", 1), ("dp", 8), ("tp", 1)], []),
    ("size1_flatten", 8, [("pp", 1), ("dp", 8), ("tp", 1)], [(["pp", "tp"], "one")]),
    ("uneven_3_5", 15, [("dp", 3), ("tp", 5)], []),
    ("five_dims", 32, [("pp", 2), ("dp_replicate", 2), ("dp_shard", 2), ("cp", 2), ("tp", 2)],
     [(["dp_replicate", "dp_shard"], "dp"), (["dp_shard", "cp"], "fsdp")]),
    ("ep_mesh", 32, [("dp", 4), ("ep", 8)], []),
    ("moe_2d", 64, [("pp", 2), ("edp", 4), ("ep", 8)], [(["edp", "ep"], "dp")]),
    ("tp_first", 8, [("tp", 2), ("dp", 4)], []),
    ("six_dims", 64, [("a", 2), ("b", 2), ("c", 2), ("d", 2), ("e", 2), ("f", 2)], [(["b", "d", "f"], "bdf")]),
    ("dp3_tp4", 12, [("dp", 3), ("tp", 4)], [(["dp", "tp"], "all")]),
    ("pp4_dp2_tp8", 64, [("pp", 4), ("dp", 2), ("tp", 8)], [(["pp", "dp"], None)]),
    ("one_rank", 1, [("dp", 1)], []),
    # refusals
    ("bad_unknown_dim", 8, [("dp", 4), ("tp", 2)], [(["dp", "cp"], None)]),
    ("bad_out_of_order", 8, [("dp", 4), ("tp", 2)], [(["tp", "dp"], None)]),
    ("bad_flatten_name_is_dim", 8, [("dp", 4), ("tp", 2)], [(["dp", "tp"], "dp")]),
    ("bad_duplicate_dim_name", 8, [("dp", 4), ("dp", 2)], []),
    ("bad_mesh_bigger_than_world", 8, [("dp", 4), ("tp", 4)], []),
    ("mesh_smaller_than_world", 8, [("dp", 2), ("tp", 2)], []),
]


def run(world, dims, flatten):
    def build(rank):
        mesh = init_device_mesh("cpu", tuple(s for _, s in dims), mesh_dim_names=tuple(n for n, _ in dims))
        out = {n: mesh[n].mesh.flatten().tolist() for n, _ in dims}
        for fd, fname in flatten:
            sub = mesh[tuple(fd)]
            flat = sub._flatten(fname) if fname else sub._flatten()
            out[fname or "_".join(fd)] = flat.mesh.flatten().tolist()
        return out
    return per_rank(world, build)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    out = {"source": {"repo": "https://github.com/pytorch/pytorch", "commit": "v" + torch.__version__,
                      "files": ["torch/distributed/device_mesh.py"], "torch": torch.__version__},
           "configs": []}
    for name, world, dims, flatten in CONFIGS:
        entry = {"name": name, "world": world, "dims": [[n, s] for n, s in dims],
                 "flatten": [{"dims": fd, "name": fn} for fd, fn in flatten]}
        try:
            entry["groups"] = run(world, dims, flatten)
        except Exception as e:  # record torch's refusal, whatever its type
            entry["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        out["configs"].append(entry)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
