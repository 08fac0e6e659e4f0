#!/usr/bin/env bash
# The host-time term over hidden and expert count: what one Megatron-LM local layer and one local
# expert (SequentialMLP) cost the host (Python, PyTorch dispatch, kernel launches) in forward and
# backward, at hidden 256-4096 and 8-128 experts, on one GPU. The built-in fit
# (layouts/kernels/h100.json "host" -> "megatron", host_time.sh) was taken at hidden 256 only.
#
# Method. At hidden 256 the GPU's work is negligible and Megatron's whole-pass timers are the host's
# time; at hidden 4096 they are not, so here the host's time is taken on the CPU side itself:
#   - host_sweep.py launch runs pretrain_gpt.py (--transformer-impl local, every fusion off, the
#     arguments of host_time.sh) with hooks that read time.perf_counter_ns at each layer's forward
#     start and end and, through tensor hooks on the layer's output and input, at its backward start
#     and end (the autograd thread's launch of the layer's last kernel, DDP gradient hooks included);
#     the same around every SequentialMLP (all local experts of one MoE layer);
#   - the wall time the host spends waiting for the GPU (torch.cuda.synchronize, Stream.synchronize,
#     Event.synchronize: Megatron's timers and the alltoall dispatcher's token-count sync, the only
#     synchronisations on these paths) is recorded and taken out of each span;
#   - the GPU work is kept small against the host's: sequence 256, micro-batch 1, ffn 2 x hidden,
#     experts of width 128 (the fit's shapes, hidden scaled), so the GPU trails the host and the
#     host never waits for it inside a layer; iteration 17 is profiled (PyTorch profiler) and
#     host_sweep.py trace gives the GPU's busy time of the forward and backward kernels (split by
#     the launching thread: the autograd engine's thread is the backward), which must stay under
#     the host's span for the spans to be the host's alone.
# Per run: medians over iterations 3-14 and over the layers of the per-layer host time (wall less
# GPU waits), fwd and bwd; at 8 layers also over layers 3-8 alone ("steady": the first two layers'
# forward carries about +1.5 and +0.9 ms of per-step cost at every hidden, the fit's base term);
# per local expert: the slope of the MoE layer's host time over 8, 32 and 128 experts at one hidden
# (the fit's expert_us), and the same for the SequentialMLP block alone. The host is a shared VM:
# repeats of one configuration differ by up to 1.8x, so configurations are repeated and compared
# on their quietest repeat (host_sweep.py collect: minimum and median over repeats).
# Megatron's timers (--timing-log-level 2) are kept, so each run also checks the fit's whole-pass
# prediction (base + layers x per-layer). dense-h256-l2/l8 repeat the fit's dense runs (the hook
# method against the timers' depth difference); dense-h4096-l2 gives the depth difference at 4096.
#
# Usage: host_sweep.sh OUT MEGATRON_DIR [RUN...]       (RUN: names below; default: all)
# e.g. from the repository root, Megatron-LM (commit d98e8a64) in devrun/mlm:
#   bash tests/gpu/host_sweep.sh OUT devrun/mlm dense-h256-l8 dense-h4096-l8
# Writes OUT/host.txt, OUT/summary.txt and per run OUT/NAME/{log.txt,events.jsonl,profile.json,
# run.json}; then host_sweep.py collect OUT writes OUT/summary.json.
set -uo pipefail
out=${1:?usage: host_sweep.sh OUT MEGATRON_DIR [RUN...]}
mlm=$(cd "${2:?}" && pwd)
shift 2
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export CUDA_DEVICE_MAX_CONNECTIONS=1
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -s "$out/host.txt" ] || {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv
  lscpu | grep -E "Model name|^CPU\(s\)|MHz|Thread|Socket"
  uname -r
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  echo "Megatron-LM $(cat "$mlm/COMMIT" 2>/dev/null || echo unknown)"; } >"$out/host.txt" 2>&1

ext=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
[ -e "$mlm/megatron/core/datasets/helpers_cpp$ext" ] ||
  (cd "$mlm/megatron/core/datasets" && c++ -O3 -Wall -shared -std=c++17 -fPIC $(python3 -m pybind11 --includes) \
    helpers.cpp -o "helpers_cpp$ext") >"$out/helpers-build.txt" 2>&1

# name hidden layers experts topk
RUNS=(
    "dense-h256-l8 256 8 0 0"
    "dense-h256-l2 256 2 0 0"
    "dense-h512-l8 512 8 0 0"
    "dense-h1024-l8 1024 8 0 0"
    "dense-h2048-l8 2048 8 0 0"
    "dense-h4096-l8 4096 8 0 0"
    "dense-h4096-l2 4096 2 0 0"
    "moe8-h1024-l4 1024 4 8 8"
    "moe32-h1024-l4 1024 4 32 8"
    "moe128-h1024-l4 1024 4 128 8"
    "moe8-h4096-l4 4096 4 8 8"
    "moe32-h4096-l4 4096 4 32 8"
    "moe128-h4096-l4 4096 4 128 8"
    "moe8-h256-l4 256 4 8 8"
    "moe128-h256-l4 256 4 128 8"
    "moe32-h256-l4 256 4 32 8"
)

run() {
    local name=$1 h=$2 l=$3 e=$4 k=$5
    local d="$out/$name"
    rm -rf "$d"; mkdir -p "$d"
    local extra=()
    if [ "$e" -gt 0 ]; then
        extra+=(--num-experts "$e" --moe-router-topk "$k" --moe-ffn-hidden-size 128 --moe-token-dispatcher-type alltoall
                --moe-router-load-balancing-type aux_loss --moe-aux-loss-coeff 0.01)
    fi
    local args=(--transformer-impl local --num-layers "$l" --hidden-size "$h" --num-attention-heads $((h / 64))
        --ffn-hidden-size $((2 * h)) --swiglu --normalization RMSNorm --position-embedding-type rope --disable-bias-linear
        --untie-embeddings-and-output-weights
        --seq-length 256 --max-position-embeddings 256 --micro-batch-size 1 --global-batch-size 1
        --train-iters 18 --lr 1e-5 --min-lr 1e-6 --lr-decay-style constant --bf16
        --mock-data --tokenizer-type NullTokenizer --vocab-size 1024 --hidden-dropout 0 --attention-dropout 0
        --no-gradient-accumulation-fusion --no-masked-softmax-fusion --no-bias-swiglu-fusion --no-bias-dropout-fusion
        --no-rope-fusion --no-persist-layer-norm --log-interval 1 --eval-iters 0 --eval-interval 100000
        --timing-log-level 2 --timing-log-option max
        --profile --use-pytorch-profiler --profile-step-start 16 --profile-step-end 17
        --tensorboard-dir "$d/tb" --distributed-backend nccl "${extra[@]}")
    echo "cd MEGATRON_DIR && HOST_SWEEP_EVENTS=RUN/events.jsonl torchrun --nproc-per-node 1 tests/gpu/host_sweep.py launch MEGATRON_DIR ${args[*]}" \
        | sed "s#$d#RUN#g" >"$d/command.txt"
    local t0=$SECONDS
    (cd "$mlm" && HOST_SWEEP_EVENTS="$d/events.jsonl" timeout 170 torchrun --nproc-per-node 1 --master-port 29514 \
        "$here/host_sweep.py" launch "$mlm" "${args[@]}") >"$d/log.txt" 2>&1
    echo "$name: rc=$? $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
    local tr
    tr=$(ls "$d"/torch_profile/rank-0.json.gz "$d"/tb/torch_profile/rank-0.json.gz 2>/dev/null | head -1)
    [ -n "$tr" ] && python3 "$here/host_sweep.py" trace "$tr" >"$d/profile.json"
    rm -rf "$d/tb" "$d/torch_profile"
    python3 "$here/host_sweep.py" run "$d" --hidden "$h" --layers "$l" --experts "$e" --topk "$k" \
        --command "$(cat "$d/command.txt")" >"$d/run.json" 2>"$d/run-err.txt" &&
      python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("  layer fwd/bwd us", r["layer_fwd_us"], r["layer_bwd_us"], "wait", r["layer_fwd_wait_us"], r["layer_bwd_wait_us"], "experts", r.get("experts_fwd_us"), r.get("experts_bwd_us"), "gpu/layer", r.get("gpu_fwd_busy_per_layer_us"), r.get("gpu_bwd_busy_per_layer_us"), "timers", r["timers_us"])' "$d/run.json" | tee -a "$out/summary.txt"
}

want=("$@")
for r in "${RUNS[@]}"; do
    set -- $r
    if [ ${#want[@]} -eq 0 ] || printf '%s\n' "${want[@]}" | grep -qx "$1"; then run $r; fi
done
python3 "$here/host_sweep.py" collect "$out" --table "$here/../../layouts/kernels/h100.json" || true
