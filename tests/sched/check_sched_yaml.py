#!/usr/bin/env python3
"""The YAML outputs of analyze --format slurm-topology-yaml|kueue|volcano, in the golden cases,
validate against their schemas in schema/ once loaded into JSON (python3-yaml, python3-jsonschema:
Debian packages). Exit 77 (skipped) when either module is missing.

usage: check_sched_yaml.py SOURCE_DIR
"""
import json
import pathlib
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:  # pragma: no cover
    print(f"skipped: {e} (apt-get install python3-yaml python3-jsonschema)")
    sys.exit(77)

FORMATS = {"slurm-topology-yaml": "slurm-topology-yaml", "kueue": "kueue", "volcano": "volcano"}


def main() -> int:
    src = pathlib.Path(sys.argv[1])
    checked = 0
    failed = 0
    for case in sorted((src / "tests" / "golden").iterdir()):
        args_file = case / "args"
        out_file = case / "expected.out"
        if not args_file.exists() or not out_file.exists():
            continue
        args = args_file.read_text().split("\n")
        fmt = next((args[i + 1] for i in range(len(args) - 1) if args[i] == "--format"), None)
        exit_file = case / "exit"
        if fmt not in FORMATS or (exit_file.exists() and exit_file.read_text().strip() != "0"):
            continue  # not a scheduler YAML format, or an error case
        schema = json.loads((src / "schema" / f"{FORMATS[fmt]}.schema.json").read_text())
        docs = [d for d in yaml.safe_load_all(out_file.read_text()) if d is not None]
        instance = docs[0] if fmt == "slurm-topology-yaml" else docs
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(instance))
        for e in errors[:5]:
            print(f"{case.name}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
        failed += bool(errors)
        checked += 1
    print(f"{checked} YAML outputs checked, {failed} failed")
    return 1 if failed or checked < 6 else 0


if __name__ == "__main__":
    sys.exit(main())
