#!/usr/bin/env bash
# Runs on the lent device machine (the `run` tool), from the repository root:
#   bash tests/gpu/device_run.sh [WORLD [HARNESS ARGS...]]   (SKIP_CPU=1: no gloo runs)
# Host capture + the GPU harness at world WORLD (default: every visible GPU), then the same
# harness on CPU with gloo at world 2 and 4 (small sizes) to exercise the multi-rank code paths.
# Everything lands in $OUT/data (tarred to $OUT/gpu-data.tar.gz: the tool brings back 8 files).
# TAG=-name: suffix of the data folder (h200-2gpu-name); PARTS="moe": only those harness parts.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
H=tests/gpu/harness.py
NGPU=$(python3 -c 'import torch; print(torch.cuda.device_count())')
WORLD=${1:-$NGPU}
shift || true
D=$OUT/data/h200-${WORLD}gpu${TAG:-}
mkdir -p "$D"
nvidia-smi -L
python3 $H capture --out "$D" 2>&1 | tee "$D/capture.log"
python3 $H ${PARTS:-sweep moe} --world "$WORLD" --out "$D" "$@" 2>&1 | tee "$D/run.log"
echo "gpu harness rc ${PIPESTATUS[0]}"
[ "${SKIP_CPU:-0}" = 1 ] || for W in 2 4; do
  C=$OUT/data/cpu-gloo-w$W
  mkdir -p "$C"
  CUDA_VISIBLE_DEVICES= python3 $H sweep moe --device cpu --world $W --out "$C" --sizes-mib 1,16 \
    --ep 4,2 --experts 8 --tokens 512 --hidden 256 --ffn 512 --port $((30000 + W * 100)) 2>&1 | tee "$C/run.log"
  echo "cpu gloo world $W rc ${PIPESTATUS[0]}"
done
tar -C "$OUT/data" -czf "$OUT/gpu-data.tar.gz" . && rm -rf "$OUT/data"
ls -la "$OUT"
