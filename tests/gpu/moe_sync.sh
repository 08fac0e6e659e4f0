#!/usr/bin/env bash
# Issue 28: what the alltoall dispatcher's host synchronisation costs a step. Megatron-LM's
# MoEAlltoAllTokenDispatcher copies the token counts to the host and synchronises the stream once a
# MoE layer's forward (cuda_sync_point) unless the experts' inputs are dropped and padded to
# capacity (--moe-expert-capacity-factor with --moe-pad-expert-input-to-capacity: static shapes, no
# synchronisation). Same model, same force-balanced routing, two runs: dropless and drop+pad.
# pretrain_gpt.py, --transformer-impl local, every fusion off (as device_run28.sh), one GPU,
# 14 iterations of one micro-batch of 4096 tokens; iteration 12 profiled (trace_summary.py: GPU busy).
# Usage: moe_sync.sh OUT MEGATRON_DIR
set -uo pipefail
out=${1:?usage: moe_sync.sh OUT MEGATRON_DIR}
mlm=${2:?}
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export CUDA_DEVICE_MAX_CONNECTIONS=1
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  lscpu | grep -E "Model name|^CPU\(s\)"
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  echo "Megatron-LM $(cat "$mlm/COMMIT" 2>/dev/null)"; } >"$out/host.txt" 2>&1
(cd "$mlm/megatron/core/datasets" && c++ -O3 -Wall -shared -std=c++17 -fPIC $(python3 -m pybind11 --includes) \
    helpers.cpp -o "helpers_cpp$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')") \
    >"$out/helpers-build.txt" 2>&1

# name layers experts topk moe_ffn
SHAPES=(
    "e128k8 4 128 8 768"
    "e16k2 4 16 2 3072"
)
run() {
    local name=$1 l=$2 e=$3 k=$4 f=$5 mode=$6
    local d="$out/$name-$mode"
    mkdir -p "$d"
    local extra=()
    [ "$mode" = droppad ] && extra+=(--moe-expert-capacity-factor 1.0 --moe-pad-expert-input-to-capacity)
    local t0=$SECONDS
    (cd "$mlm" && timeout 170 torchrun --nproc-per-node 1 --master-port 29513 pretrain_gpt.py \
        --transformer-impl local --num-layers "$l" --hidden-size 2048 --num-attention-heads 32 \
        --group-query-attention --num-query-groups 4 --kv-channels 128 \
        --ffn-hidden-size 6144 --swiglu --normalization RMSNorm --position-embedding-type rope --disable-bias-linear \
        --untie-embeddings-and-output-weights \
        --num-experts "$e" --moe-router-topk "$k" --moe-ffn-hidden-size "$f" --moe-token-dispatcher-type alltoall \
        --moe-router-load-balancing-type none --moe-router-force-load-balancing \
        --seq-length 4096 --max-position-embeddings 4096 --micro-batch-size 1 --global-batch-size 1 \
        --train-iters 14 --lr 1e-5 --min-lr 1e-6 --lr-decay-style constant --bf16 \
        --mock-data --tokenizer-type NullTokenizer --vocab-size 32000 --hidden-dropout 0 --attention-dropout 0 \
        --no-gradient-accumulation-fusion --no-masked-softmax-fusion --no-bias-swiglu-fusion --no-bias-dropout-fusion \
        --no-rope-fusion --no-persist-layer-norm --log-interval 1 --eval-iters 0 --eval-interval 100000 \
        --profile --use-pytorch-profiler --profile-step-start 12 --profile-step-end 13 \
        --tensorboard-dir "$d/tb" --distributed-backend nccl "${extra[@]}") >"$d/log.txt" 2>&1
    echo "$name-$mode: rc=$? $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
    grep -E "elapsed time per iteration" "$d/log.txt" | sed -E 's/.*iteration +([0-9]+)\/.*per iteration \(ms\): ([0-9.]+).*/iteration \1 \2 ms/' >>"$out/summary.txt"
    local tr
    tr=$(ls "$d"/torch_profile/rank-0.json.gz 2>/dev/null | head -1)
    [ -n "$tr" ] && python3 "$here/trace_summary.py" "$tr" >"$d/profile.json" && rm -f "$tr"
    rm -rf "$d/tb" "$d/torch_profile"
}
for s in "${SHAPES[@]}"; do
    for mode in dropless droppad; do run $s $mode; done
done
