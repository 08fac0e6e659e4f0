#!/usr/bin/env python3
"""Regenerates the command output shown in README.md and docs/, then checks every relative link.

Run from anywhere after a build (it needs build/plan-layout):

    python3 docs/build_readme.py            # rewrite the generated blocks in place
    python3 docs/build_readme.py --check    # also fail (exit 1) when a file would change

CI runs `python3 docs/build_readme.py && git diff --exit-code -- README.md docs/`.

A generated block in any of the Markdown files is written as

    <!-- generated: ARGS [| FILTER]... -->
    (anything: replaced on every run)
    <!-- end generated -->

and becomes a fenced block with `$ plan-layout ARGS` and the real output of
`build/plan-layout ARGS` (stdout and stderr, run by bash from the repository root, LC_ALL=C).
Filters, applied in order:

    nocmd         leave out the `$ plan-layout ARGS` line
    raw           the output as Markdown itself (a table), not in a code block; implies nocmd
    from TEXT     start at the first output line containing TEXT
    until TEXT    stop before the first output line (after the start) containing TEXT, and
                  leave out the blank lines before it
    lines SPEC    keep only these 1-based output line ranges, e.g. 1-12,40-44; "..." marks each gap
    exit          add `$ echo $?` and the exit code
    show TEXT     print TEXT after `$ ` instead of `plan-layout ARGS` (the command still runs as given)

The output of plan-layout is deterministic, so a second run changes nothing.
Text outside generated blocks must not refer to files outside the repository (the bare design-note
names and folders that FORBIDDEN below matches): the check fails on those too.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, 'build', 'plan-layout')
BEGIN = re.compile(r'^<!-- generated: (.*?) -->$')
END = '<!-- end generated -->'
# Linked from the README, written on another branch; reported, not failed, until it exists.
PENDING = set()
# Bare names of design notes that live outside the repository ("groups.md §3"); a path inside the
# repository such as commands/groups.md is fine.
FORBIDDEN = [re.compile(p) for p in (r'(?<![\w/.-])(?:model|groups|formats|style)\.md\b', r'\.\./shared',
                                       r'\bshared/(?:docs|fixtures|seeds)\b')]


def markdown_files():
    files = ['README.md']
    for folder, dirs, names in os.walk(os.path.join(ROOT, 'docs')):
        dirs.sort()
        for name in sorted(names):
            if name.endswith('.md'):
                files.append(os.path.relpath(os.path.join(folder, name), ROOT))
    return files


def run(spec):
    parts = [p.strip() for p in spec.split(' | ')]
    args, filters = parts[0], parts[1:]
    env = dict(os.environ, LC_ALL='C', LANG='C')
    r = subprocess.run(['bash', '-c', BINARY + ' ' + args], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    lines = (r.stdout + r.stderr).rstrip('\n').split('\n')
    show_cmd, shown = True, 'plan-layout ' + args
    with_exit, raw = False, False
    for f in filters:
        word, _, rest = f.partition(' ')
        if word == 'nocmd':
            show_cmd = False
        elif word == 'raw':
            raw, show_cmd = True, False
        elif word == 'show':
            shown = rest
        elif word == 'exit':
            with_exit = True
        elif word == 'from':
            hits = [i for i, l in enumerate(lines) if rest in l]
            if not hits:
                raise SystemExit(f'build_readme: "{spec}": no line contains "{rest}"')
            lines = lines[hits[0]:]
        elif word == 'until':
            hits = [i for i, l in enumerate(lines) if i > 0 and rest in l]
            if hits:
                lines = lines[:hits[0]]
            while len(lines) > 1 and not lines[-1].strip():
                lines.pop()  # the blank line before the next section
        elif word == 'lines':
            kept, last = [], 0
            for rng in rest.split(','):
                a, _, b = rng.partition('-')
                a, b = int(a), int(b or a)
                if a > last + 1:
                    kept.append('...')
                kept.extend(lines[a - 1:b])
                last = b
            if last < len(lines):
                kept.append('...')
            lines = kept
        else:
            raise SystemExit(f'build_readme: "{spec}": unknown filter "{word}"')
    if r.returncode not in (0, 1, 2, 3):
        raise SystemExit(f'build_readme: "{args}" exited {r.returncode}:\n' + '\n'.join(lines))
    out = (['$ ' + shown] if show_cmd else []) + lines
    if with_exit:
        out += ['$ echo $?', str(r.returncode)]
    if raw:
        return '\n'.join(l.rstrip() for l in out)
    return '```\n' + '\n'.join(l.rstrip() for l in out) + '\n```'


def regenerate(text, name):
    out, i, lines, in_fence = [], 0, text.split('\n'), False
    while i < len(lines):
        if lines[i].startswith('```'):
            in_fence = not in_fence
        m = None if in_fence else BEGIN.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        j = i
        while j < len(lines) and lines[j] != END:
            j += 1
        if j == len(lines):
            raise SystemExit(f'build_readme: {name}: "{m.group(0)}" has no "{END}"')
        out.append(run(m.group(1)))
        out.append(END)
        i = j + 1
    return '\n'.join(out)


def outside_generated(text):
    return re.sub(r'^<!-- generated: .*? -->$.*?^<!-- end generated -->$', '', text, flags=re.S | re.M)


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(' ', '-')


def anchors(path):
    text = open(path, encoding='utf-8').read()
    text = re.sub(r'```.*?```', '', text, flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r'^#+ (.*)$', text, flags=re.M)}


def check_links(name, text):
    errors = []
    body = re.sub(r'```.*?```', '', text, flags=re.S)
    body = re.sub(r'`[^`\n]*`', '', body)
    for m in re.finditer(r'\]\(([^)\s]+)\)', body):
        target = m.group(1)
        if re.match(r'^[a-z]+:', target):
            continue
        path, _, anchor = target.partition('#')
        here = os.path.dirname(os.path.join(ROOT, name))
        full = os.path.normpath(os.path.join(here, path)) if path else os.path.join(ROOT, name)
        rel = os.path.relpath(full, ROOT)
        if rel.startswith('..'):
            errors.append(f'{name}: link {target} leaves the repository')
        elif not os.path.exists(full):
            if rel in PENDING:
                print(f'build_readme: note: {name} links {rel}, which is not on this branch yet')
            else:
                errors.append(f'{name}: link {target}: {rel} does not exist')
        elif anchor and full.endswith('.md') and anchor not in anchors(full):
            errors.append(f'{name}: link {target}: no heading "#{anchor}" in {rel}')
    prose = re.sub(r'\]\([^)]*\)', ']', outside_generated(text))  # link targets are checked above
    for pattern in FORBIDDEN:
        for m in pattern.finditer(prose):
            errors.append(f'{name}: refers to "{m.group(0)}", a file outside the repository')
    return errors


def main():
    check = '--check' in sys.argv[1:]
    if not os.access(BINARY, os.X_OK):
        raise SystemExit(f'build_readme: {BINARY} not found: run `make build` first')
    changed, errors = [], []
    for name in markdown_files():
        path = os.path.join(ROOT, name)
        old = open(path, encoding='utf-8').read()
        new = regenerate(old, name)
        if new != old:
            changed.append(name)
            with open(path, 'w', encoding='utf-8') as f:
                f.write(new)
    for name in markdown_files():
        errors += check_links(name, open(os.path.join(ROOT, name), encoding='utf-8').read())
    readme_lines = open(os.path.join(ROOT, 'README.md'), encoding='utf-8').read().count('\n')
    if readme_lines > 200:
        errors.append(f'README.md has {readme_lines} lines; the front page keeps to 200')
    for e in errors:
        print('build_readme: error: ' + e, file=sys.stderr)
    for name in changed:
        print(f'build_readme: regenerated {name}')
    print(f'build_readme: README.md {readme_lines} lines, {len(markdown_files())} Markdown files checked')
    if errors or (check and changed):
        sys.exit(1)


if __name__ == '__main__':
    main()
