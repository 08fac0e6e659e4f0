#!/usr/bin/env python3
"""Differential argv harness (issue 27): the generated job passes the training script the argv
bash gives the user's own script, byte for byte, for the same environment, or plan-layout refuses
the script with its one-line error.

For each launch script (the fixtures below, then generated ones):
  1. reference: the script run by real bash with stub torchrun/python on PATH (tests/launch/stubs)
     that write the training script and its arguments NUL-separated (STUB_REFERENCE);
  2. `plan-layout analyze --megatron-args SCRIPT --format launch --launcher torchrun -o job.sh`;
  3. the job run by bash (node rank 0) with the same environment and arguments; the stub python
     writes each worker's argv; rank 0's must equal the reference.
A script plan-layout refuses passes only when the refusal is one line, "plan-layout: error: ...",
naming the script; refusals are counted. The plan rewrites the parallel sizes of the arguments
(with_plan_sizes); this harness plans with the script's own sizes (--megatron-args gives them and
the fuzzer's scripts give none), so the rewrite leaves every word as it was and the argv is
compared unchanged.

Usage: argv_diff.py PLAN_LAYOUT SOURCE_DIR [--seed N] [--count N] [--keep DIR] [--verbose]
CI runs the fixtures and 300 generated scripts of seed 1; give --seed/--count to run longer.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

NODE = "h100-hgx-8gpu-8nic"


class Case:
    def __init__(self, name, text=None, path=None, nodes=1, env=None, args=None, pl_env=None, expect_refusal=False,
                 extra=None, files=None):
        self.name = name
        self.text = text
        self.path = path
        self.nodes = nodes
        self.env = env or {}          # the environment of both runs (bash's and the job's)
        self.args = args or []        # the script's arguments (and the job's)
        self.pl_env = pl_env or {}    # --env NAME=VALUE given to plan-layout
        self.expect_refusal = expect_refusal  # True: must be refused; False: must run; None: either
        self.extra = extra or []      # more plan-layout flags (a model size the script spells its own way)
        self.files = files or []      # empty files the script checks for ([ -f pretrain_gpt.py ])


def fixtures(src):
    data = os.path.join(src, "tests", "data", "launch")
    here = os.path.join(src, "tests", "launch")
    mixtral_args = ["/ckpt dir/run 1", "/tok/tokenizer.model", "/data/my corpus_text_document"]
    cases = [
        Case("train_quoted", path=os.path.join(here, "train_quoted.sh"), nodes=2),
        Case("flags_only", path=os.path.join(here, "flags_only.sh"), expect_refusal=True),
        Case("injection", path=os.path.join(here, "injection.sh"), env={"UNSET_DIR": "/d i r"}),
        Case("injection-unset", path=os.path.join(here, "injection.sh")),
        Case("extra-args", path=os.path.join(here, "extra_args.sh"), env={"EXTRA_ARGS": "--lr 1e-4 --bf16"}),
        Case("extra-args-unset", path=os.path.join(here, "extra_args.sh")),
        Case("branch-env", path=os.path.join(here, "branch.sh"), pl_env={"MODEL": "big"}, env={"MODEL": "big"}),
        Case("branch-small", path=os.path.join(here, "branch.sh"), pl_env={"MODEL": "small"}, env={"MODEL": "small"}),
        Case("branch-unknown", path=os.path.join(here, "branch.sh"), env={"MODEL": "big"}, expect_refusal=True),
        Case("mixtral", path=os.path.join(data, "mixtral_8x7b.sh"), nodes=4, env={"WANDB_API_KEY": "set"},
             args=mixtral_args, pl_env={"WANDB_API_KEY": "set"}),
        Case("mixtral-env", path=os.path.join(data, "mixtral_8x7b.sh"), nodes=4, args=mixtral_args,
             pl_env={"WANDB_API_KEY": "", "1": mixtral_args[0], "2": mixtral_args[1], "3": mixtral_args[2]}),
        Case("mamba", path=os.path.join(data, "mamba_train.sh"), nodes=1, args=["/data/x", "/tok/y"]),
        Case("t5", path=os.path.join(data, "t5_220m.sh"), nodes=1, args=["/ckpt", "/tb", "/vocab.txt", "/data/t5"],
             extra=["--num-layers", "12", "--seq-length", "512"]),
        Case("gpt3", path=os.path.join(data, "gpt3_175b.sh"), nodes=16,
             args=["/ckpt", "/tb", "/vocab.json", "/merges.txt", "/data/gpt"]),
        # $3 and $4 not given: its `if` is decided by ${3:-MOCK}'s default, which the job cannot follow
        Case("llama3-assumed", path=os.path.join(data, "llama3_8b_fp8.sh"), nodes=1,
             args=["/ckpt", "/tb", "MOCK", "MOCK"], expect_refusal=True),
        Case("llama3", path=os.path.join(data, "llama3_8b_fp8.sh"), nodes=1,
             args=["/ckpt", "/tb", "MOCK", "MOCK"], pl_env={"3": "MOCK", "4": "MOCK"}, files=["pretrain_gpt.py"]),
        Case("llama3-data", path=os.path.join(data, "llama3_8b_fp8.sh"), nodes=1,
             args=["/ckpt", "/tb", "/tok/model", "/data/x"], pl_env={"3": "/tok/model", "4": "/data/x"},
             files=["pretrain_gpt.py"]),
    ]
    return cases


# ---------------------------------------------------------------------------- the fuzzer

VALUES = ["", "a", "a b", " lead", "trail ", "--lr 1e-4 --bf16", "a'b", 'q"r', "back\\slash", "tab\there",
          "$HOME", "-n", "x*y", "two  spaces", "=", "}", "~", "new\nline"]
PLAIN = ["1", "abc", "/p/q", "x.y", "a-b", "1e-4", "a:b", "k=v", ""]


# Issue 41 item 5: the ways bash sets a variable other than NAME=value (each sets S1, T or C,
# which the words use, or leaves them as they were where bash runs no assignment).
CONSTRUCTS = [
    "let T=2*4", "(( T = 1 << 3 ))", "printf -v T %d 8", "printf -v S1 'x%sy' \"$E1\"", "declare -n NR=T; NR=4",
    'declare "T=8"', 'export "C=c d"', "declare -i T=4; T+=4", "true || T=1", '[ -n x ] || T=1',
    '[ "$E1" = big ] && T=16', "false && T=1 || T=2", "false || { T=2; C=3; }", "( T=1 )", "echo x | T=1",
    "while false; do T=1; done", "until true; do T=1; done", "T=$(( 2 ** 3, 0x10 > 8 ? 010 : 2#1 ))",
    "f() { T=\"$1\"; S1=\"$#\"; }; f 'a b' c", "g() { local T=9; C=\"$*\"; }; g p q",
    "read -r T <<EOF\n8\nEOF", "( exit 1 )", "h() { return 0; T=1; }; h",
]


def construct(rng):
    return rng.choice(CONSTRUCTS)


def fuzz_case(rng, index):
    """One small script from the constructs the reader interprets, and an environment."""
    env = {}
    pl_env = {}
    lines = ["#!/bin/bash"]
    # R*: set (or not) in the environment of both runs, never told to plan-layout: the job expands them.
    for r in ("R1", "R2", "R3"):
        if rng.random() < 0.6:
            env[r] = rng.choice(VALUES)
    # E*: in both environments and given with --env (known to plan-layout), never assigned by the script.
    for e in ("E1", "E2"):
        if rng.random() < 0.7:
            env[e] = pl_env[e] = rng.choice(["big", "small", "1", "8", "", "a b"])
    args = [rng.choice(["p1", "p 2", "", "-x"]) for _ in range(rng.randint(0, 2))]

    def quote_single(s):
        return "'" + s.replace("'", "'\\''") + "'"

    def ansi(s):
        out = "$'"
        for ch in s:
            if ch == "'":
                out += rng.choice(["\\'", "\\x27", "\\047"])
            elif ch == "\\":
                out += "\\\\"
            elif ch == "\n":
                out += rng.choice(["\\n", "\\x0a", "\\012"])
            elif ch == "\t":
                out += rng.choice(["\\t", "\\x09", "\\cI"])
            elif ch.isalpha() and rng.random() < 0.2:
                out += "\\x%02x" % ord(ch)
            else:
                out += ch
        return out + "'"

    def ref(name):
        return rng.choice(["$" + name, "${" + name + "}"])

    def word(depth=0):
        # the constructs plan-layout refuses (13-15) are drawn less often, so most scripts compare
        k = rng.choices(range(22), weights=[1] * 13 + [0.3, 0.3, 0.3] + [1] * 6)[0]
        v = rng.choice(VALUES[1:])
        r = rng.choice(["R1", "R2", "R3"])
        if k == 0:
            return rng.choice(["--flag", "value", "--data-path", "x.y"])
        if k == 1:
            return quote_single(v)
        if k == 2:
            return '"' + rng.choice(["pre ", "", "$HOME-lit"]).replace("$", "\\$") + "$" + r + '"'
        if k == 3:
            return "'$(touch pwned)'\"$" + r + '"'
        if k == 4:
            return ref(r)
        if k == 5:
            return '"' + ref(r) + '"'
        if k == 6:
            return "${%s%s%s}" % (r, rng.choice([":-", "-", ":=", "="]), rng.choice(PLAIN))
        if k == 7:
            return '"${%s%s%s}"' % (r, rng.choice([":-", "-"]), rng.choice(PLAIN))
        if k == 8:
            return "${%s%s%s}" % (r, rng.choice([":+", "+"]), rng.choice(["--alt", "x"]))
        if k == 9:
            return ansi(v)
        if k == 10:
            return rng.choice(['"${A[@]}"', "${A[@]}", '"${A[*]}"', "${A[1]}", '"${#A[@]}"'])
        if k == 11:
            return rng.choice(["$S1", '"$S1"', "${S2}", '"$S2"x', "$S3"])
        if k == 12:
            return rng.choice(["$1", '"$1"', "$2", '"$@"', "$@", "$#", '"$*"'])
        if k == 13:
            return rng.choice(["${%s#a}" % r, "${S1%%b}", "${%s/a/b}" % r, "${%s:1:2}" % r])
        if k == 14:
            return rng.choice(["$(echo hi)", "`echo hi`", "\"$(date)\""])
        if k == 15:
            return rng.choice(["{a,b}", "x{1..3}", "~", "~/d", "--p=~/x"])
        if k == 16:
            return rng.choice(["$E1", '"$E2"', "${E1:-d}", "${E2+set}"])
        if k == 17:
            return rng.choice(["$T", '"$T"', "$C", '"$U"'])
        if k == 18:
            return "a\\ b" if rng.random() < 0.5 else "\\$R1"
        if k == 19 and depth == 0:
            return word(1) + word(1)
        if k == 20:
            return '"a""b"' + "''" + ref(r)
        return rng.choice(["''", '""', "--x=" + quote_single(v)])

    # assignments and control flow
    pre = []
    pre.append("S1=" + rng.choice(['"x $R1"', "'lit eral'", "$R2", '"$E1"', "${R1:-dflt}", "plain"]))
    pre.append("S2=" + rng.choice(['"two words"', "$'a\\tb'", '"$R3"', "${E2:-e}"]))
    pre.append("S3=" + rng.choice(["$1", '"$2"', "$S1$S2", "${R1}z"]))
    pre.append("A=(" + " ".join(word(1) for _ in range(rng.randint(0, 3))) + ")")
    if rng.random() < 0.3:
        pre.append("A+=(" + word(1) + ")")
    cond = rng.choice(['[ "$E1" = big ]', '[[ $E2 == 8 ]]', '[ -n "$E1" ]', '[ -z "$E2" ]', '[ "$E2" -gt 4 ]',
                       'test "$E1" != small', '[ "$R1" = a ]', '[ -n "$E1" ] && [ "$E2" = 1 ]',
                       '! [ "$E1" = big ]', '[ -f /etc/passwd ]', "true", "false", '[ "$S1" = plain ]'])
    form = rng.randrange(4)
    if form == 0:
        pre.append("if %s; then T=8; else T=2; fi" % cond)
    elif form == 1:
        pre.append("if %s; then\n    T=8\nelif [ \"$E2\" = 1 ]; then\n    T=4\nfi" % cond)
    elif form == 2:
        pre.append('case "$%s" in\n    big) C=1 ;;\n    1|8) C="two words" ;;\n    *) C=z ;;\nesac'
                   % rng.choice(["E1", "E2", "R1"]))
    else:
        pre.append('case "$%s" in\n    "8") C=8 ;;\n    b*) C=bee ;;\nesac' % rng.choice(["E1", "E2"]))
    extra = rng.randrange(16)
    if extra == 0:
        pre.append("unset S1")
    elif extra == 1:
        pre.append("IFS=:")
    elif extra == 2:
        pre.append("set -- x y")
    elif extra == 3:
        pre.append("export U=" + word(1))
    elif extra == 4:
        pre.append("for T in a b; do :; done")
    if rng.random() < 0.5:
        pre.append(construct(rng))  # issue 41 item 5: variables bash sets another way
    rng.shuffle(pre[4:])
    lines += pre
    words = [word() for _ in range(rng.randint(1, 6))]
    lines.append("torchrun --nproc_per_node 8 pretrain_gpt.py " + " ".join(words))
    return Case("fuzz-%d" % index, text="\n".join(lines) + "\n", env=env, args=args, pl_env=pl_env, expect_refusal=None)


# ---------------------------------------------------------------------------- running

def base_env(stubs):
    return {"PATH": stubs + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/home/argv-diff",
            "LC_ALL": "C"}


def run_case(case, binary, stubs, work):
    """'ok', 'refused' or a failure message."""
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    script = os.path.join(work, "train.sh")
    if case.path:
        shutil.copyfile(case.path, script)
    else:
        with open(script, "w") as f:
            f.write(case.text)
    run_dir = os.path.join(work, "run")  # empty: no pattern matches a file in either run
    os.makedirs(run_dir)
    for name in case.files:
        open(os.path.join(run_dir, name), "w").close()
    env = base_env(stubs)
    env.update(case.env)
    ref = os.path.join(work, "reference")
    env_ref = dict(env, STUB_REFERENCE=ref)
    subprocess.run(["bash", script] + case.args, cwd=run_dir, env=env_ref, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
    cmd = [binary, "analyze", "--nodes", str(case.nodes), "--node", NODE, "--megatron-args", script,
           "--format", "launch", "--launcher", "torchrun", "-o", os.path.join(work, "job.sh")]
    for k, v in sorted(case.pl_env.items()):
        cmd += ["--env", "%s=%s" % (k, v)]
    cmd += case.extra
    p = subprocess.run(cmd, cwd=work, env=base_env(stubs), stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    if p.returncode != 0:
        err = p.stderr.decode("utf-8", "replace")
        if p.returncode in (1, 2, 3, 4, 5, 6, 7, 8) and err.count("\n") == 1 and err.startswith("plan-layout: error: ") \
                and re.search(r"train\.sh\b", err):
            if case.expect_refusal is False:
                return "FAIL: refused, but bash's argv is what this fixture pins: " + err.strip(), ""
            return "refused", err.strip()
        return "FAIL: plan-layout exit %d without a one-line error naming the script: %r" % (p.returncode, err), ""
    if case.expect_refusal:
        return "FAIL: expected a refusal, plan-layout wrote a job", ""
    if not os.path.exists(ref):
        return "FAIL: bash did not start the training (the script stops first), plan-layout wrote a job", ""
    out = os.path.join(work, "out")
    os.makedirs(out)
    job_env = dict(env, STUB_OUT=out, NODE_RANK="0")
    j = subprocess.run(["bash", os.path.join(work, "job.sh")] + case.args, cwd=run_dir, env=job_env,
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    got = os.path.join(out, "rank.0.argv")
    if j.returncode != 0 or not os.path.exists(got):
        return "FAIL: the job failed (exit %d): %s" % (j.returncode, j.stderr.decode("utf-8", "replace")[-400:]), ""
    with open(ref, "rb") as f:
        want = f.read().split(b"\0")[:-1]
    with open(got, "rb") as f:
        have = f.read().split(b"\0")[:-1]
    if want != have:
        return "FAIL: argv differs\n  bash: %r\n  job:  %r" % (want, have), ""
    if os.path.exists(os.path.join(run_dir, "pwned")):
        return "FAIL: a command written in quotes ran: $(touch pwned)", ""
    return "ok", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("source")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--keep", help="keep each failing case's files under this folder")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    stubs = os.path.join(os.path.abspath(a.source), "tests", "launch", "stubs")
    cases = fixtures(os.path.abspath(a.source))
    n_fixtures = len(cases)
    rng = random.Random(a.seed)
    cases += [fuzz_case(rng, i) for i in range(a.count)]
    counts = {"fixture": [0, 0, 0], "fuzz": [0, 0, 0]}  # ok, refused, failed
    failed = 0
    with tempfile.TemporaryDirectory(prefix="argv-diff-") as tmp:
        for i, case in enumerate(cases):
            kind = "fixture" if i < n_fixtures else "fuzz"
            work = os.path.join(tmp, "case")
            result, detail = run_case(case, binary, stubs, work)
            if result == "ok":
                counts[kind][0] += 1
            elif result == "refused":
                counts[kind][1] += 1
                if a.verbose or kind == "fixture":
                    print("refused %s: %s" % (case.name, detail))
            else:
                counts[kind][2] += 1
                failed += 1
                print("FAIL %s (seed %d): %s" % (case.name, a.seed, result))
                print("  script:\n    " + (case.text or open(case.path).read()).replace("\n", "\n    ").rstrip())
                print("  env: %r args: %r --env: %r" % (case.env, case.args, case.pl_env))
                if a.keep:
                    dest = os.path.join(a.keep, case.name)
                    shutil.rmtree(dest, ignore_errors=True)
                    shutil.copytree(work, dest)
    for kind in ("fixture", "fuzz"):
        ok, refused, bad = counts[kind]
        print("%s scripts: %d, same argv: %d, refused with a one-line error: %d, failed: %d"
              % (kind, ok + refused + bad, ok, refused, bad))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
