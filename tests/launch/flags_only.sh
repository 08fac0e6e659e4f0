# tests/launch: a launch line pasted without its program (no training script to start).
--tensor-model-parallel-size 1 --pipeline-model-parallel-size 2 --expert-model-parallel-size 8
