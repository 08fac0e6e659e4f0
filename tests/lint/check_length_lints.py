#!/usr/bin/env python3
"""Self-test of the two length lints (issue 42 item 3): function_lengths.py and file_lengths.py run
on small temporary trees, each able to fail. A method of 160 lines defined in a class body without
a reason fails function_lengths.py, and passes once its body starts with a "// long:" comment; so
do a method of a struct nested in a class of a header, a constructor whose initializer list ends in
a brace-initialized member, and a function at namespace level. A source of 510 lines fails
file_lengths.py unless its first 15 lines say "Over 500 lines" (also wrapped over two comment
lines); said on line 20 is too late; headers count; 500 lines need no reason.

    check_length_lints.py [LINT_DIR]   (default: this script's folder)"""
import subprocess
import sys
import tempfile
from pathlib import Path

LINT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
failures = []


def body(n, reason=False):
    """n lines of a brace block from its opening line to its closing brace (the head's line and the
    closing line included), the first body line a reason when asked."""
    lines = ["        // long: one walk over the whole input, kept whole for the test"] if reason else []
    lines += [f"        total += {k};" for k in range(n - 2 - len(lines))]
    return "\n".join(lines) + "\n"


def run(script, tree):
    r = subprocess.run([sys.executable, str(LINT / script), str(tree)], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def expect(what, script, files, rc_wanted, text_wanted=None):
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "src").mkdir()
        (root / "include").mkdir()
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        rc, out = run(script, root)
    ok = rc == rc_wanted and (text_wanted is None or text_wanted in out)
    print(f"{'ok  ' if ok else 'FAIL'} {script}: {what} (exit {rc}, wanted {rc_wanted})")
    if not ok:
        failures.append(what)
        print("     output:\n" + "\n".join("     | " + line for line in out.splitlines()))


def method_in_class(reason):
    return ("#include <vector>\nnamespace demo {\n\nclass Walker {\n  public:\n"
            "    explicit Walker(int n) : n_(n) {}\n"
            "    int run(const std::vector<int>& xs) const {\n        int total = 0;\n"
            + body(158, reason) + "        return total;\n    }\n\n  private:\n    int n_;\n};\n\n}  // namespace demo\n")


def nested_struct_header(reason):
    return ("#pragma once\nnamespace demo {\nclass Outer {\n    struct Inner {\n"
            "        int step(int total) noexcept {\n" + body(160, reason) + "        }\n    };\n};\n}  // namespace demo\n")


def ctor_with_brace_member(reason):
    return ("#include <vector>\nnamespace demo {\nstruct Table {\n"
            "    Table(int n, int total)\n        : n_(n), rows_{1, 2} {\n" + body(160, reason)
            + "    }\n    int n_;\n    std::vector<int> rows_;\n};\n}  // namespace demo\n")


def free_function(reason):
    return "namespace demo {\nint sum(int total) {\n" + body(160, reason) + "}\n}  // namespace demo\n"


F = "function_lengths.py"
expect("160-line method in a class body, no reason", F, {"src/walker.cpp": method_in_class(False)}, 1,
       "src/walker.cpp:7: run is 160 lines")
expect("160-line method in a class body, '// long:' reason", F, {"src/walker.cpp": method_in_class(True)}, 0)
expect("method of a struct nested in a class of an include/ header, no reason", F,
       {"include/demo/outer.hpp": nested_struct_header(False)}, 1, "include/demo/outer.hpp:5: step is")
expect("method of a struct nested in a class of an include/ header, reason", F,
       {"include/demo/outer.hpp": nested_struct_header(True)}, 0)
expect("constructor ending its initializer list with a brace-initialized member, no reason", F,
       {"src/table.cpp": ctor_with_brace_member(False)}, 1, ": Table is")
expect("constructor ending its initializer list with a brace-initialized member, reason", F,
       {"src/table.cpp": ctor_with_brace_member(True)}, 0)
expect("function at namespace level, no reason", F, {"src/sum.cpp": free_function(False)}, 1,
       "src/sum.cpp:2: sum is 160 lines")
expect("function at namespace level, reason", F, {"src/sum.cpp": free_function(True)}, 0)
expect("150-line method needs no reason", F,
       {"src/walker.cpp": method_in_class(False).replace(body(158), body(148))}, 0)


def source(n, top):
    """A source of n lines whose first lines are top."""
    lines = top + [f"int v{k} = {k};" for k in range(n - len(top))]
    return "\n".join(lines) + "\n"


L = "file_lengths.py"
expect("510-line source without a reason", L, {"src/big.cpp": source(510, ["// Big: a table."])}, 1,
       "src/big.cpp is 510 lines")
expect("510-line source saying 'Over 500 lines: ...' on line 2", L,
       {"src/big.cpp": source(510, ["// Big: a table.", "// Over 500 lines: one table, read in one place."])}, 0)
expect("reason wrapped over two comment lines", L,
       {"src/big.cpp": source(510, ["// Big: a table, read in one place. Over 500",
                                    "// lines: the table's rows belong together."])}, 0)
expect("reason on line 20 is too late", L,
       {"src/big.cpp": source(510, ["// Big."] + ["#include <x>"] * 18 + ["// Over 500 lines: late."])}, 1,
       "src/big.cpp is 510 lines")
expect("reason in code, not in a comment, does not count", L,
       {"src/big.cpp": source(510, ['const char* s = "over 500 lines";'])}, 1, "src/big.cpp is 510 lines")
expect("600-line header under include/ without a reason", L,
       {"include/demo/big.hpp": source(600, ["#pragma once"])}, 1, "include/demo/big.hpp is 600 lines")
expect("500-line source needs no reason", L, {"src/big.cpp": source(500, ["// Big."])}, 0)

if failures:
    print(f"{len(failures)} self-test cases failed")
    sys.exit(1)
print("length lints: every self-test case behaved")
