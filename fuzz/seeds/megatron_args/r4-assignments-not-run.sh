#!/bin/bash
TP=8
true || TP=1
[ -n x ] || TP=1
( TP=1 )
echo x | TP=1
while false; do TP=1; done
readonly PP=2
false && PP=4 || CP=2
torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size $TP --pipeline-model-parallel-size $PP
exit 0
