#!/bin/bash
# Issue 18 item 5: the launch output runs as written. For each launch script and launcher, the
# generated script passes `bash -n`, then runs with stub srun/torchrun/python on PATH (stubs/)
# that record every worker's environment and argv; every rank must start once, with RANK 0..W-1,
# LOCAL_RANK = RANK mod G, WORLD_SIZE = W, MASTER_ADDR = the first host, on the host the plan
# gives it (--format scheduler: rank -> host; torchrun finds its node rank by `hostname -s`, a stub
# that answers the node the job is run on; under Slurm each task finds it by SLURMD_NODENAME, run
# once with Slurm's node order the plan's and once reversed), CUDA_VISIBLE_DEVICES the plan's GPU
# order of that host (the stub srun resets it per task, as Slurm does), and argv byte for byte
# what the user's own script passes to its training script (the script itself, run by bash with
# the stub torchrun, gives that reference).
# Usage: check_launch.sh PLAN_LAYOUT_BINARY SOURCE_DIR
set -euo pipefail
bin=$1
src=$2
here=$src/tests/launch
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH="$here/stubs:$PATH"
fail=0

# check NAME LAUNCHER NODES PER_NODE REFERENCE_ARGV -- plan-layout analyze args...   (REFERENCE_ARGV -: not compared)
check() {
    local name=$1 launcher=$2 nodes=$3 per_node=$4 reference=$5
    shift 6
    local world=$((nodes * per_node)) out=$work/$name-$launcher
    mkdir -p "$out"
    "$bin" analyze "$@" --format launch --launcher "$launcher" -o "$out/job.sh"
    bash -n "$out/job.sh" || { echo "FAIL $name $launcher: bash -n"; fail=1; return; }
    local hosts="" i
    # Slurm's node order: the plan's, or (SLURM_ORDER=reversed) the other way round.
    for ((i = 0; i < nodes; i++)); do
        if [ "${SLURM_ORDER:-}" = reversed ]; then hosts="node$i${hosts:+,}$hosts"; else hosts+="${hosts:+,}node$i"; fi
    done
    # The plan's host of every rank, one per line in rank order, and each host's GPU order.
    "$bin" analyze "$@" --format scheduler -o "$out/scheduler.json"
    python3 -c 'import json, sys; print("\n".join(r["host"] + " " + str(r["nic"]) for r in json.load(open(sys.argv[1]))["ranks"]))' \
        "$out/scheduler.json" > "$out/plan-hosts"
    python3 -c 'import json, sys; print("\n".join(n["host"] + " " + n["CUDA_VISIBLE_DEVICES"] for n in json.load(open(sys.argv[1]))["nodes"]))' \
        "$out/scheduler.json" > "$out/plan-gpus"
    if [ "$launcher" = torchrun ]; then
        for ((i = 0; i < nodes; i++)); do
            # run "on" node i: no NODE_RANK, the job finds it from hostname -s in its HOSTS
            STUB_OUT=$out STUB_HOST=node$i bash "$out/job.sh" > "$out/log" 2>&1 || { cat "$out/log"; fail=1; return; }
        done
    else
        STUB_OUT=$out SLURM_JOB_NODELIST=$hosts SLURM_JOB_ID=42 bash "$out/job.sh" > "$out/log" 2>&1 ||
            { echo "FAIL $name $launcher: the script failed"; cat "$out/log"; fail=1; return; }
    fi
    local started
    started=$(find "$out" -name 'rank.*.argv' | wc -l)
    [ "$started" -eq "$world" ] || { echo "FAIL $name $launcher: $started workers started, not $world"; fail=1; }
    local r
    for ((r = 0; r < world; r++)); do
        local env=$out/rank.$r.env
        [ -f "$env" ] || { echo "FAIL $name $launcher: no rank $r"; fail=1; continue; }
        grep -qx "LOCAL_RANK=$((r % per_node))" "$env" || { echo "FAIL $name $launcher: rank $r: $(grep LOCAL_RANK "$env")"; fail=1; }
        grep -qx "WORLD_SIZE=$world" "$env" || { echo "FAIL $name $launcher: rank $r: $(grep WORLD_SIZE "$env")"; fail=1; }
        grep -qx "MASTER_ADDR=node0" "$env" || { echo "FAIL $name $launcher: rank $r: $(grep MASTER_ADDR "$env")"; fail=1; }
        local host
        host=$(sed -n "$((r + 1))p" "$out/plan-hosts" | cut -d' ' -f1)
        grep -qx "HOST=$host" "$env" || { echo "FAIL $name $launcher: rank $r runs on $(grep '^HOST=' "$env"), the plan puts it on $host"; fail=1; }
        local gpus
        gpus=$(awk -v h="$host" '$1 == h { print $2 }' "$out/plan-gpus")
        grep -qx "CUDA_VISIBLE_DEVICES=$gpus" "$env" || { echo "FAIL $name $launcher: rank $r: $(grep CUDA_VISIBLE "$env"), the plan's $gpus"; fail=1; }
        if [ "$launcher" = slurm-tasks ]; then
            # one NIC per rank: the rail NIC of its GPU (GPU i <-> mlx5_i on these templates)
            local nic
            nic=$(sed -n "$((r + 1))p" "$out/plan-hosts" | cut -d' ' -f2)
            grep -qx "NCCL_IB_HCA==$nic" "$env" || { echo "FAIL $name $launcher: rank $r: $(grep NCCL_IB_HCA "$env"), the plan's =$nic"; fail=1; }
        fi
        [ "$reference" = - ] || cmp -s "$reference" "$out/rank.$r.argv" || {
            echo "FAIL $name $launcher: rank $r argv differs from the user's script:"
            diff <(tr '\0' '\n' < "$reference") <(tr '\0' '\n' < "$out/rank.$r.argv") | head -5
            fail=1
        }
    done
    echo "ok   $name $launcher: $world ranks${SLURM_ORDER:+, Slurm node order $SLURM_ORDER}"
}

# The reference argv: the user's script run by bash, the stub torchrun recording what follows it.
STUB_REFERENCE=$work/quoted.ref bash "$here/train_quoted.sh"
STUB_REFERENCE=$work/mixtral.ref WANDB_API_KEY=set bash "$src/tests/data/launch/mixtral_8x7b.sh" \
    '/ckpt dir/run 1' /tok/tokenizer.model '/data/my corpus_text_document'

for launcher in slurm-torchrun slurm-tasks torchrun; do
    check quoted "$launcher" 2 8 "$work/quoted.ref" -- --nodes 2 --node h100-hgx-8gpu-8nic \
        --megatron-args "$here/train_quoted.sh"
    check mixtral "$launcher" 4 8 "$work/mixtral.ref" -- --nodes 4 --node h100-hgx-8gpu-8nic \
        --megatron-args "$src/tests/data/launch/mixtral_8x7b.sh" \
        --env '1=/ckpt dir/run 1' --env 2=/tok/tokenizer.model --env '3=/data/my corpus_text_document' \
        --env WANDB_API_KEY=set
done
# GPUs permuted on every node (placement local_order): the order must reach every task, also
# when Slurm numbers the nodes the other way round from the plan.
for launcher in slurm-torchrun slurm-tasks torchrun; do
    check permuted "$launcher" 2 8 - -- "$here/layout-local-order.json"
done
for launcher in slurm-torchrun slurm-tasks; do
    SLURM_ORDER=reversed check permuted-reversed "$launcher" 2 8 - -- "$here/layout-local-order.json"
    SLURM_ORDER=reversed check mixtral-reversed "$launcher" 4 8 "$work/mixtral.ref" -- --nodes 4 --node h100-hgx-8gpu-8nic \
        --megatron-args "$src/tests/data/launch/mixtral_8x7b.sh" \
        --env '1=/ckpt dir/run 1' --env 2=/tok/tokenizer.model --env '3=/data/my corpus_text_document' \
        --env WANDB_API_KEY=set
done
exit $fail
