#!/usr/bin/env python3
"""The rule for numbers, checked: every number that sets a predicted time or memory lives in the
registry (include/planlayout/model/numbers/*.def) with a class and a source.

    model_numbers.py ROOT

Fails (exit 1, one line per finding: file:line: what; fix) when
  - a model source (the files tests/lint/model_sources.txt lists) holds a numeric literal other
    than 0 or 1 outside comments and strings: a number there must be read from the registry by
    name (numbers::kName) or be a unit of planlayout/model/units.hpp;
  - a registry entry has not 9 fields, a class other than Measured, Spec, Derived or Assumed, an
    empty id, unit, source or use, or (Assumed) no range around its value;
  - units.hpp defines anything but unit constants.
Prints the entries by class on success."""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from function_lengths import strip_code  # noqa: E402  (comments, strings and char literals blanked)

LITERAL = re.compile(r"(?<![A-Za-z_0-9.'])(\d[\d']*\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)(?:[uUlLfF]*)(?![A-Za-z_0-9.])")
CLASSES = ("Measured", "Spec", "Derived", "Assumed")
UNIT_LINE = re.compile(r"^inline constexpr double k[A-Z][A-Za-z]* = [0-9.e*+ -]+;$")


def model_sources(root):
    listed = root / "tests" / "lint" / "model_sources.txt"
    files = []
    for line in listed.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            matched = sorted(root.glob(line))
            if not matched:
                yield None, f"{listed}: '{line}' names no file; fix the list"
            files.extend(matched)
    for f in files:
        yield f, None


def literal_findings(root, path):
    text = strip_code(path.read_text())
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("#"):  # #include, #pragma
            continue
        for m in LITERAL.finditer(line):
            try:
                v = float(m.group(1).replace("'", ""))
            except ValueError:
                continue
            if v not in (0.0, 1.0):
                yield (f"{path.relative_to(root)}:{number}: numeric literal {m.group(1)} in the performance model; "
                       f"name it in include/planlayout/model/numbers/*.def with its class and source and read it by name")


def split_args(body):
    """The top-level, comma-separated arguments of a macro call body (strings may hold commas)."""
    args, depth, cur, i = [], 0, [], 0
    while i < len(body):
        c = body[i]
        if c == '"':
            j = i + 1
            while body[j] != '"':
                j += 2 if body[j] == "\\" else 1
            cur.append(body[i:j + 1])
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    args.append("".join(cur).strip())
    return args


def string_value(arg):
    parts = re.findall(r'"((?:\\.|[^"\\])*)"', arg)
    return "".join(parts) if parts and re.fullmatch(r'(\s*"(?:\\.|[^"\\])*"\s*)+', arg) else None


def number_value(arg):
    try:
        return float(eval(arg, {"__builtins__": {}}))  # literals and products only: checked by the regex
    except Exception:
        return None


def registry_entries(root):
    for path in sorted((root / "include" / "planlayout" / "model" / "numbers").glob("*.def")):
        text = path.read_text()
        for m in re.finditer(r"^PLANLAYOUT_NUMBER\(", text, flags=re.M):
            start = m.end()
            depth, j = 1, start
            while depth and j < len(text):
                if text[j] == '"':
                    j += 1
                    while text[j] != '"':
                        j += 2 if text[j] == "\\" else 1
                elif text[j] == "(":
                    depth += 1
                elif text[j] == ")":
                    depth -= 1
                j += 1
            line = text.count("\n", 0, m.start()) + 1
            yield path.relative_to(root), line, split_args(text[start:j - 1])


def entry_findings(where, args):
    if len(args) != 9:
        return [f"{where}: an entry has {len(args)} fields, not 9 (name, id, value, unit, class, source, used_in, low, high)"]
    name, id_, value, unit, cls, source, used, low, high = args
    out = []
    if cls not in CLASSES:
        out.append(f"{where}: {name}: class '{cls}' is none of {', '.join(CLASSES)}; give its class")
    for label, arg in (("id", id_), ("unit", unit), ("source", source), ("used_in", used)):
        s = string_value(arg)
        if not s or not s.strip():
            out.append(f"{where}: {name}: no {label}; every entry names its {label}")
    v, lo, hi = number_value(value), number_value(low), number_value(high)
    if None in (v, lo, hi):
        out.append(f"{where}: {name}: value, low and high must be numbers")
    elif not lo <= v <= hi:
        out.append(f"{where}: {name}: value {v:g} outside its range {lo:g}..{hi:g}")
    elif cls == "Assumed" and not lo < hi:
        out.append(f"{where}: {name}: an assumed value needs its plausible range (low < high)")
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = Path(sys.argv[1]).resolve()
    findings = []
    checked = 0
    for path, error in model_sources(root):
        if error:
            findings.append(error)
            continue
        checked += 1
        findings.extend(literal_findings(root, path))
    units = root / "include" / "planlayout" / "model" / "units.hpp"
    if units.exists():
        for number, line in enumerate(strip_code(units.read_text()).splitlines(), start=1):
            s = line.strip()
            if s and not s.startswith("#") and s not in ("namespace planlayout::units {", "}") and not UNIT_LINE.match(s):
                findings.append(f"{units.relative_to(root)}:{number}: only unit constants belong here; move '{s}' to the registry")
    by_class = dict.fromkeys(CLASSES, 0)
    entries = 0
    for path, line, args in registry_entries(root):
        entries += 1
        findings.extend(entry_findings(f"{path}:{line}", args))
        if len(args) == 9 and args[4] in by_class:
            by_class[args[4]] += 1
    for f in findings:
        print(f)
    if findings:
        print(f"model_numbers: {len(findings)} finding(s)", file=sys.stderr)
        return 1
    counts = ", ".join(f"{v} {k.lower()}" for k, v in by_class.items())
    print(f"model_numbers: {checked} model sources free of literals; registry {entries} entries ({counts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
