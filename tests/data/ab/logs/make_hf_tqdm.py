#!/usr/bin/env python3
"""Writes hf-trainer-*.log: the progress output of HF Trainer's ProgressCallback, produced by the
real tqdm (Debian python3-tqdm 4.64.1) on a simulated clock, so the step times are known.

HF Trainer (huggingface/transformers src/transformers/trainer_callback.py, commit
55093b758b338fdc7903e778509523d755ae080d, class ProgressCallback): on_train_begin opens
tqdm(total=state.max_steps, dynamic_ncols=True); on_step_end calls update(global_step -
current_step); on_log writes str(logs) through training_bar.write; on_prediction_step opens a
second bar over the evaluation batches (leave=False). Run:
    PYTHONPATH=/path/to/python3-tqdm/dist-packages python3 make_hf_tqdm.py
"""
import io
import sys

import tqdm.std as tstd


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def run(path, step_times, eval_at, eval_batches=4):
    clock = Clock()
    tstd.time = clock  # tqdm.std reads `time` at construction and update
    out = io.StringIO()
    bar = tstd.tqdm(total=len(step_times), dynamic_ncols=True, file=out)
    bar._time = clock
    for i, dt in enumerate(step_times, start=1):
        clock.t += dt
        bar.update(1)
        if i % 5 == 0:
            bar.write(str({"loss": round(2.5 - 0.01 * i, 4), "grad_norm": 1.25, "learning_rate": 5e-05,
                           "epoch": round(i / len(step_times), 2)}), file=out)
        if i == eval_at:
            ev = tstd.tqdm(total=eval_batches, leave=False, dynamic_ncols=True, file=out)
            ev._time = clock
            for _ in range(eval_batches):
                clock.t += 0.7
                ev.update(1)
            ev.close()
    bar.close()
    with open(path, "w", encoding="utf-8") as f:
        f.write(out.getvalue())


# Known step times (seconds): a slow first step, then a steady state with a little jitter.
TCP = [12.0, 6.1, 5.2] + [4.50 + 0.04 * ((i * 3) % 7 - 3) for i in range(27)]
RDMA = [11.0, 5.0, 3.9] + [3.20 + 0.03 * ((i * 5) % 7 - 3) for i in range(27)]
if __name__ == "__main__":
    run("hf-trainer-tcp-1.log", TCP, eval_at=25)
    run("hf-trainer-rdma-1.log", RDMA, eval_at=25)
    for name, times in (("tcp", TCP), ("rdma", RDMA)):
        w = times[5:20]
        sys.stdout.write(f"{name}: true mean of steps 6-20 = {sum(w) / len(w):.6f} s\n")
