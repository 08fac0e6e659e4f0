#!/bin/bash
# issue 27 item 6: if/elif/else and case over known, unknown and defaulted values
MODEL_SCALE="800M"
M=${M:-big}
if [ "$MODEL" = big ] && [[ $N -gt 4 ]] || ! test -z "$Q"; then TP=8; elif [ "$M" != big ]; then TP=4; else TP=2; fi
case "${MODEL_SCALE}" in
    "800M") PP=1 ;;
    8B|16B) PP=4 ;;
    b*) PP=2 ;;
    *) exit 1 ;;
esac
case $M in (big) if true; then L=1; fi ;; esac
for i in 1 2; do EP=$i; done
torchrun pretrain_gpt.py --tensor-model-parallel-size $TP --pipeline-model-parallel-size $PP --num-layers $L --x $i
