#!/bin/bash
# Written for this golden test: a small MoE run as Megatron-Bridge's Qwen3 BF16 H100 recipe captures
# it in CUDA graphs (cuda_graph_impl transformer_engine, scope moe_router and moe_preprocess), with
# the flags' old spelling for the scope.
torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py \
    --tensor-model-parallel-size 1 --pipeline-model-parallel-size 2 --expert-model-parallel-size 8 \
    --num-layers 8 --hidden-size 2048 --ffn-hidden-size 6144 --num-attention-heads 32 \
    --group-query-attention --num-query-groups 4 --kv-channels 128 --swiglu --untie-embeddings-and-output-weights \
    --num-experts 128 --moe-router-topk 8 --moe-ffn-hidden-size 768 --moe-grouped-gemm \
    --moe-token-dispatcher-type alltoall --seq-length 4096 --micro-batch-size 1 --global-batch-size 64 \
    --vocab-size 151936 --bf16 --use-distributed-optimizer \
    --cuda-graph-impl transformer_engine --cuda-graph-scope moe_router moe_preprocess
