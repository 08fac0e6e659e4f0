#!/usr/bin/env bash
# A failed write to standard output (here /dev/full: ENOSPC) is exit 3 with one line naming
# standard output and the reason — for a large streamed result, a small one and --help alike.
#   check_standard_output_errors.sh PLAN_LAYOUT
set -u
bin=$1
err=$(mktemp "${TMPDIR:-/tmp}/planlayout_stdout.XXXXXX")
trap 'rm -f "$err"' EXIT
fail=0
want='plan-layout: error: standard output: write failed: No space left on device'
check() {
    "$bin" "$@" > /dev/full 2> "$err"
    rc=$?
    if [ "$rc" != 3 ] || [ "$(wc -l < "$err")" != 1 ] || ! grep -qF "$want" "$err"; then
        echo "plan-layout $* > /dev/full: exit $rc, stderr: $(cat "$err")"
        fail=1
    fi
}
check groups --world 65536 --tp 8 --format json
check groups --world 16 --tp 2
check analyze --format json
check --help
check groups --world 16 -o -
# -o /dev/full is checked in tests/unit/test_output_file.cpp, where the test stops before commit()
# unless the output is written through: a regression here would, as root, replace the device.
exit $fail
