#!/usr/bin/env bash
# A run writing a large -o file, killed by SIGTERM or SIGINT while its temporary file exists,
# leaves no .NAME.tmp.XXXXXX behind and no half-written NAME (docs/hardening.md "Output files").
#   check_signal_cleanup.sh PLAN_LAYOUT
set -u
set -m  # job control: background jobs keep SIGINT (a non-interactive shell would ignore it in them)
bin=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/planlayout_signal.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail=0
for sig in TERM INT; do
    "$bin" groups --world 1048576 --tp 8 --pp 16 --cp 2 --ep 64 --etp 1 --format json -o "$dir/big.json" &
    pid=$!
    seen=0
    for _ in $(seq 1 2000); do  # up to 20 s for the temporary file to appear
        if ls -A "$dir" | grep -q '\.tmp\.'; then
            seen=1
            break
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            break
        fi
        sleep 0.01
    done
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    if [ "$seen" = 1 ]; then
        want=$((128 + $(kill -l "$sig")))
        if [ "$rc" != "$want" ]; then
            echo "SIG$sig: exit $rc, expected $want (ended by the signal)"
            fail=1
        fi
        if [ -e "$dir/big.json" ]; then
            echo "SIG$sig: big.json exists after the run was killed"
            fail=1
        fi
    else
        echo "SIG$sig: the run ended (exit $rc) before its temporary file was seen; nothing to check"
    fi
    if ls -A "$dir" | grep -q '\.tmp\.'; then
        echo "SIG$sig: temporary file left behind: $(ls -A "$dir")"
        fail=1
    fi
    rm -f "$dir"/big.json
done
exit $fail
