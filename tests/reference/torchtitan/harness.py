#!/usr/bin/env python3
"""Reference harness for torchtitan's ParallelDims (issue #19 item 6).

Executes torchtitan's own torchtitan/distributed/parallel_dims.py (two versions: the current
one and the <= 2025-12 one, files given on the command line) with torch's fake process group,
once per rank, and records every group ParallelDims creates with a real backend, as torchtitan
names it. Invalid configurations record torchtitan's refusal. See README.md.

    python3 harness.py --current parallel_dims.py --v2025 parallel_dims_2025.py --out golden.json
"""
import argparse
import hashlib
import importlib.util
import json
import logging
import sys
import types

import torch

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.dirname(__import__("os").path.abspath(__file__))))
from common_fake import per_rank  # noqa: E402

CURRENT_COMMIT = "b5bcd76c6"   # pytorch/torchtitan HEAD used (2026-08-21)
V2025_COMMIT = "64dc922fc"     # last commit before #1660 rewrote build_mesh with unflatten
# git blob hashes of torchtitan/distributed/parallel_dims.py at those commits
# (`git rev-parse COMMIT:torchtitan/distributed/parallel_dims.py`): checked before the files run.
CURRENT_BLOB = "5104f7d14e1a4a85525c503b7068a27e82a988bd"
V2025_BLOB = "187a363097395e32bc63cfb47d2f4fd54b61711f"


def git_blob_hash(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def verify_source(path, want, commit):
    """The file given must be parallel_dims.py of the recorded commit: its git blob hash is checked."""
    with open(path, "rb") as f:
        got = git_blob_hash(f.read())
    if got != want:
        sys.exit(f"{path}: git blob hash {got}, expected {want} (torchtitan {commit}, "
                 f"torchtitan/distributed/parallel_dims.py); give that commit's file")


def stub_imports():
    """parallel_dims.py imports spmd_types and torchtitan config/logging/utils: stub the names it
    uses (none of them takes part in building meshes)."""
    spmd = types.ModuleType("spmd_types")
    class _T:  # noqa: E701
        def __init__(self, *a, **k): pass
    spmd.PerMeshAxisSpmdType = _T
    spmd.Shard = _T
    spmd.PartitionSpec = tuple
    spmd.S = _T
    sys.modules["spmd_types"] = spmd
    for name in ["torchtitan", "torchtitan.config", "torchtitan.tools"]:
        sys.modules[name] = types.ModuleType(name)
    cfg = types.ModuleType("torchtitan.config.configs")
    cfg.ParallelismConfig = object
    sys.modules["torchtitan.config.configs"] = cfg
    lg = types.ModuleType("torchtitan.tools.logging")
    lg.logger = logging.getLogger("torchtitan")
    sys.modules["torchtitan.tools.logging"] = lg
    ut = types.ModuleType("torchtitan.tools.utils")
    ut.device_type = "cpu"
    sys.modules["torchtitan.tools.utils"] = ut


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look the module up
    spec.loader.exec_module(mod)
    return mod


# (name, world, dp_replicate, dp_shard, cp, tp, pp, ep, etp); etp only for the 2025 code.
CONFIGS = [
    ("fsdp_only", 8, 1, -1, 1, 1, 1, 1, 1),
    ("tp_only", 4, 1, 1, 1, 4, 1, 1, 1),
    ("single_rank", 1, 1, -1, 1, 1, 1, 1, 1),
    ("fsdp_tp", 16, 1, -1, 1, 4, 1, 1, 1),
    ("hsdp", 16, 2, 4, 1, 2, 1, 1, 1),
    ("hsdp_minus1", 32, 2, -1, 1, 4, 1, 1, 1),
    ("ddp_only", 8, 8, 1, 1, 1, 1, 1, 1),
    ("ddp_tp", 16, 4, 1, 1, 4, 1, 1, 1),
    ("pp_fsdp_tp", 32, 1, -1, 1, 4, 2, 1, 1),
    ("pp_hsdp_cp_tp", 64, 2, 2, 2, 2, 4, 1, 1),
    ("cp_fsdp", 16, 1, -1, 4, 1, 1, 1, 1),
    ("cp_only", 4, 1, 1, 4, 1, 1, 1, 1),
    ("cp_tp", 16, 1, 2, 2, 4, 1, 1, 1),
    ("ep_fsdp", 16, 1, -1, 1, 1, 1, 8, 1),
    ("ep_full", 8, 1, -1, 1, 1, 1, 8, 1),
    ("ep_tp_etp_tp", 32, 1, -1, 1, 2, 1, 4, 2),
    ("ep_tp_etp1", 32, 1, -1, 1, 2, 1, 8, 1),
    ("ep_cp", 32, 1, -1, 2, 1, 1, 4, 1),
    ("ep_cp_tp_etp1", 64, 1, -1, 2, 2, 1, 8, 1),
    ("ep_hsdp_pp", 64, 2, -1, 1, 2, 2, 4, 2),
    ("ep_hsdp_cp_pp_etp1", 64, 2, 4, 2, 1, 2, 8, 1),
    ("uneven_minus1_pp3", 24, 1, -1, 1, 2, 3, 1, 1),
    ("uneven_minus1_tp3", 48, 2, -1, 1, 3, 2, 1, 1),
    ("ep2_tp4_etp1", 16, 1, -1, 1, 4, 1, 2, 1),
    # invalid
    ("bad_product", 16, 3, 2, 1, 2, 1, 1, 1),
    ("bad_minus1_not_divisible", 12, 1, -1, 1, 5, 1, 1, 1),
    ("bad_minus1_zero", 4, 1, -1, 1, 8, 1, 1, 1),
    ("bad_tp0", 8, 1, -1, 1, 0, 1, 1, 1),
    ("bad_dp_shard_minus2", 8, 1, -2, 1, 1, 1, 1, 1),
    ("bad_ep_not_dividing", 16, 2, 2, 1, 4, 1, 3, 1),
    ("bad_ep_over_sparse", 16, 4, 2, 1, 2, 1, 8, 1),
    ("bad_2025_etp", 16, 1, -1, 1, 4, 1, 4, 2),
    ("bad_2025_ep_vs_cp", 16, 1, -1, 4, 1, 1, 2, 1),
]


def run_current(mod, c, backend):
    name, world, dpr, dps, cp, tp, pp, ep, _etp = c
    def build(rank):
        pd = mod.ParallelDims(dp_replicate=dpr, dp_shard=dps, cp=cp, tp=tp, pp=pp, ep=ep,
                              world_size=world, spmd_backend=backend)
        pd.build_mesh()
        return {k: m.mesh.flatten().tolist() for k, m in pd._single_axis_meshes.items()
                if pd._mesh_exist(k, m.size())}
    return per_rank(world, build)


def run_2025(mod, c):
    name, world, dpr, dps, cp, tp, pp, ep, etp = c
    def build(rank):
        pd = mod.ParallelDims(dp_replicate=dpr, dp_shard=dps, cp=cp, tp=tp, pp=pp, ep=ep, etp=etp,
                              world_size=world)
        mesh = pd.build_mesh()
        out = {k: mesh[k].mesh.flatten().tolist() for k in (mesh.mesh_dim_names or ())}
        for k in ["dp", "dp_shard_cp", "dp_cp", "ep"]:
            try:
                out[k] = mesh[k].mesh.flatten().tolist()
            except (KeyError, RuntimeError, ValueError):
                pass
        return out
    return per_rank(world, build)


def record(c, fn):
    name, world, dpr, dps, cp, tp, pp, ep, etp = c
    entry = {"name": name, "world": world, "dp_replicate": dpr, "dp_shard": dps, "cp": cp, "tp": tp,
             "pp": pp, "ep": ep, "etp": etp}
    try:
        entry["groups"] = fn()
    except Exception as e:  # record the refusal, whatever its type
        entry["error"] = f"{type(e).__name__}: {e}"
    return entry


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--current", required=True)
    ap.add_argument("--v2025", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    verify_source(a.current, CURRENT_BLOB, CURRENT_COMMIT)
    verify_source(a.v2025, V2025_BLOB, V2025_COMMIT)
    stub_imports()
    cur = load(a.current, "pd_current")
    old = load(a.v2025, "pd_2025")
    out = {"source": {"repo": "https://github.com/pytorch/torchtitan",
                      "commit": CURRENT_COMMIT, "commit_2025": V2025_COMMIT,
                      "files": ["torchtitan/distributed/parallel_dims.py"],
                      "blob": CURRENT_BLOB, "blob_2025": V2025_BLOB,
                      "torch": torch.__version__},
           "configs": [], "configs_partial_dtensor": [], "configs_2025": []}
    for c in CONFIGS:
        if not c[0].startswith("bad_2025"):
            out["configs"].append(record(c, lambda: run_current(cur, c, "spmd_types")))
            out["configs_partial_dtensor"].append(record(c, lambda: run_current(cur, c, "partial_dtensor")))
        out["configs_2025"].append(record(c, lambda: run_2025(old, c)))
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=False)
        f.write("\n")


if __name__ == "__main__":
    main()
