#!/bin/bash
# issue 27 item 1: single-quoted text beside an unknown variable; a value with quotes and backquotes
X='a"b`c'
torchrun --nproc_per_node 8 pretrain_gpt.py --save '$(touch /tmp/x)'"$UNSET_DIR" --name 'a\'"$2" \
    --x "$X"'$y'$Z"\$w" --tensor-model-parallel-size 2
