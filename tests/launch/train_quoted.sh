#!/bin/bash
# A launch script written for tests/launch/check_launch.sh (not from a project): arguments with
# blanks, quotes, an `=` form, an empty argument and a parallel size given as --x=N, to check
# that the generated launch passes every one on byte for byte.
DATA="/data/my corpus/text_document"
NAME='run "A" it'"'"'s'
torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py \
    --tensor-model-parallel-size=1 --pipeline-model-parallel-size 2 --expert-model-parallel-size 8 \
    --num-layers 4 --hidden-size 1024 --num-attention-heads 16 --seq-length 2048 \
    --micro-batch-size 1 --global-batch-size 64 --num-experts 16 \
    --data-path "$DATA" --wandb-exp-name "$NAME" --lr=1e-4 --split '' --eval-iters 10 --bf16
