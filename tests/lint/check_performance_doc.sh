#!/usr/bin/env bash
# docs/performance.md's recorded figures describe the code as it is: the src/ tree they were
# measured on (written by bench/record.sh) is the committed src/ tree. Exit 77 (skipped) outside
# a git checkout.
#   check_performance_doc.sh SOURCE_DIR
set -u
SRC=${1:?usage: check_performance_doc.sh SOURCE_DIR}
cd "$SRC" || exit 1
git rev-parse HEAD >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }
recorded=$(sed -n 's/.*(src\/ tree \([0-9a-f]*\)).*/\1/p' docs/performance.md | head -1)
now=$(git rev-parse HEAD:src)
if [ -z "$recorded" ]; then
    echo "FAIL: docs/performance.md has no recorded figures (run make bench-record)"
    exit 1
fi
if [ "$recorded" != "$now" ]; then
    echo "FAIL: docs/performance.md's figures were measured on src/ tree $recorded; src/ is now $now: run make bench-record and commit the page"
    exit 1
fi
echo "docs/performance.md: figures recorded on the committed src/ tree $now"
