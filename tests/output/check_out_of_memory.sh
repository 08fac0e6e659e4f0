#!/usr/bin/env bash
# Out of memory ends in exit 4 with the documented message (docs/hardening.md, "Exit codes"),
# never in std::terminate's abort (exit 134), and leaves no temporary file: a layout of one big
# array (10 MB, 5,000,001 JSON values) analyzed with -o under `ulimit -v` limits from 40 to
# 600 MB. Each run succeeds or exits 4; the small limits must run out (or nothing was tested).
# A std::bad_alloc thrown in a destructor (nlohmann::json frees a big array with a heap-allocated
# stack) reaches main's terminate handler, not run_cli's catch: both must end the same way.
#   check_out_of_memory.sh PLAN_LAYOUT
set -u
bin=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/planlayout_oom.XXXXXX")
trap 'rm -rf "$dir"' EXIT
want='plan-layout: error: plan-layout: out of memory; reduce the world size or the input, or raise the memory limit (ulimit -v)'
{
    printf '{"cluster": {"nodes": 2, "node": "h100-hgx-8gpu-8nic"}, "parallel": {"tp": 1}, "_big": ['
    yes '0,' | head -n 5000000 | tr -d '\n'
    printf '0]}\n'
} > "$dir/big.json"
fail=0
ran_out=0
for mb in 40 80 120 160 200 240 280 320 400 600; do
    rm -f "$dir/out.json"
    (ulimit -v $((mb * 1024)) && exec "$bin" analyze "$dir/big.json" --format json -o "$dir/out.json") \
        > /dev/null 2> "$dir/err.txt"
    rc=$?
    if [ "$rc" = 4 ]; then
        ran_out=$((ran_out + 1))
        if [ "$(cat "$dir/err.txt")" != "$want" ]; then
            echo "ulimit -v ${mb} MB: exit 4 with another message: $(head -c 400 "$dir/err.txt")"
            fail=1
        fi
    elif [ "$rc" != 0 ]; then
        echo "ulimit -v ${mb} MB: exit $rc (expected 0 or 4): $(head -c 400 "$dir/err.txt")"
        fail=1
    fi
    if ls -A "$dir" | grep -q '\.tmp\.'; then
        echo "ulimit -v ${mb} MB: exit $rc left a temporary file: $(ls -A "$dir" | grep '\.tmp\.')"
        fail=1
        rm -f "$dir"/.*.tmp.*
    fi
done
if [ "$ran_out" = 0 ]; then
    echo "no run ran out of memory: the limits no longer test anything"
    fail=1
fi
exit "$fail"
