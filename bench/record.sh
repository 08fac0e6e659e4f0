#!/usr/bin/env bash
# Runs every benchmark and writes its figures into docs/performance.md (between the bench markers),
# with the date, the machine and the src/ tree they were measured on. CI
# (tests/lint/check_performance_doc.sh) fails when src/ has changed since: re-run `make bench-record`
# after changing src/, and commit the page.
#   bench/record.sh BENCH_BINARY SOURCE_DIR
set -euo pipefail
BIN=${1:?usage: record.sh BENCH_BINARY SOURCE_DIR}
SRC=${2:?usage: record.sh BENCH_BINARY SOURCE_DIR}
cd "$SRC"
if ! git diff --quiet HEAD -- src || [ -n "$(git ls-files --others --exclude-standard src)" ]; then
    echo "bench/record.sh: src/ has uncommitted changes; commit them first, so that the figures name the code they measure" >&2
    exit 2
fi
tree=$(git rev-parse HEAD:src)
commit=$(git rev-parse --short=12 HEAD)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
table=$(mktemp)
trap 'rm -f "$table"' EXIT
"$BIN" --markdown >"$table"
page=docs/performance.md
python3 - "$page" "$table" "$(date -u +%Y-%m-%d)" "$(nproc) cores ($cpu), $mem" "$commit" "$tree" <<'PY'
import sys
page, table, date, machine, commit, tree = sys.argv[1:]
text = open(page).read()
begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
i, j = text.index(begin), text.index(end)
block = (f"{begin}\nRecorded by `make bench-record` on {date}, {machine}, commit {commit} "
         f"(src/ tree {tree}); Release build.\n\n" + open(table).read() + end)
open(page, "w").write(text[:i] + block + text[j + len(end):])
PY
echo "docs/performance.md: figures of commit $commit recorded"
