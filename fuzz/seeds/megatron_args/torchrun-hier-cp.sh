#!/bin/bash
# Megatron-LM launch with torchrun, hierarchical CP and expert parallelism
torchrun --nnodes 4 --nproc-per-node 8 pretrain_gpt.py \
    --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 \
    --context-parallel-size 4 --hierarchical-context-parallel-sizes 2 2 \
    --expert-model-parallel-size 4 --expert-tensor-parallel-size 1 \
    --virtual-pipeline-model-parallel-size 2 --use-tp-pp-dp-mapping \
    --num-distributed-optimizer-instances 2 --hybrid-context-parallel \
    --micro-batch-size 1 --global-batch-size 64 "--seq-length" '4096' # comment
