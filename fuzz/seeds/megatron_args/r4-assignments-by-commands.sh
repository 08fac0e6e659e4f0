#!/bin/bash
TP=1
let TP*=8
(( PP = 1 << 2 ))
printf -v CP %d 2
declare -n R=TP; R=8
declare "EP=8"
export "DP=4"
torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size $TP --pipeline-model-parallel-size $PP --context-parallel-size $CP
