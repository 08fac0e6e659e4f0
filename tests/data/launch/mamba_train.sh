#!/bin/bash
# Fixture written for plan-layout (not a copy): the construct of Megatron-LM's examples/mamba/train.sh
# (commit 157006d6d9bf4f55c0d4d7dacbd2b65e7bd84dc9) that issue 27 item 6 names. A `case` on a
# MODEL_SCALE the script sets to "800M" picks the sizes; the flags are gathered in one quoted string
# used unquoted, and the data and tokenizer paths are the script's positional parameters. bash runs
# the 800M branch (TP 1, 48 layers), never the 8B one (TP 4, 56 layers).

MODEL_SCALE="800M" # or "8B"

case "${MODEL_SCALE}" in
    "800M")
        TENSOR_MODEL_PARALLEL_SIZE=1
        NUM_LAYERS=48
        HIDDEN_SIZE=1024
        NUM_ATTENTION_HEADS=16
        GLOBAL_BATCH_SIZE=32
        ;;
    "8B")
        TENSOR_MODEL_PARALLEL_SIZE=4
        NUM_LAYERS=56
        HIDDEN_SIZE=4096
        NUM_ATTENTION_HEADS=32
        GLOBAL_BATCH_SIZE=8
        ;;
    *)
        echo "unknown MODEL_SCALE ${MODEL_SCALE}"
        exit 1
        ;;
esac

DATA_PATH=$1
TOKENIZER_PATH=$2
SEQ_LEN=4096

export CUDA_DEVICE_MAX_CONNECTIONS=1

options=" \
       --tensor-model-parallel-size ${TENSOR_MODEL_PARALLEL_SIZE} \
       --pipeline-model-parallel-size 1 \
       --sequence-parallel \
       --use-distributed-optimizer \
       --num-layers ${NUM_LAYERS} \
       --hidden-size ${HIDDEN_SIZE} \
       --num-attention-heads ${NUM_ATTENTION_HEADS} \
       --group-query-attention \
       --num-query-groups 8 \
       --seq-length ${SEQ_LEN} \
       --max-position-embeddings ${SEQ_LEN} \
       --data-path ${DATA_PATH} \
       --tokenizer-type GPTSentencePieceTokenizer \
       --tokenizer-model ${TOKENIZER_PATH} \
       --micro-batch-size 4 \
       --global-batch-size ${GLOBAL_BATCH_SIZE} \
       --bf16"

torchrun --nproc_per_node 8 pretrain_mamba.py ${options}
