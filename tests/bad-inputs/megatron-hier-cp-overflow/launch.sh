# found by fuzz_megatron_args: the product of the hierarchical CP sizes overflowed int64 (UBSan)
torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py --context-parallel-size 2 \
    --hierarchical-context-parallel-sizes 2147483648 2147483648 2147483648
