#!/usr/bin/env python3
"""make mutate: apply each mutant of tests/mutate/mutants.txt, rebuild, run the tests that should kill it.

A mutant is a small change to one source file (an operator, a bound, a swapped argument) that a
test must notice. For each mutant the runner replaces its exact original snippet (which must occur
once in the file) with the replacement, rebuilds the test binary incrementally, runs the doctest
filter the list names, and restores the file. The test run failing kills the mutant; passing means
it survived: some behaviour no test pins. See docs/testing.md.

Restoring is guaranteed: the original file is copied to BUILD_DIR/mutate-backup/ before it is
changed, restored in a finally block (and on SIGINT/SIGTERM), and a backup left by a run that was
killed outright is restored at the start of the next run. After the last mutant the binaries are
rebuilt from the restored sources.

usage: mutate.py [--build-dir build] [--jobs 2] [--list-file FILE] [--subset N] [--only ID[,ID...]] [--list]
  --list-file F  the list to run (default tests/mutate/mutants.txt, the hand list; the generated one is
                 tests/mutate/generated.txt, written by tests/mutate/generate.py)
  --subset N     N mutants picked by the current commit (git rev-parse HEAD), so CI rotates through them
  --only IDS     only these mutants
  --list         print the mutants and exit
  --whole        a mutant that survives its filter is run once more against both test binaries
                 whole (every unit and golden case): killed there, it is counted killed and the
                 failing case is named, so its filter can be widened (the full run uses this)
A mutant's tests are a doctest --test-case filter (`tests`), a --source-file filter (`source`, the
test files that must fail: what the generated list uses), or both (a case must match both).
Exit status: 0 when every mutant run was killed, 1 when one survived or did not compile, 2 when the
list itself is wrong (a snippet not found once, an unknown key).
"""
import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIST = os.path.join(ROOT, "tests", "mutate", "mutants.txt")
BINARIES = {"unit": "planlayout_unit_tests", "golden": "planlayout_golden_tests"}
KEYS = ("mutant", "file", "from", "to", "tests", "source", "binary", "why", "equivalent")
COUNT_LINE = re.compile(r"unskipped test cases passing the current filters: (\d+)")


class ListError(Exception):
    pass


def parse(path):
    """The mutants: blocks of `key value` lines separated by blank lines; # starts a comment line."""
    mutants, cur = [], None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("#"):
                continue
            if not line.strip():
                cur = None
                continue
            key, _, value = line.partition(" ")
            value = value.strip()
            if key not in KEYS:
                raise ListError(f"{path}:{n}: unknown key '{key}' (known: {', '.join(KEYS)})")
            if key == "mutant":
                cur = {"id": value, "line": n}
                mutants.append(cur)
                continue
            if cur is None:
                raise ListError(f"{path}:{n}: '{key}' before any 'mutant' line")
            if key in cur:
                raise ListError(f"{path}:{n}: '{key}' given twice for mutant {cur['id']}")
            cur[key] = value.replace("\u23ce", "\n") if key in ("from", "to") else value
    ids = set()
    for m in mutants:
        m.setdefault("binary", "unit")  # the unit tests unless the mutant names the golden ones
        where = f"{path}:{m['line']}: mutant {m['id']}"
        for key in ("file", "from", "to"):
            if key not in m:
                raise ListError(f"{where}: no '{key}' line")
        if "tests" not in m and "source" not in m:
            raise ListError(f"{where}: no 'tests' or 'source' line")
        if m["id"] in ids:
            raise ListError(f"{where}: the id is used twice")
        ids.add(m["id"])
        if m["binary"] not in BINARIES:
            raise ListError(f"{where}: binary must be one of {', '.join(BINARIES)}")
        if m["from"] == m["to"]:
            raise ListError(f"{where}: 'to' is the same as 'from'")
        src = os.path.join(ROOT, m["file"])
        if not os.path.isfile(src):
            raise ListError(f"{where}: no file {m['file']}")
        with open(src, encoding="utf-8") as f:
            found = f.read().count(m["from"])
        if found != 1:
            raise ListError(f"{where}: its 'from' snippet occurs {found} times in {m['file']} (it must occur once: "
                            "the code changed; update the snippet)")
    return mutants


def pick(mutants, subset, only):
    live = [m for m in mutants if "equivalent" not in m]
    if only:
        wanted = set(only.split(","))
        unknown = wanted - {m["id"] for m in mutants}
        if unknown:
            raise ListError(f"--only names no mutant: {', '.join(sorted(unknown))}")
        return [m for m in mutants if m["id"] in wanted]
    if subset and subset < len(live):
        seed = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        chosen = {m["id"] for m in random.Random(seed or time.strftime("%Y-%m-%d")).sample(live, subset)}
        return [m for m in live if m["id"] in chosen]
    return live


class Restorer:
    """Keeps the original of the file being mutated, on disk and in memory, and puts it back."""

    def __init__(self, build_dir):
        self.dir = os.path.join(build_dir, "mutate-backup")
        self.current = None  # (path, original bytes)

    def recover(self):
        """Restores whatever a killed run left in the backup folder."""
        if not os.path.isdir(self.dir):
            return
        for base, _, files in os.walk(self.dir):
            for name in files:
                backup = os.path.join(base, name)
                rel = os.path.relpath(backup, self.dir)
                print(f"mutate: restoring {rel} from a run that was interrupted", file=sys.stderr)
                shutil.copyfile(backup, os.path.join(ROOT, rel))
                os.utime(os.path.join(ROOT, rel))
                os.remove(backup)

    def mutate(self, rel, text):
        path = os.path.join(ROOT, rel)
        with open(path, "rb") as f:
            original = f.read()
        backup = os.path.join(self.dir, rel)
        os.makedirs(os.path.dirname(backup), exist_ok=True)
        with open(backup, "wb") as f:
            f.write(original)
        self.current = (path, original, backup)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def restore(self):
        if self.current is None:
            return
        path, original, backup = self.current
        with open(path, "wb") as f:
            f.write(original)
        os.utime(path)  # newer than the mutant's object file: the next build recompiles it (a ccache hit)
        if os.path.exists(backup):
            os.remove(backup)
        self.current = None


def build(build_dir, jobs, targets):
    run = subprocess.run(["cmake", "--build", build_dir, "-j", str(jobs)] + [a for t in targets for a in ("--target", t)],
                         capture_output=True, text=True)
    return run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]


def filters(m):
    """The doctest filter arguments of a mutant's tests."""
    out = []
    if "tests" in m:
        out.append("--test-case=" + m["tests"])
    if "source" in m:
        out.append("--source-file=" + m["source"])
    return out


def describe(m):
    return " ".join(filters(m))


def run_tests(build_dir, m, timeout, extra=()):
    exe = os.path.join(build_dir, "tests", BINARIES[m["binary"]])
    try:
        run = subprocess.run([exe, *filters(m), "--no-colors=true", *extra], cwd=build_dir,
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    return run.returncode, run.stdout[-1500:] + run.stderr[-500:]


FAILED_CASE = re.compile(r"TEST CASE:\s+(.*)")


def run_whole(build_dir, jobs, timeout):
    """Both binaries, unfiltered: (killed, the first failing case or why); killed is None when the
    mutant does not compile into the other binary (counted as not compiling, never as killed)."""
    built, log = build(build_dir, jobs, list(BINARIES.values()))
    if not built:
        last = log.strip().splitlines()[-1] if log.strip() else ""
        return None, "does not compile into both binaries: " + last
    for binary in BINARIES.values():
        exe = os.path.join(build_dir, "tests", binary)
        try:
            run = subprocess.run([exe, "--no-colors=true"], cwd=build_dir, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return True, f"{binary} timed out"
        if run.returncode != 0:
            case = FAILED_CASE.search(run.stdout)
            return True, f"{binary}: {case.group(1).strip() if case else 'failed'}"
    return False, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--subset", type=int, default=0)
    ap.add_argument("--only", default="")
    ap.add_argument("--list-file", default=LIST, help="the mutant list (default: the hand list, tests/mutate/mutants.txt)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--whole", action="store_true", help="run a survivor against both binaries whole")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per test run (a hang counts as killed)")
    args = ap.parse_args()
    build_dir = os.path.abspath(args.build_dir)
    restorer = Restorer(build_dir)
    if not args.list:
        # One run at a time: a second one would take the first's backup for an interrupted run's and
        # restore the file under it (--list reads only, and never recovers).
        other = running(build_dir)
        if other:
            print(f"mutate: another run (pid {other}) is mutating the sources; wait for it", file=sys.stderr)
            return 2
        os.makedirs(build_dir, exist_ok=True)
        with open(lock_path(build_dir), "w", encoding="utf-8") as f:
            f.write(str(os.getpid()))
        try:
            return run_all(args, build_dir, restorer)
        finally:
            os.remove(lock_path(build_dir))
    return run_all(args, build_dir, restorer)


def lock_path(build_dir):
    return os.path.join(build_dir, "mutate.lock")


def running(build_dir):
    """The pid of a live run holding the lock, or None (a stale lock is ignored)."""
    try:
        with open(lock_path(build_dir), encoding="utf-8") as f:
            pid = int(f.read().strip() or 0)
    except (OSError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def run_all(args, build_dir, restorer):
    if not args.list:
        restorer.recover()
    try:
        mutants = parse(os.path.abspath(args.list_file))
        chosen = pick(mutants, args.subset, args.only)
    except ListError as e:
        print(f"mutate: {e}", file=sys.stderr)
        return 2
    if args.list:
        for m in mutants:
            print(f"{m['id']:<34} {m['file']:<34} {'equivalent' if 'equivalent' in m else describe(m)}")
        return 0
    targets = sorted({BINARIES[m["binary"]] for m in chosen} | (set(BINARIES.values()) if args.whole else set()))
    ok, log = build(build_dir, args.jobs, targets)
    if not ok:
        print(f"mutate: the unmutated build fails:\n{log}", file=sys.stderr)
        return 2
    # Each filter must select a test and pass on the unmutated code, or a "kill" would mean nothing.
    # Each filter is checked once, however many mutants share it.
    checked = set()
    for m in chosen:
        key = (m["binary"], describe(m))
        if key in checked:
            continue
        checked.add(key)
        rc, out = run_tests(build_dir, m, args.timeout, ("--count",))
        count = COUNT_LINE.search(out or "")
        if rc != 0 or count is None or int(count.group(1)) == 0:
            print(f"mutate: mutant {m['id']}: its tests '{describe(m)}' select no test case", file=sys.stderr)
            return 2
        rc, out = run_tests(build_dir, m, args.timeout)
        if rc != 0:
            print(f"mutate: mutant {m['id']}: its tests '{describe(m)}' fail without the mutant:\n{out}", file=sys.stderr)
            return 2

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    results = []
    start_all = time.time()
    try:
        for i, m in enumerate(chosen, 1):
            start = time.time()
            path = os.path.join(ROOT, m["file"])
            with open(path, encoding="utf-8") as f:
                text = f.read()
            try:
                restorer.mutate(m["file"], text.replace(m["from"], m["to"], 1))
                built, log = build(build_dir, args.jobs, [BINARIES[m["binary"]]])
                if not built:
                    last = log.strip().splitlines()[-1] if log.strip() else ""
                    status, detail = "stillborn", "does not compile: " + last
                else:
                    rc, out = run_tests(build_dir, m, args.timeout)
                    status = "killed" if rc != 0 else "survived"
                    detail = "timed out" if rc is None else ""
                    if status == "survived" and args.whole:
                        whole_killed, why = run_whole(build_dir, args.jobs, args.timeout)
                        if whole_killed is None:
                            status, detail = "stillborn", why
                        elif whole_killed:
                            status, detail = "killed", "outside its filter, by " + why
            finally:
                restorer.restore()
            results.append((m, status))
            print(f"[{i}/{len(chosen)}] {status:<9} {m['id']:<34} {m['file']}  ({time.time() - start:.0f} s){' ' + detail if detail else ''}",
                  flush=True)
    except KeyboardInterrupt:
        print("mutate: interrupted; the source is restored", file=sys.stderr)
        raise
    finally:
        restorer.restore()
        ok, log = build(build_dir, args.jobs, targets)  # the binaries of the restored sources
        if not ok:
            print(f"mutate: rebuilding the restored sources failed:\n{log}", file=sys.stderr)
    killed = sum(1 for _, s in results if s == "killed")
    survived = [m["id"] for m, s in results if s == "survived"]
    stillborn = [m["id"] for m, s in results if s == "stillborn"]
    equivalent = sum(1 for m in mutants if "equivalent" in m)
    rate = 100.0 * killed / len(results) if results else 100.0
    print(f"mutants: {killed} killed of {len(results)} run ({rate:.1f} %); {len(survived)} survived"
          f"{': ' + ', '.join(survived) if survived else ''}; {len(stillborn)} did not compile"
          f"{': ' + ', '.join(stillborn) if stillborn else ''}; {equivalent} marked equivalent (not run); "
          f"{time.time() - start_all:.0f} s")
    return 0 if not survived and not stillborn else 1


if __name__ == "__main__":
    sys.exit(main())
