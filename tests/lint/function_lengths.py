#!/usr/bin/env python3
"""Lists the functions of src/ longer than a limit, and fails on any over the hard limit whose
body does not start with a reason (a comment line containing "long:" within its first 3 lines).

    function_lengths.py SOURCE_DIR [--list N] [--limit 150]

A function is a brace block opened at namespace level (not a class, struct, enum, union or an
initializer); its length is the lines from its opening line to its closing brace. Strings, char
literals, raw strings and comments are skipped when braces are counted."""
import re
import sys
from pathlib import Path


def strip_code(text):
    """The text with comments, strings and char literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, last line) of each namespace-level brace block that is a function."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    code = strip_code(raw)
    found = []
    stack = []  # one entry per open brace: "ns" | "fn" | "other"
    start = 0
    line = 1
    head_start = 0  # where the text before the current top-level block begins
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            head = code[head_start:i]
            kind = "other"
            fn_name = None
            if all(k[0] == "ns" for k in stack):
                if re.search(r"\bnamespace\b[^;{}]*$", head) or re.search(r'extern\s*$', head):
                    kind = "ns"
                elif re.search(r"\)\s*(const|noexcept|override|final|->[^;{}]*|\s)*$", head) and not re.search(
                        r"\b(struct|class|enum|union)\b[^;{}()]*$|=\s*$", head):
                    kind = "fn"
                    name = re.findall(r"([~\w:]+)\s*\(", head)
                    fn_name = name[-1] if name else "?"
                    start = line
            stack.append((kind, fn_name if kind == "fn" else None, start if kind == "fn" else 0))
            if kind == "ns":
                head_start = i + 1
        elif c == "}":
            if stack:
                kind, name, first = stack.pop()
                if kind == "fn":
                    found.append((name, first, line))
            if all(k[0] == "ns" for k in stack):
                head_start = i + 1
        elif c == ";" and all(k[0] == "ns" for k in stack):
            head_start = i + 1
    return raw.splitlines(), found


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    src = Path(args[0]) / "src"
    limit = 150
    list_over = None
    if "--limit" in args:
        limit = int(args[args.index("--limit") + 1])
    if "--list" in args:
        list_over = int(args[args.index("--list") + 1])
    over_soft = []
    bad = []
    for path in sorted(src.rglob("*.cpp")):
        lines, found = functions(path)
        for name, first, last in found:
            length = last - first + 1
            rel = path.relative_to(src.parent)
            if list_over is not None and length > list_over:
                over_soft.append((length, f"{rel}:{first}", name))
            if length > limit:
                top = "\n".join(lines[first - 1:first + 3])
                if "long:" not in top:
                    bad.append((length, f"{rel}:{first}", name))
    if list_over is not None:
        for length, where, name in sorted(over_soft, reverse=True):
            print(f"{length:5d}  {where}  {name}")
        print(f"{len(over_soft)} functions over {list_over} lines")
    for length, where, name in sorted(bad, reverse=True):
        print(f"FAIL: {where}: {name} is {length} lines (over {limit}) and gives no reason "
              f"(a comment with 'long:' in its first lines)")
    print(f"function lengths: {len(bad)} over {limit} lines without a reason")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
