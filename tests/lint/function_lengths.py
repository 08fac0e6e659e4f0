#!/usr/bin/env python3
"""Lists the functions of src/ and include/ longer than a limit, and fails on any over the hard
limit whose body does not start with a reason (a comment line containing "long:" within its first 3
lines).

    function_lengths.py SOURCE_DIR [--list N] [--limit 150]

A function is a brace block opened at namespace level, or in a class, struct or union body (a method
defined there, at any depth of nested classes), whose head ends like a function's: a parameter list
and its qualifiers, or a constructor's member initializer list. Classes, enums, unions, initializers
and the blocks inside a function (lambdas, local classes) are not functions of their own. Its length
is the lines from its opening brace's line to its closing brace. Strings, char literals, raw strings
and comments are skipped when braces are counted. Every .cpp and .hpp under src/ and include/ is read."""
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


# The head of a block (the text since the last ';', '{' or '}' of the enclosing scope) ends like a
# function's: ") const noexcept override -> T" and the like.
FN_TAIL = re.compile(r"\)\s*(const|noexcept(\s*\([^;{}]*\))?|override|final|volatile|&&?|->[^;{}]*|\s)*$")
# A constructor's member initializer list: ") [noexcept] : member(...)" (a ':' that is not '::').
INIT_LIST = re.compile(r"\)\s*(noexcept(\s*\([^;{}]*\))?\s*)?:(?!:)")
CLASS_HEAD = re.compile(r"\b(struct|class|union)\b[^;{}()]*$")
NOT_FN_HEAD = re.compile(r"\b(struct|class|enum|union)\b[^;{}()]*$|=\s*$")
NS_HEAD = re.compile(r"\bnamespace\b[^;{}]*$|\bextern\s*$")
ACCESS = re.compile(r"^.*\b(public|private|protected)\s*:(?!:)", re.S)


def block_kind(head):
    """"ns", "class", "fn" or "other" for a brace opened at namespace or class level after head."""
    if NS_HEAD.search(head):
        return "ns"
    if re.search(r"=\s*$", head):
        return "other"
    if CLASS_HEAD.search(head) and not re.search(r"\benum\s+(class|struct)\b[^;{}()]*$", head):
        return "class"
    if NOT_FN_HEAD.search(head):
        return "other"
    if FN_TAIL.search(head):
        return "fn"
    # ") : a_(x), b_{y} {": the initializer list's last member may be brace-initialized
    m = INIT_LIST.search(head)
    if m and re.search(r"[)}]\s*$", head):
        return "fn"
    return "other"


def fn_name(head):
    """The function's name: the last identifier before a '(' of its head, the initializer list left out."""
    head = ACCESS.sub("", head)
    m = INIT_LIST.search(head)
    if m:
        head = head[:m.start() + 1]
    name = re.findall(r"([~\w:]*operator\s*(?:\(\)|[^\s(]+)|[~\w:]+)\s*\(", head)
    return name[-1] if name else "?"


def functions(path):
    """(name, first line, last line) of each function: a brace block opened at namespace level or in
    a class body whose head reads as a function's."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    code = strip_code(raw)
    found = []
    # one entry per open brace: (kind, name, first line); kind "ns" | "class" | "fn" | "other"
    stack = []
    line = 1
    head_start = 0  # where the head of the next block at namespace or class level begins
    at_head_level = True  # every open brace is a namespace or a class body
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            kind, name = "other", None
            if at_head_level:
                head = code[head_start:i]
                kind = block_kind(head)
                if kind == "fn":
                    name = fn_name(head)
            stack.append((kind, name, line))
            if kind in ("ns", "class"):
                head_start = i + 1
            else:
                at_head_level = False
        elif c == "}":
            if stack:
                kind, name, first = stack.pop()
                if kind == "fn":
                    found.append((name, first, line))
                at_head_level = all(k[0] in ("ns", "class") for k in stack)
                # a brace-initialized member of a constructor's initializer list ("b_{y}") keeps the
                # head going; any other block ends the declaration it belongs to
                if at_head_level and kind != "other":
                    head_start = i + 1
        elif c == ";" and at_head_level:
            head_start = i + 1
    return raw.splitlines(), found


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    root = Path(args[0])
    limit = 150
    list_over = None
    if "--limit" in args:
        limit = int(args[args.index("--limit") + 1])
    if "--list" in args:
        list_over = int(args[args.index("--list") + 1])
    over_soft = []
    bad = []
    paths = sorted(p for top in ("src", "include") for ext in ("*.cpp", "*.hpp")
                   for p in (root / top).rglob(ext))
    for path in paths:
        lines, found = functions(path)
        for name, first, last in found:
            length = last - first + 1
            rel = path.relative_to(root)
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
