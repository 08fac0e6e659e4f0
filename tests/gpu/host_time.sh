#!/usr/bin/env bash
# Issue 28, the host-time term: what one layer costs the host (Python, PyTorch dispatch, kernel
# launches) when the GPU's work is negligible. Megatron-LM pretrain_gpt.py, --transformer-impl local,
# every fusion off (as device_run28.sh), at tiny shapes (hidden 256, sequence 256), where each kernel
# runs in a few microseconds and the step is the host's time. Megatron's own timers
# (--timing-log-level 2: forward-compute, backward-compute, optimizer) give the forward, backward and
# optimizer host time per iteration; two depths (2 and 8 layers) give the time per layer as the
# difference; 16 and 64 experts give the time per local expert of SequentialMLP (the local
# implementation's experts). Iteration 10 is profiled (kernels per step, GPU busy time).
# Usage: host_time.sh OUT MEGATRON_DIR
set -uo pipefail
out=${1:?usage: host_time.sh OUT MEGATRON_DIR}
mlm=${2:?}
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export CUDA_DEVICE_MAX_CONNECTIONS=1
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  lscpu | grep -E "Model name|^CPU\(s\)|MHz"
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  echo "Megatron-LM $(cat "$mlm/COMMIT" 2>/dev/null || git -C "$mlm" log -1 --format=%H)"; } >"$out/host.txt" 2>&1

(cd "$mlm/megatron/core/datasets" && c++ -O3 -Wall -shared -std=c++17 -fPIC $(python3 -m pybind11 --includes) \
    helpers.cpp -o "helpers_cpp$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')") \
    >"$out/helpers-build.txt" 2>&1

# name layers experts micro-batches-per-step
RUNS=(
    "dense-l2 2 0 1"
    "dense-l8 8 0 1"
    "moe64-l2 2 64 1"
    "moe64-l8 8 64 1"
    "moe16-l8 8 16 1"
    "moe64-l8-m4 8 64 4"
    "dense-l8-m4 8 0 4"
)

run() {
    local name=$1 l=$2 e=$3 m=$4
    local d="$out/$name"
    mkdir -p "$d"
    local extra=()
    if [ "$e" -gt 0 ]; then
        extra+=(--num-experts "$e" --moe-router-topk 8 --moe-ffn-hidden-size 128 --moe-token-dispatcher-type alltoall
                --moe-router-load-balancing-type aux_loss --moe-aux-loss-coeff 0.01)
    fi
    local t0=$SECONDS
    (cd "$mlm" && timeout 150 torchrun --nproc-per-node 1 --master-port 29512 pretrain_gpt.py \
        --transformer-impl local --num-layers "$l" --hidden-size 256 --num-attention-heads 4 \
        --ffn-hidden-size 512 --swiglu --normalization RMSNorm --position-embedding-type rope --disable-bias-linear \
        --untie-embeddings-and-output-weights \
        --seq-length 256 --max-position-embeddings 256 --micro-batch-size 1 --global-batch-size "$m" \
        --train-iters 24 --lr 1e-5 --min-lr 1e-6 --lr-decay-style constant --bf16 \
        --mock-data --tokenizer-type NullTokenizer --vocab-size 1024 --hidden-dropout 0 --attention-dropout 0 \
        --no-gradient-accumulation-fusion --no-masked-softmax-fusion --no-bias-swiglu-fusion --no-bias-dropout-fusion \
        --no-rope-fusion --no-persist-layer-norm --log-interval 1 --eval-iters 0 --eval-interval 100000 \
        --timing-log-level 2 --timing-log-option max \
        --profile --use-pytorch-profiler --profile-step-start 10 --profile-step-end 11 \
        --tensorboard-dir "$d/tb" --distributed-backend nccl "${extra[@]}") >"$d/log.txt" 2>&1
    echo "$name: rc=$? $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
    local tr
    tr=$(ls "$d"/tb/torch_profile/rank-0.json.gz "$d"/torch_profile/rank-0.json.gz 2>/dev/null | head -1)
    [ -n "$tr" ] && python3 "$here/trace_summary.py" "$tr" >"$d/profile.json"
    rm -rf "$d/tb" "$d/torch_profile"
}

for r in "${RUNS[@]}"; do run $r; done
