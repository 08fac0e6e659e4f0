#!/usr/bin/env python3
"""Writes torchtitan-*.log: torchtitan training logs with known step times, each line built with
the format string of torchtitan/components/metrics.py `MetricsProcessor.log` and the colours of
torchtitan/tools/utils.py `Color` (pytorch/torchtitan commit
b5bcd76c66d0acb1a08b176d9639425bc55e0b2a), behind the logger prefix of torchtitan/tools/logging.py
("[titan] %(asctime)s - %(name)s - %(levelname)s - %(message)s") and torchrun's "[rank0]:".
Rule: a line at step 1 and every log_freq steps (should_log), tps = tokens since the last line /
(seconds since the last line x non-data-parallel size), then both reset; `validate step:` lines
reset them too. Tokens of one step per GPU here: 8192 (global batch 64 x seq 4096 / 32 GPUs).
"""
from datetime import datetime, timedelta

RED, GREEN, BLUE, CYAN, MAGENTA, YELLOW = "\033[31m", "\033[32m", "\033[34m", "\033[36m", "\033[35m", "\033[33m"
ORANGE, TURQUOISE, RESET = "\033[38;2;180;60;0m", "\033[38;2;54;234;195m", "\033[39m"
TOKENS_PER_GPU_STEP = 8192  # ntokens_since_last_log grows by local batch x seq per step; non-DP size 1


def run(path, step_times, log_freq=5, validate_at=None):
    now = datetime(2026, 3, 4, 10, 15, 2, 123000)
    prefix = lambda: f"[rank0]:[titan] {now.strftime('%Y-%m-%d %H:%M:%S')},{now.microsecond // 1000:03d} - root - INFO - "
    lines = [prefix() + f"{RED}Training starts at step 1{RESET}"]
    since, ntok = 0.0, 0
    for step, dt in enumerate(step_times, start=1):
        now += timedelta(seconds=dt)
        since += dt
        ntok += TOKENS_PER_GPU_STEP
        if step == 1 or step % log_freq == 0:
            tps = ntok / since
            flops_per_token = 6 * 8.0e9
            tflops = flops_per_token * tps / 1e12
            mfu = 100 * flops_per_token * tps / 989e12
            lines.append(prefix() +
                         f"{RED}step: {step:2}  "
                         f"{GREEN}loss: {10.5 - 0.05 * step:8.5f}  "
                         f"{ORANGE}grad_norm: {2.5 - 0.02 * step:7.4f}  "
                         f"{TURQUOISE}memory: {61.42:5.2f}GiB"
                         f"({77.55:.2f}%)  "
                         f"{BLUE}tps: {round(tps):,}  "
                         f"{CYAN}tflops: {tflops:,.2f}  "
                         f"{MAGENTA}mfu: {mfu:.2f}%{RESET}")
            since, ntok = 0.0, 0
        if validate_at == step:
            lines.append(prefix() + f"{YELLOW}validate step: {step:2}  {GREEN}loss:  9.1234  "
                         f"{TURQUOISE}memory: 61.42GiB(77.55%)  {BLUE}tps: 4,321{RESET}")
    lines.append(prefix() + "Training completed")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


TCP = [30.0, 6.1, 5.2] + [4.50 + 0.04 * ((i * 3) % 7 - 3) for i in range(27)]
RDMA = [28.0, 5.0, 3.9] + [3.20 + 0.03 * ((i * 5) % 7 - 3) for i in range(27)]
if __name__ == "__main__":
    run("torchtitan-tcp-1.log", TCP, validate_at=25)
    run("torchtitan-rdma-1.log", RDMA)
    for name, times in (("tcp", TCP), ("rdma", RDMA)):
        w = times[5:20]
        print(f"{name}: true mean of steps 6-20 = {sum(w) / len(w):.6f} s")
