#!/usr/bin/env bash
# The stages include only the stages before them (docs/architecture.md), in the data-flow order
#   topology/, parallel/  ->  model/  ->  analysis/  ->  ingest/, verify/  ->  emit/  ->  cli/
# topology/ and parallel/ read of model/ only its registry of numbers (model/number.hpp,
# model/numbers.hpp, model/numbers/*, model/units.hpp), which includes nothing of any stage;
# model/ (the performance model: the model's inputs to a step prediction) includes nothing of
# analysis/; topology/, parallel/, model/ and analysis/ read no input format (nothing from ingest/)
# and render nothing (nothing from emit/ or cli/); ingest/ renders nothing. The JSON reader is a
# base utility (planlayout/json_reader.hpp).
#   check_layers.sh SOURCE_DIR
set -u
SRC=${1:?usage: check_layers.sh SOURCE_DIR}
cd "$SRC" || exit 1
fail=0
report() {  # report DESCRIPTION HITS
    if [ -n "$2" ]; then
        echo "FAIL: $1:"
        echo "$2"
        fail=1
    fi
}
check() {  # check DESCRIPTION PATTERN DIR...
    local what=$1 pattern=$2
    shift 2
    report "$what" "$(grep -rnE "^#include \"planlayout/($pattern)/" "$@" 2>/dev/null)"
}
REGISTRY='^[^:]*:[0-9]+:#include "planlayout/model/(number\.hpp|numbers\.hpp|numbers/|units\.hpp)'
check "topology/, parallel/, model/ and analysis/ include ingest/, emit/ or cli/" "ingest|emit|cli" \
    src/topology src/parallel src/model src/analysis include/planlayout/topology include/planlayout/parallel \
    include/planlayout/model include/planlayout/analysis
check "topology/ and parallel/ include analysis/ or verify/" "analysis|verify" \
    src/topology src/parallel include/planlayout/topology include/planlayout/parallel
report "topology/ and parallel/ include model/ beyond its registry of numbers" \
    "$(grep -rnE '^#include "planlayout/model/' src/topology src/parallel include/planlayout/topology \
        include/planlayout/parallel 2>/dev/null | grep -vE "$REGISTRY")"
report "model/'s registry of numbers includes a stage" \
    "$(grep -rnE '^#include "planlayout/(topology|parallel|model|analysis|ingest|verify|emit|cli)/' \
        include/planlayout/model/number.hpp include/planlayout/model/numbers.hpp \
        include/planlayout/model/numbers include/planlayout/model/units.hpp src/model/numbers.cpp 2>/dev/null \
        | grep -vE "$REGISTRY")"
check "model/ includes analysis/ or verify/" "analysis|verify" src/model include/planlayout/model
check "ingest/ includes emit/ or cli/" "emit|cli" src/ingest include/planlayout/ingest
check "verify/ includes emit/ or cli/" "emit|cli" src/verify include/planlayout/verify
check "emit/ includes cli/" "cli" src/emit include/planlayout/emit
if [ "$fail" = 0 ]; then
    echo "layers: no include against the data flow (topology, parallel <- model's registry only;" \
        "model <- nothing of analysis; topology, parallel, model, analysis <- nothing of ingest/emit/cli)"
fi
exit "$fail"
