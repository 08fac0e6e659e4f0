#!/usr/bin/env bash
# The stages include only the stages before them (docs/architecture.md): topology/, parallel/ and
# analysis/ read no input format (nothing from ingest/) and render nothing (nothing from emit/ or
# cli/); ingest/ renders nothing. The JSON reader is a base utility (planlayout/json_reader.hpp).
#   check_layers.sh SOURCE_DIR
set -u
SRC=${1:?usage: check_layers.sh SOURCE_DIR}
cd "$SRC" || exit 1
fail=0
check() {  # check DESCRIPTION PATTERN DIR...
    local what=$1 pattern=$2
    shift 2
    local hits
    hits=$(grep -rnE "^#include \"planlayout/($pattern)/" "$@" 2>/dev/null)
    if [ -n "$hits" ]; then
        echo "FAIL: $what:"
        echo "$hits"
        fail=1
    fi
}
check "topology/, parallel/, model/ and analysis/ include ingest/, emit/ or cli/" "ingest|emit|cli" \
    src/topology src/parallel src/model src/analysis include/planlayout/topology include/planlayout/parallel \
    include/planlayout/model include/planlayout/analysis
check "model/ includes analysis/" "analysis" src/model include/planlayout/model
check "ingest/ includes emit/ or cli/" "emit|cli" src/ingest include/planlayout/ingest
check "verify/ includes emit/ or cli/" "emit|cli" src/verify include/planlayout/verify
check "emit/ includes cli/" "cli" src/emit include/planlayout/emit
if [ "$fail" = 0 ]; then
    echo "layers: no include against the data flow (topology, parallel, analysis <- nothing of ingest/emit/cli)"
fi
exit "$fail"
