#!/bin/bash
DISTRIBUTED_ARGS="--nproc_per_node 8 --nnodes $NUM_NODES"
torchrun $DISTRIBUTED_ARGS pretrain_gpt.py --tensor-model-parallel-size 2
