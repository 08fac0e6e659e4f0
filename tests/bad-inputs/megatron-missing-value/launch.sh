torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py --tensor-model-parallel-size
