#!/usr/bin/env python3
"""Writes megatron-*.log: Megatron-LM training logs with known step times, each line built with
the format strings of megatron/training/training.py `training_log` (NVIDIA/Megatron-LM commit
d98e8a64ddf34856e74b24714e3bedb2f5a39553) and its timer rule: a line every --log-interval
iterations, plus the run's first iteration (is_first_iteration: printed, timer and counts NOT
reset); `elapsed time per iteration (ms)` = interval-time since the last reset / (advanced +
skipped iterations since it). Without a GPU this is the only way to know the true step times
the parser must recover; the surrounding lines are copied from the same file's prints.
"""
from datetime import datetime, timedelta


def run(path, step_times, log_interval=5, train_iters=30, gbs=16, label=""):
    t0 = datetime(2026, 3, 4, 10, 15, 2, 123456)
    lines = [f"{label}training ...", f"{label}[before the start of training step] datetime: 2026-03-04 10:14:58 "]
    now = t0
    interval_time = 0.0
    iters = 0
    consumed = 0
    for it, dt in enumerate(step_times[:train_iters], start=1):
        now += timedelta(seconds=dt)
        interval_time += dt
        iters += 1
        consumed += gbs
        first = it == 1
        if it % log_interval == 0 or first:
            ms = interval_time / iters * 1000.0
            s = f" [{now.strftime('%Y-%m-%d %H:%M:%S.%f')}]"
            s += ' iteration {:8d}/{:8d} |'.format(it, train_iters)
            s += ' consumed samples: {:12d} |'.format(consumed)
            s += ' elapsed time per iteration (ms): {:.1f} |'.format(ms)
            s += f' throughput per GPU (TFLOP/s/GPU): {2300.0 / (ms / 1000.0):.1f} |'
            s += f' learning rate: {3.0e-4 * min(1.0, it / 10):.6E} |'
            s += f' global batch size: {gbs:5d} |'
            s += ' {}: {:.6E} |'.format('lm loss', 10.5 - 0.05 * it)
            s += f' loss scale: {1.0:.1f} |'
            s += f' grad norm: {2.5 - 0.02 * it:.3f} |'
            s += ' number of skipped iterations: {:3d} |'.format(0)
            s += ' number of nan iterations: {:3d} |'.format(0)
            lines.append(label + s)
            if first:
                lines.append(f"{label}[Rank 15] (after 1 iterations) memory (MB) | allocated: 20480.5 | "
                             f"max allocated: 40960.2 | reserved: 45056.0 | max reserved: 45056.0")
            else:
                interval_time = 0.0
                iters = 0
    lines.append(f"{label}[after training is done] datetime: 2026-03-04 10:20:01 ")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


TCP = [38.0, 7.9, 5.1] + [4.50 + 0.04 * ((i * 3) % 7 - 3) for i in range(27)]
RDMA = [35.0, 6.2, 3.8] + [3.20 + 0.03 * ((i * 5) % 7 - 3) for i in range(27)]
if __name__ == "__main__":
    run("megatron-tcp-1.log", TCP)
    run("megatron-rdma-1.log", RDMA, label="15: ")  # srun --label prefixes each line with the task id
    for name, times in (("tcp", TCP), ("rdma", RDMA)):
        w = times[5:20]
        print(f"{name}: true mean of steps 6-20 = {sum(w) / len(w):.6f} s")
