#!/usr/bin/env bash
# CPU-only check of the GPU validation pipeline (issue 10): no torch, no GPU.
# Runs the built plan-layout over the measurements kept in tests/gpu/data, compares every output
# with tests/gpu/expected/NAME.out, and checks that the figures quoted in tests/gpu/RESULTS.md are
# the ones the pipeline gives (GPU count of the import, ab medians and changes, calibrate's answer).
#
#   check_pipeline.sh PLAN_LAYOUT_BINARY SOURCE_DIR [--update]
set -u
BIN=${1:?usage: check_pipeline.sh PLAN_LAYOUT_BINARY SOURCE_DIR [--update]}
SRC=${2:?usage: check_pipeline.sh PLAN_LAYOUT_BINARY SOURCE_DIR [--update]}
UPDATE=${3:-}
HERE=$SRC/tests/gpu
EXP=$HERE/expected
RESULTS=$HERE/RESULTS.md
export LC_ALL=C
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }

# name | arguments (relative to tests/gpu/data; globs expand in C order)
CASES=$(cat <<'EOF'
import-h200-1gpu|import nvidia-smi h200-1gpu/nvidia-smi-topo-m.txt
calibrate-h200-1gpu-all_reduce|calibrate h200-1gpu/sweep-all_reduce-g1-fast-r1.txt --nodes 1 --gpus-per-node 1 --transport gdrdma
calibrate-h200-1gpu-all_to_all|calibrate h200-1gpu/sweep-all_to_all-g1-tcp-r1.txt --nodes 1 --gpus-per-node 1 --transport tcp
collective-h200-1gpu-all_reduce|collective --op all_reduce --nodes 1 --gpus-per-node 1 --measured h200-1gpu/sweep-all_reduce-g1-fast-r1.txt
collective-h200-1gpu-all_to_all|collective --op all_to_all --nodes 1 --gpus-per-node 1 --measured h200-1gpu/sweep-all_to_all-g1-fast-r1.txt
ab-h200-1gpu-ep1-dp1|ab h200-1gpu/moe-ep1-dp1/*.csv --format json
ab-h200-1gpu-ep1-dp1-text|ab h200-1gpu/moe-ep1-dp1/*.csv
calibrate-gloo-w4-all_reduce-g4|calibrate cpu-gloo-w4/sweep-all_reduce-g4-tcp-r1.txt --nodes 1 --gpus-per-node 4 --transport tcp
calibrate-gloo-w4-all_to_all-g4|calibrate cpu-gloo-w4/sweep-all_to_all-g4-tcp-r1.txt --nodes 1 --gpus-per-node 4 --transport tcp
ab-gloo-w2-ep2-dp1|ab cpu-gloo-w2/moe-ep2-dp1/*.csv --format json
ab-gloo-w4-ep4-dp1|ab cpu-gloo-w4/moe-ep4-dp1/*.csv --format json
ab-gloo-w4-ep2-dp2|ab cpu-gloo-w4/moe-ep2-dp2/*.csv --format json
ab-gloo-w4-layouts|ab --baseline ep4-dp1 --run ep4-dp1:1=cpu-gloo-w4/moe-ep4-dp1/fast-round1.csv --run ep4-dp1:2=cpu-gloo-w4/moe-ep4-dp1/fast-round2.csv --run ep4-dp1:3=cpu-gloo-w4/moe-ep4-dp1/fast-round3.csv --run ep2-dp2:1=cpu-gloo-w4/moe-ep2-dp2/fast-round1.csv --run ep2-dp2:2=cpu-gloo-w4/moe-ep2-dp2/fast-round2.csv --run ep2-dp2:3=cpu-gloo-w4/moe-ep2-dp2/fast-round3.csv --format json
import-h200-2gpu|import nvidia-smi h200-2gpu/nvidia-smi-topo-m.txt
calib-tcp|calibrate h200-2gpu/sweep-all_reduce-g2-tcp-r1.txt h200-2gpu/sweep-all_to_all-g2-tcp-r1.txt --nodes 1 --gpus-per-node 2 --transport tcp --socket-inside-node --format json
calib-nv|calibrate h200-2gpu/sweep-all_reduce-g2-fast-r1.txt h200-2gpu/sweep-all_to_all-g2-fast-r1.txt --nodes 1 --gpus-per-node 2 --transport gdrdma --class NV --format json
calib-tcp-text|calibrate h200-2gpu/sweep-all_reduce-g2-tcp-r1.txt h200-2gpu/sweep-all_to_all-g2-tcp-r1.txt --nodes 1 --gpus-per-node 2 --transport tcp --socket-inside-node
calib-nv-text|calibrate h200-2gpu/sweep-all_reduce-g2-fast-r1.txt h200-2gpu/sweep-all_to_all-g2-fast-r1.txt --nodes 1 --gpus-per-node 2 --transport gdrdma --class NV
collective-2gpu-all_reduce-tcp-prior-r2|collective --op all_reduce --nodes 1 --gpus-per-node 2 --transport tcp --socket-inside-node --measured h200-2gpu/sweep-all_reduce-g2-tcp-r2.txt
collective-2gpu-all_reduce-tcp-r2|collective --op all_reduce --nodes 1 --gpus-per-node 2 --transport tcp --socket-inside-node --calibration ../calib/tcp.json --measured h200-2gpu/sweep-all_reduce-g2-tcp-r2.txt
collective-2gpu-all_reduce-tcp-r3|collective --op all_reduce --nodes 1 --gpus-per-node 2 --transport tcp --socket-inside-node --calibration ../calib/tcp.json --measured h200-2gpu/sweep-all_reduce-g2-tcp-r3.txt
collective-2gpu-all_reduce-fast-prior-r2|collective --op all_reduce --nodes 1 --gpus-per-node 2 --transport gdrdma --measured h200-2gpu/sweep-all_reduce-g2-fast-r2.txt
collective-2gpu-all_reduce-fast-r2|collective --op all_reduce --nodes 1 --gpus-per-node 2 --transport gdrdma --calibration ../calib/nv.json --measured h200-2gpu/sweep-all_reduce-g2-fast-r2.txt
collective-2gpu-all_reduce-fast-r3|collective --op all_reduce --nodes 1 --gpus-per-node 2 --transport gdrdma --calibration ../calib/nv.json --measured h200-2gpu/sweep-all_reduce-g2-fast-r3.txt
collective-2gpu-all_to_all-tcp-prior-r2|collective --op all_to_all --nodes 1 --gpus-per-node 2 --transport tcp --socket-inside-node --measured h200-2gpu/sweep-all_to_all-g2-tcp-r2.txt
collective-2gpu-all_to_all-tcp-r2|collective --op all_to_all --nodes 1 --gpus-per-node 2 --transport tcp --socket-inside-node --calibration ../calib/tcp.json --measured h200-2gpu/sweep-all_to_all-g2-tcp-r2.txt
collective-2gpu-all_to_all-tcp-r3|collective --op all_to_all --nodes 1 --gpus-per-node 2 --transport tcp --socket-inside-node --calibration ../calib/tcp.json --measured h200-2gpu/sweep-all_to_all-g2-tcp-r3.txt
collective-2gpu-all_to_all-fast-prior-r2|collective --op all_to_all --nodes 1 --gpus-per-node 2 --transport gdrdma --measured h200-2gpu/sweep-all_to_all-g2-fast-r2.txt
collective-2gpu-all_to_all-fast-r2|collective --op all_to_all --nodes 1 --gpus-per-node 2 --transport gdrdma --calibration ../calib/nv.json --measured h200-2gpu/sweep-all_to_all-g2-fast-r2.txt
collective-2gpu-all_to_all-fast-r3|collective --op all_to_all --nodes 1 --gpus-per-node 2 --transport gdrdma --calibration ../calib/nv.json --measured h200-2gpu/sweep-all_to_all-g2-fast-r3.txt
analyze-h200-2gpu-ep2-dp1|analyze --allow-outside-files ../layouts/h200-2gpu-ep2-dp1.json
ab-h200-2gpu-ep2-dp1-predicted|ab h200-2gpu/moe-ep2-dp1/*.csv --allow-outside-files --layout ../layouts/h200-2gpu-ep2-dp1.json --format json
analyze-h200-2gpu-ep1-dp2|analyze --allow-outside-files ../layouts/h200-2gpu-ep1-dp2.json
ab-h200-2gpu-ep1-dp2-predicted|ab h200-2gpu/moe-ep1-dp2/*.csv --allow-outside-files --layout ../layouts/h200-2gpu-ep1-dp2.json --format json
analyze-h200-2gpu-large-ep2-dp1|analyze --allow-outside-files ../layouts/h200-2gpu-large-ep2-dp1.json
ab-h200-2gpu-large-ep2-dp1-predicted|ab h200-2gpu-large/moe-ep2-dp1/*.csv --allow-outside-files --layout ../layouts/h200-2gpu-large-ep2-dp1.json --format json
analyze-h200-2gpu-large-ep1-dp2|analyze --allow-outside-files ../layouts/h200-2gpu-large-ep1-dp2.json
ab-h200-2gpu-large-ep1-dp2-predicted|ab h200-2gpu-large/moe-ep1-dp2/*.csv --allow-outside-files --layout ../layouts/h200-2gpu-large-ep1-dp2.json --format json
ab-h200-moe-compute-small|ab --baseline ep1 --run ep1:1=h200-ops/moe-compute-h1024-f2048-t8192-ep1-dp1/compute-round1.csv --run ep1:2=h200-ops/moe-compute-h1024-f2048-t8192-ep1-dp1/compute-round2.csv --run ep1:3=h200-ops/moe-compute-h1024-f2048-t8192-ep1-dp1/compute-round3.csv --run ep2:1=h200-ops/moe-compute-h1024-f2048-t8192-ep2-dp1/compute-round1.csv --run ep2:2=h200-ops/moe-compute-h1024-f2048-t8192-ep2-dp1/compute-round2.csv --run ep2:3=h200-ops/moe-compute-h1024-f2048-t8192-ep2-dp1/compute-round3.csv --format json
ab-h200-moe-compute-large|ab --baseline ep1 --run ep1:1=h200-ops/moe-compute-h2048-f8192-t16384-ep1-dp1/compute-round1.csv --run ep1:2=h200-ops/moe-compute-h2048-f8192-t16384-ep1-dp1/compute-round2.csv --run ep1:3=h200-ops/moe-compute-h2048-f8192-t16384-ep1-dp1/compute-round3.csv --run ep2:1=h200-ops/moe-compute-h2048-f8192-t16384-ep2-dp1/compute-round1.csv --run ep2:2=h200-ops/moe-compute-h2048-f8192-t16384-ep2-dp1/compute-round2.csv --run ep2:3=h200-ops/moe-compute-h2048-f8192-t16384-ep2-dp1/compute-round3.csv --format json
ab-h200-1gpu-dp-t512|ab --baseline compute --run compute:1=h200-1gpu-dp/dp-w4096-l8-t512/compute-fast-round1.csv --run compute:2=h200-1gpu-dp/dp-w4096-l8-t512/compute-fast-round2.csv --run compute:3=h200-1gpu-dp/dp-w4096-l8-t512/compute-fast-round3.csv --run overlapped:1=h200-1gpu-dp/dp-w4096-l8-t512/fast-round1.csv --run overlapped:2=h200-1gpu-dp/dp-w4096-l8-t512/fast-round2.csv --run overlapped:3=h200-1gpu-dp/dp-w4096-l8-t512/fast-round3.csv --format json
ab-h200-1gpu-dp-t4096|ab --baseline compute --run compute:1=h200-1gpu-dp/dp-w4096-l8-t4096/compute-fast-round1.csv --run compute:2=h200-1gpu-dp/dp-w4096-l8-t4096/compute-fast-round2.csv --run compute:3=h200-1gpu-dp/dp-w4096-l8-t4096/compute-fast-round3.csv --run overlapped:1=h200-1gpu-dp/dp-w4096-l8-t4096/fast-round1.csv --run overlapped:2=h200-1gpu-dp/dp-w4096-l8-t4096/fast-round2.csv --run overlapped:3=h200-1gpu-dp/dp-w4096-l8-t4096/fast-round3.csv --format json
ab-h200-1gpu-dp-t32768|ab --baseline compute --run compute:1=h200-1gpu-dp/dp-w4096-l8-t32768/compute-fast-round1.csv --run compute:2=h200-1gpu-dp/dp-w4096-l8-t32768/compute-fast-round2.csv --run compute:3=h200-1gpu-dp/dp-w4096-l8-t32768/compute-fast-round3.csv --run overlapped:1=h200-1gpu-dp/dp-w4096-l8-t32768/fast-round1.csv --run overlapped:2=h200-1gpu-dp/dp-w4096-l8-t32768/fast-round2.csv --run overlapped:3=h200-1gpu-dp/dp-w4096-l8-t32768/fast-round3.csv --format json
calibrate-gloo-w2-sendrecv-shm|calibrate cpu-gloo-w2-issue16/sweep-sendrecv-g2-shm-r1.txt --nodes 1 --gpus-per-node 2 --transport tcp
ops-h200|calibrate --ops h200-ops/ops-h200.json h200-ops/ops-h200-r2.json h200-ops/ops-h200-r3.json --largest 15
EOF
)

cd "$HERE/data" || { echo "FAIL: no $HERE/data"; exit 1; }
[ "$UPDATE" = "--update" ] && mkdir -p "$EXP"
while IFS='|' read -r name args; do
    [ -n "$name" ] || continue
    # shellcheck disable=SC2086  # word splitting and globbing of the arguments are wanted
    "$BIN" $args >"$TMP/$name.out" 2>&1
    echo "exit $?" >>"$TMP/$name.out"
    if [ "$UPDATE" = "--update" ]; then
        cp "$TMP/$name.out" "$EXP/$name.out"
    elif ! diff -u "$EXP/$name.out" "$TMP/$name.out" >"$TMP/$name.diff"; then
        err "$name differs from expected/$name.out"
        head -40 "$TMP/$name.diff"
    fi
done <<<"$CASES"

# --- the figures RESULTS.md quotes -------------------------------------------------------------
quoted() {  # quoted TEXT WHY: RESULTS.md must contain TEXT
    grep -qF -- "$1" "$RESULTS" || err "RESULTS.md does not quote '$1' ($2)"
}
# import: one GPU, no NVLink
gpus=$(grep -c '"name": "GPU' "$TMP/import-h200-1gpu.out")
[ "$gpus" = 1 ] || err "import gives $gpus GPUs, expected 1"
grep -q '"links_per_gpu": 0' "$TMP/import-h200-1gpu.out" || err "import reports NVLink links on the 1-GPU host"
quoted "import: 1 GPU" "import-h200-1gpu"
# calibrate on a one-rank sweep: refused (exit 2)
for op in all_reduce all_to_all; do
    tail -1 "$TMP/calibrate-h200-1gpu-$op.out" | grep -qx 'exit 2' || err "calibrate on the 1-GPU $op sweep did not exit 2"
done
quoted "nothing was communicated, so there is no bandwidth to fit" "calibrate on the 1-GPU sweep"
# calibrate on the gloo world-4 sweeps: the fitted line
for op in all_reduce all_to_all; do
    fit=$(sed -n 's/^# fit: //p' "$TMP/calibrate-gloo-w4-$op-g4.out")
    [ -n "$fit" ] || err "calibrate gloo w4 $op: no fit line"
    quoted "$fit" "calibrate-gloo-w4-$op-g4"
done
# ab: arm medians, min, max and the change against the baseline, as printed in the JSON
for name in ab-h200-1gpu-ep1-dp1 ab-gloo-w2-ep2-dp1 ab-gloo-w4-ep4-dp1 ab-gloo-w4-ep2-dp2 ab-gloo-w4-layouts \
    ab-h200-moe-compute-small ab-h200-moe-compute-large ab-h200-1gpu-dp-t512 ab-h200-1gpu-dp-t4096 ab-h200-1gpu-dp-t32768; do
    f=$TMP/$name.out
    arms=$(sed -n 's/^ *"arm": "\(.*\)",$/\1/p' "$f" | head -2 | tr '\n' ' ')
    medians=$(sed -n 's/^ *"median_s": \([0-9.e-]*\),\{0,1\}$/\1/p' "$f" | tr '\n' ' ')
    change=$(sed -n 's/^ *"step_time_change": \([0-9.e-]*\),\{0,1\}$/\1/p' "$f" | head -1)
    [ -n "$medians" ] && [ -n "$change" ] || { err "$name: no medians or change in the ab JSON"; continue; }
    set -- $arms
    a1=$1 a2=$2
    set -- $medians
    quoted "| $name | $a1 | $1 |" "$name median of $a1"
    quoted "| $name | $a2 | $2 |" "$name median of $a2"
    quoted "| $name | $a2 vs $a1 | $change |" "$name change"
done


# The tolerances docs/gpu-validation.md states, read from tests/tolerances.json (docs/testing.md,
# "Validation held out"): step-time change within gpu_pipeline.ab_step_change points of ab's
# measurement; calibrated busbw predicted/measured within its stated ranges (below).
tol() { python3 -B "$SRC/tests/support/tolerances.py" "$@"; }
STEP_TOLERANCE_POINTS=$(tol gpu_pipeline.ab_step_change)
BUSBW_TCP_LOW=$(tol gpu_pipeline.busbw_ratio.tcp low) BUSBW_TCP_HIGH=$(tol gpu_pipeline.busbw_ratio.tcp high)
BUSBW_NV_LOW=$(tol gpu_pipeline.busbw_ratio.nvlink low) BUSBW_NV_HIGH=$(tol gpu_pipeline.busbw_ratio.nvlink high)
BUSBW_ROUNDING=$(tol gpu_pipeline.busbw_ratio.tcp rounding)
for v in "$STEP_TOLERANCE_POINTS" "$BUSBW_TCP_LOW" "$BUSBW_TCP_HIGH" "$BUSBW_NV_LOW" "$BUSBW_NV_HIGH" "$BUSBW_ROUNDING"; do
    [[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] || err "tests/tolerances.json: a gpu_pipeline tolerance is not a number: '$v'"
done

# --- the 2 x H200 runs (issue 10) ----------------------------------------------------------------
# import: 2 GPUs joined by NV18
grep -q '"nvlinks": 18' "$TMP/import-h200-2gpu.out" || err "import of the 2-GPU host lost its NV18 pair"
quoted "import: 2 GPUs, NV18" "import-h200-2gpu"
# the calibration files the layouts read are exactly what calibrate writes from round 1
for c in tcp nv; do
    sed '$d' "$TMP/calib-$c.out" | diff -q - "$HERE/calib/$c.json" >/dev/null ||
        err "calib/$c.json is not what calibrate writes from round 1 (regenerate it with -o)"
    # one table row per fit: file | op | floor | alpha | efficiency at each size
    while read -r row; do
        quoted "$row" "calib/$c.json"
    done < <(python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["fits"]:
    print("| %s | %s | %s | %s | %s |" % (sys.argv[2], f["op"], f["floor_us"], f["alpha_us"],
          " | ".join(str(p["efficiency"]) for p in f["curve"])))' "$HERE/calib/$c.json" "$c")
done
# collective busbw, predicted vs measured, every row of every out-of-sample round
for f in "$TMP"/collective-2gpu-*.out; do
    name=$(basename "$f" .out)
    set -- $(echo "$name" | sed 's/^collective-2gpu-\([a-z_]*\)-\(tcp\|fast\)-\(.*\)$/\1 \2 \3/')
    op=$1 t=$2 r=$3
    while read -r size pbus mbus ratio; do
        quoted "| $op | $t | $r | $size | $pbus | $mbus | $ratio |" "$name"
        # The stated out-of-sample ranges (docs/gpu-validation.md): calibrated rows only (the
        # -prior- rows are the uncalibrated priors, shown for contrast, with no stated tolerance).
        case "$name" in *-prior-*) continue ;; esac
        if [ "$t" = tcp ]; then lo=$BUSBW_TCP_LOW hi=$BUSBW_TCP_HIGH; else lo=$BUSBW_NV_LOW hi=$BUSBW_NV_HIGH; fi
        awk -v x="$ratio" -v lo="$lo" -v hi="$hi" -v r="$BUSBW_ROUNDING" 'BEGIN { exit !(x >= lo - r && x <= hi + r) }' ||
            err "$name $size B: predicted/measured busbw $ratio is outside the stated range $lo .. $hi"
    done < <(awk '!/^#/ && NF == 11 { print $1, $8, $10, $11 }' "$f")
done
# the step-time benefit: measured and predicted change, band, as ab --layout prints them
for cfg in h200-2gpu h200-2gpu-large; do
    for lay in ep2-dp1 ep1-dp2; do
        f=$TMP/ab-$cfg-$lay-predicted.out
        medians=$(sed -n 's/^      "median_s": \([0-9.e-]*\),\{0,1\}$/\1/p' "$f" | tr '\n' ' ')
        measured=$(sed -n 's/^      "step_time_change": \([0-9.e-]*\),\{0,1\}$/\1/p' "$f")
        predicted=$(sed -n 's/^        "step_time_change": \([0-9.e-]*\),\{0,1\}$/\1/p' "$f")
        low=$(sed -n 's/^        "band_low": \([0-9.e-]*\),\{0,1\}$/\1/p' "$f")
        high=$(sed -n 's/^        "band_high": \([0-9.e-]*\),\{0,1\}$/\1/p' "$f")
        inside=$(sed -n 's/^        "within_band": \([a-z]*\),\{0,1\}$/\1/p' "$f")
        [ -n "$measured" ] && [ -n "$predicted" ] || { err "ab-$cfg-$lay-predicted: no measured or predicted change"; continue; }
        set -- $medians
        quoted "| $cfg | $lay | $1 | $2 | $measured | $predicted | $low .. $high | $inside |" "ab-$cfg-$lay-predicted"
        # Accuracy, not only quoting: docs/gpu-validation.md states a tolerance of 3.0 points for these
        # rows and that every measurement lies inside its band; a prediction that leaves either fails.
        # (The prediction takes the same run's measured fast-arm step as its compute anchor: the row
        # says so; what it predicts is the tcp arm, which is not an input.)
        [ "$inside" = true ] || err "ab-$cfg-$lay-predicted: the measured change $measured is outside the band $low .. $high"
        awk -v m="$measured" -v p="$predicted" -v t="$STEP_TOLERANCE_POINTS" 'BEGIN { d = (p - m) * 100; if (d < 0) d = -d; exit !(d <= t) }' ||
            err "ab-$cfg-$lay-predicted: predicted $predicted vs measured $measured: more than $STEP_TOLERANCE_POINTS points apart (the stated tolerance)"
        awk -v m="$measured" -v p="$predicted" 'BEGIN { d = (p - m) * 100; if (d < 0) d = -d; print d }' >>"$TMP/ab-points.txt"
        # The row of docs/gpu-validation.md's table shows these two numbers, rounded to 0.1 point.
        row=$(awk -v m="$measured" -v p="$predicted" 'BEGIN { printf "| %.1f %% | %.1f %% |", p * 100, m * 100 }' | sed 's/-/−/g')
        grep -qF -- "$row" "$SRC/docs/gpu-validation.md" ||
            err "docs/gpu-validation.md has no row ending '$row' for $cfg $lay (predicted | measured)"
    done
done

# The four rows held to their baselines (tests/tolerances.json "device_ab_rows"): the median and the
# largest |predicted - measured| may not grow by more than 1 point. Four rows: no split.
if ! python3 -B - "$SRC" "$TMP/ab-points.txt" >"$TMP/ab-held.txt" 2>&1 <<'PY'
import statistics, sys
sys.path.insert(0, sys.argv[1] + "/tests/support")
import tolerances
points = [float(x) for x in open(sys.argv[2])]
held = tolerances.Held("device_ab_rows")
held.check("all", {"rows": len(points), "median_abs_points": round(statistics.median(points), 1),
                   "max_abs_points": round(max(points), 1)})
tolerances.finish([held], True, "gpu_pipeline ab rows")
PY
then
    err "$(tail -1 "$TMP/ab-held.txt")"
fi

# --- issue 16: the per-op compute sweep and the sendrecv format ----------------------------------
# every row of ops_summary.py's tables over the three kept runs (python3 only, no torch)
if command -v python3 >/dev/null; then
    if python3 "$HERE/ops_summary.py" h200-ops/ops-h200.json h200-ops/ops-h200-r2.json h200-ops/ops-h200-r3.json \
        >"$TMP/ops-summary.md" 2>&1; then
        while IFS= read -r line; do
            [ -n "$line" ] && quoted "$line" "ops_summary.py over data/h200-ops"
        done <"$TMP/ops-summary.md"
    else
        err "ops_summary.py failed: $(tail -1 "$TMP/ops-summary.md")"
    fi
else
    err "python3 not found: the ops tables cannot be checked"
fi
# the harness's sendrecv file (nccl-tests format) is read and fitted
fit=$(sed -n 's/^# fit: //p' "$TMP/calibrate-gloo-w2-sendrecv-shm.out")
[ -n "$fit" ] || err "calibrate of the harness's sendrecv sweep: no fit line"
quoted "$fit" "calibrate-gloo-w2-sendrecv-shm"

# the compute model op by op (calibrate --ops over the three runs): every line of its summary
while IFS= read -r line; do
    case "$line" in exit*|"") ;; *) quoted "$line" "ops-h200 (calibrate --ops)" ;; esac
done <"$TMP/ops-h200.out"
# the GEMM table held out (issue 42 item 2): the Python grid is the C++ one (its in-sample figures are
# calibrate --ops's), and RESULTS.md quotes every line
if python3 "$HERE/gemm_holdout.py" "$BIN" >"$TMP/gemm-holdout.txt" 2>&1; then
    while IFS= read -r line; do
        [ -n "$line" ] && quoted "$line" "gemm_holdout.py"
    done <"$TMP/gemm-holdout.txt"
else
    err "gemm_holdout.py failed: $(tail -1 "$TMP/gemm-holdout.txt")"
fi
# the MoE steps and the MoE layer's compute alone, predicted (uncalibrated, compute-calibrated) vs measured
if python3 "$HERE/step_predictions.py" "$BIN" --check >"$TMP/step-predictions.md" 2>&1; then
    while IFS= read -r line; do
        [ -n "$line" ] && quoted "$line" "step_predictions.py"
    done <"$TMP/step-predictions.md"
else
    err "step_predictions.py failed: $(tail -1 "$TMP/step-predictions.md")"
fi

# Issue 28: the measured kernel table is what the raw runs give, and the full steps on one H200,
# predicted with no calibration, are within their tolerance (tests/tolerances.json, 15 %), their
# aggregates (and the peaks' and the H100 runs') within their baselines, all rows and each half, and
# shown row for row in docs/gpu-validation.md.
python3 "$HERE/kernel_table.py" --check >"$TMP/kernel-table.txt" 2>&1 || err "$(tail -1 "$TMP/kernel-table.txt")"
# Every line a validation script prints must stand in docs/gpu-validation.md: shown_in_validation_doc
# NAME SCRIPT ARGS... runs it and reports the lines the page lacks (or the script's failure).
shown_in_validation_doc() {
    local name=$1 out="$TMP/shown.md"
    shift
    if python3 "$@" >"$out" 2>&1; then
        while IFS= read -r line; do
            [ -n "$line" ] && { grep -qF -- "$line" "$SRC/docs/gpu-validation.md" ||
                err "docs/gpu-validation.md does not show '$line' ($name)"; }
        done <"$out"
    else
        err "$name: $(tail -1 "$out")"
    fi
}
shown_in_validation_doc validate_steps.py "$HERE/validate_steps.py" "$BIN" --check

# Issue 28: the published DGX-H100 runs (tests/data/published/), predicted with no calibration, are
# shown row for row in docs/gpu-validation.md, and (issue 42) their aggregates, of all rows and of
# each half of the development / held-out split, held to the baselines of tests/tolerances.json.
shown_in_validation_doc tests/published/validate_published.py "$SRC/tests/published/validate_published.py" "$BIN" --check

# Issue 28: one production MoE step against a public Nsight Systems profile, kernel class by kernel
# class (tests/published/validate_nsys.py), shown in docs/gpu-validation.md, held to its baselines.
shown_in_validation_doc tests/published/validate_nsys.py "$SRC/tests/published/validate_nsys.py" "$BIN" --check

# Issue 28: where search ranks each published tuned layout, and what decides when it is not near
# the #1, for each release (tests/published/search_published.py), shown in docs/gpu-validation.md.
for release in 26.02 25.11 25.09; do
    shown_in_validation_doc "tests/published/search_published.py --release $release" \
        "$SRC/tests/published/search_published.py" "$BIN" --release "$release" --check
done

if [ "$UPDATE" = "--update" ]; then
    echo "updated $EXP"
    exit 0
fi
[ $fail = 0 ] && echo "gpu pipeline: all outputs match expected/ and RESULTS.md"
exit $fail
