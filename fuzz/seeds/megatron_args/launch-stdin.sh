#!/bin/bash
torchrun --nproc_per_node 4 --nnodes 2 pretrain_gpt.py \
    --tensor-model-parallel-size 2 \
    --pipeline-model-parallel-size 2 \
    --num-layers 24 --hidden-size 1024 --bf16 \
    --use-distributed-optimizer \
    --expert-model-parallel-size 2 --expert-tensor-parallel-size 1 \
    --hierarchical-context-parallel-sizes 1 1
