#!/usr/bin/env python3
"""Lists the sources of src/ and include/ (.cpp, .hpp) over a line limit, and fails on any whose
top does not say why: a comment within its first 15 lines containing "Over 500 lines" (any case;
the comment may wrap, e.g. "... Over 500" / "// lines: ..."), followed by the reason, and by
"to split:" with what to move out where the file should rather be split (docs/development.md).

    file_lengths.py SOURCE_DIR [--list]

--list prints every file over 500 lines with its line count and whether it gives a reason."""
import re
import sys
from pathlib import Path

LIMIT = 500
MARKER = "over 500 lines"
HEAD_LINES = 15


COMMENT_OR_STRING = re.compile(r'//|/\*|"(?:[^"\\]|\\.)*"')


def comment_text(lines):
    """The text of the comments in lines (// and /* */), joined by single spaces, lower case."""
    parts = []
    in_block = False
    for line in lines:
        pos = 0
        while pos < len(line):
            if in_block:
                end = line.find("*/", pos)
                parts.append(line[pos:] if end < 0 else line[pos:end])
                if end < 0:
                    break
                in_block, pos = False, end + 2
                continue
            m = COMMENT_OR_STRING.search(line, pos)
            while m and m.group(0).startswith('"'):  # a string literal: skip it
                m = COMMENT_OR_STRING.search(line, m.end())
            if not m:
                break
            if m.group(0) == "//":
                parts.append(line[m.end():])
                break
            in_block, pos = True, m.end()
    return " ".join(" ".join(parts).split()).lower()


def gives_reason(lines):
    return MARKER in comment_text(lines[:HEAD_LINES])


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 2
    root = Path(args[0])
    limit = LIMIT
    paths = sorted(p for top in ("src", "include") for ext in ("*.cpp", "*.hpp") for p in (root / top).rglob(ext))
    over = []
    for path in paths:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if len(lines) > limit:
            over.append((len(lines), str(path.relative_to(root)), gives_reason(lines)))
    bad = [o for o in over if not o[2]]
    if "--list" in args:
        for n, rel, ok in sorted(over, reverse=True):
            print(f"{n:5d}  {rel}  {'reason given' if ok else 'NO REASON'}")
        print(f"{len(over)} files over {limit} lines")
    for n, rel, _ in sorted(bad, reverse=True):
        print(f"FAIL: {rel} is {n} lines (over {limit}) and its first {HEAD_LINES} lines give no reason "
              f"(a comment with 'Over 500 lines: why')")
    print(f"file lengths: {len(bad)} of {len(over)} files over {limit} lines without a reason")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
