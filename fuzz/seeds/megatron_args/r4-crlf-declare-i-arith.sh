#!/bin/bash
declare -i TP=4; TP+=4
PP=$(( 2 ** 1, 0x2 > 1 ? 010 : 2#1 ))
torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size $TP --pipeline-model-parallel-size $PP
