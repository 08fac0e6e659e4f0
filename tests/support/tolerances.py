#!/usr/bin/env python3
"""The tolerance file of the validation checks (tests/tolerances.json), for the Python checks and
check_pipeline.sh, and the development / held-out split of their rows (docs/testing.md,
"Validation held out").

  python3 tests/support/tolerances.py NAME [KEY]     print a tolerance (its "tolerance", or KEY of it)
  python3 tests/support/tolerances.py --half ROW_ID  print the half a row id falls in

As a module: tolerance(name), half(row_id), and Held, which compares a row set's aggregates, per
half, with the baselines recorded for it and collects what got worse."""
import hashlib
import json
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATH = os.path.join(ROOT, "tests", "tolerances.json")
HALVES = ("all", "dev", "held-out")
_cache = {}


def load():
    if "doc" not in _cache:
        with open(PATH) as f:
            _cache["doc"] = json.load(f)
    return _cache["doc"]


def tolerance(name, key=None):
    """The tolerance called name (a number, or KEY of an object such as {"low", "high"})."""
    entry = load()["tolerances"].get(name)
    if entry is None:
        raise KeyError(f"{PATH}: no tolerance '{name}'")
    value = entry["tolerance"]
    return value[key] if key is not None else value


def half(row_id):
    """'dev' or 'held-out': the parity of the first byte of sha256(row_id). Fixed by the id alone,
    never by a row's error; a row keeps its half as long as its id does not change."""
    return "dev" if hashlib.sha256(row_id.encode("utf-8")).digest()[0] % 2 == 0 else "held-out"


def split(rows, key):
    """{'all': rows, 'dev': [...], 'held-out': [...]} with key(row) the row's id."""
    out = {"all": list(rows), "dev": [], "held-out": []}
    for r in rows:
        out[half(key(r))].append(r)
    return out


def median(values):
    return statistics.median(values) if values else None


class Held:
    """The baselines of one row set (tests/tolerances.json "baselines"/NAME): each metric, per half,
    may be worse than its recorded value by at most its slack (1 point for a percentage, 0 for a
    count). check() records what is over; failures() lists it."""

    def __init__(self, name):
        self.name = name
        entry = load()["baselines"].get(name)
        if entry is None:
            raise KeyError(f"{PATH}: no baselines '{name}'")
        self.metrics = entry["metrics"]
        self.over = []

    def check(self, which, values):
        """values: metric name -> this half's value (None when the half has no rows)."""
        for metric, value in values.items():
            spec = self.metrics.get(metric)
            if spec is None:
                raise KeyError(f"{PATH}: baselines '{self.name}' has no metric '{metric}'")
            base = spec.get(which)
            if base is None or value is None:
                continue
            slack = spec["slack"]
            worse = value - base if spec["worse"] == "higher" else base - value
            if worse > slack + 1e-9:
                self.over.append(f"{self.name} {which} {metric}: {value:g} against the baseline {base:g} "
                                 f"(worse by {worse:g}, slack {slack:g})")

    def failures(self):
        return list(self.over)


def finish(checks, enforce, script):
    """Prints every failure of the Held objects to stderr; exits 1 when enforce and any."""
    bad = [f for h in checks for f in h.failures()]
    for f in bad:
        print(f"{script}: worse than its baseline (tests/tolerances.json): {f}", file=sys.stderr)
    if enforce and bad:
        sys.exit(f"{script}: {len(bad)} aggregate(s) worse than the recorded baseline: " + "; ".join(bad))


def main(argv):
    if len(argv) == 2 and argv[0] == "--half":
        print(half(argv[1]))
        return 0
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    print(tolerance(argv[0], argv[1] if len(argv) == 2 else None))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
