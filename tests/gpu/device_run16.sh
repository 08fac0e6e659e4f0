#!/usr/bin/env bash
# Issue 16 (compute model, SHM, overlap): what ran on the lent device machine.
#   bash tests/gpu/device_run16.sh          (from the repository root; uses the harness beside this file)
# - 1 GPU or more: host capture + `ops` (per-op compute sweep and the MoE layer's compute alone)
#   -> data/h200-ops/ (ops-h200.json, ops-h200.txt, clocks before/after, moe-compute-*/ step logs)
# - 2 GPUs or more: MoE step in fast (P2P), shm (NCCL_P2P_DISABLE=1) and tcp (socket) modes with
#   all_reduce/all_to_all/sendrecv sweeps in the same three -> data/h200-2gpu-shm/; the `dp` part
#   (DDP step, bucketed all-reduce overlapping backward) in fast and tcp -> data/h200-2gpu-dp/
# - always (SKIP_CPU=1: not): the 2-GPU parts on CPU with gloo at world 2, small sizes
#   -> data/cpu-gloo-w2-issue16/ (multi-rank code paths only; gloo ignores the NCCL variables)
# Everything lands in $OUT/data, tarred to $OUT/gpu-data16.tar.gz.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
H=$(dirname "$0")/harness.py
NGPU=$(python3 -c 'import torch; print(torch.cuda.device_count())')
date -u
nvidia-smi -L
mkdir -p "$OUT/data"
D=$OUT/data/h200-ops
mkdir -p "$D"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv; } >"$D/provenance.txt"
timeout ${OPS_TIMEOUT:-400} python3 $H capture ops --out "$D" 2>&1 | tee "$D/run.log"
echo "ops rc ${PIPESTATUS[0]}" | tee -a "$D/run.log"
if [ "$NGPU" -ge 2 ]; then
  S=$OUT/data/h200-2gpu-shm
  mkdir -p "$S"
  python3 $H capture --out "$S" >"$S/capture.log" 2>&1
  timeout 420 python3 $H sweep moe --world 2 --out "$S" --transports fast,shm,tcp --ops all_reduce,all_to_all,sendrecv \
    --ep 2,1 --port 29600 2>&1 | tee "$S/run.log"
  echo "shm rc ${PIPESTATUS[0]}" | tee -a "$S/run.log"
  P=$OUT/data/h200-2gpu-dp
  mkdir -p "$P"
  timeout 300 python3 $H dp --world 2 --out "$P" --transports fast,tcp --port 29700 2>&1 | tee "$P/run.log"
  echo "dp rc ${PIPESTATUS[0]}" | tee -a "$P/run.log"
fi
if [ "${SKIP_CPU:-0}" != 1 ]; then
  C=$OUT/data/cpu-gloo-w2-issue16
  mkdir -p "$C"
  CUDA_VISIBLE_DEVICES= timeout 240 python3 $H sweep moe dp --device cpu --world 2 --out "$C" --transports fast,shm,tcp \
    --dp-transports fast,tcp --ops all_reduce,all_to_all,sendrecv --sizes-mib 1,16 --ep 2,1 --experts 8 --tokens 512 \
    --hidden 256 --ffn 512 --dp-width 256 --dp-layers 4 --dp-tokens 64,256,1024 --dp-bucket-mb 0.25 --rounds 1 \
    --port 31200 2>&1 | tee "$C/run.log"
  echo "cpu gloo world 2 rc ${PIPESTATUS[0]}" | tee -a "$C/run.log"
fi
date -u
tar -C "$OUT/data" -czf "$OUT/gpu-data16.tar.gz" . && rm -rf "$OUT/data"
ls -la "$OUT"
