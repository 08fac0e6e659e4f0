#!/usr/bin/env python3
"""Derives mutants mechanically from the sources, beside the hand list (tests/mutate/mutants.txt).

Sites, over the performance model (the files of tests/lint/model_sources.txt), src/topology/ and
src/parallel/:
  cmp    a comparison swapped to its neighbour: < <=, > >=, == !=
  arith  + -, * /, and the compound assignments += -=, *= /= (not on lines with a string literal,
         where + is mostly std::string concatenation and - would not compile)
  bool   && ||
  int    an integer literal: 0 -> 1, 1 -> 0, n -> n + 1
and over every reader of src/ingest/ the range checks (`get<T>("key", lo, hi)`, the calls that bound
a value):
  lower  lo widened by one (lets the value below the range through)
  upper  hi widened by one, or narrowed by one where it is a named limit (kMaxInt: nothing lies above)
  bound  a comparison against a named limit (`n > kMaxNodes`) swapped to its neighbour

Comments, string and character literals, preprocessor lines (and so #include) are skipped. Every
mutant's `from` is the site's line, extended with the lines below (then above) until it occurs
exactly once in its file; a site that cannot be made unique within three lines is skipped.

Each mutant gets a doctest --source-file filter (`source`): the unit tests of its source file
(tests/unit/test_<stem>*.cpp, or the map below), the bad-input cases for range checks, and the whole
unit suite where nothing narrower exists. The list is sized so a full run fits in about 60-90 min on
two cores: at most PER_FILE mutants per source file (PER_HEADER per header: none, since mutating
and restoring a header rebuilds its dependents twice, about 6 min a mutant), chosen by a hash of the site, so the same tree always gives the same list (sorted by id).

tests/mutate/generated-overrides.txt keeps decisions across regeneration, keyed by mutant id:
  <id> equivalent <why>       the mutant cannot change behaviour: listed, never run
  <id> source <filter>        a different --source-file filter (a test elsewhere pins it)
  <id> tests <filter>         a --test-case filter instead
An override naming no generated mutant is an error (the site moved: carry the decision over).

usage: generate.py [--write | --check | --stats]
  (none)    print the list
  --write   write tests/mutate/generated.txt
  --check   exit 1 when the checked-in generated.txt differs from what the tree gives
  --stats   the counts per folder and kind
Run the list with: python3 tests/mutate/mutate.py --list-file tests/mutate/generated.txt [--subset N]
"""
import argparse
import glob
import hashlib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "mutate", "generated.txt")
OVERRIDES = os.path.join(ROOT, "tests", "mutate", "generated-overrides.txt")
MODEL_LIST = os.path.join(ROOT, "tests", "lint", "model_sources.txt")
PER_FILE = 2
PER_HEADER = 0  # a header mutant costs ~6 min (its dependents rebuilt twice): left to the hand list
PER_READER = 2
MAX_LINES = 3

# Sources whose tests are not named after them: the unit test files that exercise them.
TEST_MAP = {
    "arms": ["test_arms", "test_score"],
    "batch": ["test_score", "test_compute_model", "test_plan_inputs"],
    "compute_ops": ["test_compute_model", "test_gemm_table", "test_op_check"],
    "compute_kernels": ["test_compute_model", "test_kernel_table"],
    "compute_host": ["test_compute_model", "test_kernel_table"],
    "compute_schedule": ["test_compute_model", "test_score"],
    "numbers": ["test_numbers_emit", "test_score"],
    "model_derive": ["test_model_spec", "test_memory"],
    "model_fit": ["test_calibrate", "test_validation_held"],
    "collective_op": ["test_cost"],
    "placed_group": ["test_traffic", "test_pair_traffic", "test_cost"],
    "collective_fit": ["test_calibrate", "test_cost"],
    "gpu_spec": ["test_blackwell_templates", "test_compute_model", "test_kernel_table"],
    "path_class": ["test_edge_class", "test_cluster", "test_nvidia_smi_topo"],
    "topology": ["test_cluster", "test_node_template"],
    "placement": ["test_groups", "test_parallel_spec"],
    "framework": ["test_framework_compare", "test_parallel_spec"],
    "layout_model": ["test_plan", "test_json_reader"],
    "layout_parallel": ["test_parallel_spec", "test_plan"],
    "cluster_json": ["test_cluster", "test_plan"],
    "gpu_spec_json": ["test_blackwell_templates", "test_kernel_table", "test_compute_model"],
    "kernel_table_json": ["test_kernel_table"],
    "node_template_json": ["test_node_template"],
    "megatron_model_args": ["test_megatron_args"],
    "calibration_file": ["test_calibrate"],
    "bench_ops_json": ["test_calibrate", "test_kernel_table", "test_op_check"],
}

SWAPS = [  # (kind, text, replacement); each needs a space on both sides (binary, not a template or a pointer)
    ("cmp", "<=", "<"), ("cmp", ">=", ">"), ("cmp", "<", "<="), ("cmp", ">", ">="),
    ("cmp", "==", "!="), ("cmp", "!=", "=="),
    ("arith", "+=", "-="), ("arith", "-=", "+="), ("arith", "*=", "/="), ("arith", "/=", "*="),
    ("arith", "+", "-"), ("arith", "-", "+"), ("arith", "*", "/"), ("arith", "/", "*"),
    ("bool", "&&", "||"), ("bool", "||", "&&"),
]
OP = re.compile(r"(?<= )(<=|>=|==|!=|\+=|-=|\*=|/=|&&|\|\||<|>|\+|-|\*|/)(?= )")
INT = re.compile(r"(?<![\w.])(\d+)(?![\w.'])")
LIMIT = re.compile(r"\bk(Max|Min)\w*\b")
RANGE = re.compile(r"get<[\w:]+>\(\s*\"\w+\",\s*([^,()]+?),\s*([^,()]+?)\)")


def mask(text):
    """The text with comments, string and char literals blanked (same length, newlines kept)."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            d = text.find("(", i)
            delim = ")" + text[i + 2:d] + '"'
            j = text.find(delim, d)
            j = n if j < 0 else j + len(delim)
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator (1'000)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i, min(j + 1, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def sites(rel, text, ranges_only):
    """(kind, line index, column, old, new) of every site of the file."""
    masked = mask(text).split("\n")
    found = []
    for li, line in enumerate(masked):
        if line.lstrip().startswith("#"):
            continue
        if ranges_only:
            raw = text.split("\n")[li]
            for m in RANGE.finditer(raw):
                if m.start() >= len(line) or line[m.start()] == " ":
                    continue  # inside a comment
                lo, hi = m.group(1).strip(), m.group(2).strip()
                found.append(("lower", li, m.start(1), m.group(1), widen_low(lo)))
                found.append(("upper", li, m.start(2), m.group(2), move_high(hi)))
            if LIMIT.search(line):  # a comparison against a named limit: if (n > kMaxNodes)
                for m in OP.finditer(line):
                    for kind, a, b in SWAPS:
                        if a == m.group(1) and kind == "cmp":
                            found.append(("bound", li, m.start(1), a, b))
                            break
            continue
        has_string = '"' in text.split("\n")[li]
        for m in OP.finditer(line):
            op = m.group(1)
            for kind, a, b in SWAPS:
                if a == op:
                    if not (kind == "arith" and has_string):  # + on strings: a mutant that cannot compile
                        found.append((kind, li, m.start(1), a, b))
                    break
        for m in INT.finditer(line):
            v = m.group(1)
            if v.startswith("0") and len(v) > 1:
                continue  # octal or a zero-padded field
            new = {"0": "1", "1": "0"}.get(v, str(int(v) + 1))
            found.append(("int", li, m.start(1), v, new))
    return found


def widen_low(lo):
    if re.fullmatch(r"-?\d+", lo):
        return str(int(lo) - 1)
    if re.fullmatch(r"-?[\d.]+(e-?\d+)?", lo):  # a real: 1 below -1e300 is -1e300 itself
        v = float(lo)
        return "0" if v > 0 else ("-1" if v == 0 else lo + " * 2")
    return lo + " - 1"


def move_high(hi):
    if re.fullmatch(r"\d+", hi):
        return str(int(hi) + 1)
    if re.fullmatch(r"[\d.]+(e\d+)?", hi):
        return hi + " * 2"
    return hi + " - 1"  # a named limit (kMaxInt, kMax): nothing lies above it, so narrow


def unique_snippet(lines, text, li, col, old, new):
    """(from, to) around the site that occurs once in the file, or None."""
    for below in range(MAX_LINES):
        for above in range(MAX_LINES - below):
            lo, hi = li - above, li + below
            if lo < 0 or hi >= len(lines):
                continue
            block = lines[lo:hi + 1]
            site = block[above]
            mutated = block[:above] + [site[:col] + new + site[col + len(old):]] + block[above + 1:]
            frm = "\n".join(block).strip()
            to = "\n".join(mutated).strip()
            if frm and text.count(frm) == 1 and frm != to and "\u23ce" not in frm:
                return frm, to
    return None


def test_files(rel, stem, ranges_only):
    names = TEST_MAP.get(stem, [])
    own = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(ROOT, "tests", "unit", f"test_{stem}*.cpp")))
    names = sorted(set(names) | set(own))
    if ranges_only:
        names = sorted(set(names) | {"test_bad_inputs"})
    if not names:
        return "*"
    return ",".join(f"*tests/unit/{n}.cpp" for n in names)


def source_files():
    files = []
    with open(MODEL_LIST, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                files += [os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, line))]
    for d in ("src/topology", "src/parallel"):
        files += [os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, d, "*.cpp"))]
    out = {rel: False for rel in sorted(set(files))}
    for p in sorted(glob.glob(os.path.join(ROOT, "src", "ingest", "*.cpp"))):
        out.setdefault(os.path.relpath(p, ROOT), True)
    return out


def generate():
    mutants = []
    for rel, ranges_only in sorted(source_files().items()):
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            text = f.read()
        lines = text.split("\n")
        stem = os.path.splitext(os.path.basename(rel))[0]
        cands = {}
        for kind, li, col, old, new in sites(rel, text, ranges_only):
            snip = unique_snippet(lines, text, li, col, old, new)
            if snip is None:
                continue
            frm, to = snip
            digest = hashlib.sha256(f"{rel}\0{frm}\0{to}".encode()).hexdigest()
            mid = f"g-{stem.replace('_', '-')}-{kind}-{digest[:8]}"
            cands[mid] = {"id": mid, "file": rel, "from": frm, "to": to, "kind": kind, "digest": digest,
                          "source": test_files(rel, stem, ranges_only)}
        cap = PER_READER if ranges_only else (PER_HEADER if rel.endswith(".hpp") else PER_FILE)
        mutants += sorted(cands.values(), key=lambda m: m["digest"])[:cap]
    return sorted(mutants, key=lambda m: m["id"])


def read_overrides():
    out = {}
    if not os.path.exists(OVERRIDES):
        return out
    with open(OVERRIDES, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[1] not in ("equivalent", "source", "tests"):
                raise SystemExit(f"generate: {OVERRIDES}:{n}: want '<id> equivalent|source|tests <text>'")
            out.setdefault(parts[0], {})[parts[1]] = parts[2]
    return out


def render(mutants, overrides):
    ids = {m["id"] for m in mutants}
    stale = sorted(set(overrides) - ids)
    if stale:
        raise SystemExit(f"generate: {os.path.relpath(OVERRIDES, ROOT)} names no generated mutant: {', '.join(stale)} "
                         "(the site changed: carry the decision to its new id)")
    out = ["# Generated by tests/mutate/generate.py --write: do not edit (decisions go in generated-overrides.txt).",
           "# The format is that of mutants.txt; `source` is a doctest --source-file filter. Run it with",
           "#   python3 tests/mutate/mutate.py --list-file tests/mutate/generated.txt [--subset N | --only ID]",
           f"# {len(mutants)} mutants.", ""]
    for m in mutants:
        o = overrides.get(m["id"], {})
        out.append(f"mutant {m['id']}")
        out.append(f"file   {m['file']}")
        out.append(f"from   {m['from'].replace(chr(10), chr(0x23ce))}")
        out.append(f"to     {m['to'].replace(chr(10), chr(0x23ce))}")
        if "tests" in o:
            out.append(f"tests  {o['tests']}")
        else:
            out.append(f"source {o.get('source', m['source'])}")
        out.append(f"why    generated ({m['kind']})")
        if "equivalent" in o:
            out.append(f"equivalent {o['equivalent']}")
        out.append("")
    return "\n".join(out)


def stats(mutants):
    by = {}
    for m in mutants:
        folder = os.path.dirname(m["file"])
        by.setdefault(folder, {}).setdefault(m["kind"], 0)
        by[folder][m["kind"]] += 1
    for folder in sorted(by):
        kinds = by[folder]
        print(f"{folder:<32} {sum(kinds.values()):>4}  " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"{'total':<32} {len(mutants):>4}")


def mutation_running():
    """Whether a live mutate.py run holds build/mutate.lock (its sources are mutated meanwhile)."""
    try:
        with open(os.path.join(ROOT, "build", "mutate.lock"), encoding="utf-8") as f:
            os.kill(int(f.read().strip()), 0)
        return True
    except (OSError, ValueError):
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true")
    g.add_argument("--check", action="store_true")
    g.add_argument("--stats", action="store_true")
    args = ap.parse_args()
    backup = os.path.join(ROOT, "build", "mutate-backup")
    if mutation_running() or (os.path.isdir(backup) and any(files for _, _, files in os.walk(backup))):
        print("generate: a mutation run is in progress or was interrupted (build/mutate.lock or build/mutate-backup/); "
              "the sources may be mutated", file=sys.stderr)
        return 2
    mutants = generate()
    if args.stats:
        stats(mutants)
        return 0
    text = render(mutants, read_overrides())
    if args.write:
        with open(OUT, "w", encoding="utf-8") as f:
            f.write(text)
        return 0
    if args.check:
        old = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else ""
        if old != text:
            print("generate: tests/mutate/generated.txt is stale: run python3 tests/mutate/generate.py --write",
                  file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
