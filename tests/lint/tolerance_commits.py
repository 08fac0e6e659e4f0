#!/usr/bin/env python3
"""A tolerance never moves in the same commit as the model (issue 42 item 4, docs/testing.md
"Validation held out").

  tolerance_commits.py ROOT        walk ROOT's history
  tolerance_commits.py --self-test  a temporary repository: a commit that changes both fails,
                                    separate commits pass, a shallow clone is skipped

Every commit that changed tests/tolerances.json (the tolerances and baselines of every check of a
prediction against end-to-end data), after the commit that created it, must change no model source.
The model: the globs of tests/lint/model_sources.txt (lines; '#' starts a comment) and MODEL below.
Merge commits are not checked (each of their parents' commits is). Exit 0: none does; 1: one does
(each named); 77 (skipped): ROOT is not a git checkout, or its history is shallow (the commits
that would have to be read are not there)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOLERANCES = "tests/tolerances.json"
LISTED = "tests/lint/model_sources.txt"
# The model's files as they were named before they moved to src/model/ (issue 42 item 3): older commits
# changed them there. calibrate and pipeline stay in analysis/ and set predictions too.
ANALYSIS = ("compute_model", "cost", "score", "memory", "overlap", "traffic", "model_derive", "model_spec",
            "collective_op", "collective_fit", "calibrate", "pipeline")
MODEL = (["src/model/**", "include/planlayout/model/**", "layouts/kernels/**"]
         + [f"src/analysis/{n}.cpp" for n in ANALYSIS]
         + [f"include/planlayout/analysis/{n}.hpp" for n in ANALYSIS])
SKIP = 77


def glob_regex(glob):
    """A glob relative to the repository root as a regex over paths: ** any depth, * and ? within a name."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def model_globs(root):
    globs = list(MODEL)
    listed = os.path.join(root, LISTED)
    if os.path.exists(listed):
        for line in open(listed):
            line = line.split("#", 1)[0].strip()
            if line:
                globs.append(line)
    return globs


def git(root, *args):
    p = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


def check(root):
    """(exit code, lines to print)."""
    try:
        if git(root, "rev-parse", "--is-inside-work-tree").strip() != "true":
            return SKIP, [f"skipped: {root} is not a git work tree"]
    except (RuntimeError, FileNotFoundError) as e:
        return SKIP, [f"skipped: {root} is not a git checkout ({e})"]
    if git(root, "rev-parse", "--is-shallow-repository").strip() == "true":
        return SKIP, ["skipped: the history is shallow (git fetch --unshallow to check it)"]
    commits = git(root, "log", "--no-merges", "--format=%H", "--", TOLERANCES).split()
    if not commits:
        return 0, [f"{TOLERANCES} is in no commit yet: nothing to check"]
    created = git(root, "log", "--diff-filter=A", "--format=%H", "--", TOLERANCES).split()
    first = created[-1] if created else commits[-1]
    patterns = [(g, glob_regex(g)) for g in model_globs(root)]
    bad = []
    for c in commits:
        if c == first:
            continue
        files = git(root, "diff-tree", "--root", "--no-commit-id", "--name-only", "-r", "-z", c).split("\0")
        model = sorted(f for f in files if f and any(rx.match(f) for _, rx in patterns))
        if model:
            subject = git(root, "log", "-1", "--format=%s", c).strip()
            shown = ", ".join(model[:5]) + (f" and {len(model) - 5} more" if len(model) > 5 else "")
            bad.append(f"{c[:12]} \"{subject[:80]}\" changes {TOLERANCES} and the model ({shown}): "
                       "move a tolerance or baseline in a commit of its own (docs/testing.md)")
    checked = len(commits) - (first in commits)
    if bad:
        return 1, bad + [f"tolerance commits: {len(bad)} of {checked} commits change the model too"]
    return 0, [f"tolerance commits: {checked} commits changed {TOLERANCES} after it was created, none the model"]


def self_test():
    """A temporary repository with the rule's cases; returns an exit code."""
    failures = []
    tmp = tempfile.mkdtemp(prefix="tolerance-commits-")
    os.environ["GIT_CEILING_DIRECTORIES"] = tmp  # no repository above tmp is found
    try:
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)

        def run(*args):
            subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
                            *args], check=True, capture_output=True)

        def commit(message, files):
            for path, text in files.items():
                full = os.path.join(repo, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w") as f:
                    f.write(text)
            run("add", "-A")
            run("commit", "-q", "-m", message)

        def expect(code, what, root=repo, text=None):
            got, lines = check(root)
            if got != code or (text and not any(text in line for line in lines)):
                failures.append(f"{what}: exit {got}, expected {code}" + (f" naming '{text}'" if text else "")
                                + ": " + " | ".join(lines))

        expect(SKIP, "not a git checkout")
        run("init", "-q")
        commit("the model and its tolerances together, created", {
            TOLERANCES: '{"t": 1}\n', "src/model/numbers.cpp": "1\n", "src/analysis/cost.cpp": "1\n",
            "lib/extra.cpp": "1\n", LISTED: "# a comment line\nlib/extra.cpp  # listed\n"})
        expect(0, "the commit that creates the file may hold the model")
        commit("a tolerance alone", {TOLERANCES: '{"t": 2}\n'})
        commit("the model alone", {"src/model/numbers.cpp": "2\n", "layouts/kernels/h.json": "{}\n"})
        commit("neither", {"README": "x\n"})
        commit("a tolerance beside a file that is not the model", {TOLERANCES: '{"t": 3}\n', "src/analysis/plan.cpp": "1\n"})
        expect(0, "separate commits")
        # From here, one branch for each way to break the rule.
        run("tag", "base")
        for name, files in (("analysis", {"src/analysis/cost.cpp": "2\n"}),
                            ("header", {"include/planlayout/analysis/score.hpp": "2\n"}),
                            ("kernels", {"layouts/kernels/h.json": "[]\n"}),
                            ("listed", {"lib/extra.cpp": "2\n"})):
            run("checkout", "-q", "-b", name, "base")
            commit(f"both in one commit ({name})", dict(files, **{TOLERANCES: '{"t": "%s"}\n' % name}))
            expect(1, f"one commit changes both ({name})", text=next(iter(files)))
        # A shallow clone: the commits to read are not there.
        shallow = os.path.join(tmp, "shallow")
        subprocess.run(["git", "clone", "-q", "--depth", "1", "file://" + repo, shallow], check=True, capture_output=True)
        expect(SKIP, "a shallow clone", root=shallow)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print(f"tolerance_commits self-test: {'failed' if failures else 'passed'}")
    return 1 if failures else 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    code, lines = check(argv[0])
    for line in lines:
        print(line)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
