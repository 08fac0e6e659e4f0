#!/bin/bash
# Issue 27 item 2 (tests/launch/argv_diff.py): an unquoted variable from the environment splits
# into words as bash splits it, and expands to no word when unset.
torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 4 $EXTRA_ARGS "${EXTRA_ARGS}" ${MORE:-} \
    --tokenizer $'\x27quoted\x27\tand\\' ${TAG:-run-1}
