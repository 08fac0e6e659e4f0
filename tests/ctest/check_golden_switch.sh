#!/usr/bin/env bash
# The golden switch's own test (issue 32, item 2), on a copy of one case, never on tests/golden/:
# PLANLAYOUT_UPDATE_GOLDEN=1 is refused under CI=true (nothing written), and without CI it rewrites
# expected.out and removes an `exit` file the case no longer needs.
# usage: check_golden_switch.sh GOLDEN_TEST_BINARY SOURCE_DIR
set -euo pipefail
bin=$1
src=$2
name=analyze-factors-only-text
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/tests/golden/$name" "$tmp/$name"
case_dir=$tmp/$name
echo 2 >"$case_dir/exit"  # stale: the case exits 0
echo stale >"$case_dir/expected.out"
fail() { echo "FAIL: $*"; exit 1; }

# 1. Under CI=true the switch is refused and nothing is written.
if env PLANLAYOUT_GOLDEN_DIR="$tmp" PLANLAYOUT_UPDATE_GOLDEN=1 CI=true "$bin" >"$tmp/ci.log" 2>&1; then
    fail "PLANLAYOUT_UPDATE_GOLDEN=1 was accepted under CI=true"
fi
grep -q "CI compares the golden files, it never rewrites them" "$tmp/ci.log" || { cat "$tmp/ci.log"; fail "no refusal message"; }
[ "$(cat "$case_dir/expected.out")" = stale ] || fail "expected.out was rewritten under CI=true"
[ -e "$case_dir/exit" ] || fail "the exit file was removed under CI=true"

# 2. Without CI the switch rewrites expected.out and removes the stale exit file.
env -u CI PLANLAYOUT_GOLDEN_DIR="$tmp" PLANLAYOUT_UPDATE_GOLDEN=1 "$bin" >"$tmp/update.log" 2>&1 ||
    { cat "$tmp/update.log"; fail "the update run failed"; }
[ ! -e "$case_dir/exit" ] || fail "the stale exit file was kept"
cmp -s "$case_dir/expected.out" "$src/tests/golden/$name/expected.out" || fail "expected.out was not rewritten"

# 3. The updated copy passes a normal run; a wrong exit file fails it.
env -u CI -u PLANLAYOUT_UPDATE_GOLDEN PLANLAYOUT_GOLDEN_DIR="$tmp" "$bin" >"$tmp/run.log" 2>&1 ||
    { cat "$tmp/run.log"; fail "the updated copy does not pass"; }
echo 2 >"$case_dir/exit"
if env -u CI -u PLANLAYOUT_UPDATE_GOLDEN PLANLAYOUT_GOLDEN_DIR="$tmp" "$bin" >"$tmp/run.log" 2>&1; then
    fail "a stale exit file did not fail the comparison"
fi
echo "golden switch: refused under CI=true; updating removes a stale exit file"
