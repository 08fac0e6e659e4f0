#!/bin/bash
# Issue 27 item 6 (tests/launch/argv_diff.py, test_launch_script.cpp): the branch bash takes.
MODEL=${MODEL:-small}
if [ "$MODEL" = big ]; then
    TP=8
    NAME="big model"
else
    TP=2
    NAME=small
fi
case "$MODEL" in
    big) LAYERS=80 ;;
    *) LAYERS=24 ;;
esac
torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size $TP --num-layers $LAYERS \
    --exp-name "$NAME"
