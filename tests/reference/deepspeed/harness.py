#!/usr/bin/env python3
"""Reference groups from DeepSpeed's own code (issue #19 item 6).

Executes DeepSpeed's real group-building code, read from a git checkout of
https://github.com/deepspeedai/DeepSpeed, once per simulated rank, with a stub
`deepspeed.comm` (new_group returns a handle holding its rank list; get_rank /
get_world_size answer for the simulated rank) and stubs for what those files import
but does not shape groups (torch, log_dist, the accelerator, the MoE layer's gate and
experts). Each kind's groups are the union over ranks of the group handle the rank
ends up holding (PipelineParallelGrid's attributes, groups.py getters), so each group
is checked to be the one DeepSpeed hands that rank. Writes golden.json.

Executed files (nothing of their logic is re-implemented here):
  deepspeed/runtime/pipe/topology.py   ProcessTopology, Pipe*Topology, PipelineParallelGrid
  deepspeed/utils/groups.py            expert / expert-data groups, AutoTP (data, tensor) groups
  deepspeed/utils/bwc.py               mpu size accessors groups.py uses
  deepspeed/utils/exceptions.py
  deepspeed/moe/layer.py               MoE._create_process_groups: legacy vs E+M+D pick
  deepspeed/module_inject/auto_ep_folding.py  AutoEP build_folding_spec / validate_folding_global
The AutoEP glue (runtime/engine.py DeepSpeedEngine._configure_expert_parallel, which needs a
whole engine) is copied below line for line as `autoep_engine_glue`; DeviceMesh's 2-D
get_group (torch) is the small `FakeMesh` below.

Usage: harness.py --git-dir /path/to/DeepSpeed/.git [--out golden.json]
"""
import argparse
import contextlib
import io
import json
import subprocess
import sys
import types

FILES = [
    "deepspeed/runtime/pipe/topology.py",
    "deepspeed/utils/groups.py",
    "deepspeed/utils/bwc.py",
    "deepspeed/utils/exceptions.py",
    "deepspeed/moe/layer.py",
    "deepspeed/module_inject/auto_ep_folding.py",
    "deepspeed/runtime/engine.py",  # read only for the glue's provenance, not executed
]

SPLIT_UNSUPPORTED = "No backend for the parent process group or its backend does not support splitting"


class Group:
    def __init__(self, ranks):
        self.ranks = [int(r) for r in ranks]


class FakeMesh:
    """torch DeviceMesh of a 2-D shape (row-major, last dim fastest): get_group(mesh_dim)."""

    def __init__(self, rank, shape, names):
        self.rank, self.shape, self.names = rank, tuple(shape), tuple(names)

    def get_group(self, mesh_dim):
        rows, cols = self.shape
        r, c = divmod(self.rank, cols)
        if self.names.index(mesh_dim) == 1:
            return Group(range(r * cols, (r + 1) * cols))
        return Group(range(c, rows * cols, cols))


def make_comm(rank, world, mesh_ok):
    comm = types.ModuleType("deepspeed.comm")
    comm.calls = []

    def new_group(ranks=None, *args, **kwargs):
        g = Group(range(world) if ranks is None else ranks)
        comm.calls.append(g.ranks)
        return g

    def get_rank(group=None):
        return rank if group is None else group.ranks.index(rank)

    def get_world_size(group=None):
        return world if group is None else len(group.ranks)

    def initialize_mesh_device(shape, names):
        if not mesh_ok:
            raise RuntimeError(SPLIT_UNSUPPORTED)
        return FakeMesh(rank, shape, names)

    comm.new_group = new_group
    comm.get_rank = get_rank
    comm.get_world_size = get_world_size
    comm.is_initialized = lambda: True
    comm.initialize_mesh_device = initialize_mesh_device
    comm.get_global_rank = lambda group, r: group.ranks[r]
    comm.get_all_ranks_from_group = lambda group: group.ranks
    return comm


def load(name, src, package):
    mod = types.ModuleType(name)
    mod.__package__ = package
    mod.__file__ = name.replace(".", "/") + ".py"
    sys.modules[name] = mod
    exec(compile(src, mod.__file__, "exec"), mod.__dict__)
    return mod


def fresh_modules(sources, rank, world, mesh_ok):
    for name in list(sys.modules):
        if name == "deepspeed" or name.startswith("deepspeed.") or name == "torch" or name.startswith("torch."):
            del sys.modules[name]
    pkg = lambda n: sys.modules.setdefault(n, types.ModuleType(n))
    ds = pkg("deepspeed")
    ds.__path__ = []
    comm = make_comm(rank, world, mesh_ok)
    sys.modules["deepspeed.comm"] = comm
    ds.comm = comm
    utils = pkg("deepspeed.utils")
    utils.__path__ = []
    utils.log_dist = lambda *a, **k: None
    acc = pkg("deepspeed.accelerator")
    acc.get_accelerator = lambda: None
    # torch: only names the executed files touch at import time.
    torch = pkg("torch")
    nn = pkg("torch.nn")
    nn.Module = type("Module", (), {"__init__": lambda self, *a, **k: None})
    nn.Linear = lambda *a, **k: None
    functional = pkg("torch.nn.functional")
    nn.functional = functional
    torch.nn = nn
    torch.Tensor = object
    torch.float32 = "float32"
    for n in ("deepspeed.runtime", "deepspeed.runtime.pipe", "deepspeed.moe", "deepspeed.module_inject"):
        pkg(n).__path__ = []
    experts = pkg("deepspeed.moe.experts")
    experts.Experts = lambda *a, **k: None
    sharded = pkg("deepspeed.moe.sharded_moe")

    class MOELayer:
        def __init__(self, *a, **k):
            self.ep_group = None

        def _set_ep_group(self, g):
            self.ep_group = g

    sharded.MOELayer = MOELayer
    sharded.TopKGate = lambda *a, **k: None
    load("deepspeed.utils.exceptions", sources["deepspeed/utils/exceptions.py"], "deepspeed.utils")
    load("deepspeed.utils.bwc", sources["deepspeed/utils/bwc.py"], "deepspeed.utils")
    groups = load("deepspeed.utils.groups", sources["deepspeed/utils/groups.py"], "deepspeed.utils")
    utils.groups = groups
    topo = load("deepspeed.runtime.pipe.topology", sources["deepspeed/runtime/pipe/topology.py"], "deepspeed.runtime.pipe")
    layer = load("deepspeed.moe.layer", sources["deepspeed/moe/layer.py"], "deepspeed.moe")
    folding = load("deepspeed.module_inject.auto_ep_folding", sources["deepspeed/module_inject/auto_ep_folding.py"],
                   "deepspeed.module_inject")
    return types.SimpleNamespace(comm=comm, groups=groups, topo=topo, layer=layer, folding=folding)


def autoep_engine_glue(m, ep_size, tp_size, pp_size, use_data_before_expert_parallel_):
    """runtime/engine.py DeepSpeedEngine._configure_expert_parallel, the group-making part, with
    autotp_size() = tp_size, no mpu (AutoEP refuses an mpu with tensor parallelism), sp from
    groups.mesh_device, expert_tensor_parallel_size 1, ZeRO stage 0 and no DeepCompile."""
    groups, dist = m.groups, m.comm
    sp_size = groups._get_sequence_parallel_world_size()
    world_size = dist.get_world_size()
    folding_spec = m.folding.build_folding_spec(
        world_size=world_size,
        pp_size=pp_size,
        tp_size=max(tp_size, 1),
        ep_size=ep_size,
        etp_size=1,
        mp_mode="tp" if tp_size > 1 else "sp",
    )
    m.folding.validate_folding_global(folding_spec, zero_stage=0, sp_size=sp_size,
                                      use_data_before_expert_parallel=use_data_before_expert_parallel_, mpu=None,
                                      autoep_enabled=True)
    mp_size = max(tp_size, sp_size, 1)
    mp_mode = "tp" if tp_size > 1 else "sp"
    groups._create_expert_and_data_parallel(
        expert_parallel_size_=ep_size,
        mp_size=mp_size,
        pp_size=pp_size,
        mp_mode=mp_mode,
        use_data_before_expert_parallel_=use_data_before_expert_parallel_,
        folding_spec=folding_spec if tp_size > 1 else None,
    )


def run_rank(sources, cfg, rank):
    """The groups rank `rank` holds, by kind."""
    world, pp, mp, ep = cfg["world"], cfg["pp"], cfg["mp"], cfg["ep"]
    dp = cfg["dp"] if cfg["dp"] != -1 else world // (pp * mp)
    path, topology, dbe = cfg["moe_path"], cfg["topology"], cfg["data_before_expert"]
    dbe = dbe or path == "data-before-expert"
    mesh_ok = path == "autoep-sp" or topology == "sp-mesh"
    m = fresh_modules(sources, rank, world, mesh_ok)
    held = {}
    if mesh_ok:
        # deepspeed.initialize(mesh_param=(dp, sp)) -> engine sets groups.mesh_device.
        m.groups.mesh_device = m.comm.initialize_mesh_device((dp, mp), ("data_parallel", "sequence_parallel"))
        held["data_parallel"] = m.groups._get_data_parallel_group()
        held["sequence_parallel"] = m.groups._get_sequence_parallel_group()
    elif (path == "autoep-tp" and mp > 1) or topology == "autotp":
        # engine._configure_tensor_parallel_states -> groups._init_tp_mesh_device(autotp_size); the
        # stub mesh refuses to split, so DeepSpeed takes its own new_group fallback.
        m.groups._init_tp_mesh_device(tensor_model_parallel_size=mp)
        held["data_parallel"] = m.groups.get_data_parallel_group()
        held["tensor_parallel"] = m.groups.get_tensor_model_parallel_group()
    else:
        if topology == "none":
            grid = m.topo.PipelineParallelGrid()
        elif topology == "pipe-data":
            grid = m.topo.PipelineParallelGrid(topology=m.topo.PipeDataParallelTopology(num_pp=pp, num_dp=dp))
        else:
            grid = m.topo.PipelineParallelGrid(
                topology=m.topo.PipeModelDataParallelTopology(num_pp=pp, num_mp=mp, num_dp=dp))
        held["model"] = grid.get_model_parallel_group()
        held["data"] = grid.get_data_parallel_group()
        held["pipe"] = grid.get_pipe_parallel_group()
        held["slice"] = grid.get_slice_parallel_group()
        m.groups.mpu = grid  # engine.py: groups.mpu = self.mpu (the pipeline engine's grid)
    if path in ("autoep-tp", "autoep-sp"):
        autoep_engine_glue(m, ep, mp if path == "autoep-tp" else 1, pp, dbe)
    elif ep > 1:
        # MoE(..., enable_expert_tensor_parallelism=...).set_deepspeed_parallelism(dbe): the layer
        # picks legacy E + D or E + M + D itself. "auto": the flag set when mp > 1.
        etp_flag = path == "emd" or (path in ("auto", "data-before-expert") and mp > 1)
        moe = m.layer.MoE(hidden_size=8, expert=None, num_experts=ep, ep_size=ep,
                          enable_expert_tensor_parallelism=etp_flag)
        moe.set_deepspeed_parallelism(use_data_before_expert_parallel_=dbe)
    if ep > 1:
        name = f"ep_size_{ep}"
        held["expert"] = m.groups._get_expert_parallel_group(name)
        held["expert_data"] = m.groups._get_expert_data_parallel_group(name)
    return {k: v.ranks for k, v in held.items()}


def run_config(sources, cfg):
    kinds = {}
    for rank in range(cfg["world"]):
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # MoE layer prints
                held = run_rank(sources, cfg, rank)
        except (AssertionError, ValueError, NotImplementedError, RuntimeError, ZeroDivisionError) as exc:
            return {**cfg, "error": f"{type(exc).__name__}: {exc}"}
        for kind, ranks in held.items():
            assert rank in ranks, (cfg["name"], kind, rank, ranks)
            kinds.setdefault(kind, set()).add(tuple(ranks))
    groups = {}
    for kind, sets in kinds.items():
        lists = sorted(sets)
        # Every rank in exactly one group of the kind.
        assert sorted(r for g in lists for r in g) == list(range(cfg["world"])), (cfg["name"], kind)
        groups[kind] = [list(g) for g in lists]
    return {**cfg, "groups": groups}


def cfg(name, world, pp=1, mp=1, dp=-1, ep=1, moe_path="auto", topology="pipe-model-data", data_before_expert=False):
    return dict(name=name, world=world, pp=pp, mp=mp, dp=dp, ep=ep, moe_path=moe_path, topology=topology,
                data_before_expert=data_before_expert)


CONFIGS = [
    # dense pipeline grids
    cfg("pmd-pp2-mp2-dp2", 8, pp=2, mp=2),
    cfg("pmd-pp4-mp2-dp3-uneven-world24", 24, pp=4, mp=2),
    cfg("pmd-pp1-mp4-dp4", 16, mp=4),
    cfg("pd-pp2-dp4", 8, pp=2, topology="pipe-data"),
    cfg("no-topology-world12", 12, topology="none"),
    cfg("no-topology-world30", 30, topology="none"),
    cfg("autotp-tp4-dp4", 16, mp=4, topology="autotp"),
    cfg("sp-mesh-sp4-dp2", 8, mp=4, topology="sp-mesh"),
    cfg("sp-mesh-sp2-moe-layer-ep4", 16, mp=2, ep=4, topology="sp-mesh"),
    cfg("autotp-tp2-moe-layer-ep4", 16, mp=2, ep=4, moe_path="emd", topology="autotp"),
    # MoE legacy E + D, D + E
    cfg("legacy-ep4-dp16", 16, ep=4),
    cfg("legacy-pp2-ep4", 16, pp=2, ep=4),
    cfg("legacy-mp2-ep4-no-etp", 16, mp=2, ep=4, moe_path="legacy"),
    cfg("legacy-mp2-ep2-pp2-no-etp", 16, pp=2, mp=2, ep=2, moe_path="legacy"),
    cfg("dbe-ep4", 16, ep=4, moe_path="data-before-expert"),
    cfg("dbe-pp2-ep2", 16, pp=2, ep=2, data_before_expert=True),
    # MoE E + M + D (a layer with enable_expert_tensor_parallelism and a tensor-parallel mpu)
    cfg("emd-mp2-ep4", 16, mp=2, ep=4),
    cfg("emd-mp2-pp2-ep2", 16, pp=2, mp=2, ep=2, moe_path="emd"),
    cfg("emd-mp2-ep2-dbe", 16, mp=2, ep=2, data_before_expert=True),
    cfg("emd-mp2-pp2-ep2-dbe-world32", 32, pp=2, mp=2, ep=2, data_before_expert=True),
    cfg("emd-mp4-ep8-world64", 64, mp=4, ep=8),
    # AutoEP
    cfg("autoep-tp2-ep4", 16, mp=2, ep=4, moe_path="autoep-tp"),
    cfg("autoep-tp4-ep8-cross-lane", 16, mp=4, ep=8, moe_path="autoep-tp"),
    cfg("autoep-sp2-ep4", 16, mp=2, ep=4, moe_path="autoep-sp"),
    cfg("autoep-sp4-ep2", 16, mp=4, ep=2, moe_path="autoep-sp"),
    cfg("autoep-tp1-ep4-legacy-path", 8, ep=4, moe_path="autoep-tp"),
    cfg("autoep-tp1-pp2-ep4", 16, pp=2, ep=4, moe_path="autoep-tp"),
    # invalid: DeepSpeed refuses
    cfg("bad-grid-pp3-world8", 8, pp=3, dp=2),
    cfg("bad-legacy-ep3", 16, ep=3),
    cfg("bad-legacy-pp2-ep16", 16, pp=2, ep=16),
    cfg("bad-emd-mp2-ep16", 16, mp=2, ep=16),
    cfg("bad-emd-mp4-ep8-dp12-world48", 48, mp=4, ep=8),
    cfg("bad-autoep-tp-pp2", 16, pp=2, mp=2, ep=2, moe_path="autoep-tp"),
    cfg("bad-autoep-tp-ep1", 16, mp=2, ep=1, moe_path="autoep-tp"),
    cfg("bad-autoep-tp-dbe", 16, mp=2, ep=4, moe_path="autoep-tp", data_before_expert=True),
    cfg("bad-autoep-sp-dbe", 16, mp=2, ep=4, moe_path="autoep-sp", data_before_expert=True),
    cfg("bad-autoep-tp-ep3", 12, mp=2, ep=8, moe_path="autoep-tp"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--out", default="golden.json")
    args = ap.parse_args()
    git = ["git", "--git-dir", args.git_dir]
    commit = subprocess.check_output(git + ["rev-parse", "HEAD"], text=True).strip()
    sources = {f: subprocess.check_output(git + ["show", f"{commit}:{f}"], text=True) for f in FILES}
    out = {
        "source": {"repo": "https://github.com/deepspeedai/DeepSpeed", "commit": commit, "files": FILES[:-1]},
        "configs": [run_config(sources, c) for c in CONFIGS],
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=False)
        f.write("\n")
    for c in out["configs"]:
        print(c["name"], "ERROR " + c["error"] if "error" in c else {k: len(v) for k, v in c["groups"].items()})


if __name__ == "__main__":
    main()
