"""One-GPU NCCL communicator (world size 1), used by nccl_topo_device.sh.

Runs torch.distributed with backend nccl on one process and one GPU and does one all_reduce, so
NCCL builds its communicator and with it the topology: what NCCL_TOPO_FILE gave and what it
detected. The caller sets NCCL_TOPO_FILE, NCCL_TOPO_DUMP_FILE and NCCL_DEBUG* in the environment;
this script only prints the result (one JSON line) and exits 0 when the all_reduce gave 1.0.
"""
import json
import os
import sys

import torch
import torch.distributed as dist


def main() -> int:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", sys.argv[1] if len(sys.argv) > 1 else "29561")
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda", 0))
    x = torch.ones(1024, device="cuda")
    dist.all_reduce(x)
    torch.cuda.synchronize()
    ok = bool(torch.all(x == 1.0).item())
    dist.destroy_process_group()
    print(json.dumps({"all_reduce_ok": ok, "torch": torch.__version__,
                      "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                      "gpu": torch.cuda.get_device_name(0),
                      "topo_file": os.environ.get("NCCL_TOPO_FILE", "")}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
