#!/usr/bin/env bash
# Issue 28's runs on one lent H200 (what ran, kept with its results under tests/gpu/data/h200-steps/):
#   megatron  Megatron-LM pretrain_gpt.py, --transformer-impl local, every fusion off, mock data, one
#             GPU, 12 iterations of one micro-batch of 4096 tokens; iteration 10 profiled (PyTorch
#             profiler trace, summarized by trace_summary.py)
#   kernels   tests/gpu/kernels.py attn optim launch membw
#   hf        tests/gpu/hf_step.py: the same shapes with HF transformers (sdpa), AdamW
# Usage: device_run28.sh OUT MEGATRON_DIR {megatron|kernels|hf}...
# MEGATRON_DIR: a Megatron-LM checkout (megatron/, pretrain_gpt.py, gpt_builders.py, model_provider.py).
set -uo pipefail
out=${1:?usage: device_run28.sh OUT MEGATRON_DIR WHAT...}
mlm=${2:?}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export CUDA_DEVICE_MAX_CONNECTIONS=1
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "transformers", transformers.__version__)'
  git -C "$mlm" log -1 --format=%H 2>/dev/null || cat "$mlm/COMMIT" 2>/dev/null; } >"$out/host.txt" 2>&1

# name hidden layers heads kv ffn vocab tied experts topk moe_ffn
SHAPES=(
    "llama3.2-1b 2048 16 32 8 8192 128256 1 0 0 0"
    "llama3.2-3b 3072 28 24 8 8192 128256 1 0 0 0"
    "qwen2.5-1.5b-shape 1536 28 12 2 8960 151936 1 0 0 0"
    "llama3.1-8b-8l 4096 8 32 8 14336 128256 0 0 0 0"
    "olmoe-8l 2048 8 16 16 1024 50304 0 64 8 1024"
)

megatron() {
    local name=$1 h=$2 l=$3 n=$4 kv=$5 f=$6 v=$7 tied=$8 e=$9 k=${10} mf=${11}
    local d="$out/megatron-$name"
    mkdir -p "$d"
    local extra=()
    [ "$tied" = 1 ] || extra+=(--untie-embeddings-and-output-weights)
    [ "$kv" = "$n" ] || extra+=(--group-query-attention --num-query-groups "$kv")
    if [ "$e" -gt 0 ]; then
        extra+=(--num-experts "$e" --moe-router-topk "$k" --moe-ffn-hidden-size "$mf" --moe-token-dispatcher-type alltoall
                --moe-router-load-balancing-type aux_loss --moe-aux-loss-coeff 0.01)
    fi
    local t0=$SECONDS
    (cd "$mlm" && timeout 115 torchrun --nproc-per-node 1 --master-port 29511 pretrain_gpt.py \
        --transformer-impl local --num-layers "$l" --hidden-size "$h" --num-attention-heads "$n" \
        --ffn-hidden-size "$f" --swiglu --normalization RMSNorm --position-embedding-type rope --disable-bias-linear \
        --seq-length 4096 --max-position-embeddings 4096 --micro-batch-size 1 --global-batch-size 1 \
        --train-iters 12 --lr 1e-5 --min-lr 1e-6 --lr-decay-style constant --bf16 \
        --mock-data --tokenizer-type NullTokenizer --vocab-size "$v" --hidden-dropout 0 --attention-dropout 0 \
        --no-gradient-accumulation-fusion --no-masked-softmax-fusion --no-bias-swiglu-fusion --no-bias-dropout-fusion \
        --no-rope-fusion --no-persist-layer-norm --log-interval 1 --eval-iters 0 --eval-interval 100000 \
        --log-throughput --profile --use-pytorch-profiler --profile-step-start 10 --profile-step-end 11 \
        --tensorboard-dir "$d/tb" --distributed-backend nccl "${extra[@]}") >"$d/log.txt" 2>&1
    echo "megatron $name: rc=$? $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
    grep -E "elapsed time per iteration|memory \(MB\)|padded vocab|number of parameters" "$d/log.txt" | tail -14 >>"$out/summary.txt"
    local tr
    tr=$(ls "$d"/torch_profile/rank-0.json.gz 2>/dev/null | head -1)
    [ -n "$tr" ] && python3 "$here/trace_summary.py" "$tr" >"$d/profile.json" && rm -f "$tr"
    rm -rf "$d/tb"
}

for what in "$@"; do
    case $what in
        megatron)
            # The dataset index helpers, built here (make picks python3-config's suffix, absent in venvs).
            (cd "$mlm/megatron/core/datasets" && c++ -O3 -Wall -shared -std=c++17 -fPIC $(python3 -m pybind11 --includes) \
                helpers.cpp -o "helpers_cpp$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')") \
                >"$out/helpers-build.txt" 2>&1
            for s in "${SHAPES[@]}"; do megatron $s; done ;;
        kernels)
            t0=$SECONDS
            python3 "$here/kernels.py" attn optim launch membw --out "$out" --tag h200 >"$out/kernels-log.txt" 2>&1
            echo "kernels: rc=$? $((SECONDS - t0)) s" | tee -a "$out/summary.txt" ;;
        hf)
            for s in "${SHAPES[@]}"; do
                set -- $s
                t0=$SECONDS
                args=(--name "$1" --hidden "$2" --layers "$3" --heads "$4" --kv-heads "$5" --ffn "$6" --vocab "$7")
                [ "$8" = 1 ] && args+=(--tied)
                [ "$9" -gt 0 ] && args+=(--experts "$9" --topk "${10}" --moe-ffn "${11}")
                timeout 150 python3 "$here/hf_step.py" "${args[@]}" --out "$out" >>"$out/hf-log.txt" 2>&1
                echo "hf $1: rc=$? $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
            done ;;
        *) echo "unknown part $what" >&2 ;;
    esac
done
tail -40 "$out/hf-log.txt" 2>/dev/null | grep -v "^\s*$" | tail -8
