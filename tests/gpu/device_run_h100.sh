#!/usr/bin/env bash
# Issue 28: the kernel sweeps of layouts/kernels/h200.json, run again on the lent H100 SXM (the GPU
# of the published DGX-H100 rows), so that H100 layouts use kernels measured on an H100 instead of
# the H200's carried by the memory-bandwidth ratio. Same scripts, same arguments as on the H200:
#   fp8.py gemm grouped quant       (bf16 and FP8 GEMMs, grouped expert GEMMs, FP8 quantization)
#   kernels.py attn optim launch membw
#   blocks.py --megatron MLM        (the memory-bound blocks, HF and Megatron-LM local; then --moe-only)
# Usage: device_run_h100.sh OUT MEGATRON_DIR
set -uo pipefail
out=${1:?usage: device_run_h100.sh OUT MEGATRON_DIR}
mlm=${2:?}
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "transformers", transformers.__version__)'
  echo "Megatron-LM $(cat "$mlm/COMMIT" 2>/dev/null)"; } >"$out/host.txt" 2>&1
step() {
    local name=$1; shift
    local t0=$SECONDS
    "$@" >"$out/$name-log.txt" 2>&1
    echo "$name: rc=$? $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
}
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >"$out/clocks-before.txt" 2>&1
step fp8 python3 "$here/fp8.py" gemm grouped quant --out "$out" --tag h100 --samples 10
step kernels python3 "$here/kernels.py" attn optim launch membw --out "$out" --tag h100
step blocks python3 "$here/blocks.py" --megatron "$mlm" --out "$out" --tag h100
step blocks-moe python3 "$here/blocks.py" --megatron "$mlm" --out "$out" --tag h100 --moe-only
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >"$out/clocks-after.txt" 2>&1
