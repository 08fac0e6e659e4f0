#!/bin/bash
run() {
  local TP=$1
  shift
  torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size $TP "$@"
}
run 4 --lr 1 "a b"
