#!/usr/bin/env bash
# Issue 28: HF transformers steps on the lent H100, long enough to run at the board's power limit
# (2 warm-up steps, then 30 timed): the Llama-3.1-8B layer shape (8 layers) at micro-batch 1 and 2,
# and Llama-3.2-1B at micro-batch 2, sequence 4096 (tests/gpu/hf_step.py, SDPA, AdamW).
# Usage: device_run_h100_steps.sh OUT
set -uo pipefail
out=${1:?usage: device_run_h100_steps.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)'; } >"$out/host.txt" 2>&1
# name hidden layers heads kv ffn vocab tied mbs
RUNS=(
    "llama3.1-8b-8l-m1 4096 8 32 8 14336 128256 0 1"
    "llama3.1-8b-8l-m2 4096 8 32 8 14336 128256 0 2"
    "llama3.2-1b-m2 2048 16 32 8 8192 128256 1 2"
)
for r in "${RUNS[@]}"; do
    set -- $r
    args=(--name "$1" --hidden "$2" --layers "$3" --heads "$4" --kv-heads "$5" --ffn "$6" --vocab "$7" --mbs "$9"
          --warmup 2 --steps 30)
    [ "$8" = 1 ] && args+=(--tied)
    t0=$SECONDS
    (nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader -lms 500 >"$out/smi-$1.txt" 2>&1 & echo $! >"$out/.smi")
    timeout 200 python3 "$here/hf_step.py" "${args[@]}" --out "$out" >>"$out/hf-log.txt" 2>&1
    echo "$1: rc=$? $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
    kill "$(cat "$out/.smi")" 2>/dev/null; rm -f "$out/.smi"
done
