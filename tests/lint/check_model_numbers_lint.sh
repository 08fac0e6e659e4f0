#!/usr/bin/env bash
# The rule-for-numbers lint can fail: a copy of the tree's model sources and registry with one
# literal planted in a model source, one entry without a source and one without a class must each
# fail tests/lint/model_numbers.py, and the untouched copy must pass.
#   check_model_numbers_lint.sh ROOT
set -u
root=${1:?usage: check_model_numbers_lint.sh ROOT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy() {
    rm -rf "$tmp/t" && mkdir -p "$tmp/t"
    (cd "$root" && tar cf - tests/lint include/planlayout/model src/model $(sed 's/#.*//' tests/lint/model_sources.txt)) |
        (cd "$tmp/t" && tar xf -)
}
lint() { python3 "$tmp/t/tests/lint/model_numbers.py" "$tmp/t" >"$tmp/out" 2>&1; }
fail=0
expect_fail() {  # expect_fail WHAT PATTERN
    if lint; then
        echo "FAIL: $1 passed the lint"; fail=1
    elif ! grep -q "$2" "$tmp/out"; then
        echo "FAIL: $1: no finding matching '$2':"; cat "$tmp/out"; fail=1
    fi
}
copy
lint || { echo "FAIL: the tree as committed fails the lint:"; cat "$tmp/out"; fail=1; }
first=$(sed 's/#.*//' "$root/tests/lint/model_sources.txt" | awk 'NF {print $1; exit}')
copy && printf '\nnamespace { double x = 0.37; }\n' >>"$tmp/t/$first"
expect_fail "double x = 0.37; in $first" "numeric literal 0.37"
copy && sed -i '0,/^PLANLAYOUT_NUMBER(/s//PLANLAYOUT_NUMBER(kPlanted, "planted", 2.0, "x", Assumed, "", "y", 1.0, 3.0)\n&/' \
    "$tmp/t/include/planlayout/model/numbers/network.def"
expect_fail "an entry without a source" "no source"
copy && sed -i '0,/^PLANLAYOUT_NUMBER(/s//PLANLAYOUT_NUMBER(kPlanted, "planted", 2.0, "x", , "why", "y", 1.0, 3.0)\n&/' \
    "$tmp/t/include/planlayout/model/numbers/network.def"
expect_fail "an entry without a class" "class"
[ "$fail" = 0 ] && echo "model_numbers lint: catches a planted literal, an entry without a source and one without a class"
exit "$fail"
