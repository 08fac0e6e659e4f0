#!/usr/bin/env python3
"""Runs every plan-layout command line shown in README.md and docs/ (issue 31: docs that run as written).

    check_doc_commands.py BINARY SOURCE_DIR [--jobs N] [--list]

A command line is a line inside a fenced code block of README.md or docs/**/*.md whose first word
(after an optional `$ ` prompt) is `plan-layout`, or a pipeline of which a later stage starts with
`plan-layout` (`kubectl get nodes -o json | plan-layout import k8s-nodes -`). A line ending in `\\`
continues on the next one. A trailing `# comment` is kept in the command (bash ignores it) and may
document the exit code: `# exit N` (or `# exit N: why`) says the command exits N. In a block,
`$ echo $?` followed by a number (build_readme.py's `exit` filter writes that) documents the exit
code of the block's last command. Any other command must exit 0.

Not run (templates, docs/development.md "Commands in the docs"):
  - the lines of a fenced block right after a `<!-- usage -->` line;
  - the synopsis of a --help output: a line starting with `Usage:` and the lines after it up to a
    blank line.
Each such line must hold a placeholder (an uppercase word, `[`, `<x>` or `...`): a runnable
command hidden in a template block fails the check.

Each Markdown file's commands run in order, with bash -o pipefail, BINARY first on PATH (stub
`kubectl` and `nvidia-smi` print a capture from tests/data; `discover` reads a DGX-2's hwloc XML
through HWLOC_XMLFILE, not this machine), in a scratch folder that holds a
symbolic link to each top-level entry of SOURCE_DIR: `-o out.json` writes there and the repository
stays clean. So a command must not write under a repository folder (`-o layouts/x.json`) and must
not name an absolute path (a file of this machine, not of the repository). Files run in parallel
(--jobs, default 2), each command with a 60 s timeout.

Prints `file:line: rc=N (expected M): command` and the last line of standard error for each
failure, then a summary; exits 1 on any failure (or when no command is found).
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 60
FENCE = re.compile(r'^\s*```')
EXIT_COMMENT = re.compile(r'#\s*exit\s+(\d+)\b')
PLACEHOLDER = re.compile(r'\[|<[^>]*>|\.\.\.|(?<![\w.-])[A-Z][A-Z0-9_]*(?![\w.])')
# Programs that feed plan-layout in a documented pipeline; the stubs print a capture from the
# repository, so the pipeline runs here as it would on a machine that has them.
STUBS = {
    'kubectl': ('get nodes -o json', 'tests/data/k8s-nodes/aws-eks-p5.json'),
    'nvidia-smi': ('topo -m', 'tests/data/fixtures/nvidia-smi-topo/dgx-a100-8gpu-10nic-amd-nps4-clean.txt'),
}
# `plan-layout discover` reads this machine through libhwloc; HWLOC_XMLFILE makes libhwloc load this
# capture instead (a DGX-2: 16 GPUs, NVSwitch, no RDMA NIC), so the result does not depend on the host.
DISCOVER_CAPTURE = 'tests/data/fixtures/hwloc-xml/hwloc2-nvidiaDGX2.xml'


class Command:
    def __init__(self, path, line, text, expect, template):
        self.path, self.line, self.text, self.expect, self.template = path, line, text, expect, template


def markdown_files(root):
    files = ['README.md']
    for folder, dirs, names in os.walk(os.path.join(root, 'docs')):
        dirs.sort()
        files += sorted(os.path.relpath(os.path.join(folder, n), root) for n in names if n.endswith('.md'))
    return files


def strip_comment(text):
    """(command, comment): the first `#` outside quotes that starts a word begins the comment."""
    quote = None
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in '\'"':
            quote = c
        elif c == '#' and (i == 0 or text[i - 1].isspace()):
            return text[:i].rstrip(), text[i:]
    return text.rstrip(), ''


def is_command(text):
    words = text.split()
    if not words:
        return False
    if words[0] == 'plan-layout':
        return True
    return re.search(r'\|\s*plan-layout(\s|$)', strip_comment(text)[0]) is not None


def extract(root, rel):
    """The command lines of one Markdown file, in order."""
    lines = open(os.path.join(root, rel), encoding='utf-8').read().split('\n')
    out = []
    in_fence = usage_block = synopsis = False
    block = []  # commands of the current block
    i = 0
    while i < len(lines):
        raw = lines[i]
        if FENCE.match(raw):
            if not in_fence:
                prev = lines[i - 1].strip() if i > 0 else ''
                usage_block = prev == '<!-- usage -->'
                synopsis, block = False, []
            in_fence = not in_fence
            i += 1
            continue
        if not in_fence:
            i += 1
            continue
        start = i
        text = raw.strip()
        while text.endswith('\\') and i + 1 < len(lines) and not FENCE.match(lines[i + 1]):
            i += 1
            text = text[:-1].rstrip() + ' ' + lines[i].strip()
        i += 1
        if text.startswith('$ '):
            text = text[2:].strip()
        if not text:
            synopsis = False
            continue
        if text.startswith('Usage:'):
            synopsis = True
            text = text[len('Usage:'):].strip()
        if text == 'echo $?' and i < len(lines) and lines[i].strip().isdigit() and block:
            if block[-1].expect is None:
                block[-1].expect = int(lines[i].strip())
            i += 1
            continue
        if not is_command(text):
            continue
        command, comment = strip_comment(text)
        m = EXIT_COMMENT.search(comment)
        c = Command(rel, start + 1, text, int(m.group(1)) if m else None, usage_block or synopsis)
        out.append(c)
        block.append(c)
    return out


def problems_before_running(c):
    """Reasons a command is refused without running it (a template line that could run, a path
    that is not the repository's or would write into it)."""
    command = strip_comment(c.text)[0]
    if c.template:
        return None if PLACEHOLDER.search(command) else \
            'a template line with no placeholder: a runnable command belongs in a block that is run'
    try:
        words = shlex.split(command)
    except ValueError as e:
        return f'not a shell command line: {e}'
    for k, w in enumerate(words):
        if (w.startswith('/') and w != '/dev/null') or w.startswith('~'):
            return f'names an absolute path ({w}): use a file of the repository'
        target = None
        if w in ('-o', '--output', '>', '>>') and k + 1 < len(words):
            target = words[k + 1]
        elif w == '--save-layout' and k + 1 < len(words) and not words[k + 1].isdigit():
            target = words[k + 1]
        elif re.match(r'^(--output=|-o.|>>?.)', w):
            target = re.sub(r'^(--output=|-o|>>?)', '', w)
        if target is not None and '/' in target:
            return f'writes {target}: an output in the docs goes to the current folder, not into the repository'
    return None


def make_bin(root, binary, where):
    os.makedirs(where)
    os.symlink(os.path.abspath(binary), os.path.join(where, 'plan-layout'))
    for name, (args, capture) in STUBS.items():
        path = os.path.join(where, name)
        with open(path, 'w') as f:
            f.write('#!/bin/sh\n'
                    f'# stub: "{name} {args}" prints a capture kept in the repository\n'
                    f'if [ "$*" = {shlex.quote(args)} ]; then exec cat {shlex.quote(os.path.join(root, capture))}; fi\n'
                    f'echo "{name} (stub of check_doc_commands.py): only \'{args}\' is known" >&2\n'
                    'exit 127\n')
        os.chmod(path, 0o755)


def make_scratch(root, where):
    os.makedirs(where)
    for name in sorted(os.listdir(root)):
        if name != '.git':
            os.symlink(os.path.join(root, name), os.path.join(where, name))


def run_file(root, bindir, scratch_parent, rel, commands):
    scratch = os.path.join(scratch_parent, rel.replace('/', '_'))
    make_scratch(root, scratch)
    env = dict(os.environ, LC_ALL='C', LANG='C', PATH=bindir + os.pathsep + os.environ.get('PATH', ''),
               HWLOC_XMLFILE=os.path.join(root, DISCOVER_CAPTURE))
    results = []
    for c in commands:
        if c.template:
            results.append((c, None, problems_before_running(c), 0.0))
            continue
        why = problems_before_running(c)
        if why:
            results.append((c, None, why, 0.0))
            continue
        t0 = time.monotonic()
        try:
            r = subprocess.run(['bash', '-o', 'pipefail', '-c', c.text], cwd=scratch, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, errors='replace', timeout=TIMEOUT_S)
            rc, err = r.returncode, r.stderr
        except subprocess.TimeoutExpired:
            rc, err = None, f'timed out after {TIMEOUT_S} s'
        dt = time.monotonic() - t0
        expect = c.expect if c.expect is not None else 0
        if rc == expect:
            results.append((c, rc, None, dt))
        else:
            last = [l for l in (err or '').strip().split('\n') if l.strip()]
            results.append((c, rc, f'rc={rc} (expected {expect})' + (f'\n    {last[-1][:300]}' if last else ''), dt))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('binary')
    ap.add_argument('source_dir')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--list', action='store_true', help='print the extracted commands and exit')
    a = ap.parse_args()
    root = os.path.abspath(a.source_dir)
    if not os.access(a.binary, os.X_OK):
        print(f'check_doc_commands: {a.binary}: not an executable', file=sys.stderr)
        return 2
    per_file = {rel: extract(root, rel) for rel in markdown_files(root)}
    per_file = {rel: cs for rel, cs in per_file.items() if cs}
    if a.list:
        for cs in per_file.values():
            for c in cs:
                kind = 'template' if c.template else f'exit {c.expect or 0}'
                print(f'{c.path}:{c.line}: [{kind}] {c.text}')
        return 0
    total = sum(len(cs) for cs in per_file.values())
    if total == 0:
        print('check_doc_commands: no plan-layout command found in README.md or docs/', file=sys.stderr)
        return 1
    t0 = time.monotonic()
    tmp = tempfile.mkdtemp(prefix='plan-layout-doc-commands-')
    try:
        bindir = os.path.join(tmp, 'bin')
        make_bin(root, a.binary, bindir)
        scratch_parent = os.path.join(tmp, 'scratch')
        os.makedirs(scratch_parent)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            futures = [pool.submit(run_file, root, bindir, scratch_parent, rel, cs) for rel, cs in per_file.items()]
            results = [r for f in futures for r in f.result()]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    failed = ran = templates = 0
    for c, rc, why, dt in results:
        if c.template:
            templates += 1
        elif why is None or rc is not None:
            ran += 1
        if why:
            failed += 1
            print(f'{c.path}:{c.line}: {why.split(chr(10))[0]}: {c.text}' +
                  ('\n' + why.split('\n', 1)[1] if '\n' in why else ''))
    slow = max(results, key=lambda r: r[3])
    print(f'check_doc_commands: {total} command lines in {len(per_file)} files: {ran} run, {templates} templates '
          f'(not run), {failed} failed; {time.monotonic() - t0:.1f} s (slowest {slow[3]:.1f} s: '
          f'{slow[0].path}:{slow[0].line})')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
