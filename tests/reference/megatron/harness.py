#!/usr/bin/env python3
"""Reference harness for Megatron-Core's parallel_state (issue 32 item 6).

Executes Megatron-Core's own megatron/core/parallel_state.py (read from a Megatron-LM source tree
given on the command line, checked against the git blob hashes recorded below before it runs)
on torch's fake process group, and records every process group `initialize_model_parallel`
creates: each call of torch.distributed.new_group, with the group_desc Megatron gives it and its
member list, in creation order. Megatron enters every group's creation on every rank (it loops
over all groups and keeps the one holding the rank), so one rank's calls list the whole world;
for worlds up to PER_RANK_MAX the harness runs every rank and checks each made the same calls.
Configurations Megatron refuses record its exception. See README.md.

    python3 harness.py --src Megatron-LM --out golden.json
    python3 harness.py --src Megatron-LM --check-only      # verify the files, no torch needed
"""
import argparse
import hashlib
import importlib.util
import json
import os
import sys
import types

COMMIT = "d98e8a64ddf34856e74b24714e3bedb2f5a39553"  # NVIDIA/Megatron-LM main, 2026-08-22
# The files executed, with their git blob hashes at COMMIT (`git rev-parse COMMIT:PATH`).
FILES = {
    "megatron/core/parallel_state.py": "2a3c75811221aacaa0130f8feb081859788f3c5d",
    "megatron/core/inference/symmetric_memory.py": "a52699899146d4bc92155c096f5ddd8c87ee61f2",
}
PER_RANK_MAX = 32  # worlds up to this size run once per rank (the rank-independence check)

DEFAULT_ORDER = "tp-cp-ep-dp-pp"   # Megatron-LM's training default
TP_PP_DP_ORDER = "tp-cp-ep-pp-dp"  # --use-tp-pp-dp-mapping (megatron/training/initialize.py)


def cfg(name, world, tp=1, pp=1, cp=1, ep=1, etp=None, vpp=None, order=DEFAULT_ORDER,
        dist_opt_instances=1, hierarchical_cp=None, hybrid_cp=False, gtp=1, egtp=1,
        rank_offset=0, local_world_size=None):
    """One configuration; etp None = Megatron's default (tp). world is torch's world size."""
    return {"name": name, "world": world, "tp": tp, "pp": pp, "cp": cp, "ep": ep, "etp": etp,
            "vpp": vpp, "order": order, "dist_opt_instances": dist_opt_instances,
            "hierarchical_cp": hierarchical_cp or [], "hybrid_cp": hybrid_cp, "gtp": gtp,
            "egtp": egtp, "rank_offset": rank_offset, "local_world_size": local_world_size}


CONFIGS = [
    # The seed layouts (2 nodes x 8 GPUs) and the 4- and 32-node H100 layouts.
    cfg("seed_2x8_ep16", 16, ep=16, etp=1),
    cfg("seed_2x8_pp2_ep8", 16, pp=2, ep=8, etp=1),
    cfg("h100_4node_tp8_pp2_ep8", 64, tp=8, pp=2, ep=8, etp=1),
    cfg("h100_32node_tp8_pp4_ep8", 256, tp=8, pp=4, ep=8, etp=1),
    # Dense.
    cfg("tp8", 8, tp=8),
    cfg("tp2_pp2", 8, tp=2, pp=2),
    cfg("tp2_pp4", 16, tp=2, pp=4),
    cfg("tp2_pp4_vpp2", 16, tp=2, pp=4, vpp=2),
    cfg("cp4", 8, cp=4),
    cfg("tp4_cp2", 16, tp=4, cp=2),
    cfg("tp2_cp2_pp2", 32, tp=2, cp=2, pp=2),
    cfg("tp2_pp2_tppdp", 16, tp=2, pp=2, order=TP_PP_DP_ORDER),
    cfg("tp2_cp2_pp2_ep2_tppdp", 32, tp=2, cp=2, pp=2, ep=2, order=TP_PP_DP_ORDER),
    # Experts: etp default (= tp), etp 1, etp < tp, etp > tp, with cp and pp.
    cfg("tp2_ep8_etp_default", 32, tp=2, ep=8),
    cfg("tp2_ep4_etp1", 16, tp=2, ep=4, etp=1),
    cfg("tp4_ep8_etp2", 64, tp=4, ep=8, etp=2),
    cfg("tp2_ep4_etp4", 32, tp=2, ep=4, etp=4),
    cfg("tp2_cp2_ep4_etp1", 32, tp=2, cp=2, ep=4, etp=1),
    cfg("tp2_cp2_pp2_ep8_etp1", 64, tp=2, cp=2, pp=2, ep=8, etp=1),
    cfg("tp2_pp2_ep2_etp1_tppdp", 16, tp=2, pp=2, ep=2, etp=1, order=TP_PP_DP_ORDER),
    cfg("tp4_ep4_etp1_tppdp_pp1", 16, tp=4, ep=4, etp=1, order=TP_PP_DP_ORDER),
    cfg("tp2_pp4_vpp3_ep4_etp1", 64, tp=2, pp=4, vpp=3, ep=4, etp=1),
    cfg("tp4_cp2_pp2_ep16_etp1", 128, tp=4, cp=2, pp=2, ep=16, etp=1),
    cfg("tp8_pp3_ep16_etp1", 384, tp=8, pp=3, ep=16, etp=1),
    # Distributed-optimizer instances, hierarchical and hybrid CP, GTP, a grid inside the world.
    cfg("tp2_pp2_ep4_etp1_distopt2", 32, tp=2, pp=2, ep=4, etp=1, dist_opt_instances=2),
    cfg("tp2_cp4_hcp2x2", 32, tp=2, cp=4, hierarchical_cp=[2, 2]),
    cfg("tp2_cp2_hybrid", 32, tp=2, cp=2, hybrid_cp=True),
    cfg("tp2_hybrid_dpcp10", 20, tp=2, hybrid_cp=True),
    cfg("tp2_gtp2_pp2", 32, tp=2, gtp=2, pp=2),
    cfg("tp2_ep4_etp1_egtp2", 32, tp=2, ep=4, etp=1, egtp=2),
    cfg("tp2_pp2_offset8_of16", 16, tp=2, pp=2, rank_offset=8, local_world_size=8),
    # Refused by Megatron.
    cfg("bad_tp2_cp2_pp2_tppdp", 32, tp=2, cp=2, pp=2, order=TP_PP_DP_ORDER),
    # No tp in the order: 'tp' is a substring of the injected 'gtp_remat', so RankGenerator does
    # not append it and get_mask fails (ValueError) after the first groups were made.
    cfg("bad_order_without_tp", 8, cp=2, order="cp-ep-dp-pp"),
    cfg("bad_world_tp3", 16, tp=3),
    cfg("bad_tp0", 8, tp=0),
    cfg("bad_expert_grid_etp_default", 24, tp=2, pp=2, ep=4),
    cfg("bad_tppdp_expert_dp_differs", 32, tp=2, pp=2, ep=4, etp=1, order=TP_PP_DP_ORDER),
    cfg("bad_pp_groups_differ", 16, tp=2, pp=2, ep=2, etp=1, order="tp-cp-pp-ep-dp"),
    cfg("bad_vpp_pp1", 8, tp=2, vpp=2),
    cfg("bad_order_missing_cp", 16, tp=2, cp=2, order="tp-ep-dp-pp"),
    cfg("bad_order_missing_ep", 16, tp=2, ep=2, order="tp-cp-dp-pp"),
    cfg("bad_order_unknown_token", 8, tp=2, order="tp-xp-dp-pp"),
    cfg("bad_distopt3", 16, tp=2, dist_opt_instances=3),
    cfg("bad_hcp_product", 32, tp=2, cp=4, hierarchical_cp=[2, 4]),
]


def git_blob_hash(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def verify_sources(src):
    """Every executed file must be the one recorded at COMMIT: its git blob hash is checked."""
    for path, want in FILES.items():
        full = os.path.join(src, path)
        with open(full, "rb") as f:
            got = git_blob_hash(f.read())
        if got != want:
            sys.exit(f"{full}: git blob hash {got}, expected {want} (Megatron-LM {COMMIT}); "
                     f"check out that commit or update COMMIT/FILES and regenerate")


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def install_packages(src, torch):
    """parallel_state imports megatron.core.inference.symmetric_memory (executed as is: it only
    imports torch) and, from megatron.core.utils, GlobalMemoryBuffer and is_torch_min_version.
    utils.py imports most of Megatron-Core (and parallel_state itself), so the two names are given
    here: GlobalMemoryBuffer as upstream's __init__ (an empty dict; only constructed at the end of
    initialize_model_parallel), is_torch_min_version as upstream's (packaging's Version)."""
    from packaging.version import Version
    for name in ["megatron", "megatron.core", "megatron.core.inference"]:
        pkg = types.ModuleType(name)
        pkg.__path__ = [os.path.join(src, *name.split("."))]
        sys.modules[name] = pkg
    utils = types.ModuleType("megatron.core.utils")

    class GlobalMemoryBuffer:
        def __init__(self):
            self.buffer = {}

    def is_torch_min_version(version, check_equality=True):
        have = Version(torch.__version__)
        return have >= Version(version) if check_equality else have > Version(version)

    utils.GlobalMemoryBuffer = GlobalMemoryBuffer
    utils.is_torch_min_version = is_torch_min_version
    sys.modules["megatron.core.utils"] = utils
    load(os.path.join(src, "megatron/core/inference/symmetric_memory.py"),
         "megatron.core.inference.symmetric_memory")


def megatron_kwargs(c):
    return dict(
        tensor_model_parallel_size=c["tp"],
        pipeline_model_parallel_size=c["pp"],
        virtual_pipeline_model_parallel_size=c["vpp"],
        context_parallel_size=c["cp"],
        hierarchical_context_parallel_sizes=c["hierarchical_cp"] or None,
        hybrid_context_parallel=c["hybrid_cp"],
        expert_model_parallel_size=c["ep"],
        gtp_remat_size=c["gtp"],
        expert_gtp_remat_size=c["egtp"],
        num_distributed_optimizer_instances=c["dist_opt_instances"],
        expert_tensor_parallel_size=c["etp"],
        order=c["order"],
        # Gloo groups repeat the NCCL groups' ranks (same loops); fake has no Gloo peers to meet.
        create_gloo_process_groups=False,
        rank_offset=c["rank_offset"],
        local_world_size=c["local_world_size"],
    )


class Recorder:
    """Wraps torch.distributed.new_group: records (group_desc, ranks), then calls the real one."""

    def __init__(self, dist):
        self.calls = []
        self.real = dist.new_group

    def __call__(self, *args, **kwargs):
        ranks = kwargs["ranks"] if "ranks" in kwargs else args[0]
        self.calls.append((kwargs.get("group_desc"), kwargs.get("backend"), [int(r) for r in ranks]))
        return self.real(*args, **kwargs)


def run_rank(src, c, rank, dist, FakeStore, recorder):
    dist.init_process_group("fake", store=FakeStore(), rank=rank, world_size=c["world"])
    try:
        # A fresh module each time: parallel_state keeps its groups in module globals.
        ps = load(os.path.join(src, "megatron/core/parallel_state.py"), "megatron.core.parallel_state")
        recorder.calls = []
        ps.initialize_model_parallel(**megatron_kwargs(c))
        return list(recorder.calls)
    finally:
        dist.destroy_process_group()


def record(src, c, dist, FakeStore, recorder):
    entry = dict(c)
    try:
        calls = run_rank(src, c, 0, dist, FakeStore, recorder)
    except Exception as e:  # Megatron's refusal, whatever its type
        msg = f"{type(e).__name__}: {e}"
        entry["error"] = msg if len(msg) <= 400 else msg[:400] + "..."
        return entry
    if c["world"] <= PER_RANK_MAX:
        for rank in range(1, c["world"]):
            if run_rank(src, c, rank, dist, FakeStore, recorder) != calls:
                raise SystemExit(f"{c['name']}: rank {rank} created other groups than rank 0")
    groups = {}
    for desc, backend, ranks in calls:
        if backend not in (None, "nccl"):
            raise SystemExit(f"{c['name']}: unexpected backend {backend} for {desc}")
        groups.setdefault(desc, []).append(ranks)
    entry["all_ranks_checked"] = c["world"] <= PER_RANK_MAX
    entry["groups"] = groups
    return entry


def wrapped(groups, indent, width=100):
    """A kind's member lists, as many to a line as fit in width."""
    lines, line = [], ""
    for text in (json.dumps(g) for g in groups):
        if line and len(indent) + len(line) + len(text) + 2 > width:
            lines.append(indent + line + ",")
            line = ""
        line += (", " if line else "") + text
    return "\n".join(lines + [indent + line])


def dump(out, path):
    """JSON with a configuration's sizes on one line and each kind's groups wrapped below it, in
    Megatron's creation order."""
    lines = ["{", ' "source": ' + json.dumps(out["source"]) + ",", ' "configs": [']
    for i, e in enumerate(out["configs"]):
        head = {k: v for k, v in e.items() if k != "groups"}
        text = "  {" + json.dumps(head)[1:-1]
        if "groups" in e:
            kinds = [f"    {json.dumps(desc)}: [\n" + wrapped(gs, "     ") + "\n    ]"
                     for desc, gs in e["groups"].items()]
            text += ', "groups": {\n' + ",\n".join(kinds) + "\n  }"
        text += "}" + ("," if i + 1 < len(out["configs"]) else "")
        lines.append(text)
    lines += [" ]", "}"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True, help="Megatron-LM source tree at COMMIT")
    ap.add_argument("--out", help="golden JSON to write")
    ap.add_argument("--check-only", action="store_true", help="verify the sources and stop")
    a = ap.parse_args()
    verify_sources(a.src)
    if a.check_only:
        print(f"sources match Megatron-LM {COMMIT}")
        return
    import torch
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore  # registers backend "fake"
    install_packages(a.src, torch)
    recorder = Recorder(dist)
    dist.new_group = recorder
    out = {"source": {"repo": "https://github.com/NVIDIA/Megatron-LM", "commit": COMMIT,
                      "files": FILES, "torch": torch.__version__,
                      "called": "initialize_model_parallel(create_gloo_process_groups=False)"},
           "configs": [record(a.src, c, dist, FakeStore, recorder) for c in CONFIGS]}
    dump(out, a.out)
    valid = sum("groups" in e for e in out["configs"])
    print(f"{len(out['configs'])} configurations, {valid} valid, written to {a.out}")


if __name__ == "__main__":
    main()
