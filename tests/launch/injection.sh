#!/bin/bash
# Issue 27 item 1 (tests/launch/argv_diff.py, test_scheduler.cpp): single-quoted text next to a
# variable the script does not set. Bash passes '$(touch /tmp/x)' literally and never runs it;
# 'a\'"$2" is a\ then $2's value.
torchrun --nproc_per_node 8 pretrain_gpt.py \
    --save '$(touch pwned)'"$UNSET_DIR" --name 'a\'"$2" --tag "$UNSET_DIR"'$x`id`'
