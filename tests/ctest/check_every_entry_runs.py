#!/usr/bin/env python3
"""Every ctest entry that runs a doctest binary must select at least one test case.

doctest_discover_tests registers one ctest entry per TEST_CASE with --test-case=NAME. A name
that the registration splits (a ";" in it) or that doctest's filter reads differently (",",
wildcards) gives entries that select zero cases: doctest then prints "test cases: 0 | 0 passed"
and exits 0, so ctest shows "Passed" for a test that never ran (issue 32, item 1).

This check asks ctest for its entries (ctest --show-only=json-v1, as registered), reruns each
doctest entry's own command with --count, and fails when any selects zero cases. An entry that
selects more than one case is listed but not an error.

usage: check_every_entry_runs.py BUILD_DIR [--jobs N]
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

COUNT_LINE = re.compile(r"unskipped test cases passing the current filters: (\d+)")


def selected(command):
    """How many test cases the doctest command line selects (its --count)."""
    run = subprocess.run(command + ["--count", "--no-colors=true"], capture_output=True, text=True, check=False)
    m = COUNT_LINE.search(run.stdout)
    if run.returncode != 0 or m is None:
        raise RuntimeError(f"{command[0]} --count exited {run.returncode}: {run.stdout[-300:]}{run.stderr[-300:]}")
    return int(m.group(1))


def doctest_entries(build_dir):
    """(name, command) of every ctest entry whose command passes --test-case= to a binary."""
    out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build_dir, capture_output=True, text=True, check=True)
    entries = []
    for t in json.loads(out.stdout)["tests"]:
        command = t.get("command") or []
        if any(a.startswith("--test-case=") for a in command[1:]):
            entries.append((t["name"], [a for a in command if a != ""]))
    return entries


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    args = ap.parse_args()
    entries = doctest_entries(args.build_dir)
    if not entries:
        print("no doctest entries found in ctest's list: is the build dir right?", file=sys.stderr)
        return 1
    # The check itself must be able to fail: a filter that names no case counts 0, one that names
    # every case counts them all.
    binaries = sorted({cmd[0] for _, cmd in entries})
    for b in binaries:
        none, every = selected([b, "--test-case=no such case: check_every_entry_runs"]), selected([b])
        if none != 0 or every < 1:
            print(f"{b}: --count gives {none} for a filter that matches nothing and {every} for all", file=sys.stderr)
            return 1
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        counts = list(pool.map(lambda e: selected(e[1]), entries))
    hollow = [name for (name, _), n in zip(entries, counts) if n == 0]
    several = [(name, n) for (name, _), n in zip(entries, counts) if n > 1]
    for name, n in several:
        print(f"note: ctest entry selects {n} cases: {name}")
    for name in hollow:
        print(f"HOLLOW: ctest entry runs no test case: {name}")
    print(f"{len(entries)} doctest ctest entries, {len(hollow)} select no test case, {len(several)} select several")
    if hollow:
        print("fix: a TEST_CASE name must not contain ';' (doctest_discover_tests splits on it); "
              "see docs/testing.md", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
